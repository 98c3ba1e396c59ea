/* SPDX-License-Identifier: MIT */
/* Other threads and a runtime (wasync/thread.h), on the local executor and
 * on many threads: spawns from foreign threads, events set from them
 * racing completion and shutdown, the blocking pool (results, its bound,
 * cancellation before a job runs, detach while it runs, idle threads
 * exiting), graceful shutdown under load, a runtime freed while remotes
 * and events are held, remote tasks cancelled and aborted from foreign
 * threads (racing their end, before they ran, after the runtime). Run under TSan by the tsan preset and under
 * allocation-failure injection: a failed setup (runtime, remote, spawn)
 * stops its test, releasing what it made. */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "rt_setup.h"

#define SCALE CHECK_SCALE(100, 10)

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Spawns from foreign threads. Every task settles once, run or dropped
 * unrun (a spawn the inbox could not allocate), and so does every spawn
 * that failed: the one that settles the last sets the event block_on
 * waits for. */
typedef struct tally {
    long n, settled, ran, failed;
    wa_event *done;
} tally;

static void tally_settle(tally *y)
{
    if (__atomic_add_fetch(&y->settled, 1, __ATOMIC_ACQ_REL) == y->n)
        wa_event_set(y->done);
}

typedef struct counted {
    wa_future fut;
    tally *y;
    int ran;
} counted;

static int counted_poll(wa_future *f, wa_cx *cx)
{
    (void)cx;
    counted *c = (counted *)f;
    c->ran = 1;
    __atomic_add_fetch(&c->y->ran, 1, __ATOMIC_RELAXED);
    tally_settle(c->y);
    return 0;
}
static void counted_drop(wa_future *f)
{
    counted *c = (counted *)f;
    if (!c->ran)
        tally_settle(c->y);
}
static const wa_future_vt counted_vt = {counted_poll, counted_drop, "counted"};

typedef struct spawner {
    wa_remote *r;
    tally *y;
    long n;
    long joined; /* tasks whose join said 0 */
} spawner;

/* Spawns n tasks; every 64th with a join, waited for. */
static void *spawn_many(void *arg)
{
    spawner *s = arg;
    for (long i = 0; i < s->n; i++) {
        counted c = {{&counted_vt}, s->y, 0};
        wa_remote_join *j = NULL;
        if (wa_remote_spawn(s->r, &c.fut, sizeof c, i % 64 ? NULL : &j) < 0) {
            __atomic_add_fetch(&s->y->failed, 1, __ATOMIC_RELAXED);
            tally_settle(s->y);
            continue;
        }
        if (j) {
            s->joined += wa_remote_join_wait(j) == 0;
            wa_remote_join_drop(j);
        }
    }
    wa_remote_drop(s->r);
    return NULL;
}

static void remote_spawns_on(unsigned workers)
{
    enum { THREADS = 4 };
    wa_rt *rt;
    wa_remote *r;
    tally y = {.n = 100000 / SCALE};
    REQUIRE(check_rt_new(&rt, workers, &r, &y.done) == 0);
    spawner s[THREADS];
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++) {
        s[i] = (spawner){wa_remote_clone(r), &y, y.n / THREADS, 0};
        pthread_create(&th[i], NULL, spawn_many, &s[i]);
    }
    wa_remote_drop(r);
    wa_event_wait w;
    int rc = wa_block_on(rt, wa_event_wait_init(&w, y.done));
    CHECK_EQ(rc, 0);
    /* Freed first: a thread waiting for a task that never ran (block_on
     * failed) learns so from it. */
    wa_rt_free(rt);
    long joined = 0;
    for (int i = 0; i < THREADS; i++) {
        pthread_join(th[i], NULL);
        joined += s[i].joined;
    }
    CHECK_EQ(y.settled, y.n);
    CHECK(y.ran <= y.n - y.failed);
    CHECK(joined <= y.n / 64 + THREADS);
#ifndef WASYNC_FAULT_INJECTION
    CHECK_EQ(y.ran, y.n);
    CHECK_EQ(y.failed, 0);
#endif
    wa_event_drop(y.done);
}

static void test_remote_spawns(void)
{
    remote_spawns_on(0);
    remote_spawns_on(2);
}

/* Events: sets coalesce; wakes from foreign threads race the waiting
 * task's completion (it stops when it sees the flag, set before the last
 * set, so no wake may be lost). */
typedef struct waiter {
    WA_CORO;
    wa_event *ev;
    wa_event_wait w;
    int *stop;
    long wakes;
} waiter;

WA_ASYNC(waiter, t, cx)
{
    WA_BEGIN(t, cx);
    while (!__atomic_load_n(t->stop, __ATOMIC_ACQUIRE)) {
        WA_AWAIT(wa_event_wait_init(&t->w, t->ev));
        if (WA_STATUS < 0)
            WA_RETURN(WA_STATUS);
        t->wakes++;
    }
    WA_END();
}

