/* SPDX-License-Identifier: MIT */
/* The many-threads executor (wa_rt_new_mt): spawn and join across workers,
 * wakes and spawns from foreign threads, steals under contention,
 * cancellation racing completion, shutdown under load, timers, misuse
 * reports naming tasks while wa_block_on runs. Run under
 * TSan by the tsan preset; the counts are smaller under a sanitizer, and
 * smaller still under tests/faults (which runs the binary once per
 * allocation it samples). A setup that fails there (the runtime, a spawn)
 * stops its test, releasing what it made. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "rt_setup.h"

#define SCALE CHECK_SCALE(100, 10)

/* A task returning its index through a pointer. */
typedef struct ret_index {
    wa_future fut;
    long index;
    long *out;
} ret_index;

static int ret_index_poll(wa_future *f, wa_cx *cx)
{
    (void)cx;
    ret_index *t = (ret_index *)f;
    *t->out = t->index;
    return t->index % 7 == 3 ? WA_EIO : 0;
}
static const wa_future_vt ret_index_vt = {ret_index_poll, NULL, "ret_index"};

typedef struct spawner {
    WA_CORO;
    wa_join *jh;
    long *out;
    long n, i, sum, errors;
} spawner;

WA_ASYNC(spawner, t, cx, spawner_cleanup)
{
    WA_BEGIN(t, cx);
    for (t->i = 0; t->i < t->n; t->i++) {
        ret_index r = {{&ret_index_vt}, t->i, &t->out[t->i]};
        if (wa_spawn_of(cx->rt, &r, &t->jh[t->i]) < 0)
            WA_RETURN(WA_ENOMEM); /* (the drop drops the handles) */
    }
    for (t->i = 0; t->i < t->n; t->i++) {
        WA_AWAIT(&t->jh[t->i].fut);
        t->errors += WA_STATUS == WA_EIO;
        t->sum += t->out[t->i];
    }
    WA_END();
}
/* Drops the handles that were not awaited (a spawn failed). */
static void spawner_cleanup(spawner *t) { check_joins_drop(t->jh, (int)t->n); }

static void test_mt_spawn_join(void)
{
    for (unsigned workers = 1; workers <= 4; workers *= 2) {
        wa_rt *rt;
        REQUIRE(wa_rt_new_mt(&rt, workers) == 0);
        long n = 1000000 / SCALE;
        spawner s = {.n = n};
        spawner_init(&s);
        s.jh = calloc((size_t)n, sizeof *s.jh);
        s.out = malloc((size_t)n * sizeof *s.out);
        /* The runtime goes first: children of a failed spawner may still run. */
        int rc = s.jh && s.out ? wa_block_on(rt, &s.wa.fut) : WA_ENOMEM;
        REQUIRE_OR(rc != WA_ENOMEM, (wa_rt_free(rt), free(s.jh), free(s.out)));
        CHECK_EQ(rc, 0);
        CHECK_EQ(s.sum, n * (n - 1) / 2);
        CHECK_EQ(s.errors, (n + 3) / 7);
        wa_rt_stats st;
        wa_rt_stats_get(rt, &st);
        CHECK_EQ(st.spawned, n + 1);
        free(s.jh);
        free(s.out);
        wa_rt_free(rt);
    }
}

/* A gate opened from another thread: the waker it keeps is a task's. */
typedef struct gate {
    pthread_mutex_t lock;
    int open;
    wa_waker waker;
} gate;

typedef struct gate_wait {
    wa_future fut;
    gate *g;
    long *done;
} gate_wait;

static int gate_wait_poll(wa_future *f, wa_cx *cx)
{
    gate_wait *w = (gate_wait *)f;
    pthread_mutex_lock(&w->g->lock);
    int open = w->g->open;
    if (!open)
        wa_waker_store(&w->g->waker, cx);
    pthread_mutex_unlock(&w->g->lock);
    if (!open)
        return WA_PENDING;
    __atomic_add_fetch(w->done, 1, __ATOMIC_RELAXED);
    return 0;
}
static const wa_future_vt gate_wait_vt = {gate_wait_poll, NULL, "gate_wait"};

typedef struct opener {
    gate *gates;
    long from, to;
} opener;

