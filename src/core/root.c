/* SPDX-License-Identifier: MIT */
/* The futures of the tasks the executor spawns for block_on and for the
 * library itself (rt.h), told from the program's by their vtables: here,
 * below the executors that spawn them and the dumps and reports that name
 * them, so that none of those reads the others' data. */
#include "rt.h"

static int wa__root_poll(wa_future *f, wa_cx *cx) { return wa_poll(((wa__root *)f)->inner, cx); }
static void wa__root_drop(wa_future *f) { wa_drop(((wa__root *)f)->inner); }
const wa_future_vt wa__root_vt = {wa__root_poll, wa__root_drop, "block_on"};

static void wa__internal_drop(wa_future *f)
{
    wa__internal *w = (wa__internal *)f;
    wa_drop(w->root.inner);
    __atomic_sub_fetch(&w->rt->internal, 1, __ATOMIC_RELAXED);
}

const wa_future_vt wa__internal_vt = {wa__root_poll, wa__internal_drop, "internal"};
