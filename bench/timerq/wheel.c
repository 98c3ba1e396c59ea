/* SPDX-License-Identifier: MIT */
/* Hierarchical timing wheel: see wheel.h for the ordering it gives.
 *
 * Placement: an entry due at tick t goes to the level of the highest 6-bit
 * group in which t differs from q->now, in the slot given by t's group at
 * that level. So every entry of a level shares the higher groups with now
 * and lies ahead of it: the lowest non-empty slot of the lowest non-empty
 * level holds the earliest entries, and no slot ever wraps around. When now
 * reaches a coarser slot, its entries are re-placed into finer levels, in
 * list order, which keeps arm order within each 1 ms bucket. */
#include "wheel.h"

#include <stddef.h>

#define TICK_NS 1000000u
#define BITS 6 /* log2 TQ_SLOTS */

/* The first tick at or after the deadline: never fire early. (A deadline
 * in the clock's last ms rounds past its end and never fires.) */
static inline uint64_t tick_of(uint64_t deadline)
{
    return deadline / TICK_NS + (deadline % TICK_NS != 0);
}

static void list_init(tq_link *h)
{
    h->next = h->prev = h;
}

static void place(tq *q, tq_entry *e)
{
    uint64_t t = tick_of(e->deadline);
    if (t < q->now)
        t = q->now; /* already due: the current bucket */
    unsigned level = (63 - (unsigned)__builtin_clzll((t ^ q->now) | (TQ_SLOTS - 1))) / BITS;
    unsigned s = (unsigned)(t >> (BITS * level)) & (TQ_SLOTS - 1);
    tq_link *h = &q->slot[level * TQ_SLOTS + s];
    e->link.next = h;
    e->link.prev = h->prev;
    h->prev->next = &e->link;
    h->prev = &e->link;
    q->busy[level] |= 1ull << s;
}

void tq_init(tq *q, uint64_t seed)
{
    (void)seed;
    q->now = 0;
    for (int l = 0; l < TQ_LEVELS; l++)
        q->busy[l] = 0;
    for (int i = 0; i < TQ_LEVELS * TQ_SLOTS; i++)
        list_init(&q->slot[i]);
}

void tq_fini(tq *q)
{
    (void)q;
}

int tq_insert(tq *q, tq_entry *e, uint64_t deadline)
{
    e->deadline = deadline;
    place(q, e);
    return 0;
}

void tq_remove(tq *q, tq_entry *e)
{
    tq_link *n = e->link.next, *p = e->link.prev;
    if (!n)
        return;
    n->prev = p;
    p->next = n;
    e->link.next = NULL;
    /* In a circular list with a sentinel, next == prev after unlinking only
     * when both are the sentinel: the slot just became empty. */
    if (n == p) {
        size_t i = (size_t)(n - q->slot);
        q->busy[i / TQ_SLOTS] &= ~(1ull << (i % TQ_SLOTS));
    }
}

/* The lowest non-empty level and slot, and the tick at which that slot
 * starts; false when the wheel is empty. */
static int first_slot(const tq *q, unsigned *level, unsigned *s, uint64_t *start)
{
    for (unsigned l = 0; l < TQ_LEVELS; l++) {
        if (q->busy[l]) {
            unsigned shift = BITS * (l + 1);
            *level = l;
            *s = (unsigned)__builtin_ctzll(q->busy[l]);
            *start = (q->now >> shift << shift) | (uint64_t)*s << (BITS * l);
            return 1;
        }
    }
    return 0;
}

uint64_t tq_next_deadline(const tq *q)
{
    unsigned level, s;
    uint64_t start;
    if (!first_slot(q, &level, &s, &start))
        return TQ_NEVER;
    return start > TQ_NEVER / TICK_NS ? TQ_NEVER : start * TICK_NS;
}

uint32_t tq_pop_due(tq *q, uint64_t now, tq_fire_fn *fire, void *arg)
{
    uint64_t target = now / TICK_NS;
    unsigned level, s;
    uint64_t start;
    uint32_t n = 0;
    while (first_slot(q, &level, &s, &start) && start <= target) {
        q->now = start;
        tq_link *h = &q->slot[level * TQ_SLOTS + s];
        if (level == 0) {
            /* One at a time: fire may arm or disarm entries, even here. */
            while (h->next != h) {
                tq_entry *e = (tq_entry *)h->next;
                tq_remove(q, e);
                fire(e, arg);
                n++;
            }
        } else {
            /* Move the slot down a level or more; re-placing never touches
             * this slot again, so its old chain stays walkable. */
            tq_link *l = h->next;
            list_init(h);
            q->busy[level] &= ~(1ull << s);
            while (l != h) {
                tq_link *next = l->next;
                place(q, (tq_entry *)l);
                l = next;
            }
        }
    }
    /* Nothing armed is due by target, so now may jump there: each entry
     * still shares its level's higher groups with it. */
    if (target > q->now)
        q->now = target;
    return n;
}
