/* SPDX-License-Identifier: MIT */
/*
 * libuv peer for the wasync benchmarks.  Build: cc -O2 peer_uv.c -luv
 *
 * libuv has no tasks, futures or channels, so each workload is mapped onto
 * the closest idiomatic libuv construct:
 *
 * spawn_join N -> N heap-allocated "task" structs, each owning a uv_idle_t.
 *   "spawn" = malloc + uv_idle_init + uv_idle_start; the idle callback runs
 *   on the next loop iteration, stores its index as the result, stops and
 *   uv_close()s its handle (closing is part of the cost, like a task being
 *   torn down).  "join" = after uv_run() returns, read each task's result
 *   in spawn order, sum, and free the task (like dropping a JoinHandle).
 *   Idle handles are libuv's cheapest "run this on the next iteration":
 *   an O(1) list insert, whereas a 0 ms uv_timer_t is a heap insert and
 *   uv_async_t costs an eventfd write + epoll round trip.
 *
 * yield_pingpong M -> two state machines A and B, each with a uv_idle_t as
 *   its "task", exchanging a counter through two single-slot channels.
 *   send = fill the slot and uv_idle_start() the reader (make it runnable);
 *   waiting = uv_idle_stop() on itself.  libuv runs idle handles started
 *   from inside an idle callback on the *next* loop iteration, so every
 *   message costs exactly one loop-level hop, like a task wake-up.
 *   uv_async_send was rejected: it is libuv's cross-thread wake-up and
 *   would add an eventfd write/read per message that no same-thread
 *   scheduler needs.  Note that each libuv iteration still makes one
 *   epoll_wait(0) syscall (the loop's internal async/signal handles keep
 *   fds registered), so a round trip costs two of them: that is libuv.
 *
 * timers T MAX_MS -> T heap-allocated uv_timer_t, one-shot, started with
 *   the shared splitmix64 durations and closed from their callback.
 *   The loop clock is refreshed right after the wall clock starts so that
 *   deadlines are relative to the same instant as the measurement.  That
 *   clock has 1 ms resolution, so with few timers over_ideal_ms can be
 *   slightly negative.
 *
 * sleepers N -> N heap-allocated uv_timer_t, all due 500 ms on: the peak
 *   RSS they add, per timer, once all are started (rss_per_task).
 * tcp_echo N -> bench/soak.c's TCP echo of N connections (tcp_echo.c),
 *   which prints the soak's lines instead.
 *
 * Prints: peer=libuv workload=W n=N wall_ms=F ns_per_op=F ops_per_s=F
 *         maxrss_kb=K [over_ideal_ms=F] [rss_per_task=B]
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, also under -std=c11 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <uv.h>

#include "tcp_echo.h"

#define container_of(p, T, m) ((T *)((char *)(p) - offsetof(T, m)))

static uv_loop_t *loop;

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    if (!p) { perror("malloc"); exit(2); }
    return p;
}

/* ---- spawn_join ---- */

struct task { uv_idle_t idle; uint64_t index, result; };

static void task_run(uv_idle_t *h)
{
    struct task *t = container_of(h, struct task, idle);
    t->result = t->index;
    uv_idle_stop(h);
    uv_close((uv_handle_t *)h, NULL); /* freed by the joiner, not here */
}

static int spawn_join(uint64_t n)
{
    struct task **tasks = xmalloc((n ? n : 1) * sizeof *tasks);
    for (uint64_t i = 0; i < n; i++) {
        struct task *t = xmalloc(sizeof *t);
        t->index = i;
        uv_idle_init(loop, &t->idle);
        uv_idle_start(&t->idle, task_run);
        tasks[i] = t;
    }
    uv_run(loop, UV_RUN_DEFAULT);
    uint64_t sum = 0;
    for (uint64_t i = 0; i < n; i++) {
        sum += tasks[i]->result;
        free(tasks[i]);
    }
    free(tasks);
    if (sum != (n ? n * (n - 1) / 2 : 0)) {
        fprintf(stderr, "spawn_join: bad sum %" PRIu64 "\n", sum);
        return 1;
    }
    return 0;
}

/* ---- yield_pingpong ---- */

struct side;
struct chan { int full; uint64_t val; struct side *reader; };
struct side { uv_idle_t idle; struct chan *in, *out; int is_a; };

static uint64_t rounds, final_count;

static void side_run(uv_idle_t *h);

static void chan_send(struct chan *c, uint64_t v)
{
    /* Strict alternation means the slot is always free here; a general
     * bounded channel would park the sender instead. */
    if (c->full) { fputs("pingpong: slot full\n", stderr); exit(1); }
    c->full = 1;
    c->val = v;
    uv_idle_start(&c->reader->idle, side_run); /* wake the reader */
}

static void side_run(uv_idle_t *h)
{
    struct side *s = container_of(h, struct side, idle);
    uint64_t v = 0;
    uv_idle_stop(h); /* park until the next message */
    if (s->in->full) {
        s->in->full = 0;
        v = s->in->val;
    }
    if (!s->is_a) {
        chan_send(s->out, v + 1);
    } else if (v < rounds) {
        chan_send(s->out, v); /* A starts with an empty inbox and v = 0 */
    } else {
        final_count = v;
        uv_close((uv_handle_t *)h, NULL);
        uv_close((uv_handle_t *)&s->out->reader->idle, NULL);
    }
}

