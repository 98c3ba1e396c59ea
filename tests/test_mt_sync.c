/* SPDX-License-Identifier: MIT */
/* The shared sync primitives (wa_*_shared) between tasks of a many-threads
 * runtime: many producers into one bounded channel, a mutex over a counter,
 * a semaphore's bound, notify_one racing cancelled waiters, oneshots across
 * workers, a receiver dropped racing sends, a read-write lock's readers
 * and writers, a barrier's rounds and cancelled waits, broadcast and watch
 * receivers on every worker. Run under TSan by the tsan
 * preset, and under tests/faults (smaller there): a setup that fails stops
 * its test, releasing what it made. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>

#include "check.h"
#include "rt_setup.h"

#define SCALE CHECK_SCALE(50, 5)

#define TASKS 16

/* Spawns the n futures at fs (each size bytes, taken: those it could not
 * spawn are dropped) on cx's runtime and awaits them; its status is the
 * first failure. */
typedef struct group {
    WA_CORO;
    char *fs;
    size_t size;
    int n, i, spawned, rc;
    wa_join js[TASKS];
} group;

static void group_cleanup(group *g)
{
    check_joins_drop(g->js, g->spawned);
    for (int i = g->spawned; i < g->n; i++)
        wa_drop((wa_future *)(g->fs + (size_t)i * g->size));
}

WA_ASYNC(group, g, cx, group_cleanup)
{
    WA_BEGIN(g, cx);
    for (; g->spawned < g->n; g->spawned++)
        if (wa_spawn(cx->rt, (wa_future *)(g->fs + (size_t)g->spawned * g->size), g->size, &g->js[g->spawned]) < 0)
            WA_RETURN(WA_ENOMEM);
    for (g->i = 0; g->i < g->n; g->i++) {
        WA_AWAIT(&g->js[g->i].fut);
        if (WA_STATUS && !g->rc)
            g->rc = WA_STATUS;
    }
    WA_RETURN(g->rc);
    WA_END();
}

/* Runs n futures of size bytes at fs (taken) as tasks of a new runtime of
 * two workers: their first failure, WA_ENOMEM when the setup failed,
 * theirs too: fewer than n made (the made ones are dropped). */
static int run_group(void *fs, size_t size, int made, int n)
{
    if (made < n) {
        for (int i = 0; i < made; i++)
            wa_drop((wa_future *)((char *)fs + (size_t)i * size));
        return WA_ENOMEM;
    }
    wa_rt *rt;
    group g = {.fs = fs, .size = size, .n = n};
    group_init(&g);
    if (wa_rt_new_mt(&rt, 2) != 0) {
        wa_drop(&g.wa.fut);
        return WA_ENOMEM;
    }
    int rc = wa_block_on(rt, &g.wa.fut);
    wa_rt_free(rt);
    return rc;
}

/* Many producers, two consumers sharing the receiver. */
typedef struct mover {
    WA_CORO;
    wa_tx tx;
    wa_rx rx;
    wa_send s;
    wa_recv r;
    long base, k, i, v;
    int *seen;
} mover;

static void mover_cleanup(mover *t)
{
    if (t->tx.ch)
        wa_tx_drop(&t->tx);
}

WA_ASYNC(mover, t, cx, mover_cleanup)
{
    WA_BEGIN(t, cx);
    if (t->tx.ch) {
        for (t->i = 0; t->i < t->k; t->i++) {
            t->v = t->base + t->i;
            WA_AWAIT(wa_send_init(&t->s, &t->tx, &t->v));
            if (WA_STATUS)
                WA_RETURN(WA_STATUS);
        }
        wa_tx_drop(&t->tx);
        WA_RETURN(0);
    }
    for (;;) {
        WA_AWAIT(wa_recv_init(&t->r, &t->rx, &t->v));
        if (WA_STATUS == WA_ECLOSED)
            WA_RETURN(0);
        __atomic_add_fetch(&t->seen[t->v], 1, __ATOMIC_RELAXED);
    }
    WA_END();
}

