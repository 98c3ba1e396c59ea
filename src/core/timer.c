/* The runtime's timer queue: a 4-ary min-heap of timer entries embedded in
 * the futures that wait, ordered by (deadline, tie). Each entry knows its
 * slot, so disarming is O(log n); firing pops due entries and wakes them.
 * A 4-ary heap is shallower than a binary one and its children share cache
 * lines, which matters with 10^5 timers. */
#include <stdlib.h>

#include "rt.h"

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

int wa_timer_arm_(wa_rt *rt, wa_timer *tm, uint64_t deadline, const wa_cx *cx)
{
    if (rt->heap_len == rt->heap_cap) {
        uint32_t cap = rt->heap_cap ? rt->heap_cap * 2 : 64;
        wa_timer **h = realloc(rt->heap, cap * sizeof *h);
        if (!h)
            return WA_ENOMEM;
        rt->heap = h;
        rt->heap_cap = cap;
    }
    uint32_t seq = rt->timer_seq++;
    tm->deadline = deadline;
    tm->tie = rt->backend->seed ? wa_tie_mix(seq ^ rt->backend->seed) : seq;
    tm->rt = rt;
    tm->waker = wa_waker_clone(&cx->waker);
    wa_heap_up(rt, rt->heap_len++, tm);
    return 0;
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
    if (tm->slot) {
        wa_heap_remove(tm->rt, tm->slot - 1);
        tm->slot = 0;
    }
    wa_waker_drop(&tm->waker);
}

void wa_timers_fire_(wa_rt *rt)
{
    uint64_t now = wa_now(rt);
    while (rt->heap_len && rt->heap[0]->deadline <= now) {
        wa_timer *tm = rt->heap[0];
        wa_heap_remove(rt, 0);
        tm->slot = 0;
        wa_waker_wake(&tm->waker);
    }
}