static void *open_gates(void *arg)
{
    opener *o = arg;
    for (long i = o->from; i < o->to; i++) {
        gate *g = &o->gates[i];
        pthread_mutex_lock(&g->lock);
        g->open = 1;
        wa_waker w = g->waker;
        g->waker = (wa_waker){NULL, NULL};
        pthread_mutex_unlock(&g->lock);
        if (w.vt)
            wa_waker_wake(&w);
    }
    return NULL;
}

/* Frees gates[0..n), dropping the wakers still kept (a test stopped:
 * those of tasks the runtime, freed first, has dropped). */
static void gates_free(gate *gates, long n)
{
    for (long i = 0; i < n; i++) {
        wa_waker_drop(&gates[i].waker);
        pthread_mutex_destroy(&gates[i].lock);
    }
    free(gates);
}

/* Tasks that wait, woken by two foreign threads while the workers run. */
static void test_mt_foreign_wakes(void)
{
    wa_rt *rt;
    REQUIRE(wa_rt_new_mt(&rt, 2) == 0);
    long n = 1000000 / SCALE, done = 0;
    gate *gates = calloc((size_t)n, sizeof *gates);
    REQUIRE_OR(gates, wa_rt_free(rt));
    for (long i = 0; i < n; i++)
        pthread_mutex_init(&gates[i].lock, NULL);
    for (long i = 0; i < n; i++) {
        gate_wait w = {{&gate_wait_vt}, &gates[i], &done};
        REQUIRE_OR(wa_spawn_of(rt, &w, NULL) == 0, (wa_rt_free(rt), gates_free(gates, n)));
    }
    opener o[2] = {{gates, 0, n / 2}, {gates, n / 2, n}};
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&th[i], NULL, open_gates, &o[i]);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK_EQ(__atomic_load_n(&done, __ATOMIC_RELAXED), n);
    wa_rt_free(rt);
    gates_free(gates, n);
}

/* Spawns from foreign threads (wa_spawn is the cross-thread handle of a
 * many-threads runtime), of tasks that yield: steals under contention. */
typedef struct yielder {
    WA_CORO;
    wa_yield y;
    int i, n;
    long *polls;
} yielder;

WA_ASYNC(yielder, t, cx)
{
    WA_BEGIN(t, cx);
    for (t->i = 0; t->i < t->n; t->i++) {
        __atomic_add_fetch(t->polls, 1, __ATOMIC_RELAXED);
        WA_AWAIT(wa_yield_init(&t->y));
    }
    WA_END();
}

typedef struct foreign_spawner {
    wa_rt *rt;
    long n, failed;
    long *polls;
} foreign_spawner;

static void *spawn_from_thread(void *arg)
{
    foreign_spawner *f = arg;
    for (long i = 0; i < f->n; i++) {
        yielder y = {.n = 10, .polls = f->polls};
        yielder_init(&y);
        if (wa_spawn_of(f->rt, &y, NULL) != 0) {
            f->failed++;
            break;
        }
    }
    return NULL;
}

static void test_mt_foreign_spawns_and_steals(void)
{
    wa_rt *rt;
    REQUIRE(wa_rt_new_mt(&rt, 4) == 0);
    long polls = 0, n = 100000 / SCALE;
    foreign_spawner f[2] = {{rt, n, 0, &polls}, {rt, n, 0, &polls}};
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&th[i], NULL, spawn_from_thread, &f[i]);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    REQUIRE_OR(f[0].failed + f[1].failed == 0, wa_rt_free(rt));
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK_EQ(__atomic_load_n(&polls, __ATOMIC_RELAXED), 2 * n * 10);
    wa_rt_free(rt);
}

/* Cancellation and abort from another thread racing completion: every
 * task ends exactly once, with its status or WA_ECANCELED, and its drop
 * runs once. */
typedef struct racer {
    WA_CORO;
    wa_yield y;
    int i, n;
} racer;

WA_ASYNC(racer, t, cx)
{
    WA_BEGIN(t, cx);
    for (t->i = 0; t->i < t->n; t->i++)
        WA_AWAIT(wa_yield_init(&t->y));
    WA_END();
}

typedef struct canceller {
    wa_join *jh;
    long from, to;
} canceller;

static void *cancel_some(void *arg)
{
    canceller *c = arg;
    for (long i = c->from; i < c->to; i++)
        CHECK_EQ(i % 2 ? wa_join_cancel(&c->jh[i]) : wa_join_abort(&c->jh[i]), 0);
    return NULL;
}