typedef struct setter {
    wa_event *ev;
    int *stop;
    long n;
} setter;

static void *set_many(void *arg)
{
    setter *s = arg;
    for (long i = 0; i < s->n; i++)
        wa_event_set(s->ev);
    __atomic_store_n(s->stop, 1, __ATOMIC_RELEASE);
    wa_event_set(s->ev);
    wa_event_drop(s->ev);
    return NULL;
}

static void events_on(unsigned workers)
{
    wa_rt *rt;
    wa_event *ev;
    REQUIRE(check_rt_new(&rt, workers, NULL, &ev) == 0);
    /* coalescing: three sets before the wait complete one wait */
    int stop = 0;
    for (int i = 0; i < 3; i++)
        CHECK_EQ(wa_event_set(ev), 0);
    wa_event_wait w;
    CHECK_EQ(wa_block_on(rt, wa_event_wait_init(&w, ev)), 0);
    /* ...and nothing is left for the next: it waits for the thread */
    waiter t = {.ev = ev, .stop = &stop};
    waiter_init(&t);
    setter s = {wa_event_clone(ev), &stop, 100000 / SCALE};
    pthread_t th;
    pthread_create(&th, NULL, set_many, &s);
    CHECK_EQ(wa_block_on(rt, &t.wa.fut), 0);
    pthread_join(th, NULL);
    CHECK(t.wakes <= s.n + 1); /* (0 when the thread was done first) */
    wa_event_drop(ev);
    wa_rt_free(rt);
}

static void test_events(void)
{
    events_on(0);
    events_on(2);
}

/* A traced wake from a thread of no runtime: a task waits for an event
 * that a plain thread sets once the wait is pending (the local runtime's
 * inbox takes the wake to its thread; on many threads it is made at
 * once); the wake says "another thread". */
typedef struct flagged_wait {
    wa_future fut;
    wa_event_wait w;
    wa_event *ev;
    int waiting, done; /* (atomic) the wait is pending; it ended (or never began) */
} flagged_wait;

static int flagged_wait_poll(wa_future *f, wa_cx *cx)
{
    flagged_wait *t = (flagged_wait *)f;
    int rc = wa_poll(&t->w.fut, cx);
    if (rc == WA_PENDING)
        __atomic_store_n(&t->waiting, 1, __ATOMIC_RELEASE);
    return rc;
}
static void flagged_wait_drop(wa_future *f) { wa_drop(&((flagged_wait *)f)->w.fut); }
static const wa_future_vt flagged_wait_vt = {flagged_wait_poll, flagged_wait_drop, "flagged_wait"};

static void *set_once_waiting(void *arg)
{
    flagged_wait *t = arg;
    while (!__atomic_load_n(&t->waiting, __ATOMIC_ACQUIRE) && !__atomic_load_n(&t->done, __ATOMIC_ACQUIRE))
        sleep_ms(1);
    wa_event_set(t->ev);
    return NULL;
}

static void trace_remote_wake_on(unsigned workers)
{
    char path[] = "/tmp/wasync-trace-XXXXXX";
    int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    close(fd);
    wa_rt *rt;
    flagged_wait t = {.fut = {&flagged_wait_vt}};
    REQUIRE_OR(check_rt_new(&rt, workers, NULL, &t.ev) == 0, remove(path));
    REQUIRE_OR(wa_trace_start(rt, path) == 0, (wa_event_drop(t.ev), wa_rt_free(rt), remove(path)));
    wa_event_wait_init(&t.w, t.ev);
    pthread_t th;
    REQUIRE_OR(pthread_create(&th, NULL, set_once_waiting, &t) == 0,
               (wa_event_drop(t.ev), wa_rt_free(rt), remove(path)));
    CHECK_EQ(wa_block_on(rt, &t.fut), 0);
    __atomic_store_n(&t.done, 1, __ATOMIC_RELEASE);
    pthread_join(th, NULL);
    wa_event_drop(t.ev);
    wa_rt_free(rt);
    static char text[1 << 16];
    check_take_file(path, text, sizeof text);
    CHECK_EQ(check_count(text, "\"name\":\"wake\",\"id\":1,"), 1);
    CHECK_EQ(check_count(text, "\"args\":{\"by\":\"another thread\"}"), 1);
}

static void test_trace_remote_wake(void)
{
    trace_remote_wake_on(0);
    trace_remote_wake_on(2);
}

/* A task nothing wakes: it ends when it is cancelled (unclaimed, it is
 * dropped) or the runtime is freed. */
static int idle_poll(wa_future *f, wa_cx *cx)
{
    (void)f, (void)cx;
    return WA_PENDING;
}
static const wa_future_vt idle_vt = {idle_poll, NULL, "idle"};

