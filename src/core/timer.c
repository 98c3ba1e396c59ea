/* SPDX-License-Identifier: MIT */
/* The runtime's timer queue: a 4-ary min-heap of timer entries embedded in
 * the futures that wait, ordered by (deadline, tie). Each entry knows its
 * slot, so disarming is O(log n); firing pops due entries and wakes them.
 * A 4-ary heap is shallower than a binary one and its children share cache
 * lines, which matters with 10^5 timers. */
#include <stdlib.h>

#include "grow.h"
#include "timer.h"

static inline bool wa_timer_before(const wa_timer *a, const wa_timer *b)
{
    return a->deadline < b->deadline || (a->deadline == b->deadline && a->tie < b->tie);
}

static inline void wa_heap_put(wa_rt *rt, uint32_t i, wa_timer *tm)
{
    rt->heap[i] = tm;
    tm->slot = i + 1;
}

static void wa_heap_up(wa_rt *rt, uint32_t i, wa_timer *tm)
{
    while (i > 0) {
        uint32_t p = (i - 1) / 4;
        if (!wa_timer_before(tm, rt->heap[p]))
            break;
        wa_heap_put(rt, i, rt->heap[p]);
        i = p;
    }
    wa_heap_put(rt, i, tm);
}

static void wa_heap_down(wa_rt *rt, uint32_t i, wa_timer *tm)
{
    uint32_t n = rt->heap_len;
    for (;;) {
        uint32_t c = 4 * i + 1, end = c + 4 < n ? c + 4 : n, best = i;
        wa_timer *bt = tm;
        for (; c < end; c++) {
            if (wa_timer_before(rt->heap[c], bt)) {
                best = c;
                bt = rt->heap[c];
            }
        }
        if (best == i)
            break;
        wa_heap_put(rt, i, bt);
        i = best;
    }
    wa_heap_put(rt, i, tm);
}

/* A reproducible shuffle of equal deadlines for the sim backend. */
static uint32_t wa_tie_mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (uint32_t)x;
}

/* Grows the array *a of *cap timer pointers (doubling, from first) until it
 * holds need (a heap index is 32 bits). Returns 0 or WA_ENOMEM. */
static int wa_timers_grow(wa_timer ***a, size_t *cap, size_t need, size_t first)
{
    return wa_grow_(a, sizeof **a, cap, need, first, UINT32_MAX);
}

/* Makes room for one more timer in the heap, counting those still arming,
 * so that committing them cannot fail. */
static int wa_heap_reserve(wa_rt *rt)
{
    return wa_timers_grow(&rt->heap, &rt->heap_cap, rt->heap_len + rt->arming_len + 1, 64);
}

/* The common part of arming: the entry's owner, waker and tie. */
static void wa_timer_take(wa_rt *rt, wa_timer *tm, uint64_t deadline, const wa_cx *cx)
{
    uint32_t seq = rt->timer_seq++;
    tm->deadline = deadline;
    tm->tie = rt->backend->seed ? wa_tie_mix(seq ^ rt->backend->seed) : seq;
    tm->rt = rt;
    tm->waker = wa_waker_clone(&cx->waker);
}

/* Each call below that changes the queue holds its lock (a worker's
 * timers, mt.c; nothing on the local executor). */

int wa_timer_arm_(wa_rt *rt, wa_timer *tm, uint64_t deadline, const wa_cx *cx)
{
    wa_timers_lock_(rt);
    int rc = wa_heap_reserve(rt);
    if (rc == 0) {
        wa_timer_take(rt, tm, deadline, cx);
        wa_heap_up(rt, rt->heap_len++, tm);
    }
    wa_timers_unlock_(rt);
    return rc;
}

int wa_timer_arm_in_(wa_rt *rt, wa_timer *tm, uint64_t ns, const wa_cx *cx)
{
    wa_timers_lock_(rt);
    int rc = wa_timers_grow(&rt->arming, &rt->arming_cap, rt->arming_len + 1, 16) < 0 ? WA_ENOMEM
                                                                                       : wa_heap_reserve(rt);
    if (rc == 0) {
        wa_timer_take(rt, tm, ns, cx);
        tm->slot = WA_TIMER_ARMING | rt->arming_len;
        rt->arming[rt->arming_len++] = tm;
    }
    wa_timers_unlock_(rt);
    return rc;
}

bool wa_timer_poll_(wa_timer *tm, const wa_cx *cx)
{
    wa_timers_lock_(tm->rt);
    bool fired = tm->slot == 0;
    if (!fired)
        wa_waker_store(&tm->waker, cx);
    wa_timers_unlock_(tm->rt);
    return fired;
}

void wa_timers_commit_(wa_rt *rt, uint64_t now)
{
    wa_timers_lock_(rt);
    uint64_t res = rt->backend->resolution;
    for (uint32_t i = 0; i < rt->arming_len; i++) {
        wa_timer *tm = rt->arming[i];
        uint64_t d = wa_add_sat_(now, tm->deadline);
        if (res > 1 && d % res) /* up, never early: to the host's granularity */
            d = wa_add_sat_(d, res - d % res);
        tm->deadline = d;
        wa_heap_up(rt, rt->heap_len++, tm);
    }
    rt->arming_len = 0;
    wa_timers_unlock_(rt);
}

static void wa_heap_remove(wa_rt *rt, uint32_t i)
{
    wa_timer *last = rt->heap[--rt->heap_len];
    if (i == rt->heap_len)
        return;
    if (i > 0 && wa_timer_before(last, rt->heap[(i - 1) / 4]))
        wa_heap_up(rt, i, last);
    else
        wa_heap_down(rt, i, last);
}

void wa_timer_disarm_(wa_timer *tm)
{
    wa_rt *rt = tm->rt;
    wa_timers_lock_(rt);
    if (tm->slot & WA_TIMER_ARMING) { /* not committed yet: swap out the last */
        uint32_t i = tm->slot & ~WA_TIMER_ARMING;
        wa_timer *last = rt->arming[--rt->arming_len];
        rt->arming[i] = last;
        last->slot = WA_TIMER_ARMING | i;
    } else if (tm->slot) {
        wa_heap_remove(rt, tm->slot - 1);
    }
    tm->slot = 0;
    wa_waker w = tm->waker;
    tm->waker = (wa_waker){NULL, NULL};
    wa_timers_unlock_(rt);
    wa_waker_drop(&w);
}

void wa_timers_fire_(wa_rt *rt, uint64_t now)
{
    wa_timers_lock_(rt);
    while (rt->heap_len && rt->heap[0]->deadline <= now) {
        wa_timer *tm = rt->heap[0];
        wa_heap_remove(rt, 0);
        tm->slot = 0;
        wa_waker w = tm->waker;
        tm->waker = (wa_waker){NULL, NULL};
        wa_waker_wake(&w); /* (a task waker only queues: it takes no timer lock) */
    }
    wa_timers_unlock_(rt);
}
