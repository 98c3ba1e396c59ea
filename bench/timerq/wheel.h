/* SPDX-License-Identifier: MIT */
/* A hierarchical timing wheel with the interface of heap.h.
 *
 * Deadlines are ns; the wheel counts 1 ms ticks. 8 levels of 64 slots
 * (level L slot = 64^L ticks) cover every 64-bit ns deadline, so there is
 * no overflow list. Slots are circular doubly-linked lists with a sentinel:
 * insert appends, remove unlinks, both O(1). A 64-bit mask per level marks
 * non-empty slots, so finding the next slot is a few bit scans.
 *
 * Ordering guarantee: an entry fires at the first tq_pop_due whose now is
 * >= its deadline rounded up to the next whole ms (never early, up to 1 ms
 * late). Buckets fire in increasing ms; inside a bucket, in arm order (FIFO)
 * whatever their ns deadlines within that ms. The seed is ignored: the
 * wheel cannot shuffle ties. */
#ifndef TIMERQ_WHEEL_H
#define TIMERQ_WHEEL_H

#include <stdint.h>

#define TQ_IMPL "wheel"
#define TQ_NEVER UINT64_MAX
#define TQ_LEVELS 8
#define TQ_SLOTS 64

typedef struct tq_link {
    struct tq_link *next, *prev; /* next is NULL while unarmed */
} tq_link;

typedef struct tq_entry {
    tq_link link;      /* first: slot lists link entries by it */
    uint64_t deadline; /* ns */
} tq_entry;

typedef struct tq {
    uint64_t now;                   /* tick; every armed entry is due at or after it */
    uint64_t busy[TQ_LEVELS];       /* bit s: slot s of the level is non-empty */
    tq_link slot[TQ_LEVELS * TQ_SLOTS]; /* flat, so a sentinel's index is its place */
} tq;

typedef void tq_fire_fn(tq_entry *e, void *arg);

void tq_init(tq *q, uint64_t seed);
void tq_fini(tq *q);
/* Arms e (which must be unarmed); always 0. */
int tq_insert(tq *q, tq_entry *e, uint64_t deadline);
/* Disarms e; nothing if it is not armed. */
void tq_remove(tq *q, tq_entry *e);
/* When tq_pop_due next has work: the ms at which the earliest bucket fires,
 * or, when the earliest entries still sit in a coarser level, the earlier
 * time at which they move down (a lower bound); TQ_NEVER when empty. */
uint64_t tq_next_deadline(const tq *q);
/* Disarms and fires every entry whose bucket is due at now, bucket by
 * bucket, FIFO within one; returns how many. */
uint32_t tq_pop_due(tq *q, uint64_t now, tq_fire_fn *fire, void *arg);

#endif