/* Foreign threads set an event and spawn (with joins dropped at once,
 * racing the task's end) while the runtime shuts down: each call succeeds
 * or says WA_ECLOSED, none crashes, and the shutdown cancels every task. */
typedef struct racer {
    wa_remote *r;
    wa_event *ev;
    int late; /* what a spawn said once the runtime was gone */
} racer;

static void *race_shutdown(void *arg)
{
    racer *x = arg;
    for (long i = 0; wa_event_set(x->ev) == 0; i++) {
        wa_future f = {&idle_vt};
        wa_remote_join *j = NULL;
        if (i < 10000 / SCALE && wa_remote_spawn(x->r, &f, sizeof f, i % 16 ? NULL : &j) == 0 && j) {
            int rc = wa_remote_join_status(j);
            (void)rc;
            wa_remote_join_drop(j);
        }
    }
    x->late = wa_remote_spawn(x->r, &(wa_future){&idle_vt}, sizeof(wa_future), NULL);
    wa_event_drop(x->ev);
    wa_remote_drop(x->r);
    return NULL;
}

static void race_shutdown_on(unsigned workers)
{
    enum { THREADS = 2 };
    wa_rt *rt;
    wa_remote *r;
    wa_event *ev;
    REQUIRE(check_rt_new(&rt, workers, &r, &ev) == 0);
    racer x[THREADS];
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++) {
        x[i] = (racer){wa_remote_clone(r), wa_event_clone(ev), 0};
        pthread_create(&th[i], NULL, race_shutdown, &x[i]);
    }
    wa_remote_drop(r);
    /* the event's waits race its sets */
    wa_event_wait w;
    for (int i = 0; i < 100; i++)
        CHECK_EQ(wa_block_on(rt, wa_event_wait_init(&w, ev)), 0);
    wa_event_drop(ev);
    CHECK_EQ(wa_rt_shutdown(rt, WA_SEC(10)), 0);
    for (int i = 0; i < THREADS; i++) {
        pthread_join(th[i], NULL);
        CHECK_EQ(x[i].late, WA_ECLOSED);
    }
}

static void test_race_shutdown(void)
{
    race_shutdown_on(0);
    race_shutdown_on(2);
}

/* The blocking pool: results, and never more than its bound busy. */
static int busy, busy_max;

