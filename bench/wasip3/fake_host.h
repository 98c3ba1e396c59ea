/* SPDX-License-Identifier: MIT */
/* A native stand-in for the WASI 0.3 host of src/host/wasip3/builtins.h
 * (the async built-ins and the monotonic clock), for measuring the guest side
 * of an event dispatch (see fake_host.c for what is counted). */
#ifndef WASYNC_BENCH_WASIP3_FAKE_HOST_H
#define WASYNC_BENCH_WASIP3_FAKE_HOST_H

#include <stdint.h>

/* Host calls made so far (every function of builtins.h the backend uses counts
 * one; async_calls are the clock's wait-until and wait-for, io_calls the
 * bench's own async import, fake_host_io_call). */
typedef struct fake_host_calls {
    uint64_t async_calls, io_calls, waits, polls, joins, cancels, drops, nows;
} fake_host_calls;
extern fake_host_calls fake_host_calls_made;

/* Starts over: no handles, counters zero, the clock at 1 s, the given seed
 * for the choice of the subtask that returns. */
void fake_host_reset(uint64_t seed);

/* An async-lowered import that never returns by itself: STARTED | subtask
 * << 4. While auto-ready is on, a wait on a set with no event pending makes
 * one of these (seeded pseudo-random, among those started and not
 * resolved) return; else it moves the clock to the earliest wait-until or
 * wait-for, which returns. */
uint32_t fake_host_io_call(void);
void fake_host_auto_ready(int on);

/* While on (inside a measured region), the fake host's own work is left out
 * of callgrind's count. */
void fake_host_exclude(int on);

/* The I/O subtasks the host made return: how many, and the sum of their
 * handles (to check that the guest saw exactly those). */
extern uint64_t fake_host_ready_count, fake_host_ready_sum;

/* Handles alive now (subtasks and sets made and not yet dropped). */
uint64_t fake_host_alive(void);

#endif