static void test_mt_cancel_races_completion(void)
{
    wa_rt *rt;
    REQUIRE(wa_rt_new_mt(&rt, 2) == 0);
    long n = 100000 / SCALE;
    wa_join *jh = calloc((size_t)n, sizeof *jh);
    REQUIRE_OR(jh, wa_rt_free(rt));
    for (long i = 0; i < n; i++) {
        racer r = {.n = i % 3 ? (int)(i % 5) : 1 << 30}; /* a third end only when cancelled */
        racer_init(&r);
        REQUIRE_OR(wa_spawn_of(rt, &r, &jh[i]) == 0, (check_joins_drop(jh, (int)i), free(jh), wa_rt_free(rt)));
    }
    canceller c = {jh, 0, n};
    pthread_t th;
    pthread_create(&th, NULL, cancel_some, &c);
    pthread_join(th, NULL);
    CHECK_EQ(wa_rt_run(rt), 0);
    long ok = 0, cancelled = 0;
    for (long i = 0; i < n; i++) {
        int st = wa_join_status(&jh[i]);
        ok += st == 0;
        cancelled += st == WA_ECANCELED;
        wa_join_drop(&jh[i]);
    }
    CHECK_EQ(ok + cancelled, n);
    CHECK(cancelled > 0);
    free(jh);
    wa_rt_free(rt);
}

/* Freeing the runtime while tasks run and yield forever: the workers stop,
 * every task is dropped once (its future's drop runs), nothing leaks. */
typedef struct spinner {
    wa_future fut;
    long *dropped;
} spinner;

static int spinner_poll(wa_future *f, wa_cx *cx)
{
    (void)f;
    wa_waker_wake_by_ref(&cx->waker);
    return WA_PENDING;
}
static void spinner_drop(wa_future *f) { __atomic_add_fetch(((spinner *)f)->dropped, 1, __ATOMIC_RELAXED); }
static const wa_future_vt spinner_vt = {spinner_poll, spinner_drop, "spinner"};

static void test_mt_shutdown_under_load(void)
{
    wa_rt *rt;
    REQUIRE(wa_rt_new_mt(&rt, 2) == 0);
    long dropped = 0, n = 10000 / SCALE;
    for (long i = 0; i < n; i++) {
        spinner s = {{&spinner_vt}, &dropped};
        REQUIRE_OR(wa_spawn_of(rt, &s, NULL) == 0, wa_rt_free(rt));
    }
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
    wa_rt_free(rt);
    CHECK_EQ(dropped, n);
}

/* A future that yields once, then ends. */
typedef struct yield_once {
    WA_CORO;
} yield_once;

WA_ASYNC(yield_once, t, cx)
{
    WA_BEGIN(t, cx);
    WA_YIELD();
    WA_END();
}

/* block_on of a future that ends as the runtime goes idle is never a
 * deadlock: its root's worker may say done and park between the waiting
 * thread's look at the root and its look at the idle runtime, which then
 * finds every worker parked and nothing to wake. It said WA_EDEADLK about
 * once in 600,000 (found by test_http_server's test_mt_shutdown under
 * TSan, once in about 400 runs); the wait looks at the root again. */
static void test_mt_block_on_ends_idle(void)
{
    wa_rt *rt;
    REQUIRE(wa_rt_new_mt(&rt, 2) == 0);
    long deadlocks = 0, n = 1000000 / SCALE;
    for (long i = 0; i < n; i++) {
        yield_once y;
        yield_once_init(&y);
        deadlocks += wa_block_on(rt, &y.wa.fut) == WA_EDEADLK;
    }
    wa_rt_free(rt);
    CHECK_EQ(deadlocks, 0);
}

/* Sleeps on workers: each ends no earlier than asked, wherever it runs. */
typedef struct napper {
    WA_CORO;
    wa_sleep s;
    uint64_t ns, start, took;
} napper;

WA_ASYNC(napper, t, cx)
{
    WA_BEGIN(t, cx);
    t->start = wa_now(cx->rt);
    WA_AWAIT(wa_sleep_init(&t->s, t->ns));
    t->took = wa_now(cx->rt) - t->start;
    WA_END();
}

