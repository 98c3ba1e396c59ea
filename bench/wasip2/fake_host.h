/* SPDX-License-Identifier: MIT */
/* A native stand-in for the WASI 0.2 host of src/host/wasip2/io.h, for
 * measuring the guest side of a wakeup (see fake_host.c for what is
 * counted). */
#ifndef WASYNC_BENCH_FAKE_HOST_H
#define WASYNC_BENCH_FAKE_HOST_H

#include <stdint.h>

#include "../../src/host/wasip2/clocks.h"

/* Host calls made so far (every function of io.h counts one). */
typedef struct fake_host_calls {
    uint64_t polls, subscribes, drops, nows;
    uint64_t entries; /* list entries handed to poll, summed */
} fake_host_calls;
extern fake_host_calls fake_host_calls_made;

/* Starts over: no pollables, counters zero, the given seed for the choice of
 * the ready entry. */
void fake_host_reset(uint64_t seed);

/* A fresh I/O pollable (what a stream's subscribe() would return); not
 * counted as a host call, it stands for the I/O object's setup. */
wa__wasip2_pollable fake_host_pollable_new(void);

/* While on, each poll(list, n) reports exactly one I/O entry ready: the one
 * at position (seeded pseudo-random) % (number of I/O entries), whatever
 * pollable that is; the guest has to map the index back. While off, a poll
 * reports its timer entry (time passes) and aborts if it has none. */
void fake_host_auto_ready(int on);

/* While on (inside a measured region), the fake host's own work is left out
 * of callgrind's count: each host function switches collection off on entry
 * and back on before returning. */
void fake_host_exclude(int on);

/* The I/O pollables that polls reported ready: how many, and the sum of
 * their handles (to check that the guest woke exactly those). */
extern uint64_t fake_host_ready_count, fake_host_ready_sum;

/* Pollables alive now (created and not yet dropped). */
uint64_t fake_host_alive(void);

#endif
