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

#define WA_NS(x) ((uint64_t)(x))
#define WA_US(x) ((uint64_t)(x) * 1000u)
#define WA_MS(x) ((uint64_t)(x) * 1000000u)
#define WA_SEC(x) ((uint64_t)(x) * 1000000000u)

/* The runtime's current time: read from the backend at most once per tick
 * and cached, so that many timers armed in one tick cost one clock read. */
uint64_t wa_now(wa_rt *rt);

/* A timer entry, embedded in the futures that wait on time. Private. */
typedef struct wa_timer {
    uint64_t deadline;
    wa_rt *rt;     /* set while armed */
    wa_waker waker;
    uint32_t slot; /* heap index + 1; 0 unarmed */
    uint32_t tie;  /* order among equal deadlines */
} wa_timer;

/* A sleep: ready (status 0) at a deadline. Dropping it disarms its timer in
 * O(log n). */
typedef struct wa_sleep {
    wa_future fut;
    wa_timer timer;
    uint64_t arg;  /* the duration, or the deadline */
    int state;
} wa_sleep;

/* Initialises s to sleep for ns from its first poll; returns the future. */
wa_future *wa_sleep_init(wa_sleep *s, uint64_t ns);

/* Initialises s to sleep until the absolute deadline (wa_now's clock). */
wa_future *wa_sleep_until(wa_sleep *s, uint64_t deadline);

/* Runs inner (taken) with a deadline ns after the first poll: the status is
 * inner's, or WA_ETIMEDOUT after dropping inner when time runs out first. */
typedef struct wa_timeout {
    wa_future fut;
    wa_future *inner; /* NULL once dropped */
    wa_sleep sleep;
} wa_timeout;
wa_future *wa_timeout_init(wa_timeout *t, wa_future *inner, uint64_t ns);

/* A periodic clock. Await wa_interval_tick(iv) for each tick: the first is
 * ready at once, then one every period. When the owner was busy past a
 * tick, one late tick is ready at once and the next keeps the phase (missed
 * ticks are not replayed). Drop with wa_interval_drop. */
typedef struct wa_interval {
    wa_future fut; /* the tick future */
    wa_timer timer;
    uint64_t period;
    uint64_t next; /* 0 until the first tick */
} wa_interval;

void wa_interval_init(wa_interval *iv, uint64_t period);
wa_future *wa_interval_tick(wa_interval *iv);
void wa_interval_drop(wa_interval *iv);

#ifdef __cplusplus
}
#endif
#endif
