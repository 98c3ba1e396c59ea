/* SPDX-License-Identifier: MIT */
/* The runtime's clock: the backend's, read at most once a tick. Every
 * executor reads it (the local one around its waits, the many-threads
 * one's workers), so it is a file of its own below them. */
#include "rt.h"

uint64_t wa__now_fresh(wa_rt *rt)
{
    rt->now = rt->backend->vt->now(rt->backend);
    rt->now_fresh = 1;
    return rt->now;
}

uint64_t wa_now(wa_rt *rt) { return rt->now_fresh ? rt->now : wa__now_fresh(rt); }