static void test_mt_timers(void)
{
    wa_rt *rt;
    REQUIRE(wa_rt_new_mt(&rt, 2) == 0);
    enum { N = 200 };
    wa_join jh[N];
    for (int i = 0; i < N; i++) {
        napper p = {.ns = WA_MS(i % 20)};
        napper_init(&p);
        REQUIRE_OR(wa_spawn_of(rt, &p, &jh[i]) == 0, (check_joins_drop(jh, i), wa_rt_free(rt)));
    }
    CHECK_EQ(wa_rt_run(rt), 0);
    for (int i = 0; i < N; i++) {
        napper *p = (napper *)wa_join_output(&jh[i]);
        CHECK(p && p->took >= WA_MS(i % 20));
        wa_join_drop(&jh[i]);
    }
    wa_rt_free(rt);
}

static int misuses;
static void count_misuse(const char *what)
{
    (void)what;
    __atomic_add_fetch(&misuses, 1, __ATOMIC_RELAXED);
}

typedef struct nester {
    wa_future fut;
    int rc;
} nester;

static int nester_poll(wa_future *f, wa_cx *cx)
{
    nester *n = (nester *)f;
    wa_yield y;
    n->rc = wa_block_on(cx->rt, wa_yield_init(&y));
    return 0;
}
static const wa_future_vt nester_vt = {nester_poll, NULL, "nester"};

/* Awaits a sleep that is a local of its poll function (mine), or one in
 * its caller's frame (theirs). */
typedef struct local_nap {
    WA_CORO;
    wa_sleep *theirs;
} local_nap;

WA_ASYNC(local_nap, t, cx)
{
    wa_sleep mine;
    WA_BEGIN(t, cx);
    WA_AWAIT(wa_sleep_init(t->theirs ? t->theirs : &mine, WA_MS(2)));
    WA_END();
}

/* What the workers own is refused: ticking it, blocking inside a poll; an
 * await of a local of the poll (on a worker's stack), not one of the
 * caller's (on block_on's). */
static void test_mt_misuse(void)
{
    wa_misuse_set_hook(count_misuse);
    wa_rt *rt;
    CHECK_EQ(wa_rt_new_mt(&rt, 0), WA_EINVAL);
    REQUIRE(wa_rt_new_mt(&rt, 2) == 0);
    CHECK_EQ(wa_rt_tick(rt, NULL), WA_EMISUSE);
    nester n = {{&nester_vt}, 0};
    int rc = wa_block_on(rt, &n.fut);
    REQUIRE_OR(rc != WA_ENOMEM, wa_rt_free(rt));
    CHECK_EQ(rc, 0);
    CHECK_EQ(n.rc, WA_EMISUSE);
    CHECK_EQ(misuses, 3);
    local_nap bad = {0};
    CHECK_EQ(wa_block_on(rt, local_nap_init(&bad)), WA_EMISUSE);
    CHECK_EQ(misuses, 4);
    wa_sleep caller;
    local_nap good = {.theirs = &caller};
    CHECK_EQ(wa_block_on(rt, local_nap_init(&good)), 0);
    CHECK_EQ(misuses, 4);
    wa_rt_free(rt);
}

/* Misuse reported on a worker names its task while wa_block_on runs on
 * the creating thread: block_on's own task is told by its future, not by
 * a field of the runtime that wa_block_on wrote while workers read it to
 * name theirs (a race under TSan, and a root named without "block_on"). */
static int reports_bg, reports_root, reports_wrong;
static void sort_misuse(const char *what)
{
    int *n = strstr(what, "\"block_on(rooter)\"]") ? &reports_root
             : strstr(what, "\"reporter\"]")        ? &reports_bg
                                                      : &reports_wrong;
    __atomic_add_fetch(n, 1, __ATOMIC_RELAXED);
}

/* Reports a misuse (a spawn of nothing) at each poll, yielding, until
 * *stop. */
typedef struct reporter {
    wa_future fut;
    int *stop;
} reporter;

static int reporter_poll(wa_future *f, wa_cx *cx)
{
    if (__atomic_load_n(((reporter *)f)->stop, __ATOMIC_RELAXED))
        return 0;
    wa_spawn(cx->rt, NULL, sizeof(wa_future), NULL);
    wa_waker_wake_by_ref(&cx->waker);
    return WA_PENDING;
}
static const wa_future_vt reporter_vt = {reporter_poll, NULL, "reporter"};

