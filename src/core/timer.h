/* SPDX-License-Identifier: MIT */
/* Internal: the runtime's timer queue (timer.c). It reads no clock: the
 * executor, which keeps the clock cache, passes the time in. */
#ifndef WASYNC_CORE_TIMER_H
#define WASYNC_CORE_TIMER_H

#include "rt.h"

/* A timer slot that is an index into rt->arming, not the heap. */
#define WA__TIMER_ARMING (1u << 31)
/* Arms tm for deadline with a clone of cx's waker: 0 or WA_ENOMEM. */
int wa__timer_arm(wa_rt *rt, wa__timer *tm, uint64_t deadline, const wa_cx *cx);
/* Arms tm for ns after the clock read that commits it (wa__timers_commit,
 * after the poll that armed it): 0 or WA_ENOMEM. */
int wa__timer_arm_in(wa_rt *rt, wa__timer *tm, uint64_t ns, const wa_cx *cx);
/* Moves the arming timers into the heap, their deadlines counted from now,
 * a fresh clock read. */
void wa__timers_commit(wa_rt *rt, uint64_t now);
/* True if tm, armed, has fired; else stores cx's waker in it. */
bool wa__timer_poll(wa__timer *tm, const wa_cx *cx);
/* Disarms tm if armed and drops its waker. */
void wa__timer_disarm(wa__timer *tm);
/* Wakes the timers due at now, taking them out of the heap. */
void wa__timers_fire(wa_rt *rt, uint64_t now);

static inline uint64_t wa__timers_next(const wa_rt *rt)
{
    return rt->heap_len ? rt->heap[0]->deadline : WA_NEVER;
}

#endif
