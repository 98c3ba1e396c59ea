/* SPDX-License-Identifier: MIT */
/* The futures of the tasks the executor spawns for block_on and for the
 * library itself (rt.h), told from the program's by their vtables: here,
 * below the executors that spawn them and the dumps and reports that name
 * them, so that none of those reads the others' data. */
#include "rt.h"

static int wa_root_poll(wa_future *f, wa_cx *cx) { return wa_poll(((wa_root *)f)->inner, cx); }
static void wa_root_drop(wa_future *f) { wa_drop(((wa_root *)f)->inner); }
const wa_future_vt wa_root_vt_ = {wa_root_poll, wa_root_drop, "block_on"};

static void wa_internal_drop(wa_future *f)
{
    wa_internal *w = (wa_internal *)f;
    wa_drop(w->root.inner);
    __atomic_sub_fetch(&w->rt->internal, 1, __ATOMIC_RELAXED);
}

const wa_future_vt wa_internal_vt_ = {wa_root_poll, wa_internal_drop, "internal"};