static int rooter_poll(wa_future *f, wa_cx *cx)
{
    (void)f;
    wa_spawn(cx->rt, NULL, sizeof(wa_future), NULL);
    return 0;
}
static const wa_future_vt rooter_vt = {rooter_poll, NULL, "rooter"};

static void test_mt_misuse_names(void)
{
    wa_misuse_set_hook(sort_misuse);
    wa_rt *rt;
    REQUIRE(wa_rt_new_mt(&rt, 2) == 0);
    int stop = 0, n = 0;
    reporter r = {{&reporter_vt}, &stop};
    REQUIRE_OR(wa_spawn_of(rt, &r, NULL) == 0, wa_rt_free(rt));
    for (int i = 0; i < 400 / CHECK_SCALE(20, 1); i++) {
        wa_future root = {&rooter_vt};
        n += wa_block_on(rt, &root) == 0;
    }
    for (int i = 0; i < 1000 && !__atomic_load_n(&reports_bg, __ATOMIC_RELAXED); i++) { /* (a loaded machine) */
        wa_sleep z;
        wa_block_on(rt, wa_sleep_init(&z, WA_MS(1)));
    }
    __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK_EQ(__atomic_load_n(&reports_root, __ATOMIC_RELAXED), n);
    CHECK(__atomic_load_n(&reports_bg, __ATOMIC_RELAXED) > 0);
    CHECK_EQ(__atomic_load_n(&reports_wrong, __ATOMIC_RELAXED), 0);
    wa_rt_free(rt);
}

/* Join sets across workers: a task yields left times, then puts twice its
 * index in its own value (read back through join_next's output). */
typedef struct set_child {
    wa_future fut;
    int left;
    long index, value;
} set_child;

static int set_child_poll(wa_future *f, wa_cx *cx)
{
    set_child *t = (set_child *)f;
    if (t->left-- > 0) {
        wa_waker_wake_by_ref(&cx->waker);
        return WA_PENDING;
    }
    t->value = 2 * t->index;
    return t->index % 7 == 3 ? WA_EIO : 0;
}
static const wa_future_vt set_child_vt = {set_child_poll, NULL, "set_child"};

typedef struct set_gatherer {
    WA_CORO;
    wa_join_set set;
    wa_join_next next;
    char *seen;
    long n, i, got, errors, sum;
} set_gatherer;

WA_ASYNC(set_gatherer, t, cx, set_gatherer_cleanup)
{
    WA_BEGIN(t, cx);
    wa_join_set_init(&t->set, cx->rt);
    for (t->i = 0; t->i < t->n; t->i++) {
        set_child c = {{&set_child_vt}, (int)(t->i % 4), t->i, 0};
        if (wa_join_set_spawn_of(&t->set, &c) < 0)
            WA_RETURN(WA_ENOMEM); /* (the cleanup drops the set) */
    }
    for (;;) {
        WA_AWAIT(wa_join_next_init(&t->next, &t->set));
        if (WA_STATUS != 0)
            break;
        set_child *c = (set_child *)t->next.output;
        t->got++;
        t->errors += t->next.status == WA_EIO;
        t->sum += c->value;
        t->seen[c->index]++;
    }
    WA_RETURN(WA_STATUS == WA_ECLOSED ? 0 : WA_STATUS);
    WA_END();
}
static void set_gatherer_cleanup(set_gatherer *t)
{
    if (t->set.rt)
        wa_join_set_drop(&t->set);
}

static void test_mt_join_set(void)
{
    for (unsigned workers = 1; workers <= 4; workers *= 2) {
        wa_rt *rt;
        REQUIRE(wa_rt_new_mt(&rt, workers) == 0);
        long n = 200;
        set_gatherer g = {.n = n};
        set_gatherer_init(&g);
        g.seen = calloc((size_t)n, 1);
        int rc = g.seen ? wa_block_on(rt, &g.wa.fut) : WA_ENOMEM;
        REQUIRE_OR(rc != WA_ENOMEM, (wa_rt_free(rt), free(g.seen)));
        CHECK_EQ(rc, 0);
        CHECK_EQ(g.got, n);
        CHECK_EQ(g.sum, n * (n - 1));
        CHECK_EQ(g.errors, (n + 3) / 7);
        long once = 0;
        for (long i = 0; i < n; i++)
            once += g.seen[i] == 1;
        CHECK_EQ(once, n);
        free(g.seen);
        wa_rt_free(rt);
    }
}

