/* SPDX-License-Identifier: MIT */
/* The baseline: a poller that rebuilds its list of pollables and its lookup
 * table on every wait (see naive.c). */
#ifndef WASYNC_BENCH_NAIVE_H
#define WASYNC_BENCH_NAIVE_H

#include <stdint.h>

#include "wasync/future.h"
#include "../../src/host/wasip2/clocks.h"

typedef struct naive naive;

naive *naive_new(void);
/* Drops every registered pollable. */
void naive_free(naive *h);

/* Registers the pollable p (taken); returns its key, or UINT32_MAX. */
uint32_t naive_register(naive *h, wa__wasip2_pollable p);
/* Deregisters key: drops its pollable and its waker. */
void naive_deregister(naive *h, uint32_t key);

/* The poll of "wait for key": WA_READY once a wait saw its pollable ready
 * (and forgets that), else stores a clone of waker and is WA_PENDING. */
int naive_wait_poll(naive *h, uint32_t key, const wa_waker *waker);

/* Blocks until a waiting pollable is ready or the absolute deadline (0: do
 * not block, UINT64_MAX: none) passes, and wakes the wakers of the ready
 * ones. Returns 0, or -1 when nothing could ever be ready. */
int naive_block_until(naive *h, uint64_t deadline);

#endif
