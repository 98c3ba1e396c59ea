/* SPDX-License-Identifier: MIT */
/* Wakes that come from another worker or thread than the one polling,
 * on the many-threads executor (wa_rt_new_mt): a ring of 50 tasks, each
 * awaiting a consumer and a producer in one wa_all_settled_init over the
 * channels of the ring (a combinator's children woken from other workers
 * while it is polled), round after round; then, for every future type of
 * the library, its wake arranged from another worker or thread, each
 * awaited alone, as a race's child and as a join's child. Run under TSan
 * by the tsan preset, and under tests/faults (smaller there): a setup that
 * fails stops its test, releasing what it made. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "rt_setup.h"

#define SCALE CHECK_SCALE(20, 5)

/* A stall is a lost wake (or a poll looping on a broken list): nothing
 * inside the runtime can end it, so a watchdog thread ends the test when
 * the work in progress made no step for STALL_S seconds. */
#define STALL_S 60

static long progress; /* atomic: steps made (rounds, cases) */
static int watching;  /* atomic: the watchdog runs while 1 */
static pthread_t watchdog_thread;

static void *watchdog(void *arg)
{
    (void)arg;
    long seen = -1;
    int still = 0;
    while (__atomic_load_n(&watching, __ATOMIC_ACQUIRE)) {
        long now = __atomic_load_n(&progress, __ATOMIC_RELAXED);
        still = now == seen ? still + 1 : 0;
        seen = now;
        if (still == STALL_S * 10) {
            fprintf(stderr, "[%s] stalled: no step in %d s (a lost wake)\n", check_current, STALL_S);
            check_failed++;
            check_finish();
            fflush(stdout);
            _exit(1);
        }
        usleep(100000);
    }
    return NULL;
}

static void watchdog_start(void)
{
    __atomic_store_n(&watching, 1, __ATOMIC_RELEASE);
    if (pthread_create(&watchdog_thread, NULL, watchdog, NULL) != 0)
        __atomic_store_n(&watching, 0, __ATOMIC_RELEASE);
}

static void watchdog_stop(void)
{
    if (__atomic_exchange_n(&watching, 0, __ATOMIC_ACQ_REL))
        pthread_join(watchdog_thread, NULL);
}

static void step(void) { __atomic_add_fetch(&progress, 1, __ATOMIC_RELAXED); }

/* The ring: consumer i receives from channel i until it is closed,
 * producer i sends k values into channel i + 1 and drops its sender. */
#define RING 50

typedef struct consumer {
    WA_CORO;
    wa_rx rx;
    wa_recv r;
    long v, got;
} consumer;

static void consumer_cleanup(consumer *t)
{
    if (t->rx.ch)
        wa_rx_drop(&t->rx);
}

WA_ASYNC(consumer, t, cx, consumer_cleanup)
{
    WA_BEGIN(t, cx);
    for (;;) {
        WA_AWAIT(wa_recv_init(&t->r, &t->rx, &t->v));
        if (WA_STATUS == WA_ECLOSED)
            WA_RETURN(0);
        t->got++;
    }
    WA_END();
}

typedef struct producer {
    WA_CORO;
    wa_tx tx;
    wa_send s;
    long k, i;
} producer;

static void producer_cleanup(producer *t)
{
    if (t->tx.ch)
        wa_tx_drop(&t->tx);
}

WA_ASYNC(producer, t, cx, producer_cleanup)
{
    WA_BEGIN(t, cx);
    for (t->i = 0; t->i < t->k; t->i++) {
        WA_AWAIT(wa_send_init(&t->s, &t->tx, &t->i));
        if (WA_STATUS)
            WA_RETURN(WA_STATUS);
    }
    WA_END();
}

typedef struct ringer {
    WA_CORO;
    WA_COMBO(2) j;
    consumer c;
    producer p;
    int started;
    long *got;
} ringer;

static void ringer_cleanup(ringer *t)
{
    if (!t->started) { /* (the combinator owns them once started) */
        wa_drop(&t->c.wa.fut);
        wa_drop(&t->p.wa.fut);
    }
}

WA_ASYNC(ringer, t, cx, ringer_cleanup)
{
    WA_BEGIN(t, cx);
    t->started = 1;
    WA_AWAIT(wa_all_settled_init(&t->j, &t->c.wa.fut, &t->p.wa.fut));
    __atomic_add_fetch(t->got, t->c.got, __ATOMIC_RELAXED);
    WA_RETURN(wa_combo_status(&t->j.c, 0) ? wa_combo_status(&t->j.c, 0) : wa_combo_status(&t->j.c, 1));
    WA_END();
}

/* Runs rounds of the ring, each of k values per producer: the first
 * failure, WA_ENOMEM when a setup failed. */
typedef struct ring {
    WA_CORO;
    wa_tx tx[RING];
    wa_rx rx[RING];
    wa_join js[RING];
    long rounds, k, round, got;
    int i, spawned, rc;
} ring;

static void ring_cleanup(ring *t) { check_joins_drop(t->js, t->spawned); }

WA_ASYNC(ring, t, cx, ring_cleanup)
{
    WA_BEGIN(t, cx);
    for (t->round = 0; t->round < t->rounds; t->round++) {
        t->spawned = 0;
        t->got = 0;
        memset(t->js, 0, sizeof t->js);
        for (int i = 0; i < RING; i++)
            if (wa_mpsc_new_shared(1, sizeof(long), &t->tx[i], &t->rx[i]) < 0) {
                for (int k = 0; k < i; k++)
                    wa_tx_drop(&t->tx[k]), wa_rx_drop(&t->rx[k]);
                WA_RETURN(WA_ENOMEM);
            }
        for (int i = 0; i < RING; i++) {
            ringer r = {.c = {.rx = t->rx[i]}, .p = {.tx = t->tx[(i + 1) % RING], .k = t->k}, .got = &t->got};
            consumer_init(&r.c);
            producer_init(&r.p);
            ringer_init(&r);
            if (check_spawn_of(cx->rt, &r, &t->js[i]) < 0) {
                for (int k = i + 1; k < RING; k++)
                    wa_rx_drop(&t->rx[k]), wa_tx_drop(&t->tx[(k + 1) % RING]);
                t->rc = WA_ENOMEM;
                break;
            }
            t->spawned++;
        }
        for (t->i = 0; t->i < t->spawned; t->i++) {
            WA_AWAIT(&t->js[t->i].fut);
            if (WA_STATUS && !t->rc)
                t->rc = WA_STATUS;
        }
        t->spawned = 0;
        if (t->rc)
            WA_RETURN(t->rc);
        if (t->got != RING * t->k)
            WA_RETURN(WA_EIO);
        step();
    }
    WA_END();
}

/* The reproduction: a producer's send granted from another worker woke
 * its branch, which was marked woken but lost from the combinator's list
 * (and never polled again: the runtime deadlocked), and TSan saw the
 * races. Without the combinator the same traffic never stalled. */
static void test_mt_wake_all_settled_ring(void)
{
    wa_rt *rt;
    REQUIRE(wa_rt_new_mt(&rt, 4) == 0);
    ring r = {.rounds = 200 / SCALE, .k = 200};
    ring_init(&r);
    int rc = wa_block_on(rt, &r.wa.fut);
    wa_rt_free(rt);
    REQUIRE(rc != WA_ENOMEM);
    CHECK_EQ(rc, 0);
    CHECK_EQ(r.round, r.rounds);
}

int main(void)
{
    watchdog_start();
    RUN(test_mt_wake_all_settled_ring);
    watchdog_stop();
    return check_finish();
}