/* A set used from the creating thread: its cancel ends tasks that never
 * end otherwise (each then comes out cancelled), its drop hard-drops
 * them. */
static void test_mt_join_set_cancel_drop(void)
{
    wa_rt *rt;
    REQUIRE(wa_rt_new_mt(&rt, 2) == 0);
    for (int drop = 0; drop < 2; drop++) {
        long dropped = 0, n = 100;
        wa_join_set s;
        wa_join_set_init(&s, rt);
        for (long i = 0; i < n; i++) {
            spinner sp = {{&spinner_vt}, &dropped};
            REQUIRE_OR(wa_join_set_spawn_of(&s, &sp) == 0, (wa_join_set_drop(&s), wa_rt_free(rt)));
        }
        if (drop) {
            wa_join_set_drop(&s);
            CHECK_EQ(wa_rt_run(rt), 0);
        } else {
            wa_join_set_cancel(&s);
            long cancelled = 0;
            for (long i = 0; i < n; i++) {
                wa_join_next jn;
                CHECK_EQ(wa_block_on(rt, wa_join_next_init(&jn, &s)), 0);
                cancelled += jn.status == WA_ECANCELED;
            }
            CHECK_EQ(cancelled, n);
            wa_join_next jn;
            CHECK_EQ(wa_block_on(rt, wa_join_next_init(&jn, &s)), WA_ECLOSED);
            wa_join_set_drop(&s);
        }
        CHECK_EQ(__atomic_load_n(&dropped, __ATOMIC_RELAXED), n);
    }
    wa_rt_free(rt);
}

/* wa_rt_free while a task awaits a join_next of its set of spinners: the
 * task's cleanup drops the set (aborts, handle drops) while the free drops
 * every task; each spinner is dropped once. */
typedef struct set_holder {
    WA_CORO;
    wa_join_set set;
    wa_join_next next;
    long *dropped, *spawned;
    long n, i;
} set_holder;

WA_ASYNC(set_holder, t, cx, set_holder_cleanup)
{
    WA_BEGIN(t, cx);
    wa_join_set_init(&t->set, cx->rt);
    for (t->i = 0; t->i < t->n; t->i++) {
        spinner sp = {{&spinner_vt}, t->dropped};
        if (wa_join_set_spawn_of(&t->set, &sp) < 0)
            WA_RETURN(WA_ENOMEM);
        __atomic_add_fetch(t->spawned, 1, __ATOMIC_RELAXED);
    }
    WA_AWAIT(wa_join_next_init(&t->next, &t->set)); /* (never: they spin) */
    WA_END();
}
static void set_holder_cleanup(set_holder *t)
{
    if (t->set.rt)
        wa_join_set_drop(&t->set);
}

static void test_mt_join_set_rt_free(void)
{
    wa_rt *rt;
    REQUIRE(wa_rt_new_mt(&rt, 2) == 0);
    long dropped = 0, spawned = 0;
    set_holder h = {.n = 50, .dropped = &dropped, .spawned = &spawned};
    set_holder_init(&h);
    REQUIRE_OR(wa_spawn_of(rt, &h, NULL) == 0, wa_rt_free(rt));
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
    wa_rt_free(rt);
    CHECK_EQ(dropped, spawned); /* (the holder may not have run yet on a loaded machine: none) */
}

/* Task-local values on many workers: each task reads its own while it
 * yields from worker to worker (a value is the task's, not the thread's),
 * a child does not inherit it, and each value's drop runs once, at its
 * task's end, on whichever worker ends it. */
static long mt_local_dropped;
static void mt_local_drop(void *v) { __atomic_add_fetch(&mt_local_dropped, *(long *)v, __ATOMIC_RELAXED); }
static const wa_task_local mt_local_key = {mt_local_drop};

typedef struct mt_localer {
    WA_CORO;
    wa_yield y;
    long id, i, rounds;
    long *bad;
} mt_localer;

