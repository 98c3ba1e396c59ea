/* SPDX-License-Identifier: MIT */
/* The guest-side cost of one event dispatch on WASI 0.3: the wasip3
 * backend (src/host/wasip3/reactor.c) and the subtask futures
 * (src/host/wasip3/subtask.c) under the real runtime, natively against the
 * fake host (fake_host.c), which delivers one event per blocking wait.
 *
 * Usage: wasip3-dispatch subtask K M | timer M
 *   subtask  K tasks each await an async-lowered call (a wa_subtask over
 *            fake_host_io_call) in a loop; per dispatch: the backend's
 *            wait (the host makes one of the K calls return), then
 *            wa_rt_tick: the woken task finishes its subtask (deregister,
 *            drop) and makes and awaits its next call (register, join)
 *   timer    one task sleeps 1 ms in a loop; per dispatch: the backend's
 *            wait (the wait-until returns: the fake clock moves), then
 *            wa_rt_tick: the timer fires, the task sleeps again (the next
 *            wait-until)
 *   M        measured dispatches (after 16 unmeasured ones)
 *
 * Prints one line of key=value fields: ns per dispatch and the host calls
 * per dispatch. The measured region (region.h) is the M dispatches only,
 * the fake host's own work switched out of callgrind's count; under
 * callgrind --collect-atstart=no, the instructions collected / M are the
 * guest instructions per dispatch. Exits 1 unless every event reached
 * exactly its waiter, the backend's counts agree with the host's, the
 * calls per dispatch are the expected ones, and nothing is left held.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/rt.h"
#include "../region.h"
#include "fake_host.h"
#include "wasync.h"
#include "wasync/component.h"

#define WARM 16

static void die(const char *what)
{
    fprintf(stderr, "wasip3-dispatch: %s\n", what);
    exit(1);
}

/* What the guest saw return: checked against what the host made return. */
static uint64_t wakes, wake_sum;

typedef struct io_task {
    wa_future fut;
    wa_subtask s;
    uint32_t handle;
} io_task;

static void io_task_call(io_task *t)
{
    uint32_t r = fake_host_io_call();
    t->handle = r >> 4;
    wa_subtask_init(&t->s, r);
}

static int io_task_poll(wa_future *f, wa_cx *cx)
{
    io_task *t = (io_task *)f;
    for (;;) {
        int rc = wa_poll(&t->s.fut, cx);
        if (rc != WA_READY)
            return rc;
        if (t->s.state != WA_SUBTASK_RETURNED)
            die("a subtask that did not return");
        wakes++;
        wake_sum += t->handle;
        io_task_call(t); /* the next call */
    }
}
static void io_task_drop(wa_future *f) { wa_drop(&((io_task *)f)->s.fut); }
static const wa_future_vt io_task_vt = {io_task_poll, io_task_drop, "io_task"};

typedef struct sleeper {
    wa_future fut;
    wa_sleep s;
} sleeper;

static int sleeper_poll(wa_future *f, wa_cx *cx)
{
    sleeper *t = (sleeper *)f;
    for (;;) {
        int rc = wa_poll(&t->s.fut, cx);
        if (rc != WA_READY)
            return rc;
        wakes++;
        wa_sleep_init(&t->s, WA_MS(1));
    }
}
static void sleeper_drop(wa_future *f) { wa_drop(&((sleeper *)f)->s.fut); }
static const wa_future_vt sleeper_vt = {sleeper_poll, sleeper_drop, "sleeper"};

static __attribute__((noinline)) void loop(wa_rt *rt, uint64_t *deadline, uint32_t m)
{
    for (uint32_t i = 0; i < m; i++) {
        if (wa__rt_wait(rt, *deadline) < 0) /* as wa__rt_drive waits */
            die("wait failed");
        if (wa_rt_tick(rt, deadline) != 0)
            die("a task still runnable after the tick");
    }
}

static uint64_t calls_of(const fake_host_calls *c)
{
    return c->async_calls + c->io_calls + c->waits + c->polls + c->joins + c->cancels + c->drops + c->nows;
}

