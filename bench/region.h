/* SPDX-License-Identifier: MIT */
/* The measured region of a benchmark: wall time from a monotonic clock,
 * and, under callgrind, instruction counting switched on only inside it
 * (run with --collect-atstart=no), so Ir / n is the cost per operation. */
#ifndef WASYNC_BENCH_REGION_H
#define WASYNC_BENCH_REGION_H

#include <stdint.h>
#include <time.h>
#include <valgrind/callgrind.h>

static uint64_t region_t0, region_t1;

static inline uint64_t region_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline void region_begin(void)
{
    CALLGRIND_ZERO_STATS;
    CALLGRIND_TOGGLE_COLLECT;
    region_t0 = region_now_ns();
}

static inline void region_end(void)
{
    region_t1 = region_now_ns();
    CALLGRIND_TOGGLE_COLLECT;
    CALLGRIND_DUMP_STATS_AT("region");
}

/* Wall time of the region, in ns. */
static inline uint64_t region_ns(void) { return region_t1 - region_t0; }

#endif