static int yield_pingpong(uint64_t m)
{
    static struct chan ch1, ch2;
    static struct side a, b;
    rounds = m;
    a = (struct side){ .in = &ch2, .out = &ch1, .is_a = 1 };
    b = (struct side){ .in = &ch1, .out = &ch2, .is_a = 0 };
    ch1 = (struct chan){ .reader = &b };
    ch2 = (struct chan){ .reader = &a };
    uv_idle_init(loop, &a.idle);
    uv_idle_init(loop, &b.idle);
    uv_idle_start(&a.idle, side_run); /* A runs first; B waits on ch1 */
    uv_run(loop, UV_RUN_DEFAULT);
    if (final_count != m) {
        fprintf(stderr, "pingpong: bad counter %" PRIu64 "\n", final_count);
        return 1;
    }
    return 0;
}

/* ---- timers ---- */

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void free_handle(uv_handle_t *h) { free(h); }

static void timer_fired(uv_timer_t *t) { uv_close((uv_handle_t *)t, free_handle); }

static void start_timers(const uint64_t *d, uint64_t t)
{
    uv_update_time(loop); /* deadlines count from now, not loop creation */
    for (uint64_t i = 0; i < t; i++) {
        uv_timer_t *tm = xmalloc(sizeof *tm);
        uv_timer_init(loop, tm);
        uv_timer_start(tm, timer_fired, d[i], 0);
    }
    uv_run(loop, UV_RUN_DEFAULT);
}

/* ---- sleepers ---- */

static long maxrss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* Starts n timers due 500 ms on, then runs them out; returns the RSS they
 * added, per timer, once all were started. */
static double sleepers(uint64_t n)
{
    long rss0 = maxrss_kb();
    uv_update_time(loop);
    for (uint64_t i = 0; i < n; i++) {
        uv_timer_t *tm = xmalloc(sizeof *tm);
        uv_timer_init(loop, tm);
        uv_timer_start(tm, timer_fired, 500, 0);
    }
    double per = (double)(maxrss_kb() - rss0) * 1024 / (double)(n ? n : 1);
    uv_run(loop, UV_RUN_DEFAULT);
    return per;
}

/* ---- driver ---- */

static uint64_t arg(int argc, char **argv, int i, uint64_t def)
{
    if (i >= argc) return def;
    char *end;
    uint64_t v = strtoull(argv[i], &end, 10);
    if (*argv[i] == '\0' || *end != '\0' || *argv[i] == '-') {
        fprintf(stderr, "bad number: %s\n", argv[i]);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    const char *w = argc > 1 ? argv[1] : "";
    uint64_t n, *durations = NULL;
    long ideal_ms = -1;
    double rss_per_task = -1;
    int rc;
    double t0, wall;

    loop = uv_default_loop();
    if (!strcmp(w, "spawn_join")) {
        n = arg(argc, argv, 2, 1000000);
        t0 = now_ns();
        rc = spawn_join(n);
        wall = now_ns() - t0;
    } else if (!strcmp(w, "yield_pingpong")) {
        n = arg(argc, argv, 2, 1000000);
        t0 = now_ns();
        rc = yield_pingpong(n);
        wall = now_ns() - t0;
    } else if (!strcmp(w, "timers")) {
        n = arg(argc, argv, 2, 100000);
        uint64_t max_ms = arg(argc, argv, 3, 100), state = 42;
        /* Durations are drawn before the clock starts. */
        durations = xmalloc((n ? n : 1) * sizeof *durations);
        ideal_ms = 0;
        for (uint64_t i = 0; i < n; i++) {
            durations[i] = splitmix64(&state) % (max_ms + 1);
            if ((long)durations[i] > ideal_ms) ideal_ms = (long)durations[i];
        }
        t0 = now_ns();
        start_timers(durations, n);
        wall = now_ns() - t0;
        rc = 0;
    } else if (!strcmp(w, "sleepers")) {
        n = arg(argc, argv, 2, 1000000);
        t0 = now_ns();
        rss_per_task = sleepers(n);
        wall = now_ns() - t0;
        rc = 0;
    } else if (!strcmp(w, "tcp_echo")) {
        return tcp_echo(loop, (long)arg(argc, argv, 2, 10000));
    } else {
        fprintf(stderr, "usage: %s spawn_join [N] | yield_pingpong [M] | timers [T] [MAX_MS] | sleepers [N] | tcp_echo [N]\n",
                argv[0]);
        return 2;
    }
    if (rc) return rc;

    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("peer=libuv workload=%s n=%" PRIu64 " wall_ms=%.3f ns_per_op=%.3f ops_per_s=%.3f maxrss_kb=%ld",
           w, n, wall / 1e6, n ? wall / n : 0.0, wall > 0 ? n * 1e9 / wall : 0.0, ru.ru_maxrss);
    if (ideal_ms >= 0) printf(" over_ideal_ms=%.3f", wall / 1e6 - ideal_ms);
    if (rss_per_task >= 0) printf(" rss_per_task=%.1f", rss_per_task);
    putchar('\n');
    free(durations);
    return 0;
}
