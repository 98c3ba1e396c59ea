/* SPDX-License-Identifier: MIT */
/* Setup shared by the native tests of other threads and I/O (and
 * bench/soak.c): how much smaller their loops are in slow builds, a
 * runtime of either executor with a remote and an event on it, and the
 * process's open fds. */
#ifndef WASYNC_TESTS_RT_SETUP_H
#define WASYNC_TESTS_RT_SETUP_H

#include <dirent.h>

#include "wasync.h"

/* A loop's divisor: faults under tests/faults (which runs the binary once
 * per allocation it samples, so that the sampled runs cover its paths
 * rather than one loop's repeats), sanitized under a sanitizer, else 1. */
#if defined(WASYNC_FAULT_INJECTION)
#define CHECK_SCALE(faults, sanitized) (faults)
#elif defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CHECK_SCALE(faults, sanitized) (sanitized)
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define CHECK_SCALE(faults, sanitized) (sanitized)
#endif
#endif
#ifndef CHECK_SCALE
#define CHECK_SCALE(faults, sanitized) 1
#endif

/* Makes *rt, local (workers 0) or on that many threads, and then, each
 * unless NULL, a remote into *r and an event into *ev on it; the caller
 * owns all three. On a failure it releases what it made and returns the
 * negative code, so that the test stops (REQUIRE) with nothing held. */
static inline int check_rt_new(wa_rt **rt, unsigned workers, wa_remote **r, wa_event **ev)
{
    int rc = workers ? wa_rt_new_mt(rt, workers) : wa_rt_new(rt);
    if (rc < 0)
        return rc;
    if (r && (rc = wa_remote_new(*rt, r)) < 0) {
        wa_rt_free(*rt);
        return rc;
    }
    if (ev && (rc = wa_event_new(*rt, ev)) < 0) {
        if (r)
            wa_remote_drop(*r);
        wa_rt_free(*rt);
        return rc;
    }
    return 0;
}

/* Open fds of this process: a leak shows as growth. */
static inline long check_fds_held(void)
{
    DIR *d = opendir("/proc/self/fd");
    long n = 0;
    while (d && readdir(d))
        n++;
    if (d)
        closedir(d);
    return n;
}

#endif
