/* SPDX-License-Identifier: MIT */
/* Four CPU-bound tasks, each five runs of 200 ms of work with a yield
 * between runs, on a many-threads runtime of 1 worker, then of 2: about
 * 4 s, then about 2 s on two cores. Each line is time-stamped from the
 * start of its run. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "wasync.h"

#define RUNS 5
#define CHUNK_MS 200

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* 200 ms of work on this thread's CPU time, whatever else runs. */
static void work(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    double until = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9 + CHUNK_MS / 1e3;
    do
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    while ((double)ts.tv_sec + (double)ts.tv_nsec / 1e9 < until);
}

typedef struct worker {
    WA_CORO;
    wa_yield y;
    char name;
    int run;
    double start;
} worker;

WA_ASYNC(worker, t, cx)
{
    WA_BEGIN(t, cx);
    for (t->run = 1; t->run <= RUNS; t->run++) {
        work();
        printf("%6.2f s  [%c] run %d/%d done\n", seconds() - t->start, t->name, t->run, RUNS);
        if (t->run < RUNS)
            WA_AWAIT(wa_yield_init(&t->y));
    }
    WA_END();
}

int main(void)
{
    for (unsigned n = 1; n <= 2; n++) {
        wa_rt *rt;
        if (wa_rt_new_mt(&rt, n) < 0)
            return 1;
        printf("-- 4 tasks x %d runs x %d ms on %u worker%s\n", RUNS, CHUNK_MS, n, n > 1 ? "s" : "");
        double start = seconds();
        for (int i = 0; i < 4; i++) {
            worker w = {.name = (char)('A' + i), .start = start};
            worker_init(&w);
            if (wa_spawn_of(rt, &w, NULL) < 0)
                return 1;
        }
        wa_rt_run(rt);
        printf("-- total %.2f s\n", seconds() - start);
        wa_rt_free(rt);
    }
    return 0;
}