WA_ASYNC(mt_localer, t, cx)
{
    WA_BEGIN(t, cx);
    if (wa_task_local_get(&mt_local_key))
        __atomic_add_fetch(t->bad, 1, __ATOMIC_RELAXED);
    if (wa_task_local_set(&mt_local_key, &t->id) < 0)
        WA_RETURN(WA_ENOMEM);
    for (t->i = 0; t->i < t->rounds; t->i++) {
        WA_AWAIT(wa_yield_init(&t->y));
        if (wa_task_local_get(&mt_local_key) != &t->id)
            __atomic_add_fetch(t->bad, 1, __ATOMIC_RELAXED);
    }
    WA_END();
}

typedef struct mt_local_root {
    WA_CORO;
    wa_join jh[64];
    long n, i, bad;
    int rc;
} mt_local_root;

static void mt_local_root_cleanup(mt_local_root *t) { check_joins_drop(t->jh, (int)t->n); }

WA_ASYNC(mt_local_root, t, cx, mt_local_root_cleanup)
{
    WA_BEGIN(t, cx);
    if (wa_task_local_set(&mt_local_key, &t->n) < 0) /* not its children's */
        WA_RETURN(WA_ENOMEM);
    for (t->i = 0; t->i < t->n; t->i++) {
        mt_localer l = {.id = t->i + 1, .rounds = 2000 / SCALE + 10, .bad = &t->bad};
        mt_localer_init(&l);
        if (wa_spawn_of(cx->rt, &l, &t->jh[t->i]) < 0)
            WA_RETURN(WA_ENOMEM);
    }
    for (t->i = 0; t->i < t->n; t->i++) {
        WA_AWAIT(&t->jh[t->i].fut);
        if (WA_STATUS && !t->rc)
            t->rc = WA_STATUS;
    }
    WA_RETURN(t->rc);
    WA_END();
}

static void test_mt_task_local(void)
{
    wa_rt *rt;
    REQUIRE(wa_rt_new_mt(&rt, 2) == 0);
    mt_local_root r = {.n = 64};
    mt_local_root_init(&r);
    mt_local_dropped = 0;
    int rc = wa_block_on(rt, &r.wa.fut);
    wa_rt_free(rt);
    REQUIRE(rc != WA_ENOMEM);
    CHECK_EQ(rc, 0);
    CHECK_EQ(r.bad, 0);
    CHECK_EQ(__atomic_load_n(&mt_local_dropped, __ATOMIC_RELAXED), 64 * 65 / 2 + 64);
}

/* A task waiting on a shared notify, then yielding `yields` times. */
typedef struct mt_waiter {
    WA_CORO;
    wa_notify *n;
    wa_notified wait;
    wa_yield y;
    int yields, i;
} mt_waiter;

WA_ASYNC(mt_waiter, t, cx)
{
    WA_BEGIN(t, cx);
    WA_TRY(wa_notified_init(&t->wait, t->n));
    for (t->i = 0; t->i < t->yields; t->i++)
        WA_AWAIT(wa_yield_init(&t->y));
    WA_END();
}

/* How many times word occurs in text. */
/* The many-threads runtime's dump lists its tasks (it listed none): each
 * named task by its name and its future's, waiting, with its poll counted
 * and what it awaits;
 * and dumps taken while the tasks run and wake (each holds a waiting task
 * while it reads it) lose no wake: every task ends. */