int main(int argc, char **argv)
{
    int v_timer = argc == 3 && strcmp(argv[1], "timer") == 0;
    int v_io = argc == 4 && strcmp(argv[1], "subtask") == 0;
    if (!v_timer && !v_io)
        die("usage: wasip3-dispatch subtask K M | timer M");
    uint32_t k = v_io ? (uint32_t)strtoul(argv[2], NULL, 10) : 0;
    uint32_t m = (uint32_t)strtoul(argv[argc - 1], NULL, 10);
    if ((v_io && k == 0) || m == 0)
        die("bad arguments");

    fake_host_reset(0x2545f4914f6cdd1du + k);
    int err = 0;
    wa_rt *rt;
    wa_backend *b = wa_backend_wasip3_new(&err);
    if (!b || wa_rt_new_on(&rt, b) != 0)
        die("no runtime");
    for (uint32_t i = 0; i < k; i++) {
        io_task t = {.fut = {&io_task_vt}};
        io_task_call(&t);
        if (wa_spawn_of(rt, &t, NULL) != 0)
            die("spawn failed");
    }
    if (v_timer) {
        sleeper t = {.fut = {&sleeper_vt}};
        wa_sleep_init(&t.s, WA_MS(1));
        if (wa_spawn_of(rt, &t, NULL) != 0)
            die("spawn failed");
    }
    uint64_t deadline;
    if (wa_rt_tick(rt, &deadline) != 0) /* every task polled: all waiting */
        die("runnable after the first tick");
    wa_rt_stats rs;
    wa_rt_stats_get(rt, &rs);
    if (rs.sources != k)
        die("not every subtask is registered");

    fake_host_auto_ready(v_io);
    uint32_t runs[2] = {WARM, m};
    fake_host_calls c0 = {0};
    wa_wasip3_stats s0 = {0}, s1 = {0};
    for (int phase = 0; phase < 2; phase++) {
        if (phase) {
            c0 = fake_host_calls_made;
            wa_wasip3_stats_get(rt, &s0);
            region_begin();
            fake_host_exclude(1);
        }
        loop(rt, &deadline, runs[phase]);
        if (phase) {
            fake_host_exclude(0);
            region_end();
        }
    }
    fake_host_calls c1 = fake_host_calls_made;
    fake_host_auto_ready(0);
    wa_wasip3_stats_get(rt, &s1);

    /* Every dispatch woke exactly the waiter of its event. */
    if (wakes != (uint64_t)WARM + m)
        die("not one wakeup per dispatch");
    if (v_io && (fake_host_ready_count != wakes || fake_host_ready_sum != wake_sum))
        die("the guest did not see exactly the subtasks the host made return");
    /* The backend's own count of host calls agrees with the host's. */
    if (s1.async_calls - s0.async_calls != c1.async_calls - c0.async_calls ||
        s1.waits - s0.waits != c1.waits - c0.waits || s1.polls - s0.polls != c1.polls - c0.polls ||
        s1.joins - s0.joins != c1.joins - c0.joins || s1.cancels - s0.cancels != c1.cancels - c0.cancels ||
        s1.drops - s0.drops != c1.drops - c0.drops || s1.nows - s0.nows != c1.nows - c0.nows)
        die("backend stats and host calls disagree");
    fake_host_calls d = {
        c1.async_calls - c0.async_calls, c1.io_calls - c0.io_calls, c1.waits - c0.waits, c1.polls - c0.polls,
        c1.joins - c0.joins,             c1.cancels - c0.cancels,   c1.drops - c0.drops, c1.nows - c0.nows,
    };
    /* The host calls a dispatch needs: the wait and the drain's empty
     * poll; a subtask's drop; then, for an I/O subtask, the next call and
     * its join (the one that returned leaves the set with its drop); for
     * a timer, the tick's clock read, the sleep's (its deadline counts from
     * it), the backend's check that the deadline has not passed, the next
     * wait-until and its join. */
    const fake_host_calls want = v_io ? (fake_host_calls){0, m, m, m, m, 0, m, 0}
                                      : (fake_host_calls){m, 0, m, m, m, 0, m, 3 * (uint64_t)m};
    if (memcmp(&d, &want, sizeof d) != 0)
        die("not the host calls a dispatch needs");

    wa_rt_free(rt);
    if (fake_host_alive() != 0 || wa_wasip3_live_subtasks() != 0)
        die("handles leaked");

    double per = (double)m;
    printf("variant=%s K=%u M=%u ns_per_op=%.1f calls_per_op=%.4f async_per_op=%.4f io_per_op=%.4f "
           "waits_per_op=%.4f polls_per_op=%.4f joins_per_op=%.4f cancels_per_op=%.4f drops_per_op=%.4f "
           "nows_per_op=%.4f wakes=%llu\n",
           argv[1], k, m, (double)region_ns() / per, (double)calls_of(&d) / per, (double)d.async_calls / per,
           (double)d.io_calls / per, (double)d.waits / per, (double)d.polls / per, (double)d.joins / per,
           (double)d.cancels / per, (double)d.drops / per, (double)d.nows / per, (unsigned long long)wakes);
    return 0;
}