static void test_mt_sync_mpsc(void)
{
    long k = 20000 / SCALE;
    int producers = TASKS - 2;
    wa_tx tx;
    wa_rx rx;
    REQUIRE(wa_mpsc_new_shared(4, sizeof(long), &tx, &rx) == 0);
    int *seen = calloc((size_t)(producers * k), sizeof *seen);
    mover *m = calloc(TASKS, sizeof *m);
    REQUIRE_OR(seen && m, (free(seen), free(m), wa_tx_drop(&tx), wa_rx_drop(&rx)));
    for (int i = 0; i < TASKS; i++) {
        if (i < producers)
            m[i] = (mover){.tx = wa_tx_clone(&tx), .base = i * k, .k = k};
        else
            m[i] = (mover){.rx = rx, .seen = seen};
        mover_init(&m[i]);
    }
    wa_tx_drop(&tx);
    int rc = run_group(m, sizeof *m, TASKS, TASKS);
    wa_rx_drop(&rx);
    free(m);
    REQUIRE_OR(rc != WA_ENOMEM, free(seen));
    CHECK_EQ(rc, 0);
    long once = 0;
    for (long i = 0; i < producers * k; i++)
        once += seen[i] == 1;
    CHECK_EQ(once, producers * k);
    free(seen);
}

/* A mutex over a counter read, yielded over, then written; and a
 * semaphore whose holders count themselves. */
typedef struct locker {
    WA_CORO;
    wa_sem *sem;
    wa_acquire a;
    wa_yield y;
    long k, i, v;
    long *counter, *inside, *most;
} locker;

static void locker_cleanup(locker *t) { wa_acquire_release(&t->a); }

