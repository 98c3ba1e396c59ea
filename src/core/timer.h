/* SPDX-License-Identifier: MIT */
/* Internal: the runtime's timer queue (timer.c). It reads no clock: the
 * executor, which keeps the clock cache, passes the time in. */
#ifndef WASYNC_CORE_TIMER_H
#define WASYNC_CORE_TIMER_H

#include "rt.h"

/* A timer slot that is an index into rt->arming, not the heap. */
#define WA_TIMER_ARMING (1u << 31)
/* Arms tm for deadline with a clone of cx's waker: 0 or WA_ENOMEM. */
int wa_timer_arm_(wa_rt *rt, wa_timer *tm, uint64_t deadline, const wa_cx *cx);
/* Arms tm for ns after the clock read that commits it (wa_timers_commit_,
 * after the poll that armed it): 0 or WA_ENOMEM. */
int wa_timer_arm_in_(wa_rt *rt, wa_timer *tm, uint64_t ns, const wa_cx *cx);
/* Moves the arming timers into the heap, their deadlines counted from now,
 * a fresh clock read. */
void wa_timers_commit_(wa_rt *rt, uint64_t now);
/* True if tm, armed, has fired; else stores cx's waker in it. */
bool wa_timer_poll_(wa_timer *tm, const wa_cx *cx);
/* Disarms tm if armed and drops its waker. */
void wa_timer_disarm_(wa_timer *tm);
/* Wakes the timers due at now, taking them out of the heap. */
void wa_timers_fire_(wa_rt *rt, uint64_t now);

static inline uint64_t wa_timers_next_(const wa_rt *rt)
{
    return rt->heap_len ? rt->heap[0]->deadline : WA_NEVER;
}

#endif