static void test_mt_dump_lists_tasks(void)
{
    wa_rt *rt;
    REQUIRE(wa_rt_new_mt(&rt, 2) == 0);
    wa_notify n;
    wa_notify_init_shared(&n);
    enum { N = 4 };
    wa_join j[N] = {0};
    static const char *const names[N] = {"conn 1", "conn 2", "conn 3", NULL};
    for (int i = 0; i < N; i++) {
        mt_waiter w = {.n = &n, .yields = 200};
        mt_waiter_init(&w);
        REQUIRE_OR(wa_spawn_of_named(rt, &w, &j[i], names[i]) == 0, (check_joins_drop(j, N), wa_rt_free(rt)));
    }
    char buf[1024];
    int waiting = 0;
    for (int k = 0; k < 10000 && waiting < N; k++) { /* until each was polled once */
        usleep(1000);
        wa_rt_dump(rt, buf, sizeof buf);
        waiting = check_count(buf, " waiting");
    }
    CHECK_EQ(waiting, N);
    CHECK_EQ(check_count(buf, "task "), N);
    for (int i = 0; i < N - 1; i++) {
        char line[64];
        snprintf(line, sizeof line, "\"%s\" (mt_waiter) waiting for ", names[i]);
        CHECK(strstr(buf, line) != NULL);
    }
    CHECK_EQ(check_count(buf, "[1 poll, busy "), N - 1); /* the named ones' */
    CHECK_EQ(check_count(buf, "\"mt_waiter\" waiting"), 1);
    CHECK_EQ(check_count(buf, ": notified\n"), N); /* what each awaits */
    wa_notify_all(&n);
    for (int k = 0; k < 100000 && wa_rt_dump(rt, buf, sizeof buf); k++)
        ; /* the dumps hold the tasks as they yield */
    CHECK_EQ(wa_rt_run(rt), 0);
    for (int i = 0; i < N; i++)
        CHECK_EQ(wa_join_status(&j[i]), 0);
    check_joins_drop(j, N);
    CHECK_EQ(wa_rt_dump(rt, buf, sizeof buf), 0);
    wa_rt_free(rt);
}

/* A trace of a many-threads runtime (wasync/trace.h): tasks polled and
 * woken on the workers write into one file, which wa_rt_free closes: each
 * task begins and ends once, and its wakes say who woke it. */
static void test_mt_trace(void)
{
    char path[] = "/tmp/wasync-mt-trace-XXXXXX";
    int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    close(fd);
    wa_rt *rt;
    REQUIRE_OR(wa_rt_new_mt(&rt, 2) == 0, unlink(path));
    REQUIRE_OR(wa_trace_start(rt, path) == 0, (wa_rt_free(rt), unlink(path)));
    CHECK_EQ(wa_trace_start(rt, path), WA_EBUSY);
    wa_notify n;
    wa_notify_init_shared(&n);
    enum { N = 16 };
    int spawned = 0;
    for (int i = 0; i < N; i++) {
        mt_waiter w = {.n = &n, .yields = 20};
        mt_waiter_init(&w);
        spawned += wa_spawn_of(rt, &w, NULL) == 0;
    }
    char buf[4096] = "";
    for (int k = 0; k < 10000 && check_count(buf, " waiting") < spawned; k++) {
        usleep(1000);
        wa_rt_dump(rt, buf, sizeof buf);
    }
    wa_notify_all(&n);
    CHECK_EQ(wa_rt_run(rt), 0);
    wa_rt_free(rt);
    static char text[1 << 20];
    size_t len = check_take_file(path, text, sizeof text);
    CHECK(strncmp(text, "{\"displayTimeUnit\"", 18) == 0);
    CHECK(len > 4 && strcmp(text + len - 4, "\n]}\n") == 0);
    CHECK_EQ(check_count(text, "\"ph\":\"b\",\"cat\":\"task\",\"name\":\"mt_waiter\""), spawned);
    CHECK_EQ(check_count(text, "\"ph\":\"e\",\"cat\":\"task\",\"name\":\"task\""), spawned);
    CHECK_EQ(check_count(text, "\"status\":0}"), spawned);
    CHECK_EQ(check_count(text, "\"name\":\"poll\""), 2 * check_count(text, "\"ph\":\"b\",\"cat\":\"task\",\"name\":\"poll\""));
    CHECK(check_count(text, "\"by\":\"itself\"") >= spawned); /* the yields */
    CHECK(check_count(text, "\"awaits\":\"notified\"") >= 1);
}

int main(void)
{
    RUN(test_mt_spawn_join);
    RUN(test_mt_foreign_wakes);
    RUN(test_mt_foreign_spawns_and_steals);
    RUN(test_mt_cancel_races_completion);
    RUN(test_mt_shutdown_under_load);
    RUN(test_mt_block_on_ends_idle);
    RUN(test_mt_timers);
    RUN(test_mt_misuse);
    RUN(test_mt_misuse_names);
    RUN(test_mt_join_set);
    RUN(test_mt_join_set_cancel_drop);
    RUN(test_mt_join_set_rt_free);
    RUN(test_mt_task_local);
    RUN(test_mt_dump_lists_tasks);
    RUN(test_mt_trace);
    return check_finish();
}