WA_ASYNC(locker, t, cx, locker_cleanup)
{
    WA_BEGIN(t, cx);
    for (t->i = 0; t->i < t->k; t->i++) {
        WA_AWAIT(wa_acquire_init(&t->a, t->sem, 1));
        if (WA_STATUS)
            WA_RETURN(WA_STATUS);
        long in = __atomic_add_fetch(t->inside, 1, __ATOMIC_RELAXED);
        long most = __atomic_load_n(t->most, __ATOMIC_RELAXED);
        while (in > most && !__atomic_compare_exchange_n(t->most, &most, in, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            ;
        t->v = __atomic_load_n(t->counter, __ATOMIC_RELAXED);
        WA_AWAIT(wa_yield_init(&t->y));
        __atomic_store_n(t->counter, t->v + 1, __ATOMIC_RELAXED);
        __atomic_sub_fetch(t->inside, 1, __ATOMIC_RELAXED);
        wa_acquire_release(&t->a);
    }
    WA_END();
}

/* Runs TASKS lockers on sem (of permits): returns the most inside at once. */
static long run_lockers(wa_sem *sem, long *counter, long k)
{
    long inside = 0, most = 0;
    locker m[TASKS];
    for (int i = 0; i < TASKS; i++) {
        m[i] = (locker){.sem = sem, .k = k, .counter = counter, .inside = &inside, .most = &most};
        locker_init(&m[i]);
    }
    int rc = run_group(m, sizeof *m, TASKS, TASKS);
    if (rc == WA_ENOMEM)
        return -1;
    CHECK_EQ(rc, 0);
    CHECK_EQ(inside, 0);
    return most;
}

static void test_mt_sync_mutex(void)
{
    wa_mutex mu;
    wa_mutex_init_shared(&mu);
    long counter = 0, k = 5000 / SCALE;
    long most = run_lockers(&mu.sem, &counter, k);
    REQUIRE(most >= 0);
    CHECK_EQ(most, 1);
    CHECK_EQ(counter, TASKS * k);
    CHECK_EQ(wa_mutex_try_lock(&mu), 0);
}

static void test_mt_sync_sem(void)
{
    wa_sem sem;
    wa_sem_init_max_shared(&sem, 3, 3);
    long counter = 0;
    long most = run_lockers(&sem, &counter, 5000 / SCALE);
    REQUIRE(most >= 0);
    CHECK(most >= 1 && most <= 3);
    CHECK_EQ(wa_sem_available(&sem), 3);
    check_catch_misuse();
    CHECK_MISUSE(wa_sem_release(&sem, 1), WA_EMISUSE, "wa_sem_release"); /* (past its maximum) */
}

/* The unbounded shared semaphore: any release is taken. */
static void test_mt_sync_sem_unbounded(void)
{
    wa_sem sem;
    wa_sem_init_shared(&sem, 2);
    long counter = 0;
    long most = run_lockers(&sem, &counter, 5000 / SCALE);
    REQUIRE(most >= 0);
    CHECK(most >= 1 && most <= 2);
    CHECK_EQ(wa_sem_release(&sem, 1000), 0);
    CHECK_EQ(wa_sem_available(&sem), 1002);
}

/* notify_one racing the cancel of waiters: enough waiters stay queued that
 * every notification must complete one of them. */
typedef struct waiter {
    WA_CORO;
    wa_notify *n;
    wa_notified nf;
    long *started, *got;
} waiter;

WA_ASYNC(waiter, t, cx)
{
    WA_BEGIN(t, cx);
    __atomic_add_fetch(t->started, 1, __ATOMIC_RELEASE);
    WA_AWAIT(wa_notified_init(&t->nf, t->n));
    __atomic_add_fetch(t->got, 1, __ATOMIC_RELAXED);
    WA_END();
}

#define WAITERS 64

static void test_mt_sync_notify_cancel(void)
{
    for (int round = 0; round < 200 / SCALE; round++) {
        wa_rt *rt;
        REQUIRE(wa_rt_new_mt(&rt, 2) == 0);
        wa_notify n;
        wa_notify_init_shared(&n);
        long started = 0, got = 0, spawned = 0;
        waiter w[WAITERS];
        wa_join js[WAITERS] = {{0}};
        for (int i = 0; i < WAITERS; i++) {
            w[i] = (waiter){.n = &n, .started = &started, .got = &got};
            waiter_init(&w[i]);
            spawned += wa_spawn(rt, &w[i].wa.fut, sizeof w[i], &js[i]) == 0;
        }
        REQUIRE_OR(spawned == WAITERS, (check_joins_drop(js, WAITERS), wa_rt_free(rt)));
        while (__atomic_load_n(&started, __ATOMIC_ACQUIRE) < WAITERS)
            sched_yield();
        /* a quarter cancelled, a quarter notified: the rest keep the queue busy */
        for (int i = 0; i < WAITERS / 4; i++) {
            wa_join_cancel(&js[2 * i]);
            wa_notify_one(&n);
        }
        for (int spins = 0; __atomic_load_n(&got, __ATOMIC_RELAXED) < WAITERS / 4 && spins < 1000000; spins++)
            sched_yield();
        CHECK_EQ(__atomic_load_n(&got, __ATOMIC_RELAXED), WAITERS / 4);
        check_joins_drop(js, WAITERS);
        wa_rt_free(rt);
        CHECK_EQ(got, WAITERS / 4); /* none more */
    }
}

/* Oneshots: each sent by one task, received by another, likely on another
 * worker. */
typedef struct shot {
    WA_CORO;
    wa_tx tx;
    wa_rx rx;
    wa_send s;
    wa_recv r;
    long v, *sum;
} shot;

static void shot_cleanup(shot *t)
{
    if (t->tx.ch)
        wa_tx_drop(&t->tx);
    if (t->rx.ch)
        wa_rx_drop(&t->rx);
}

WA_ASYNC(shot, t, cx, shot_cleanup)
{
    WA_BEGIN(t, cx);
    if (t->tx.ch) {
        WA_AWAIT(wa_send_init(&t->s, &t->tx, &t->v));
        WA_RETURN(WA_STATUS);
    }
    WA_AWAIT(wa_recv_init(&t->r, &t->rx, &t->v));
    if (WA_STATUS)
        WA_RETURN(WA_STATUS);
    __atomic_add_fetch(t->sum, t->v, __ATOMIC_RELAXED);
    WA_END();
}

static void test_mt_sync_oneshot(void)
{
    for (int round = 0; round < 500 / SCALE; round++) {
        long sum = 0;
        shot s[TASKS];
        int made = 0;
        for (int i = 0; i < TASKS; i += 2) {
            wa_tx tx;
            wa_rx rx;
            if (wa_oneshot_new_shared(sizeof(long), &tx, &rx) != 0)
                break;
            s[i] = (shot){.rx = rx, .sum = &sum};
            s[i + 1] = (shot){.tx = tx, .v = i};
            shot_init(&s[i]);
            shot_init(&s[i + 1]);
            made += 2;
        }
        int rc = run_group(s, sizeof *s, made, TASKS);
        REQUIRE(rc != WA_ENOMEM);
        CHECK_EQ(rc, 0);
        CHECK_EQ(sum, (TASKS / 2) * (TASKS / 2 - 1));
    }
}

/* The receiver dropped while senders send: every sender ends, with
 * WA_ECLOSED once it is gone; nothing is received twice. */
typedef struct closer {
    WA_CORO;
    wa_rx rx;
    wa_recv r;
    long v, i, got;
} closer;

static void closer_cleanup(closer *t)
{
    if (t->rx.ch)
        wa_rx_drop(&t->rx);
}

WA_ASYNC(closer, t, cx, closer_cleanup)
{
    WA_BEGIN(t, cx);
    for (t->i = 0; t->i < 100; t->i++) {
        WA_AWAIT(wa_recv_init(&t->r, &t->rx, &t->v));
        if (WA_STATUS)
            WA_RETURN(WA_STATUS);
    }
    wa_rx_drop(&t->rx);
    WA_END();
}

static void test_mt_sync_drop_races_sends(void)
{
    for (int round = 0; round < 200 / SCALE; round++) {
        wa_tx tx;
        wa_rx rx;
        REQUIRE(wa_mpsc_new_shared(1, sizeof(long), &tx, &rx) == 0);
        union {
            mover m;
            closer c;
        } f[TASKS];
        for (int i = 0; i < TASKS - 1; i++) {
            f[i].m = (mover){.tx = wa_tx_clone(&tx), .k = 1000};
            mover_init(&f[i].m);
        }
        f[TASKS - 1].c = (closer){.rx = rx};
        closer_init(&f[TASKS - 1].c);
        wa_tx_drop(&tx);
        int rc = run_group(f, sizeof *f, TASKS, TASKS);
        REQUIRE(rc != WA_ENOMEM);
        CHECK_EQ(rc, WA_ECLOSED);
    }
}

/* Readers and writers of one read-write lock made for threads: a writer alone (its
 * counter's increments, split by a yield, all land), readers never beside
 * a writer. */
typedef struct rwuser {
    WA_CORO;
    wa_rwlock *l;
    wa_acquire a;
    wa_yield y;
    bool write;
    long k, i, v;
    long *counter, *readers, *writers, *bad;
} rwuser;

static void rwuser_cleanup(rwuser *t) { wa_acquire_release(&t->a); }

WA_ASYNC(rwuser, t, cx, rwuser_cleanup)
{
    WA_BEGIN(t, cx);
    for (t->i = 0; t->i < t->k; t->i++) {
        WA_AWAIT(t->write ? wa_write_lock_init(&t->a, t->l) : wa_read_lock_init(&t->a, t->l));
        if (WA_STATUS)
            WA_RETURN(WA_STATUS);
        long *mine = t->write ? t->writers : t->readers;
        __atomic_add_fetch(mine, 1, __ATOMIC_RELAXED);
        if (__atomic_load_n(t->writers, __ATOMIC_RELAXED) != t->write ||
            (t->write && __atomic_load_n(t->readers, __ATOMIC_RELAXED)))
            __atomic_add_fetch(t->bad, 1, __ATOMIC_RELAXED);
        if (t->write)
            t->v = __atomic_load_n(t->counter, __ATOMIC_RELAXED);
        WA_AWAIT(wa_yield_init(&t->y));
        if (t->write)
            __atomic_store_n(t->counter, t->v + 1, __ATOMIC_RELAXED);
        __atomic_sub_fetch(t->write ? t->writers : t->readers, 1, __ATOMIC_RELAXED);
        wa_acquire_release(&t->a);
    }
    WA_END();
}

#define WRITERS 4

static void test_mt_sync_rwlock(void)
{
    wa_rwlock l;
    wa_rwlock_init_shared(&l);
    long counter = 0, readers = 0, writers = 0, bad = 0, k = 2000 / SCALE;
    rwuser u[TASKS];
    for (int i = 0; i < TASKS; i++) {
        u[i] = (rwuser){.l = &l, .write = i % (TASKS / WRITERS) == 0, .k = k, .counter = &counter,
                        .readers = &readers, .writers = &writers, .bad = &bad};
        rwuser_init(&u[i]);
    }
    int rc = run_group(u, sizeof *u, TASKS, TASKS);
    REQUIRE(rc != WA_ENOMEM);
    CHECK_EQ(rc, 0);
    CHECK_EQ(bad, 0);
    CHECK_EQ(counter, WRITERS * k);
    CHECK_EQ(readers + writers, 0);
    CHECK_EQ(wa_rwlock_try_write(&l), 0);
    CHECK_EQ(wa_rwlock_try_read(&l), WA_EAGAIN);
    CHECK_EQ(wa_rwlock_write_unlock(&l), 0);
}

/* TASKS tasks at one barrier of TASKS made for threads, round after round: none
 * passes a round before all arrived at it, one leads each. */
typedef struct meeter {
    WA_CORO;
    wa_barrier *b;
    wa_barrier_wait w;
    long k, i;
    long *arrived, *leaders, *early;
} meeter;

WA_ASYNC(meeter, t, cx)
{
    WA_BEGIN(t, cx);
    for (t->i = 0; t->i < t->k; t->i++) {
        __atomic_add_fetch(t->arrived, 1, __ATOMIC_RELAXED);
        WA_AWAIT(wa_barrier_wait_init(&t->w, t->b));
        if (WA_STATUS)
            WA_RETURN(WA_STATUS);
        if (__atomic_load_n(t->arrived, __ATOMIC_RELAXED) < (t->i + 1) * TASKS)
            __atomic_add_fetch(t->early, 1, __ATOMIC_RELAXED);
        __atomic_add_fetch(t->leaders, wa_barrier_wait_is_leader(&t->w), __ATOMIC_RELAXED);
    }
    WA_END();
}

static void test_mt_sync_barrier(void)
{
    wa_barrier b;
    wa_barrier_init_shared(&b, TASKS);
    long arrived = 0, leaders = 0, early = 0, k = 2000 / SCALE;
    meeter m[TASKS];
    for (int i = 0; i < TASKS; i++) {
        m[i] = (meeter){.b = &b, .k = k, .arrived = &arrived, .leaders = &leaders, .early = &early};
        meeter_init(&m[i]);
    }
    int rc = run_group(m, sizeof *m, TASKS, TASKS);
    REQUIRE(rc != WA_ENOMEM);
    CHECK_EQ(rc, 0);
    CHECK_EQ(early, 0);
    CHECK_EQ(leaders, k);
    CHECK_EQ(arrived, TASKS * k);
}

/* Arrives at b once, counting its start and its passing. */
typedef struct arriver {
    WA_CORO;
    wa_barrier *b;
    wa_barrier_wait w;
    long *started, *passed, *leaders;
} arriver;

WA_ASYNC(arriver, t, cx)
{
    WA_BEGIN(t, cx);
    __atomic_add_fetch(t->started, 1, __ATOMIC_RELAXED);
    WA_AWAIT(wa_barrier_wait_init(&t->w, t->b));
    if (WA_STATUS)
        WA_RETURN(WA_STATUS);
    __atomic_add_fetch(t->leaders, wa_barrier_wait_is_leader(&t->w), __ATOMIC_RELAXED);
    __atomic_add_fetch(t->passed, 1, __ATOMIC_RELAXED);
    WA_END();
}

/* Rounds on a barrier of 2 made for threads, on two workers: a wait cancelled (while
 * it queues, or after) is not counted, so the next one waits for a third. */
typedef struct canceller {
    WA_CORO;
    wa_barrier b;
    wa_yield y;
    wa_join js[3];
    int round, i;
    long started, passed, leaders, alone;
} canceller;

static void canceller_cleanup(canceller *t) { check_joins_drop(t->js, 3); }

/* Spawns arriver i on cx's runtime: WA_ENOMEM when it could not. */
static int canceller_spawn(canceller *t, wa_cx *cx, int i)
{
    arriver a = {.b = &t->b, .started = &t->started, .passed = &t->passed, .leaders = &t->leaders};
    arriver_init(&a);
    return wa_spawn(cx->rt, &a.wa.fut, sizeof a, &t->js[i]) < 0 ? WA_ENOMEM : 0;
}

WA_ASYNC(canceller, t, cx, canceller_cleanup)
{
    WA_BEGIN(t, cx);
    for (t->round = 0; t->round < 200 / SCALE; t->round++) {
        wa_barrier_init_shared(&t->b, 2);
        t->started = t->passed = t->leaders = 0;
        if (canceller_spawn(t, cx, 0))
            WA_RETURN(WA_ENOMEM);
        for (t->i = 0; t->i < t->round % 4; t->i++) /* cancelled before or after it queues */
            WA_AWAIT(wa_yield_init(&t->y));
        wa_join_cancel(&t->js[0]);
        WA_AWAIT(&t->js[0].fut);
        CHECK_EQ(WA_STATUS, WA_ECANCELED);
        if (canceller_spawn(t, cx, 1))
            WA_RETURN(WA_ENOMEM);
        for (t->i = 0; t->i < 8; t->i++)
            WA_AWAIT(wa_yield_init(&t->y));
        t->alone += __atomic_load_n(&t->passed, __ATOMIC_RELAXED) != 0;
        if (canceller_spawn(t, cx, 2))
            WA_RETURN(WA_ENOMEM);
        WA_AWAIT(&t->js[1].fut);
        CHECK_EQ(WA_STATUS, 0);
        WA_AWAIT(&t->js[2].fut);
        CHECK_EQ(WA_STATUS, 0);
        CHECK_EQ(__atomic_load_n(&t->passed, __ATOMIC_RELAXED), 2);
        CHECK_EQ(__atomic_load_n(&t->leaders, __ATOMIC_RELAXED), 1);
        check_joins_drop(t->js, 3);
    }
    WA_END();
}

static void test_mt_sync_barrier_cancel(void)
{
    wa_rt *rt;
    REQUIRE(wa_rt_new_mt(&rt, 2) == 0);
    canceller c = {0};
    canceller_init(&c);
    int rc = wa_block_on(rt, &c.wa.fut);
    wa_rt_free(rt);
    REQUIRE(rc != WA_ENOMEM);
    CHECK_EQ(rc, 0);
    CHECK_EQ(c.alone, 0);
}

/* A broadcast made for threads: two producers, receivers on both workers, each
 * receiver getting every element in each producer's order, or told how
 * many it missed; and receives cancelled from another thread while sends
 * wake them. */
typedef struct caster {
    WA_CORO;
    wa_broadcast_tx tx;
    wa_broadcast_rx rx;
    wa_broadcast_recv r;
    wa_yield y;
    long base, k, i, v, got, last[2];
    long *bad;
} caster;

static void caster_cleanup(caster *t)
{
    if (t->tx.ch)
        wa_broadcast_tx_drop(&t->tx);
    if (t->rx.ch)
        wa_broadcast_rx_drop(&t->rx);
}

WA_ASYNC(caster, t, cx, caster_cleanup)
{
    WA_BEGIN(t, cx);
    if (t->tx.ch) {
        for (t->i = 0; t->i < t->k; t->i++) {
            t->v = t->base + t->i;
            if (wa_broadcast_tx_send(&t->tx, &t->v) < 0)
                WA_RETURN(WA_EIO);
            if (t->i % 4 == 0)
                WA_AWAIT(wa_yield_init(&t->y));
        }
        WA_RETURN(0);
    }
    t->last[0] = t->last[1] = -1;
    for (;;) {
        WA_AWAIT(wa_broadcast_recv_init(&t->r, &t->rx, &t->v));
        if (WA_STATUS == WA_ECLOSED)
            break;
        if (WA_STATUS == WA_ELAGGED) {
            t->got += (long)wa_broadcast_rx_missed(&t->rx);
            t->last[0] = t->last[1] = -1; /* (which of each it missed is unknown) */
            continue;
        }
        long p = t->v >= t->k, seq = t->v - p * t->k;
        if (WA_STATUS || seq <= t->last[p])
            __atomic_add_fetch(t->bad, 1, __ATOMIC_RELAXED);
        t->last[p] = seq;
        t->got++;
    }
    if (t->got != 2 * t->k)
        __atomic_add_fetch(t->bad, 1, __ATOMIC_RELAXED);
    WA_END();
}

static void test_mt_sync_broadcast(void)
{
    long k = 20000 / SCALE, bad = 0;
    wa_broadcast_tx tx;
    wa_broadcast_rx rx;
    REQUIRE(wa_broadcast_new_shared(16, sizeof(long), &tx, &rx) == 0);
    caster m[TASKS];
    int made = 0;
    for (; made < TASKS; made++) {
        if (made < 2)
            m[made] = (caster){.tx = wa_broadcast_tx_clone(&tx), .base = made * k, .k = k};
        else
            m[made] = (caster){.rx = wa_broadcast_rx_subscribe(&rx), .k = k, .bad = &bad};
        if (!m[made].tx.ch && !m[made].rx.ch)
            break;
        caster_init(&m[made]);
    }
    wa_broadcast_tx_drop(&tx);
    wa_broadcast_rx_drop(&rx);
    int rc = run_group(m, sizeof *m, made, TASKS);
    REQUIRE(rc != WA_ENOMEM);
    CHECK_EQ(rc, 0);
    CHECK_EQ(bad, 0);
}

/* Receives cancelled from this thread while a producer's sends wake them:
 * nothing leaks (the channel goes with the last end), no wake is lost for
 * the receivers left. */
static void test_mt_sync_broadcast_cancel(void)
{
    for (int round = 0; round < 100 / SCALE + 1; round++) {
        wa_rt *rt;
        REQUIRE(wa_rt_new_mt(&rt, 2) == 0);
        wa_broadcast_tx tx;
        wa_broadcast_rx rx;
        REQUIRE_OR(wa_broadcast_new_shared(4, sizeof(long), &tx, &rx) == 0, wa_rt_free(rt));
        long bad = 0, k = 200;
        caster m[TASKS];
        wa_join js[TASKS] = {{0}};
        int spawned = 0;
        for (int i = 0; i < TASKS; i++) {
            m[i] = (caster){.rx = wa_broadcast_rx_subscribe(&rx), .k = k, .bad = &bad};
            caster_init(&m[i]);
            if (!m[i].rx.ch) {
                wa_drop(&m[i].wa.fut);
                break;
            }
            spawned += wa_spawn(rt, &m[i].wa.fut, sizeof m[i], &js[i]) == 0;
        }
        wa_broadcast_rx_drop(&rx);
        REQUIRE_OR(spawned == TASKS, (check_joins_drop(js, TASKS), wa_rt_free(rt), wa_broadcast_tx_drop(&tx)));
        for (long i = 0; i < 2 * k; i++) {
            long v = i; /* as two producers of k would number them */
            wa_broadcast_tx_send(&tx, &v);
            if (i % 16 == 0 && i / 16 < TASKS / 2)
                wa_join_cancel(&js[2 * (i / 16)]);
            if (i % 8 == 0)
                sched_yield();
        }
        wa_broadcast_tx_drop(&tx);
        /* the half not cancelled got all, or were told what they missed */
        for (int i = 1; i < TASKS; i += 2) {
            wa_join *j = &js[i];
            for (int spins = 0; !wa_join_done(j) && spins < 10000000; spins++)
                sched_yield();
            CHECK_EQ(wa_join_status(j), 0);
        }
        check_joins_drop(js, TASKS);
        wa_rt_free(rt);
        CHECK_EQ(bad, 0);
    }
}

/* A watch made for threads: receivers on both workers see the values rise and end
 * with the last one, then the close. */
typedef struct watcher {
    WA_CORO;
    wa_watch_tx tx;
    wa_watch_rx rx;
    wa_watch_changed c;
    wa_yield y;
    long k, i, v, last;
    long *bad;
} watcher;

static void watcher_cleanup(watcher *t)
{
    if (t->tx.ch)
        wa_watch_tx_drop(&t->tx);
    if (t->rx.ch)
        wa_watch_rx_drop(&t->rx);
}

WA_ASYNC(watcher, t, cx, watcher_cleanup)
{
    WA_BEGIN(t, cx);
    if (t->tx.ch) {
        for (t->i = 1; t->i <= t->k; t->i++) {
            if (wa_watch_tx_send(&t->tx, &t->i) < 0)
                WA_RETURN(WA_EIO);
            WA_AWAIT(wa_yield_init(&t->y));
        }
        WA_RETURN(0);
    }
    for (;;) {
        WA_AWAIT(wa_watch_changed_init(&t->c, &t->rx, &t->v));
        if (WA_STATUS == WA_ECLOSED)
            break;
        if (WA_STATUS || t->v <= t->last)
            __atomic_add_fetch(t->bad, 1, __ATOMIC_RELAXED);
        t->last = t->v;
    }
    if (t->last != t->k)
        __atomic_add_fetch(t->bad, 1, __ATOMIC_RELAXED);
    WA_END();
}

static void test_mt_sync_watch(void)
{
    long k = 20000 / SCALE, bad = 0, zero = 0;
    wa_watch_tx tx;
    wa_watch_rx rx;
    REQUIRE(wa_watch_new_shared(sizeof(long), &zero, &tx, &rx) == 0);
    watcher m[TASKS];
    int made = 0;
    for (; made < TASKS; made++) {
        if (made == 0)
            m[made] = (watcher){.tx = tx, .k = k};
        else
            m[made] = (watcher){.rx = wa_watch_rx_clone(&rx), .k = k, .bad = &bad};
        if (!m[made].tx.ch && !m[made].rx.ch)
            break;
        watcher_init(&m[made]);
    }
    wa_watch_rx_drop(&rx);
    int rc = run_group(m, sizeof *m, made, TASKS);
    REQUIRE(rc != WA_ENOMEM);
    CHECK_EQ(rc, 0);
    CHECK_EQ(bad, 0);
}

/* A local lock, barrier or channel awaited by a many-threads runtime's task: refused
 * when it would queue, the report naming the call. */
static void test_mt_sync_local_refused(void)
{
    wa_rt *rt;
    REQUIRE(wa_rt_new_mt(&rt, 2) == 0);
    check_catch_misuse();
    wa_rwlock l;
    wa_rwlock_init(&l);
    CHECK_EQ(wa_rwlock_try_write(&l), 0);
    wa_acquire a;
    CHECK_MISUSE(wa_block_on(rt, wa_read_lock_init(&a, &l)), WA_EMISUSE, "wa_read_lock_init");
    CHECK_MISUSE(wa_block_on(rt, wa_write_lock_init(&a, &l)), WA_EMISUSE, "wa_write_lock_init");
    CHECK_EQ(wa_rwlock_write_unlock(&l), 0);
    wa_barrier b;
    wa_barrier_init(&b, 2);
    wa_barrier_wait w;
    CHECK_MISUSE(wa_block_on(rt, wa_barrier_wait_init(&w, &b)), WA_EMISUSE, "wa_barrier_wait");
    wa_broadcast_tx btx;
    wa_broadcast_rx brx;
    if (wa_broadcast_new(1, sizeof(int), &btx, &brx) == 0) {
        wa_broadcast_recv r;
        int v;
        CHECK_MISUSE(wa_block_on(rt, wa_broadcast_recv_init(&r, &brx, &v)), WA_EMISUSE, "wa_broadcast_recv");
        wa_broadcast_tx_drop(&btx);
        wa_broadcast_rx_drop(&brx);
    }
    wa_watch_tx wtx;
    wa_watch_rx wrx;
    int zero = 0;
    if (wa_watch_new(sizeof(int), &zero, &wtx, &wrx) == 0) {
        wa_watch_changed c;
        CHECK_MISUSE(wa_block_on(rt, wa_watch_changed_init(&c, &wrx, NULL)), WA_EMISUSE, "wa_watch_changed");
        wa_watch_tx_drop(&wtx);
        wa_watch_rx_drop(&wrx);
    }
    wa_misuse_set_hook(NULL);
    wa_rt_free(rt);
}

int main(void)
{
    RUN(test_mt_sync_mpsc);
    RUN(test_mt_sync_mutex);
    RUN(test_mt_sync_sem);
    RUN(test_mt_sync_sem_unbounded);
    RUN(test_mt_sync_notify_cancel);
    RUN(test_mt_sync_oneshot);
    RUN(test_mt_sync_drop_races_sends);
    RUN(test_mt_sync_rwlock);
    RUN(test_mt_sync_barrier);
    RUN(test_mt_sync_barrier_cancel);
    RUN(test_mt_sync_broadcast);
    RUN(test_mt_sync_broadcast_cancel);
    RUN(test_mt_sync_watch);
    RUN(test_mt_sync_local_refused);
    return check_finish();
}
