/* SPDX-License-Identifier: MIT */
/* wasync-bench WORKLOAD [ARGS...]: one line of key=value per run.
 *
 *   spawn_join N        spawn N trivial tasks returning their index, await
 *                       every handle in order and sum
 *   yield_pingpong M    two tasks bounce a counter through two bounded(1)
 *                       channels M times
 *   timers T MAX_MS     T tasks each sleep splitmix64(42) % (MAX_MS+1) ms
 *   yield_many T K      T tasks each yield K times (n = T * K yields)
 *   sleepers N          N tasks sleep until one deadline (500 ms on): the
 *                       peak RSS they add, per task, once all are armed
 *   mt_spawn N WORKERS  spawn_join on a many-threads runtime (wa_rt_new_mt)
 *   mt_pingpong M WORKERS  yield_pingpong there, through shared channels
 *                       (wa_mpsc_new_shared; the two tasks go where the
 *                       runtime puts them)
 *   mt_yield T K WORKERS   yield_many there
 *   join_race M         one task awaits M joins (wa_all_init) and M races
 *                       (wa_race_init) of two children that each yield
 *                       once: a branch's wake, the parent's, the polls
 *   mt_join_race M WORKERS  join_race there
 *
 * Wall time runs from just before the first spawn to just after the last
 * join. Under callgrind only that region is counted (client requests), so
 * Ir / n is the cost per operation.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "wasync.h"
#include "region.h"


/* spawn_join: a trivial task returns its index (through a pointer: the
 * awaiter reads it after the handle is consumed). */
typedef struct trivial {
    wa_future fut;
    long index;
    long *out;
} trivial;

static int trivial_poll(wa_future *f, wa_cx *cx)
{
    (void)cx;
    trivial *t = (trivial *)f;
    *t->out = t->index;
    return WA_READY;
}
static const wa_future_vt trivial_vt = {trivial_poll, NULL, "trivial"};

typedef struct spawner {
    WA_CORO;
    struct slot {
        wa_join jh;
        long out;
    } *slots;
    long n, i, sum;
} spawner;

static int spawner_poll(wa_future *f, wa_cx *cx)
{
    spawner *t = (spawner *)f;
    WA_BEGIN(t, cx);
    region_begin();
    for (t->i = 0; t->i < t->n; t->i++) {
        trivial tv = {{&trivial_vt}, t->i, &t->slots[t->i].out};
        if (wa_spawn_of(cx->rt, &tv, &t->slots[t->i].jh) < 0)
            WA_RETURN(WA_ENOMEM);
    }
    for (t->i = 0; t->i < t->n; t->i++) {
        WA_AWAIT(&t->slots[t->i].jh.fut);
        t->sum += t->slots[t->i].out;
    }
    region_end();
    WA_END();
}
static const wa_future_vt spawner_vt = {spawner_poll, wa_coro_drop, "spawner"};

static int run_spawn_join(wa_rt *rt, long n)
{
    spawner s = {.n = n};
    wa_coro_init(&s.wa, &spawner_vt);
    s.slots = malloc((size_t)n * sizeof *s.slots);
    int rc = s.slots ? wa_block_on(rt, &s.wa.fut) : WA_ENOMEM;
    free(s.slots);
    if (rc == 0 && s.sum != n * (n - 1) / 2) {
        fprintf(stderr, "spawn_join: wrong sum %ld\n", s.sum);
        return -1;
    }
    return rc;
}

/* yield_pingpong: ping sends i and awaits the reply; pong echoes back. */
typedef struct pinger {
    WA_CORO;
    wa_tx tx;
    wa_rx rx;
    wa_send s;
    wa_recv r;
    long m, i, v;
    int ping;
} pinger;

