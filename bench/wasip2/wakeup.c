/* SPDX-License-Identifier: MIT */
/* The guest-side cost of one wakeup with K idle pollables registered, for
 * wasync's persistent pollable set (src/host/wasip2/reactor.c) and for the
 * rebuild-every-wait baseline (naive.c), both against the fake host
 * (fake_host.c), which reports one ready pollable per poll.
 *
 * Usage: wasip2-wakeup VARIANT K M [timer]
 *   VARIANT  ours       the wasip2 backend driven by hand: K pollable-wait
 *                       futures polled with a waker that pushes onto a ready
 *                       list; per wakeup: backend wait, poll the woken
 *                       future (ready), await again (re-arms)
 *            naive      the same loop over the baseline poller
 *            ours-exec  the real runtime: K tasks that each await their
 *                       pollable in a loop; per wakeup: backend wait, then
 *                       wa_rt_tick (the woken task re-awaits: re-arms)
 *   K        registered pollables, all waited on (one future or task each)
 *   M        measured wakeups (after 16 unmeasured ones)
 *   timer    also keep one timer pending an hour away (the runtime's
 *            deadline: a sleeping task for ours-exec, the wait's deadline
 *            argument for ours and naive)
 *
 * Prints one line of key=value fields. The measured region (region.h) is
 * the M wakeups only: setup and teardown are outside it, and the fake
 * host's own work is switched out of callgrind's count (fake_host.c says
 * exactly what is counted). Under callgrind --collect-atstart=no, the
 * instructions collected / M are the guest instructions per wakeup.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/rt.h"
#include "../region.h"
#include "fake_host.h"
#include "naive.h"
#include "wasync.h"
#include "wasync/wasi.h"

#define WARM 16

static void die(const char *what)
{
    fprintf(stderr, "wasip2-wakeup: %s\n", what);
    exit(1);
}

/* What the guest saw woken: checked against what the host made ready. */
static uint64_t wakes, wake_sum;

/* ---- driven by hand (ours, naive): a minimal executor ---- */

typedef struct rec {
    wa_pollable_wait w;     /* ours */
    wa_pollable_key key;    /* ours */
    uint32_t nkey;          /* naive */
    uint32_t handle;
    int queued;
    struct rec *next;
    wa_cx cx;
} rec;

static rec *ready_head;

static void rec_push(void *p)
{
    rec *r = p;
    if (!r->queued) {
        r->queued = 1;
        r->next = ready_head;
        ready_head = r;
    }
}
static void rec_nop(void *p) { (void)p; }
static const wa_waker_vt rec_waker_vt;
static wa_waker rec_clone(void *p) { return (wa_waker){p, &rec_waker_vt}; }
static const wa_waker_vt rec_waker_vt = {rec_clone, rec_push, rec_push, rec_nop};

static __attribute__((noinline)) void loop_ours(wa_backend *b, uint64_t deadline, uint32_t m)
{
    for (uint32_t i = 0; i < m; i++) {
        if (b->vt->wait(b, deadline) < 0)
            die("wait failed");
        rec *r;
        while ((r = ready_head)) {
            ready_head = r->next;
            r->queued = 0;
            if (wa_poll(&r->w.fut, &r->cx) != WA_READY)
                die("woken but not ready");
            wakes++;
            wake_sum += r->handle;
            wa_pollable_wait_init(&r->w, r->key); /* await it again */
            if (wa_poll(&r->w.fut, &r->cx) != WA_PENDING)
                die("ready twice");
        }
    }
}

static __attribute__((noinline)) void loop_naive(naive *h, uint64_t deadline, uint32_t m)
{
    for (uint32_t i = 0; i < m; i++) {
        if (naive_block_until(h, deadline) < 0)
            die("wait failed");
        rec *r;
        while ((r = ready_head)) {
            ready_head = r->next;
            r->queued = 0;
            if (naive_wait_poll(h, r->nkey, &r->cx.waker) != WA_READY)
                die("woken but not ready");
            wakes++;
            wake_sum += r->handle;
            if (naive_wait_poll(h, r->nkey, &r->cx.waker) != WA_PENDING)
                die("ready twice");
        }
    }
}

/* ---- driven by the runtime (ours-exec) ---- */

typedef struct io_task {
    wa_future fut;
    wa_pollable_wait w;
    wa_pollable_key key;
    uint32_t handle;
} io_task;

static int io_task_poll(wa_future *f, wa_cx *cx)
{
    io_task *t = (io_task *)f;
    for (;;) {
        int rc = wa_poll(&t->w.fut, cx);
        if (rc != WA_READY)
            return rc;
        wakes++;
        wake_sum += t->handle;
        wa_pollable_wait_init(&t->w, t->key); /* await it again */
    }
}
static void io_task_drop(wa_future *f) { wa_drop(&((io_task *)f)->w.fut); }
static const wa_future_vt io_task_vt = {io_task_poll, io_task_drop, "io_task"};

static __attribute__((noinline)) void loop_exec(wa_rt *rt, uint64_t *deadline, uint32_t m)
{
    for (uint32_t i = 0; i < m; i++) {
        if (wa__rt_wait(rt, *deadline) < 0) /* as wa__rt_drive waits */
            die("wait failed");
        if (wa_rt_tick(rt, deadline) != 0)
            die("a task still runnable after the tick");
    }
}