static void *double_it(void *arg)
{
    int now = __atomic_add_fetch(&busy, 1, __ATOMIC_ACQ_REL);
    for (int m = __atomic_load_n(&busy_max, __ATOMIC_RELAXED); now > m;)
        if (__atomic_compare_exchange_n(&busy_max, &m, now, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
            break;
    sleep_ms(2);
    __atomic_sub_fetch(&busy, 1, __ATOMIC_ACQ_REL);
    return (void *)(2 * *(intptr_t *)arg);
}

typedef struct doubler {
    WA_CORO;
    wa_blocking b;
    intptr_t in;
    intptr_t *out;
} doubler;

WA_ASYNC(doubler, t, cx)
{
    WA_BEGIN(t, cx);
    WA_AWAIT(wa_blocking_init(&t->b, double_it, &t->in, NULL));
    if (WA_STATUS == 0)
        *t->out = (intptr_t)t->b.result;
    WA_END();
}

static void blocking_on(unsigned workers)
{
    enum { JOBS = 24, MAX = 3 };
    wa_rt *rt;
    REQUIRE(check_rt_new(&rt, workers, NULL, NULL) == 0);
    REQUIRE_OR(wa_rt_set_blocking(rt, MAX, WA_SEC(1)) == 0, wa_rt_free(rt));
    busy_max = 0;
    intptr_t out[JOBS];
    int spawned = 0;
    for (int i = 0; i < JOBS; i++) {
        out[i] = -1;
        doubler d = {.in = i, .out = &out[i]};
        doubler_init(&d);
        spawned += wa_spawn_of(rt, &d, NULL) == 0;
    }
    CHECK_EQ(wa_rt_run(rt), 0);
    int right = 0;
    for (int i = 0; i < JOBS; i++)
        right += out[i] == 2 * i;
    CHECK_EQ(right, JOBS);
    CHECK_EQ(spawned, JOBS);
    CHECK(busy_max >= 1 && busy_max <= MAX);
    wa_rt_free(rt);
}

static void test_blocking(void)
{
    blocking_on(0);
    blocking_on(2);
}

/* A job dropped before a thread took it never runs (released with no
 * result); one dropped while it runs is detached, and released with its
 * result by the pool thread. */
static int gate_open, gate_waiting, never_ran, released_null, released_result;

static void *wait_gate(void *arg)
{
    (void)arg;
    __atomic_add_fetch(&gate_waiting, 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&gate_open, __ATOMIC_ACQUIRE))
        sleep_ms(1);
    return malloc(16);
}

static void open_gate(void) { __atomic_store_n(&gate_open, 1, __ATOMIC_RELEASE); }

static void *never(void *arg)
{
    (void)arg;
    __atomic_add_fetch(&never_ran, 1, __ATOMIC_RELAXED);
    return NULL;
}

static void count_release(void *arg, void *result)
{
    (void)arg;
    __atomic_add_fetch(result ? &released_result : &released_null, 1, __ATOMIC_RELAXED);
    free(result);
}

typedef struct blocker {
    WA_CORO;
    wa_blocking b;
    wa_blocking_fn fn;
} blocker;

WA_ASYNC(blocker, t, cx)
{
    WA_BEGIN(t, cx);
    WA_AWAIT(wa_blocking_init(&t->b, t->fn, NULL, count_release));
    free(t->b.result);
    WA_END();
}

typedef struct napper {
    WA_CORO;
    wa_sleep s;
} napper;

WA_ASYNC(napper, t, cx)
{
    WA_BEGIN(t, cx);
    WA_AWAIT(wa_sleep_init(&t->s, WA_MS(30)));
    WA_END();
}

/* Runs rt's tasks for 30 ms. */
static int nap(wa_rt *rt)
{
    napper n;
    napper_init(&n);
    return wa_block_on(rt, &n.wa.fut);
}

/* Runs rt's tasks until n jobs wait at the gate (or about 6 s passed: a
 * loaded machine may take many naps to get there); 0 once they do. Later
 * jobs then queue behind them whichever worker polls first. */
static int nap_until_gate(wa_rt *rt, int n)
{
    for (int i = 0; i < 200 && __atomic_load_n(&gate_waiting, __ATOMIC_ACQUIRE) < n; i++)
        if (nap(rt) != 0)
            return -1;
    return __atomic_load_n(&gate_waiting, __ATOMIC_ACQUIRE) == n ? 0 : -1;
}

static void blocking_cancel_on(unsigned workers)
{
    wa_rt *rt;
    REQUIRE(check_rt_new(&rt, workers, NULL, NULL) == 0);
    REQUIRE_OR(wa_rt_set_blocking(rt, 1, WA_SEC(1)) == 0, wa_rt_free(rt));
    gate_open = gate_waiting = never_ran = released_null = released_result = 0;
    blocker a = {.fn = wait_gate}, b = {.fn = never};
    blocker_init(&a);
    blocker_init(&b);
    wa_join ja, jb;
    REQUIRE_OR(wa_spawn_of(rt, &a, &ja) == 0, wa_rt_free(rt));
    /* (on a failure the gate opens first: wa_rt_free joins the pool) */
    REQUIRE_OR(nap_until_gate(rt, 1) == 0, (open_gate(), wa_join_drop(&ja), wa_rt_free(rt))); /* a's job runs, at the gate */
    REQUIRE_OR(wa_spawn_of(rt, &b, &jb) == 0, (open_gate(), wa_join_drop(&ja), wa_rt_free(rt)));
    CHECK_EQ(nap(rt), 0); /* b's is queued (or b not polled yet: dropped unrun either way) */
    wa_join_abort(&jb);   /* cancelled before it ran */
    /* (on many threads a worker drops b, maybe after this thread's nap:
     * its release is waited for, and read as it was written, atomically) */
    for (int i = 0; i < 100 && __atomic_load_n(&released_null, __ATOMIC_ACQUIRE) == 0; i++)
        CHECK_EQ(nap(rt), 0);
    CHECK_EQ(__atomic_load_n(&released_null, __ATOMIC_ACQUIRE), 1);
    wa_join_abort(&ja); /* detached while it runs */
    CHECK_EQ(nap(rt), 0);
    CHECK_EQ(wa_join_status(&ja), WA_ECANCELED);
    CHECK_EQ(wa_join_status(&jb), WA_ECANCELED);
    wa_join_drop(&ja);
    wa_join_drop(&jb);
    open_gate();
    wa_rt_free(rt); /* joins the pool: a's job is released there */
    CHECK_EQ(never_ran, 0);
    CHECK_EQ(released_result, 1);
}

static void test_blocking_cancel(void)
{
    blocking_cancel_on(0);
    blocking_cancel_on(2);
}

/* The pool's threads exit once idle for keep_alive. */
static int threads_now(void)
{
    DIR *d = opendir("/proc/self/task");
    int n = 0;
    if (!d)
        return -1;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

static void blocking_idle_exit_on(unsigned workers)
{
    wa_rt *rt;
    REQUIRE(check_rt_new(&rt, workers, NULL, NULL) == 0);
    REQUIRE_OR(wa_rt_set_blocking(rt, 4, WA_MS(1)) == 0, wa_rt_free(rt));
    int before = threads_now();
    intptr_t out = -1;
    doubler d = {.in = 21, .out = &out};
    doubler_init(&d);
    CHECK_EQ(wa_block_on(rt, &d.wa.fut), 0);
    CHECK_EQ(out, 42);
    for (int i = 0; i < 500 && threads_now() > before; i++)
        sleep_ms(2);
    CHECK_EQ(threads_now(), before);
    wa_rt_free(rt);
}

static void test_blocking_idle_exit(void)
{
    blocking_idle_exit_on(0);
    blocking_idle_exit_on(2);
}

/* DNS lookups run on the blocking pool: 50 at once, queued behind jobs
 * that hold each of its threads, start no thread of their own; one
 * dropped before its job ran and one dropped at once leak nothing (ASan),
 * the others resolve. */
static void dns_pool_on(unsigned workers)
{
    enum { LOOKUPS = 50, MAX = 2 };
    wa_rt *rt;
    REQUIRE(check_rt_new(&rt, workers, NULL, NULL) == 0);
    REQUIRE_OR(wa_rt_set_blocking(rt, MAX, WA_SEC(1)) == 0, wa_rt_free(rt));
    int before = threads_now();
    gate_open = gate_waiting = 0;
    for (int i = 0; i < MAX; i++) { /* each takes a thread until the gate opens */
        blocker b = {.fn = wait_gate};
        blocker_init(&b);
        REQUIRE_OR(wa_spawn_of(rt, &b, NULL) == 0, (open_gate(), wa_rt_free(rt)));
    }
    REQUIRE_OR(nap_until_gate(rt, MAX) == 0, (open_gate(), wa_rt_free(rt)));
    wa_join j[LOOKUPS + 1];
    int spawned[LOOKUPS + 1] = {0};
    for (int i = 0; i < LOOKUPS; i++) {
        wa_dns d;
        wa_dns_lookup_init(&d, rt, "localhost");
        spawned[i] = wa_spawn(rt, &d.fut, sizeof d, &j[i]) == 0;
    }
    CHECK_EQ(nap(rt), 0);
    CHECK(threads_now() <= before + MAX);
    int done = 0;
    for (int i = 0; i < LOOKUPS; i++)
        done += spawned[i] && wa_join_done(&j[i]);
    CHECK_EQ(done, 0); /* queued behind the gate */
    if (spawned[0])
        CHECK_EQ(wa_join_abort(&j[0]), 0); /* dropped before its job ran */
    open_gate();
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK(threads_now() <= before + MAX);
    int resolved = 0;
    for (int i = 0; i < LOOKUPS; i++) {
        if (!spawned[i])
            continue;
        wa_dns *d = (wa_dns *)wa_join_output(&j[i]);
        resolved += wa_join_status(&j[i]) == 0 && d->n >= 1;
        wa_join_drop(&j[i]);
    }
#ifdef WASYNC_FAULT_INJECTION
    CHECK(resolved <= LOOKUPS - 1);
#else
    CHECK_EQ(resolved, LOOKUPS - 1);
#endif
    wa_dns d; /* dropped at once: queued, running or done, its job is freed */
    wa_dns_lookup_init(&d, rt, "localhost");
    if (wa_spawn(rt, &d.fut, sizeof d, &j[LOOKUPS]) == 0) {
        if (!workers) /* (many threads: it runs meanwhile) */
            wa_rt_tick(rt, NULL);
        wa_join_abort(&j[LOOKUPS]);
        wa_join_drop(&j[LOOKUPS]);
    }
    wa_rt_free(rt);
}

static void test_dns_pool(void)
{
    dns_pool_on(0);
    dns_pool_on(2);
}

/* Shutdown under load: every task is cancelled and runs its cleanup to
 * its end (a sleep), while a foreign thread keeps spawning until refused. */
static long started, cleaned;

typedef struct looper {
    WA_CORO;
    wa_sleep s;
} looper;

WA_ASYNC(looper, t, cx)
{
    WA_BEGIN(t, cx);
    __atomic_add_fetch(&started, 1, __ATOMIC_RELAXED);
    for (;;)
        WA_AWAIT(wa_sleep_init(&t->s, WA_MS(1)));
    WA_ON_CANCEL();
    WA_AWAIT(wa_sleep_init(&t->s, WA_MS(2)));
    __atomic_add_fetch(&cleaned, 1, __ATOMIC_RELAXED);
    WA_END();
}

static void *spawn_loopers(void *arg)
{
    wa_remote *r = arg;
    for (;;) {
        looper l;
        looper_init(&l);
        int rc = wa_remote_spawn(r, &l.wa.fut, sizeof l, NULL);
        if (rc == WA_ECLOSED)
            break;
        sleep_ms(rc < 0 ? 1 : 0);
    }
    wa_remote_drop(r);
    return NULL;
}

static void shutdown_on(unsigned workers)
{
    wa_rt *rt;
    wa_remote *r;
    REQUIRE(check_rt_new(&rt, workers, &r, NULL) == 0);
    started = cleaned = 0;
    for (int i = 0; i < 1000 / SCALE; i++) {
        looper l;
        looper_init(&l);
        wa_spawn_of(rt, &l, NULL);
    }
    pthread_t th;
    pthread_create(&th, NULL, spawn_loopers, r);
    CHECK_EQ(nap(rt), 0);
    CHECK_EQ(wa_rt_shutdown(rt, WA_SEC(10)), 0);
    pthread_join(th, NULL);
    CHECK(started > 0);
    CHECK_EQ(cleaned, started);
}

static void test_shutdown_under_load(void)
{
    shutdown_on(0);
    shutdown_on(2);
}

/* A runtime freed while a remote, an event and a join are held: their
 * calls say so; the task that never ran was dropped. */
static void freed_while_held_on(unsigned workers)
{
    wa_rt *rt;
    wa_remote *r;
    wa_event *ev;
    REQUIRE(check_rt_new(&rt, workers, &r, &ev) == 0);
    wa_future f = {&idle_vt};
    wa_remote_join *j;
    REQUIRE_OR(wa_remote_spawn(r, &f, sizeof f, &j) == 0, (wa_event_drop(ev), wa_remote_drop(r), wa_rt_free(rt)));
    CHECK_EQ(wa_remote_join_status(j), WA_PENDING);
    wa_rt_free(rt);
    CHECK_EQ(wa_remote_join_wait(j), WA_ECANCELED);
    CHECK_EQ(wa_remote_spawn(r, &f, sizeof f, NULL), WA_ECLOSED);
    CHECK_EQ(wa_event_set(ev), WA_ECLOSED);
    wa_remote_join_drop(j);
    wa_event_drop(ev);
    wa_remote_drop(r);
}

static void test_freed_while_held(void)
{
    freed_while_held_on(0);
    freed_while_held_on(2);
}

/* Cancelling a remote task from foreign threads, racing its completion:
 * each of 4 threads spawns tasks that yield a few times and cancels (or
 * aborts) each at once; every task ends 0 or WA_ECANCELED, none twice. */
typedef struct yielder {
    WA_CORO;
    wa_yield y;
    int i;
} yielder;

WA_ASYNC(yielder, t, cx)
{
    WA_BEGIN(t, cx);
    for (t->i = 0; t->i < 3; t->i++)
        WA_AWAIT(wa_yield_init(&t->y));
    WA_END();
}

typedef struct canceller {
    wa_remote *r;
    wa_event *last; /* set by the last thread to end */
    int *left;
    long n, done, cancelled, other;
} canceller;

static void *cancel_many(void *arg)
{
    canceller *c = arg;
    for (long i = 0; i < c->n; i++) {
        yielder y;
        yielder_init(&y);
        wa_remote_join *j;
        if (wa_remote_spawn(c->r, &y.wa.fut, sizeof y, &j) < 0)
            continue;
        if (i % 3)
            sleep_ms(0); /* (sometimes later than at once) */
        c->other += (i % 4 ? wa_remote_join_cancel(j) : wa_remote_join_abort(j)) != 0;
        int rc = wa_remote_join_wait(j);
        c->other += wa_remote_join_cancel(j) != 0; /* finished: nothing to do */
        c->done += rc == 0;
        c->cancelled += rc == WA_ECANCELED;
        c->other += rc != 0 && rc != WA_ECANCELED && rc != WA_ENOMEM;
        wa_remote_join_drop(j);
    }
    if (__atomic_sub_fetch(c->left, 1, __ATOMIC_ACQ_REL) == 0)
        wa_event_set(c->last);
    wa_event_drop(c->last);
    wa_remote_drop(c->r);
    return NULL;
}

static void cancel_race_on(unsigned workers)
{
    enum { THREADS = 4 };
    wa_rt *rt;
    wa_remote *r;
    wa_event *last;
    REQUIRE(check_rt_new(&rt, workers, &r, &last) == 0);
    canceller c[THREADS];
    pthread_t th[THREADS];
    int left = THREADS;
    for (int i = 0; i < THREADS; i++) {
        c[i] = (canceller){wa_remote_clone(r), wa_event_clone(last), &left, 4000 / SCALE, 0, 0, 0};
        pthread_create(&th[i], NULL, cancel_many, &c[i]);
    }
    wa_remote_drop(r);
    wa_event_wait w;
    int rc = wa_block_on(rt, wa_event_wait_init(&w, last));
    CHECK_EQ(rc, 0);
    wa_event_drop(last);
    if (rc < 0) { /* (an allocation failed, under tests/faults: nobody runs
                   * the runtime now, and the threads' joins end with it) */
        wa_rt_free(rt);
        rt = NULL;
    }
    long done = 0, cancelled = 0;
    for (int i = 0; i < THREADS; i++) {
        pthread_join(th[i], NULL);
        CHECK_EQ(c[i].other, 0);
        done += c[i].done;
        cancelled += c[i].cancelled;
    }
    CHECK(cancelled > 0);
#ifdef WASYNC_FAULT_INJECTION
    CHECK(done + cancelled <= THREADS * (4000 / SCALE));
#else
    CHECK_EQ(done + cancelled, THREADS * (4000 / SCALE));
#endif
    if (rt)
        wa_rt_free(rt);
}

static void test_cancel_race(void)
{
    cancel_race_on(0);
    cancel_race_on(2);
}

/* A cancelled remote task runs its cleanup (awaiting it), an aborted one
 * does not; one cancelled before the inbox ran it is dropped unpolled; a
 * cancel once the runtime is gone does nothing. */
typedef struct probe {
    wa_future fut;
    int *polled, *dropped;
} probe;

static int probe_poll(wa_future *f, wa_cx *cx)
{
    (void)cx;
    *((probe *)f)->polled = 1;
    return 0;
}
static void probe_drop(wa_future *f) { *((probe *)f)->dropped = 1; }
static const wa_future_vt probe_vt = {probe_poll, probe_drop, "probe"};

/* Runs rt's tasks until the remote task of j has ended (or about 6 s
 * passed: a loaded machine, under TSan, may take many naps for a cleanup);
 * 0 once it has. */
static int nap_until_ended(wa_rt *rt, wa_remote_join *j)
{
    for (int i = 0; i < 200 && wa_remote_join_status(j) == WA_PENDING; i++)
        if (nap(rt) != 0)
            return -1;
    return wa_remote_join_status(j) == WA_PENDING ? -1 : 0;
}

static void remote_cancel_on(unsigned workers)
{
    wa_rt *rt;
    wa_remote *r;
    REQUIRE(check_rt_new(&rt, workers, &r, NULL) == 0);
    wa_remote_join *jc = NULL, *ja = NULL, *j = NULL;
#define UNDO (wa_rt_free(rt), wa_remote_join_drop(jc), wa_remote_join_drop(ja), wa_remote_join_drop(j), wa_remote_drop(r))
    started = cleaned = 0;
    looper l;
    looper_init(&l);
    REQUIRE_OR(wa_remote_spawn(r, &l.wa.fut, sizeof l, &jc) == 0, UNDO);
    looper_init(&l);
    REQUIRE_OR(wa_remote_spawn(r, &l.wa.fut, sizeof l, &ja) == 0, UNDO);
    CHECK_EQ(nap(rt), 0);
    CHECK_EQ(__atomic_load_n(&started, __ATOMIC_ACQUIRE), 2);
    CHECK_EQ(wa_remote_join_cancel(jc), 0);
    CHECK_EQ(wa_remote_join_abort(ja), 0);
    CHECK_EQ(nap_until_ended(rt, jc), 0); /* (its cleanup sleeps 2 ms) */
    CHECK_EQ(wa_remote_join_status(jc), WA_ECANCELED);
    CHECK_EQ(wa_remote_join_status(ja), WA_ECANCELED);
    CHECK_EQ(__atomic_load_n(&cleaned, __ATOMIC_ACQUIRE), 1); /* the cancelled one's */
    if (!workers) { /* cancelled in the inbox: never polled, dropped */
        int polled = 0, dropped = 0;
        probe p = {{&probe_vt}, &polled, &dropped};
        REQUIRE_OR(wa_remote_spawn(r, &p.fut, sizeof p, &j) == 0, UNDO);
        CHECK_EQ(wa_remote_join_cancel(j), 0);
        CHECK_EQ(nap(rt), 0);
        CHECK_EQ(wa_remote_join_status(j), WA_ECANCELED);
        CHECK_EQ(polled, 0);
        CHECK_EQ(dropped, 1);
        wa_remote_join_drop(j);
        j = NULL;
    }
    /* the runtime freed: the join says the task was dropped, a cancel and
     * an abort do nothing */
    wa_future f = {&idle_vt};
    REQUIRE_OR(wa_remote_spawn(r, &f, sizeof f, &j) == 0, UNDO);
    wa_rt_free(rt);
    CHECK_EQ(wa_remote_join_cancel(j), 0);
    CHECK_EQ(wa_remote_join_abort(j), 0);
    CHECK_EQ(wa_remote_join_wait(j), WA_ECANCELED);
    wa_remote_join_drop(j);
    wa_remote_join_drop(jc);
    wa_remote_join_drop(ja);
    wa_remote_drop(r);
#undef UNDO
}

static void test_remote_cancel(void)
{
    remote_cancel_on(0);
    remote_cancel_on(2);
}

/* Misuse: waiting on the local runtime's own thread, which would never run
 * the task; a remote on a backend nothing can wake from another thread. */
static void test_misuse(void)
{
    check_catch_misuse();
    wa_rt *rt;
    wa_remote *r;
    REQUIRE(check_rt_new(&rt, 0, &r, NULL) == 0);
    wa_future f = {&idle_vt};
    wa_remote_join *j;
    REQUIRE_OR(wa_remote_spawn(r, &f, sizeof f, &j) == 0, (wa_remote_drop(r), wa_rt_free(rt)));
    check_misuses = 0;
    CHECK_EQ(wa_remote_join_wait(j), WA_EMISUSE);
    CHECK_EQ(check_misuses, 1);
    wa_remote_join_drop(j);
    wa_remote_drop(r);
    wa_rt_free(rt);
    wa_rt *sim = check_sim_rt(0);
    REQUIRE(sim);
    CHECK_EQ(wa_remote_new(sim, &r), WA_ENOSYS);
    CHECK(r == NULL);
    wa_rt_free(sim);
}

/* Copies of a remote, a remote join and an event used after their drop
 * (their objects freed: each was the last holder): a second drop, a clone,
 * a spawn, a wait, a set, an await, each reported by the call, never a use
 * after free (ASan). A clone is a holder of its own: dropping it leaves
 * the original usable. */
static void test_handle_copies(void)
{
    check_catch_misuse();
    wa_rt *rt;
    wa_remote *r;
    REQUIRE(check_rt_new(&rt, 0, &r, NULL) == 0);
    wa_event *e;
    REQUIRE_OR(wa_event_new(rt, &e) == 0, (wa_remote_drop(r), wa_rt_free(rt)));
    wa_future f = {&idle_vt};
    wa_remote_join *j;
    REQUIRE_OR(wa_remote_spawn(r, &f, sizeof f, &j) == 0, (wa_event_drop(e), wa_remote_drop(r), wa_rt_free(rt)));
    CHECK_EQ(wa_remote_join_cancel(j), 0);
    CHECK_EQ(wa_rt_run(rt), 0);
    wa_remote_join *j_copy = j;
    wa_remote_join_drop(j);
    CHECK_MISUSE((wa_remote_join_drop(j_copy), 0), 0, "wa_remote_join_drop");
    CHECK_MISUSE(wa_remote_join_status(j_copy), WA_EMISUSE, "wa_remote_join_status");
    CHECK_MISUSE(wa_remote_join_wait(j_copy), WA_EMISUSE, "wa_remote_join_wait");
    CHECK_MISUSE(wa_remote_join_cancel(j_copy), WA_EMISUSE, "wa_remote_join_cancel");
    CHECK_MISUSE(wa_remote_join_abort(j_copy), WA_EMISUSE, "wa_remote_join_abort");
    wa_remote *r2 = wa_remote_clone(r);
    REQUIRE_OR(r2, (wa_event_drop(e), wa_remote_drop(r), wa_rt_free(rt)));
    CHECK(r2 != r);
    wa_remote_drop(r2);
    CHECK_EQ(wa_remote_spawn(r, &f, sizeof f, NULL), 0); /* the original holds on */
    wa_remote *r_copy = r;
    wa_remote_drop(r);
    CHECK_MISUSE((wa_remote_drop(r_copy), 0), 0, "wa_remote_drop");
    CHECK_MISUSE(wa_remote_clone(r_copy) == NULL, 1, "wa_remote_clone");
    CHECK_MISUSE(wa_remote_spawn(r_copy, &f, sizeof f, NULL), WA_EMISUSE, "wa_remote_spawn");
    wa_event *e_copy = e;
    wa_event_drop(e);
    CHECK_MISUSE((wa_event_drop(e_copy), 0), 0, "wa_event_drop");
    CHECK_MISUSE(wa_event_clone(e_copy) == NULL, 1, "wa_event_clone");
    CHECK_MISUSE(wa_event_set(e_copy), WA_EMISUSE, "wa_event_set");
    wa_event_wait w;
    CHECK_MISUSE(wa_block_on(rt, wa_event_wait_init(&w, e_copy)), WA_EMISUSE, "wa_event_wait");
    wa_rt_free(rt); /* (the spawned task, never run, is dropped) */
}

int main(void)
{
    RUN(test_remote_spawns);
    RUN(test_events);
    RUN(test_trace_remote_wake);
    RUN(test_race_shutdown);
    RUN(test_blocking);
    RUN(test_blocking_cancel);
    RUN(test_blocking_idle_exit);
    RUN(test_dns_pool);
    RUN(test_shutdown_under_load);
    RUN(test_freed_while_held);
    RUN(test_cancel_race);
    RUN(test_remote_cancel);
    RUN(test_misuse);
    RUN(test_handle_copies);
    return check_finish();
}
