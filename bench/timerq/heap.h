/* SPDX-License-Identifier: MIT */
/* A standalone copy of the runtime's timer queue (src/core/timer.c): a 4-ary
 * min-heap of pointers to entries embedded in their owners, ordered by
 * (deadline, tie). Each entry knows its slot, so removal is O(log n).
 * Same interface as wheel.h, so one driver builds against either. */
#ifndef TIMERQ_HEAP_H
#define TIMERQ_HEAP_H

#include <stdint.h>

#define TQ_IMPL "heap"
#define TQ_NEVER UINT64_MAX

typedef struct tq_entry {
    uint64_t deadline; /* ns */
    uint32_t slot;     /* heap index + 1; 0 unarmed */
    uint32_t tie;      /* order among equal deadlines */
} tq_entry;

typedef struct tq {
    tq_entry **heap;
    uint32_t len, cap;
    uint32_t seq;  /* arm counter: FIFO ties */
    uint64_t seed; /* nonzero: ties shuffled reproducibly (the sim backend) */
} tq;

typedef void tq_fire_fn(tq_entry *e, void *arg);

void tq_init(tq *q, uint64_t seed);
void tq_fini(tq *q);
/* Arms e (which must be unarmed); 0, or -1 when out of memory. */
int tq_insert(tq *q, tq_entry *e, uint64_t deadline);
/* Disarms e; nothing if it is not armed. */
void tq_remove(tq *q, tq_entry *e);
/* The earliest deadline, exact; TQ_NEVER when empty. */
uint64_t tq_next_deadline(const tq *q);
/* Disarms and fires, in (deadline, tie) order, every entry with
 * deadline <= now; returns how many. */
uint32_t tq_pop_due(tq *q, uint64_t now, tq_fire_fn *fire, void *arg);

#endif
