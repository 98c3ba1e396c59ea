/* SPDX-License-Identifier: MIT */
/* The runtime's 4-ary heap (src/core/timer.c), minus wakers: the same
 * layout, comparisons, growth and sift loops, so its costs carry over. */
#include "heap.h"

#include <stdbool.h>
#include <stdlib.h>

static inline bool before(const tq_entry *a, const tq_entry *b)
{
    return a->deadline < b->deadline || (a->deadline == b->deadline && a->tie < b->tie);
}

static inline void put(tq *q, uint32_t i, tq_entry *e)
{
    q->heap[i] = e;
    e->slot = i + 1;
}

static void up(tq *q, uint32_t i, tq_entry *e)
{
    while (i > 0) {
        uint32_t p = (i - 1) / 4;
        if (!before(e, q->heap[p]))
            break;
        put(q, i, q->heap[p]);
        i = p;
    }
    put(q, i, e);
}

static void down(tq *q, uint32_t i, tq_entry *e)
{
    uint32_t n = q->len;
    for (;;) {
        uint32_t c = 4 * i + 1, end = c + 4 < n ? c + 4 : n, best = i;
        tq_entry *be = e;
        for (; c < end; c++) {
            if (before(q->heap[c], be)) {
                best = c;
                be = q->heap[c];
            }
        }
        if (best == i)
            break;
        put(q, i, be);
        i = best;
    }
    put(q, i, e);
}

/* The runtime's reproducible shuffle of equal deadlines. */
static uint32_t tie_mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (uint32_t)x;
}

void tq_init(tq *q, uint64_t seed)
{
    *q = (tq){.seed = seed};
}

void tq_fini(tq *q)
{
    free(q->heap);
    *q = (tq){0};
}

int tq_insert(tq *q, tq_entry *e, uint64_t deadline)
{
    if (q->len == q->cap) {
        uint32_t cap = q->cap ? q->cap * 2 : 64;
        tq_entry **h = realloc(q->heap, cap * sizeof *h);
        if (!h)
            return -1;
        q->heap = h;
        q->cap = cap;
    }
    uint32_t seq = q->seq++;
    e->deadline = deadline;
    e->tie = q->seed ? tie_mix(seq ^ q->seed) : seq;
    up(q, q->len++, e);
    return 0;
}

static void remove_at(tq *q, uint32_t i)
{
    tq_entry *last = q->heap[--q->len];
    if (i == q->len)
        return;
    if (i > 0 && before(last, q->heap[(i - 1) / 4]))
        up(q, i, last);
    else
        down(q, i, last);
}

void tq_remove(tq *q, tq_entry *e)
{
    if (e->slot) {
        remove_at(q, e->slot - 1);
        e->slot = 0;
    }
}

uint64_t tq_next_deadline(const tq *q)
{
    return q->len ? q->heap[0]->deadline : TQ_NEVER;
}

uint32_t tq_pop_due(tq *q, uint64_t now, tq_fire_fn *fire, void *arg)
{
    uint32_t n = 0;
    while (q->len && q->heap[0]->deadline <= now) {
        tq_entry *e = q->heap[0];
        remove_at(q, 0);
        e->slot = 0;
        fire(e, arg);
        n++;
    }
    return n;
}
