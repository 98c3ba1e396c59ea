/* SPDX-License-Identifier: MIT */
/* A native stand-in for the WASI 0.2 host: every function of
 * src/host/wasip2/io.h, linked instead of src/host/wasip2/io.c (whose
 * bodies are wasm imports).
 *
 * Pollables are integers (handles from 1 up, never reused); the host knows
 * for each whether it is alive and whether it is a timer (made by
 * subscribe-instant/-duration, ready at its instant) or an I/O pollable
 * (made by fake_host_pollable_new, ready when the bench says so).
 *
 * What a measurement counts (under callgrind with fake_host_exclude on):
 *  - counted, guest side: everything the guest runs, including the call
 *    into each host function and its return, and the result buffer of
 *    poll, which a real host allocates by calling the guest's cabi_realloc
 *    (a guest function: malloc here) and the guest frees;
 *  - not counted, host side: the body of each host function (choosing the
 *    ready entry, handle bookkeeping, the clock). A real host also reads
 *    and validates the whole list<borrow<pollable>> on every poll, O(n) on
 *    its side of the boundary whatever the guest does; this fake does not
 *    even look at the list beyond the one entry it reports, so its own cost
 *    is O(1) per poll and the wall-clock figure is not skewed either.
 *  - left in the count: the callgrind client requests that switch
 *    collection off and on, a fixed handful of instructions per host call.
 */
#define _POSIX_C_SOURCE 200809L

#include "fake_host.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <valgrind/callgrind.h>

fake_host_calls fake_host_calls_made;
uint64_t fake_host_ready_count, fake_host_ready_sum;

enum { P_ALIVE = 1, P_TIMER = 2 };

static uint8_t *kind;     /* by handle: P_* bits */
static uint64_t *when;    /* by handle: a timer's instant */
static uint32_t nhandles; /* handles issued (handle 0 is never issued) */
static uint32_t cap;
static uint64_t alive;
static uint64_t rng;
static int auto_ready, exclude;

/* Host side begins/ends: callgrind stops/starts counting. */
#define HOST_ENTER()                     \
    do {                                 \
        if (exclude)                     \
            CALLGRIND_TOGGLE_COLLECT;    \
    } while (0)
#define HOST_EXIT() HOST_ENTER()

static void fail(const char *what, uint32_t p)
{
    fprintf(stderr, "fake host: %s (pollable %u)\n", what, p);
    abort();
}

static uint64_t clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static wa__wasip2_pollable make(uint8_t k, uint64_t at)
{
    if (nhandles + 1 >= cap) {
        cap = cap ? cap * 2 : 1024;
        kind = realloc(kind, cap * sizeof *kind);
        when = realloc(when, cap * sizeof *when);
        if (!kind || !when)
            fail("out of memory", 0);
    }
    uint32_t p = ++nhandles;
    kind[p] = k;
    when[p] = at;
    alive++;
    return p;
}

static void check_alive(wa__wasip2_pollable p)
{
    if (p == 0 || p > nhandles || !(kind[p] & P_ALIVE))
        fail("not a live pollable", p);
}

void fake_host_reset(uint64_t seed)
{
    free(kind);
    free(when);
    kind = NULL;
    when = NULL;
    nhandles = cap = 0;
    alive = 0;
    rng = seed ? seed : 0x9e3779b97f4a7c15u;
    fake_host_calls_made = (fake_host_calls){0};
    fake_host_ready_count = fake_host_ready_sum = 0;
}

wa__wasip2_pollable fake_host_pollable_new(void) { return make(P_ALIVE, 0); }
void fake_host_auto_ready(int on) { auto_ready = on; }
void fake_host_exclude(int on) { exclude = on; }
uint64_t fake_host_alive(void) { return alive; }

void wa__wasip2_pollable_drop(wa__wasip2_pollable p)
{
    HOST_ENTER();
    fake_host_calls_made.drops++;
    check_alive(p);
    kind[p] &= (uint8_t)~P_ALIVE;
    alive--;
    HOST_EXIT();
}

uint32_t *wa__wasip2_poll(const wa__wasip2_pollable *list, size_t n, size_t *nready)
{
    HOST_ENTER();
    fake_host_calls_made.polls++;
    fake_host_calls_made.entries += n;
    if (n == 0)
        fail("poll of an empty list traps", 0);
    /* A timer, if any, is the last entry (both pollers put it there). */
    size_t nio = n;
    if (kind[list[n - 1]] & P_TIMER)
        nio--;
    uint32_t idx;
    if (auto_ready && nio) {
        rng ^= rng << 13; /* xorshift64 */
        rng ^= rng >> 7;
        rng ^= rng << 17;
        idx = (uint32_t)(rng % nio);
        wa__wasip2_pollable p = list[idx];
        check_alive(p);
        if (kind[p] & P_TIMER)
            fail("a timer before the last entry", p);
        fake_host_ready_count++;
        fake_host_ready_sum += p;
    } else if (nio < n) {
        idx = (uint32_t)(n - 1); /* nothing else: the host waits out the timer */
    } else {
        fail("poll would block forever", list[0]);
    }
    HOST_EXIT();
    /* The result list: the host calls the guest's cabi_realloc (guest code,
     * counted) and writes the index into it. */
    uint32_t *r = malloc(sizeof *r);
    if (!r)
        abort();
    r[0] = idx;
    *nready = 1;
    return r;
}

uint64_t wa__wasip2_now(void)
{
    HOST_ENTER();
    fake_host_calls_made.nows++;
    uint64_t t = clock_ns();
    HOST_EXIT();
    return t;
}

wa__wasip2_pollable wa__wasip2_subscribe_instant(uint64_t at)
{
    HOST_ENTER();
    fake_host_calls_made.subscribes++;
    wa__wasip2_pollable p = make(P_ALIVE | P_TIMER, at);
    HOST_EXIT();
    return p;
}

wa__wasip2_pollable wa__wasip2_subscribe_duration(uint64_t ns)
{
    HOST_ENTER();
    fake_host_calls_made.subscribes++;
    wa__wasip2_pollable p = make(P_ALIVE | P_TIMER, clock_ns() + ns);
    HOST_EXIT();
    return p;
}
