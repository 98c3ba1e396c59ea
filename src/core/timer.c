/* SPDX-License-Identifier: MIT */
/* The runtime's timer queue: a 4-ary min-heap of timer entries embedded in
 * the futures that wait, ordered by (deadline, tie). Each entry knows its
 * slot, so disarming is O(log n); firing pops due entries and wakes them.
 * A 4-ary heap is shallower than a binary one and its children share cache
 * lines, which matters with 10^5 timers. */
#include <stdlib.h>

#include "grow.h"
#include "timer.h"

static inline bool wa__timer_before(const wa__timer *a, const wa__timer *b)
{
    return a->deadline < b->deadline || (a->deadline == b->deadline && a->tie < b->tie);
}

static inline void wa__heap_put(wa_rt *rt, uint32_t i, wa__timer *tm)
{
    rt->heap[i] = tm;
    tm->slot = i + 1;
}

static void wa__heap_up(wa_rt *rt, uint32_t i, wa__timer *tm)
{
    while (i > 0) {
        uint32_t p = (i - 1) / 4;
        if (!wa__timer_before(tm, rt->heap[p]))
            break;
        wa__heap_put(rt, i, rt->heap[p]);
        i = p;
    }
    wa__heap_put(rt, i, tm);
}

static void wa__heap_down(wa_rt *rt, uint32_t i, wa__timer *tm)
{
    uint32_t n = rt->heap_len;
    for (;;) {
        uint32_t c = 4 * i + 1, end = c + 4 < n ? c + 4 : n, best = i;
        wa__timer *bt = tm;
        for (; c < end; c++) {
            if (wa__timer_before(rt->heap[c], bt)) {
                best = c;
                bt = rt->heap[c];
            }
        }
        if (best == i)
            break;
        wa__heap_put(rt, i, bt);
        i = best;
    }
    wa__heap_put(rt, i, tm);
}

/* A reproducible shuffle of equal deadlines for the sim backend. */
static uint32_t wa__tie_mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (uint32_t)x;
}

/* Grows the array *a of *cap timer pointers (doubling, from first) until it
 * holds need (a heap index is 32 bits). Returns 0 or WA_ENOMEM. */
static int wa__timers_grow(wa__timer ***a, size_t *cap, size_t need, size_t first)
{
    return wa__grow(a, sizeof **a, cap, need, first, UINT32_MAX);
}

/* Makes room for one more timer in the heap, counting those still arming,
 * so that committing them cannot fail. */
static int wa__heap_reserve(wa_rt *rt)
{
    return wa__timers_grow(&rt->heap, &rt->heap_cap, rt->heap_len + rt->arming_len + 1, 64);
}

/* The common part of arming: the entry's owner, waker and tie (its slot
 * set already if it is an arming one). */
static void wa__timer_take(wa_rt *rt, wa__timer *tm, uint64_t deadline, const wa_cx *cx)
{
    uint32_t seq = rt->timer_seq++;
    tm->deadline = deadline;
    tm->tie = rt->backend->seed ? wa__tie_mix(seq ^ rt->backend->seed) : seq;
    tm->rt = rt;
    tm->waker = wa_waker_clone(&cx->waker);
    const wa__why_hooks *why = __atomic_load_n(&wa__rt_home(rt)->why, __ATOMIC_RELAXED);
    if (why)
        why->armed(tm);
}

/* Each call below that changes the queue holds its lock (a worker's
 * timers, mt.c; nothing on the local executor). */

int wa__timer_arm(wa_rt *rt, wa__timer *tm, uint64_t deadline, const wa_cx *cx)
{
    wa__timers_lock(rt);
    int rc = wa__heap_reserve(rt);
    if (rc == 0) {
        wa__timer_take(rt, tm, deadline, cx);
        wa__heap_up(rt, rt->heap_len++, tm);
    }
    wa__timers_unlock(rt);
    return rc;
}

int wa__timer_arm_in(wa_rt *rt, wa__timer *tm, uint64_t ns, const wa_cx *cx)
{
    wa__timers_lock(rt);
    int rc = wa__timers_grow(&rt->arming, &rt->arming_cap, rt->arming_len + 1, 16) < 0 ? WA_ENOMEM
                                                                                       : wa__heap_reserve(rt);
    if (rc == 0) {
        tm->slot = WA__TIMER_ARMING | rt->arming_len;
        wa__timer_take(rt, tm, ns, cx);
        rt->arming[rt->arming_len++] = tm;
    }
    wa__timers_unlock(rt);
    return rc;
}

bool wa__timer_poll(wa__timer *tm, const wa_cx *cx)
{
    wa__timers_lock(tm->rt);
    bool fired = tm->slot == 0;
    if (!fired)
        wa_waker_store(&tm->waker, cx);
    wa__timers_unlock(tm->rt);
    return fired;
}

void wa__timers_commit(wa_rt *rt, uint64_t now)
{
    wa__timers_lock(rt);
    uint64_t res = rt->backend->resolution;
    for (uint32_t i = 0; i < rt->arming_len; i++) {
        wa__timer *tm = rt->arming[i];
        uint64_t d = wa__add_sat(now, tm->deadline);
        if (res > 1 && d % res) /* up, never early: to the host's granularity */
            d = wa__add_sat(d, res - d % res);
        tm->deadline = d;
        wa__heap_up(rt, rt->heap_len++, tm);
    }
    rt->arming_len = 0;
    wa__timers_unlock(rt);
}

static void wa__heap_remove(wa_rt *rt, uint32_t i)
{
    wa__timer *last = rt->heap[--rt->heap_len];
    if (i == rt->heap_len)
        return;
    if (i > 0 && wa__timer_before(last, rt->heap[(i - 1) / 4]))
        wa__heap_up(rt, i, last);
    else
        wa__heap_down(rt, i, last);
}

void wa__timer_disarm(wa__timer *tm)
{
    wa_rt *rt = tm->rt;
    wa__timers_lock(rt);
    if (tm->slot & WA__TIMER_ARMING) { /* not committed yet: swap out the last */
        uint32_t i = tm->slot & ~WA__TIMER_ARMING;
        wa__timer *last = rt->arming[--rt->arming_len];
        rt->arming[i] = last;
        last->slot = WA__TIMER_ARMING | i;
    } else if (tm->slot) {
        wa__heap_remove(rt, tm->slot - 1);
    }
    tm->slot = 0;
    wa_waker w = tm->waker;
    tm->waker = (wa_waker){NULL, NULL};
    wa__timers_unlock(rt);
    wa_waker_drop(&w);
}

void wa__timers_fire(wa_rt *rt, uint64_t now)
{
    const wa__why_hooks *why = __atomic_load_n(&wa__rt_home(rt)->why, __ATOMIC_RELAXED);
    wa__timers_lock(rt);
    while (rt->heap_len && rt->heap[0]->deadline <= now) {
        wa__timer *tm = rt->heap[0];
        wa__heap_remove(rt, 0);
        tm->slot = 0;
        /* (a task waker only queues: it takes no timer lock) */
        if (why) {
            why->fired(tm);
            continue;
        }
        wa_waker w = tm->waker;
        tm->waker = (wa_waker){NULL, NULL};
        wa_waker_wake(&w);
    }
    wa__timers_unlock(rt);
}
