/* SPDX-License-Identifier: MIT */
/* Four CPU-bound tasks, each five runs of 200 ms of work with a yield
 * between runs, on a many-threads runtime of 1 worker, then of 2: 4 s of
 * CPU each time, which takes 4 s, then 2 s, on an otherwise idle machine
 * of two cores or more. Each line is time-stamped from the start of its
 * run; each total shows the process's CPU time beside the wall time, so
 * that a loaded machine's longer times say why. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "wasync.h"

#define RUNS 5
#define CHUNK_MS 200

static double seconds_of(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double seconds(void) { return seconds_of(CLOCK_MONOTONIC); }

/* 200 ms of work on this thread's CPU time, whatever else runs. */
static void work(void)
{
    double until = seconds_of(CLOCK_THREAD_CPUTIME_ID) + CHUNK_MS / 1e3;
    while (seconds_of(CLOCK_THREAD_CPUTIME_ID) < until)
        ;
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
        double start = seconds(), cpu = seconds_of(CLOCK_PROCESS_CPUTIME_ID);
        for (int i = 0; i < 4; i++) {
            worker w = {.name = (char)('A' + i), .start = start};
            worker_init(&w);
            if (wa_spawn_of(rt, &w, NULL) < 0)
                return 1;
        }
        wa_rt_run(rt);
        cpu = seconds_of(CLOCK_PROCESS_CPUTIME_ID) - cpu;
        /* The best a runtime can do is the CPU time spread over its
         * workers; what the wall time has beyond that, the machine gave
         * to other programs. */
        printf("-- total %.2f s for %.2f s of CPU: %.2f s at best on %u worker%s, the rest is the machine's other load\n",
               seconds() - start, cpu, cpu / n, n, n > 1 ? "s" : "");
        wa_rt_free(rt);
    }
    return 0;
}