static int pinger_poll(wa_future *f, wa_cx *cx)
{
    pinger *t = (pinger *)f;
    WA_BEGIN(t, cx);
    for (t->i = 0; t->i < t->m; t->i++) {
        if (t->ping) {
            WA_AWAIT(wa_send_init(&t->s, &t->tx, &t->i));
            WA_AWAIT(wa_recv_init(&t->r, &t->rx, &t->v));
            if (WA_STATUS || t->v != t->i + 1)
                WA_RETURN(WA_EIO);
        } else {
            WA_AWAIT(wa_recv_init(&t->r, &t->rx, &t->v));
            t->v++;
            WA_AWAIT(wa_send_init(&t->s, &t->tx, &t->v));
        }
    }
    WA_END();
}
static void pinger_drop(wa_future *f)
{
    pinger *t = (pinger *)f;
    wa_coro_drop(f);
    if (t->tx.ch)
        wa_tx_drop(&t->tx);
    if (t->rx.ch)
        wa_rx_drop(&t->rx);
}
static const wa_future_vt pinger_vt = {pinger_poll, pinger_drop, "pinger"};

typedef struct pingpong {
    WA_CORO;
    wa_join a, b;
    long m;
    int shared; /* the channels are wa_mpsc_new_shared's */
} pingpong;

static int pingpong_poll(wa_future *f, wa_cx *cx)
{
    pingpong *t = (pingpong *)f;
    WA_BEGIN(t, cx);
    pinger a = {.m = t->m, .ping = 1}, b = {.m = t->m, .ping = 0};
    wa_coro_init(&a.wa, &pinger_vt);
    wa_coro_init(&b.wa, &pinger_vt);
    int (*mpsc)(size_t, size_t, wa_tx *, wa_rx *) = t->shared ? wa_mpsc_new_shared : wa_mpsc_new;
    if (mpsc(1, sizeof(long), &a.tx, &b.rx) || mpsc(1, sizeof(long), &b.tx, &a.rx))
        WA_RETURN(WA_ENOMEM);
    region_begin();
    wa_spawn_of(cx->rt, &a, &t->a);
    wa_spawn_of(cx->rt, &b, &t->b);
    WA_AWAIT(&t->a.fut);
    if (WA_STATUS)
        WA_RETURN(WA_STATUS);
    WA_AWAIT(&t->b.fut);
    region_end();
    WA_RETURN(WA_STATUS);
    WA_END();
}
static const wa_future_vt pingpong_vt = {pingpong_poll, wa_coro_drop, "pingpong"};

/* yield_many: t tasks, each yields k times; then every handle is awaited. */
typedef struct yielder {
    WA_CORO;
    long k, i;
} yielder;

static int yielder_poll(wa_future *f, wa_cx *cx)
{
    yielder *t = (yielder *)f;
    WA_BEGIN(t, cx);
    for (t->i = 0; t->i < t->k; t->i++)
        WA_YIELD();
    WA_END();
}
static const wa_future_vt yielder_vt = {yielder_poll, wa_coro_drop, "yielder"};

typedef struct yielders {
    WA_CORO;
    wa_join *jh;
    long t, k, i;
} yielders;

static int yielders_poll(wa_future *f, wa_cx *cx)
{
    yielders *t = (yielders *)f;
    WA_BEGIN(t, cx);
    region_begin();
    for (t->i = 0; t->i < t->t; t->i++) {
        yielder y = {.k = t->k};
        wa_coro_init(&y.wa, &yielder_vt);
        if (wa_spawn_of(cx->rt, &y, &t->jh[t->i]) < 0)
            WA_RETURN(WA_ENOMEM);
    }
    for (t->i = 0; t->i < t->t; t->i++) {
        WA_AWAIT(&t->jh[t->i].fut);
        if (WA_STATUS)
            WA_RETURN(WA_STATUS);
    }
    region_end();
    WA_END();
}
static const wa_future_vt yielders_vt = {yielders_poll, wa_coro_drop, "yielders"};

/* join_race: a child ready at its second poll, having woken itself at
 * its first (through its branch's waker). */
typedef struct once {
    wa_future fut;
    int polled;
} once;

static int once_poll(wa_future *f, wa_cx *cx)
{
    once *o = (once *)f;
    if (o->polled++)
        return WA_READY;
    wa_waker_wake_by_ref(&cx->waker);
    return WA_PENDING;
}
static const wa_future_vt once_vt = {once_poll, NULL, "once"};

typedef struct combiner {
    WA_CORO;
    WA_COMBO(2) j;
    once a, b;
    long m, i;
} combiner;

