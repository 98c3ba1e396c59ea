/* SPDX-License-Identifier: MIT */
/* timerq-bench-{heap,wheel} WORKLOAD N: one line of key=value per run.
 *
 * The same driver is compiled against heap.h or wheel.h (-DTQ_WHEEL), so
 * calls are direct and entries have their native size in both builds.
 * Random numbers are splitmix64(42), drawn before the timed region.
 *
 *   insert_fire N    arm N timers due uniformly in [0, 100 ms], then step a
 *                    virtual clock 1 ms at a time firing what is due
 *                    (the runtime's `timers` benchmark); op = arm + fire
 *   insert_fire_ms N the same with whole-ms deadlines, as that benchmark
 *                    draws them (wa_now is cached per tick, so timers armed
 *                    together with one duration share a deadline)
 *   insert_cancel N  arm N timers due in [1 s, 2 s], disarm all in random
 *                    order (timeouts that never fire); op = arm + disarm
 *   churn N          10,000 timers stay armed; N times disarm a random one
 *                    and re-arm it at now + [1, 1000] ms; the clock steps
 *                    1 ms every 100 ops and what fires is re-armed too
 *                    (idle timeouts of a busy server); op = one re-arm
 *   next_deadline N  N timers due in [1 ms, 1 s]; op = one query
 *
 * checksum folds (id, firing time) order-independently: both builds must
 * print the same value (the wheel reorders within a ms, never across).
 * Under callgrind only the timed region is counted (client requests).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../region.h"

#ifdef TQ_WHEEL
#include "wheel.h"
#else
#include "heap.h"
#endif

#define MS 1000000ull
#define CHURN_ARMED 10000u

/* A timer lives inside a future (a wa_sleep is 64 bytes): one cache line
 * per item keeps memory traffic like the runtime's. tm comes first, so an
 * entry pointer is its item's pointer. */
typedef union item {
    struct {
        tq_entry tm;
        uint32_t id;
    };
    char line[64];
} item;

static uint64_t rng = 42;

static uint64_t splitmix64(void)
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [lo, hi]. */
static uint64_t uniform(uint64_t lo, uint64_t hi)
{
    return lo + splitmix64() % (hi - lo + 1);
}


static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fputs("out of memory\n", stderr);
        exit(1);
    }
    return p;
}

static void arm(tq *q, item *it, uint64_t deadline)
{
    if (tq_insert(q, &it->tm, deadline)) {
        fputs("out of memory\n", stderr);
        exit(1);
    }
}

typedef struct run {
    tq q;
    item *items;
    uint64_t now, fired, checksum;
    int rearm; /* churn: a fired timer is armed again at once */
} run;

static void on_fire(tq_entry *e, void *arg)
{
    run *r = arg;
    item *it = (item *)e;
    r->fired++;
    r->checksum += (it->id + 1ull) * (r->now / MS + 1);
    if (r->rearm) {
        /* A function of (id, now), not the rng: the builds fire a ms's
         * timers in different orders and must still do the same work. */
        uint64_t h = (it->id + 1ull) * 0x9e3779b97f4a7c15ull ^ r->now;
        arm(&r->q, it, r->now + MS + (h ^ h >> 29) % (999 * MS + 1));
    }
}

static void arm_and_fire(run *r, uint32_t n, uint64_t *due)
{
    region_begin();
    for (uint32_t i = 0; i < n; i++)
        arm(&r->q, &r->items[i], due[i]);
    for (r->now = 0; r->fired < n; r->now += MS)
        tq_pop_due(&r->q, r->now, on_fire, r);
    region_end();
    free(due);
}

static void insert_fire(run *r, uint32_t n)
{
    uint64_t *due = xmalloc(n * sizeof *due);
    for (uint32_t i = 0; i < n; i++)
        due[i] = uniform(0, 100 * MS);
    arm_and_fire(r, n, due);
}

/* Whole ms, as in the runtime's benchmark: 1,000 timers share each deadline. */
static void insert_fire_ms(run *r, uint32_t n)
{
    uint64_t *due = xmalloc(n * sizeof *due);
    for (uint32_t i = 0; i < n; i++)
        due[i] = uniform(0, 100) * MS;
    arm_and_fire(r, n, due);
}

