/* SPDX-License-Identifier: MIT */
/* timerq-check-{heap,wheel}: random arms, disarms and clock jumps against a
 * model. Every firing must match the documented order (heap: deadline then
 * arm order; wheel: ms bucket then arm order), and next_deadline must be
 * the earliest firing (heap), or not later than it or than now (wheel).
 * Exits 1 on the first mismatch. */
#include <stdio.h>
#include <stdlib.h>

#ifdef TQ_WHEEL
#include "wheel.h"
/* The ms bucket; an entry armed already due joins the current one. */
#define TICK(d) ((d) / 1000000u + ((d) % 1000000u != 0))
#define KEY(d, now) (TICK(d) > (now) / 1000000u ? TICK(d) : (now) / 1000000u)
#define KEY_NS(k) ((k) > UINT64_MAX / 1000000u ? UINT64_MAX : (k) * 1000000u)
#define EXACT_NEXT 0 /* a lower bound: see wheel.h */
#else
#include "heap.h"
#define KEY(d, now) (d)
#define KEY_NS(k) (k)
#define EXACT_NEXT 1
#endif

#define ITEMS 512
/* The clock stops a ms short of its end, where the wheel's ms buckets
 * run out (see tick_of in wheel.c); then the queue starts over. */
#define END (UINT64_MAX - 1000000u)

typedef struct item {
    tq_entry tm; /* first: an entry pointer is its item's */
    uint64_t key, seq; /* the model's firing order */
    int armed;
} item;

static item items[ITEMS];
static uint64_t rng = 42, seq;
static item *fired[ITEMS];
static unsigned nfired;
static uint64_t total;

static uint64_t splitmix64(void)
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void on_fire(tq_entry *e, void *arg)
{
    (void)arg;
    fired[nfired++] = (item *)e;
    total++;
}

static int earlier(const item *a, const item *b)
{
    return a->key < b->key || (a->key == b->key && a->seq < b->seq);
}

/* A delay from a mix of scales, so that every level and the past are hit. */
static uint64_t delay(void)
{
    static const uint64_t scale[] = {1000, 1000000, 64000000, 4096000000ull, 1ull << 50, UINT64_MAX};
    return splitmix64() % scale[splitmix64() % 6];
}

int main(void)
{
    tq q;
    tq_init(&q, 0);
    uint64_t now = 0;
    for (long step = 0; step < 2000000; step++) {
        item *it = &items[splitmix64() % ITEMS];
        switch (splitmix64() % 4) {
        case 0:
        case 1: /* arm, possibly in the past */
            if (it->armed)
                break;
            uint64_t d = delay(), back = splitmix64() % 3000000;
            uint64_t deadline = d > UINT64_MAX - now ? UINT64_MAX : now + d;
            deadline = splitmix64() % 8 ? deadline : (now > back ? now - back : 0);
            it->key = KEY(deadline, now);
            it->seq = seq++;
            it->armed = 1;
            tq_insert(&q, &it->tm, deadline);
            break;
        case 2:
            tq_remove(&q, &it->tm);
            it->armed = 0;
            break;
        case 3: { /* jump the clock, fire, compare with the model */
            uint64_t next = tq_next_deadline(&q), was = now;
            uint64_t jump = splitmix64() % 8 ? splitmix64() % 3000000 : delay() / 64;
            now = jump > END - now ? END : now + jump;
            nfired = 0;
            tq_pop_due(&q, now, on_fire, NULL);
            unsigned due = 0;
            const item *first = NULL;
            for (int i = 0; i < ITEMS; i++) {
                item *m = &items[i];
                if (!m->armed)
                    continue;
                if (!first || earlier(m, first))
                    first = m;
                due += KEY_NS(m->key) <= now;
            }
            /* An entry armed in the past is due at once: "now" is exact. */
            uint64_t bound = first ? KEY_NS(first->key) : UINT64_MAX;
            if (next > (bound > was ? bound : was) || (EXACT_NEXT && next != bound)) {
                printf("step %ld: next_deadline %llu, earliest %llu\n", step,
                       (unsigned long long)next, (unsigned long long)bound);
                return 1;
            }
            if (nfired != due) {
                printf("step %ld: fired %u, %u due, now %llu\n", step, nfired, due, (unsigned long long)now);
                return 1;
            }
            for (unsigned i = 0; i < nfired; i++) {
                if (!fired[i]->armed || (i && !earlier(fired[i - 1], fired[i]))) {
                    printf("step %ld: firing %u out of order\n", step, i);
                    return 1;
                }
                fired[i]->armed = 0;
            }
            if (now == END) {
                for (int i = 0; i < ITEMS; i++) {
                    tq_remove(&q, &items[i].tm);
                    items[i].armed = 0;
                }
                if (tq_next_deadline(&q) != TQ_NEVER) {
                    printf("step %ld: not empty after disarming all\n", step);
                    return 1;
                }
                tq_fini(&q);
                tq_init(&q, 0);
                now = 0;
            }
            break;
        }
        }
    }
    printf("impl=%s check ok: %llu firings\n", TQ_IMPL, (unsigned long long)total);
    tq_fini(&q);
    return 0;
}