static int combiner_poll(wa_future *f, wa_cx *cx)
{
    combiner *t = (combiner *)f;
    WA_BEGIN(t, cx);
    region_begin();
    for (t->i = 0; t->i < t->m; t->i++) {
        t->a = t->b = (once){{&once_vt}, 0};
        WA_AWAIT(wa_all_init(&t->j, &t->a.fut, &t->b.fut));
        t->a = t->b = (once){{&once_vt}, 0};
        WA_AWAIT(wa_race_init(&t->j, &t->a.fut, &t->b.fut));
        if (WA_STATUS)
            WA_RETURN(WA_STATUS);
    }
    region_end();
    WA_END();
}
static const wa_future_vt combiner_vt = {combiner_poll, wa_coro_drop, "combiner"};

/* timers: every task is a bare sleep, in a scope. */
static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

typedef struct sleepers {
    WA_CORO;
    wa_scope scope;
    long t, max_ms, ideal_ms;
} sleepers;

static int sleepers_poll(wa_future *f, wa_cx *cx)
{
    sleepers *t = (sleepers *)f;
    WA_BEGIN(t, cx);
    uint64_t seed = 42;
    region_begin();
    /* every sleep counts from the start (the runtime's cached time, as
     * libuv's peer does with its loop time; tokio's peer creates each sleep
     * at its task's first poll instead) */
    uint64_t start = wa_now(cx->rt);
    wa_scope_init(&t->scope, cx->rt, WA_SCOPE_FAIL_FAST);
    for (long i = 0; i < t->t; i++) {
        long ms = (long)(splitmix64(&seed) % (uint64_t)(t->max_ms + 1));
        if (ms > t->ideal_ms)
            t->ideal_ms = ms;
        wa_sleep s;
        wa_sleep_until_init(&s, start + WA_MS(ms));
        if (wa_scope_spawn_of(&t->scope, &s, NULL) < 0)
            WA_RETURN(WA_ENOMEM);
    }
    WA_AWAIT(wa_scope_wait(&t->scope));
    region_end();
    WA_RETURN(WA_STATUS);
    WA_END();
}
static const wa_future_vt sleepers_vt = {sleepers_poll, wa_coro_drop, "sleepers"};

/* sleepers: every task is a bare sleep until one deadline, in a scope; once
 * all have armed their timers (a yield lets each be polled once), the RSS
 * they added is read. */
typedef struct parked {
    WA_CORO;
    wa_scope scope;
    wa_yield y;
    long n, rss_kb0, rss_kb1;
    int late; /* some deadline passed before its task's first poll */
} parked;

static long maxrss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

static int parked_poll(wa_future *f, wa_cx *cx)
{
    parked *t = (parked *)f;
    WA_BEGIN(t, cx);
    t->rss_kb0 = maxrss_kb();
    region_begin();
    uint64_t deadline = wa_now(cx->rt) + WA_MS(500);
    wa_scope_init(&t->scope, cx->rt, WA_SCOPE_FAIL_FAST);
    for (long i = 0; i < t->n; i++) {
        wa_sleep s;
        wa_sleep_until_init(&s, deadline);
        if (wa_scope_spawn_of(&t->scope, &s, NULL) < 0)
            WA_RETURN(WA_ENOMEM);
    }
    WA_AWAIT(wa_yield_init(&t->y));
    wa_rt_stats st;
    wa_rt_stats_get(cx->rt, &st);
    if ((t->late = st.timers != (size_t)t->n)) {
        fprintf(stderr, "sleepers: %zu of %ld armed\n", st.timers, t->n);
        wa_scope_cancel(&t->scope);
    }
    t->rss_kb1 = maxrss_kb();
    WA_AWAIT(wa_scope_wait(&t->scope));
    region_end();
    WA_RETURN(t->late ? WA_ETIMEDOUT : WA_STATUS);
    WA_END();
}
static const wa_future_vt parked_vt = {parked_poll, wa_coro_drop, "parked"};