static void insert_cancel(run *r, uint32_t n)
{
    uint64_t *due = xmalloc(n * sizeof *due);
    uint32_t *order = xmalloc(n * sizeof *order);
    for (uint32_t i = 0; i < n; i++) {
        due[i] = uniform(1000 * MS, 2000 * MS);
        order[i] = i;
    }
    for (uint32_t i = n; i > 1; i--) { /* Fisher-Yates */
        uint32_t j = (uint32_t)(splitmix64() % i), t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
    }
    region_begin();
    for (uint32_t i = 0; i < n; i++)
        arm(&r->q, &r->items[i], due[i]);
    for (uint32_t i = 0; i < n; i++)
        tq_remove(&r->q, &r->items[order[i]].tm);
    region_end();
    if (tq_next_deadline(&r->q) != TQ_NEVER)
        fputs("insert_cancel: queue not empty\n", stderr), exit(1);
    free(due);
    free(order);
}

static void churn(run *r, uint32_t n)
{
    uint32_t *pick = xmalloc(n * sizeof *pick);
    uint64_t *delay = xmalloc(n * sizeof *delay);
    for (uint32_t i = 0; i < CHURN_ARMED; i++)
        arm(&r->q, &r->items[i], uniform(MS, 1000 * MS));
    for (uint32_t j = 0; j < n; j++) {
        pick[j] = (uint32_t)(splitmix64() % CHURN_ARMED);
        delay[j] = uniform(MS, 1000 * MS);
    }
    r->rearm = 1;
    region_begin();
    for (uint32_t j = 0; j < n; j++) {
        if (j && j % 100 == 0) {
            r->now += MS;
            tq_pop_due(&r->q, r->now, on_fire, r);
        }
        item *it = &r->items[pick[j]];
        tq_remove(&r->q, &it->tm);
        arm(&r->q, it, r->now + delay[j]);
    }
    region_end();
    free(pick);
    free(delay);
}

static void next_deadline(run *r, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        arm(&r->q, &r->items[i], uniform(MS, 1000 * MS));
    region_begin();
    /* tq_next_deadline lives in another file: each call really happens. */
    for (uint32_t i = 0; i < n; i++)
        r->checksum += tq_next_deadline(&r->q);
    region_end();
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*fn)(run *, uint32_t);
    } workloads[] = {
        {"insert_fire", insert_fire},
        {"insert_fire_ms", insert_fire_ms},
        {"insert_cancel", insert_cancel},
        {"churn", churn},
        {"next_deadline", next_deadline},
    };
    long n = argc == 3 ? strtol(argv[2], NULL, 10) : 0;
    for (size_t w = 0; n > 0 && n <= 100000000 && w < sizeof workloads / sizeof *workloads; w++) {
        if (strcmp(argv[1], workloads[w].name))
            continue;
        run *r = xmalloc(sizeof *r);
        memset(r, 0, sizeof *r);
        tq_init(&r->q, 0);
        uint32_t items = (uint32_t)n > CHURN_ARMED ? (uint32_t)n : CHURN_ARMED;
        r->items = xmalloc(items * sizeof *r->items);
        memset(r->items, 0, items * sizeof *r->items);
        for (uint32_t i = 0; i < items; i++)
            r->items[i].id = i;
        workloads[w].fn(r, (uint32_t)n);
        printf("impl=%s workload=%s n=%ld ns_per_op=%.2f fired=%llu checksum=%llu entry_bytes=%zu\n",
               TQ_IMPL, workloads[w].name, n, (double)region_ns() / (double)n,
               (unsigned long long)r->fired, (unsigned long long)r->checksum, sizeof(tq_entry));
        tq_fini(&r->q);
        free(r->items);
        free(r);
        return 0;
    }
    fprintf(stderr, "usage: %s insert_fire|insert_fire_ms|insert_cancel|churn|next_deadline N\n", argv[0]);
    return 2;
}