int main(int argc, char **argv)
{
    if (argc < 4)
        die("usage: wasip2-wakeup ours|naive|ours-exec K M [timer]");
    const char *variant = argv[1];
    uint32_t k = (uint32_t)strtoul(argv[2], NULL, 10);
    uint32_t m = (uint32_t)strtoul(argv[3], NULL, 10);
    int timer = argc > 4 && strcmp(argv[4], "timer") == 0;
    int v_ours = strcmp(variant, "ours") == 0, v_naive = strcmp(variant, "naive") == 0;
    int v_exec = strcmp(variant, "ours-exec") == 0;
    if (!(v_ours || v_naive || v_exec) || k == 0 || m == 0)
        die("bad arguments");

    fake_host_reset(0x2545f4914f6cdd1du + k);
    wa_rt *rt = NULL;
    naive *nv = NULL;
    rec *recs = NULL;
    uint64_t deadline = WA_NEVER;

    if (v_naive) {
        if (!(nv = naive_new()))
            die("out of memory");
    } else {
        int err = 0;
        wa_backend *b = wa_backend_wasip2_new(&err);
        if (!b || wa_rt_new_on(&rt, b) != 0)
            die("no runtime");
    }

    /* Register K pollables; a future or task per pollable waits on it. */
    if (v_exec) {
        for (uint32_t i = 0; i < k; i++) {
            io_task t = {.fut = {&io_task_vt}, .handle = fake_host_pollable_new()};
            if (wa_pollable_register(rt, t.handle, &t.key) != 0)
                die("register failed");
            wa_pollable_wait_init(&t.w, t.key);
            if (wa_spawn_of(rt, &t, NULL) != 0)
                die("spawn failed");
        }
        if (timer) {
            wa_sleep s;
            wa_sleep_init(&s, WA_SEC(3600));
            if (wa_spawn_of(rt, &s, NULL) != 0)
                die("spawn failed");
        }
        if (wa_rt_tick(rt, &deadline) != 0) /* every task polled: all armed */
            die("runnable after the first tick");
    } else {
        if (!(recs = calloc(k, sizeof *recs)))
            die("out of memory");
        for (uint32_t i = 0; i < k; i++) {
            rec *r = &recs[i];
            r->handle = fake_host_pollable_new();
            r->cx = (wa_cx){{r, &rec_waker_vt}, rt, NULL, 0, NULL};
            int rc;
            if (v_ours) {
                if (wa_pollable_register(rt, r->handle, &r->key) != 0)
                    die("register failed");
                rc = wa_poll(wa_pollable_wait_init(&r->w, r->key), &r->cx);
            } else {
                if ((r->nkey = naive_register(nv, r->handle)) == UINT32_MAX)
                    die("register failed");
                rc = naive_wait_poll(nv, r->nkey, &r->cx.waker);
            }
            if (rc != WA_PENDING)
                die("ready before any wait");
        }
        if (timer)
            deadline = wa__wasip2_now() + WA_SEC(3600);
    }
    if (v_ours || v_exec) {
        wa_rt_stats rs;
        wa_rt_stats_get(rt, &rs);
        if (rs.sources != k)
            die("not every pollable is registered");
    }

    fake_host_auto_ready(1);
    uint32_t runs[2] = {WARM, m};
    fake_host_calls c0 = {0};
    wa_wasip2_stats s0 = {0}, s1 = {0};
    for (int phase = 0; phase < 2; phase++) {
        if (phase) {
            c0 = fake_host_calls_made;
            if (rt)
                wa_wasip2_stats_get(rt, &s0);
            region_begin();
            fake_host_exclude(1);
        }
        if (v_ours)
            loop_ours(wa_rt_backend(rt), deadline, runs[phase]);
        else if (v_naive)
            loop_naive(nv, deadline, runs[phase]);
        else
            loop_exec(rt, &deadline, runs[phase]);
        if (phase) {
            fake_host_exclude(0);
            region_end();
        }
    }
    fake_host_calls c1 = fake_host_calls_made;
    fake_host_auto_ready(0);
    if (rt)
        wa_wasip2_stats_get(rt, &s1);

    /* Exactly the pollables the host made ready were woken, once each. */
    if (wakes != (uint64_t)WARM + m || fake_host_ready_count != wakes || fake_host_ready_sum != wake_sum)
        die("the guest did not wake exactly what the host made ready");
    /* The backend's own count of host calls agrees with the host's. */
    if (rt && (s1.polls - s0.polls != c1.polls - c0.polls ||
               s1.subscribes - s0.subscribes != c1.subscribes - c0.subscribes ||
               s1.drops - s0.drops != c1.drops - c0.drops || s1.nows - s0.nows != c1.nows - c0.nows))
        die("backend stats and host calls disagree");

    if (rt) {
        wa_rt_free(rt);
    } else {
        for (uint32_t i = 0; i < k; i++)
            naive_deregister(nv, recs[i].nkey);
        naive_free(nv);
    }
    free(recs);
    if (fake_host_alive() != 0)
        die("pollables leaked");

    double per = (double)m;
    printf("variant=%s K=%u M=%u timer=%d ns_per_op=%.1f polls_per_op=%.4f subscribes_per_op=%.4f "
           "drops_per_op=%.4f nows_per_op=%.4f entries_per_poll=%.1f wakes=%llu\n",
           variant, k, m, timer, (double)region_ns() / per, (double)(c1.polls - c0.polls) / per,
           (double)(c1.subscribes - c0.subscribes) / per, (double)(c1.drops - c0.drops) / per,
           (double)(c1.nows - c0.nows) / per,
           (double)(c1.entries - c0.entries) / (double)(c1.polls - c0.polls),
           (unsigned long long)wakes);
    return 0;
}
