/* SPDX-License-Identifier: MIT */
/* Internal: the native reactors' clock (epoll.c, uring.c), one for both so
 * that a deadline means the same on either. */
#ifndef WASYNC_HOST_NATIVE_CLOCK_H
#define WASYNC_HOST_NATIVE_CLOCK_H

#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC in nanoseconds. */
static inline uint64_t wa__native_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Nanoseconds from now to the absolute deadline (0 once it passed). */
static inline uint64_t wa__native_ns_until(uint64_t deadline)
{
    uint64_t now = wa__native_now();
    return deadline > now ? deadline - now : 0;
}

#endif
