/* SPDX-License-Identifier: MIT */
/* wasync/time.h - time, sleeps, timeouts and intervals.
 *
 * Times are monotonic nanoseconds from the backend's clock. All timers of a
 * runtime live in one queue (a 4-ary heap) inside the runtime; the backend
 * only ever sees the earliest deadline.
 */
#ifndef WASYNC_TIME_H
#define WASYNC_TIME_H

#include "future.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A deadline or duration that never comes. */
#define WA_NEVER UINT64_MAX

/* Durations in nanoseconds. A duration too large for 64 bits saturates to
 * WA_NEVER (x is evaluated twice; constant x gives a constant). */
#define WA_NS(x) ((uint64_t)(x))
#define WA__DUR(x, unit) ((uint64_t)(x) > WA_NEVER / (unit) ? WA_NEVER : (uint64_t)(x) * (unit))
/* x microseconds. */
#define WA_US(x) WA__DUR(x, 1000u)
/* x milliseconds. */
#define WA_MS(x) WA__DUR(x, 1000000u)
/* x seconds. */
#define WA_SEC(x) WA__DUR(x, 1000000000u)

/* The runtime's current time, cached: read from the backend at the start
 * of a tick (and after a poll that armed relative timers), so that many
 * tasks reading it cost one clock read. Within a long tick it lags behind
 * the clock; relative sleeps and timeouts do not depend on it. */
uint64_t wa_now(wa_rt *rt);

/* A timer entry, embedded in the futures that wait on time. Private. */
typedef struct wa__timer {
    uint64_t deadline; /* (the duration, until the arm is committed) */
    wa_rt *rt;     /* set while armed */
    wa_waker waker;
    uint32_t slot; /* heap index + 1, or an arming slot; 0 unarmed */
    uint32_t tie;  /* order among equal deadlines */
} wa__timer;

/* A sleep: ready (status 0) at a deadline. Dropping it disarms its timer in
 * O(log n). A duration or deadline of WA_NEVER never fires. */
typedef struct wa_sleep {
    wa_future fut; /* its vtable is its state (sleep.c) */
    wa__timer timer; /* deadline: the duration or the deadline, until armed */
} wa_sleep;

/* Initialises s to sleep for at least ns from its first poll (measured
 * from the clock read after that poll, never from a stale tick time);
 * returns the future. */
wa_future *wa_sleep_init(wa_sleep *s, uint64_t ns);

/* Initialises s to sleep until the absolute deadline (wa_now's clock); a
 * deadline already past fires at the next tick, in deadline order with the
 * other due timers. Returns the future. */
wa_future *wa_sleep_until_init(wa_sleep *s, uint64_t deadline);

/* Runs inner (taken) with a deadline at least ns after the first poll (as
 * wa_sleep_init; WA_NEVER: no deadline): the status is inner's, or
 * WA_ETIMEDOUT after dropping inner when time runs out first. */
typedef struct wa_timeout {
    wa_future fut;
    wa_future *inner; /* NULL once dropped */
    wa_sleep sleep;
} wa_timeout;
/* Initialises t over inner (taken), ns at most; returns the future. */
wa_future *wa_timeout_init(wa_timeout *t, wa_future *inner, uint64_t ns);

/* The same with an absolute deadline (wa_now's clock; WA_NEVER: none). */
wa_future *wa_timeout_until_init(wa_timeout *t, wa_future *inner, uint64_t deadline);

/* A periodic clock. Await wa_interval_tick(iv) for each tick: the first is
 * ready at once, then one every period (WA_NEVER: no second tick). When
 * the owner was busy past a tick, one late tick is ready at once and the
 * next keeps the phase (missed ticks are not replayed). Drop with
 * wa_interval_drop. */
typedef struct wa_interval {
    wa_future fut; /* the tick future */
    wa__timer timer;
    uint64_t period;
    uint64_t next; /* 0 until the first tick */
} wa_interval;

/* Initialises iv to tick every period ns. */
void wa_interval_init(wa_interval *iv, uint64_t period);
/* The next tick's future, inside iv (awaiting it does not drop iv). */
wa_future *wa_interval_tick(wa_interval *iv);
/* Disarms iv's timer. */
void wa_interval_drop(wa_interval *iv);

#ifdef __cplusplus
}
#endif
#endif