static long arg(int argc, char **argv, int i, long def)
{
    return argc > i ? strtol(argv[i], NULL, 10) : def;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s spawn_join [N] | yield_pingpong [M] | timers [T MAX_MS] | yield_many [T K]"
                        " | sleepers [N] | join_race [M] | mt_spawn [N WORKERS] | mt_pingpong [M WORKERS]"
                        " | mt_yield [T K WORKERS] | mt_join_race [M WORKERS]\n", argv[0]);
        return 2;
    }
    const char *w = argv[1];
    wa_rt *rt;
    /* a many-threads workload is its local one on wa_rt_new_mt, WORKERS
     * its last argument */
    int mt = !strncmp(w, "mt_", 3);
    long workers = arg(argc, argv, strcmp(w, "mt_yield") ? 3 : 4, 2);
    int rc = mt ? wa_rt_new_mt(&rt, (unsigned)workers) : wa_rt_new(&rt);
    if (rc) {
        fprintf(stderr, "wa_rt_new: %s\n", wa_strerror(rc));
        return 1;
    }
    long n;
    char extra[64] = "";
    if (mt)
        snprintf(extra, sizeof extra, " workers=%ld", workers);
    if (!strcmp(w, "spawn_join") || !strcmp(w, "mt_spawn")) {
        n = arg(argc, argv, 2, 1000000);
        rc = run_spawn_join(rt, n);
    } else if (!strcmp(w, "yield_pingpong") || !strcmp(w, "mt_pingpong")) {
        n = arg(argc, argv, 2, 1000000);
        pingpong p = {.m = n, .shared = mt};
        wa_coro_init(&p.wa, &pingpong_vt);
        rc = wa_block_on(rt, &p.wa.fut);
    } else if (!strcmp(w, "yield_many") || !strcmp(w, "mt_yield")) {
        yielders y = {.t = arg(argc, argv, 2, 1000), .k = arg(argc, argv, 3, 1000)};
        n = y.t * y.k;
        wa_coro_init(&y.wa, &yielders_vt);
        y.jh = malloc((size_t)y.t * sizeof *y.jh);
        rc = y.jh ? wa_block_on(rt, &y.wa.fut) : WA_ENOMEM;
        free(y.jh);
    } else if (!strcmp(w, "join_race") || !strcmp(w, "mt_join_race")) {
        n = arg(argc, argv, 2, 1000000);
        combiner c = {.m = n};
        wa_coro_init(&c.wa, &combiner_vt);
        rc = wa_block_on(rt, &c.wa.fut);
    } else if (!strcmp(w, "timers")) {
        n = arg(argc, argv, 2, 100000);
        sleepers s = {.t = n, .max_ms = arg(argc, argv, 3, 100)};
        wa_coro_init(&s.wa, &sleepers_vt);
        rc = wa_block_on(rt, &s.wa.fut);
        snprintf(extra, sizeof extra, " over_ideal_ms=%.3f",
                 (double)region_ns() / 1e6 - (double)s.ideal_ms);
    } else if (!strcmp(w, "sleepers")) {
        n = arg(argc, argv, 2, 1000000);
        parked p = {.n = n};
        wa_coro_init(&p.wa, &parked_vt);
        rc = wa_block_on(rt, &p.wa.fut);
        snprintf(extra, sizeof extra, " rss_per_task=%.1f", (double)(p.rss_kb1 - p.rss_kb0) * 1024 / (double)n);
    } else {
        fprintf(stderr, "unknown workload %s\n", w);
        return 2;
    }
    wa_rt_free(rt);
    if (rc) {
        fprintf(stderr, "%s: %s\n", w, wa_strerror(rc));
        return 1;
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double wall = (double)region_ns();
    printf("peer=wasync workload=%s n=%ld wall_ms=%.3f ns_per_op=%.3f ops_per_s=%.3f maxrss_kb=%ld%s",
           w, n, wall / 1e6, n ? wall / (double)n : 0.0, wall > 0 ? (double)n * 1e9 / wall : 0.0,
           ru.ru_maxrss, extra);
    /* CPU time of every thread, the whole run: about wall_ms when the
     * tasks share one worker, up to WORKERS times it when they spread */
    if (mt)
        printf(" cpu_ms=%.3f", (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
                                   (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3);
    printf("\n");
    return 0;
}
