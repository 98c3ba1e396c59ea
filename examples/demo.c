/* SPDX-License-Identifier: MIT */
/* The shape of wasync in one program, every line time-stamped:
 *   1. three tasks sleep 1 s concurrently and finish together at +1000 ms;
 *   2. a producer outruns a slow consumer through a bounded channel and is
 *      held back (backpressure);
 *   3. a race of a slow job against a timeout: the timeout wins and the
 *      job is dropped (its timer released).
 */
#include <stdarg.h>
#include <stdio.h>

#include "wasync.h"

static uint64_t t0;

static void say(wa_cx *cx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("[+%5.0f ms] ", (double)(wa_now(cx->rt) - t0) / 1e6);
    vprintf(fmt, ap);
    putchar('\n');
    fflush(stdout);
    va_end(ap);
}

/* 1. a task that sleeps 1 s */
typedef struct napper {
    WA_CORO;
    wa_sleep s;
    int id;
} napper;

WA_ASYNC(napper, t, cx)
{
    WA_BEGIN(t, cx);
    say(cx, "task %d: sleeping 1 s", t->id);
    WA_TRY(wa_sleep_init(&t->s, WA_SEC(1)));
    say(cx, "task %d: awake", t->id);
    WA_END();
}

/* 2. producer and consumer around a channel of capacity 2; each owns its
 * end of the channel, released when the task ends or is dropped (the
 * channel closes when the producer's goes) */
typedef struct producer {
    WA_CORO;
    wa_tx tx;
    wa_send send;
    int i;
} producer;

static void producer_cleanup(producer *t) { wa_tx_drop(&t->tx); }

WA_ASYNC(producer, t, cx, producer_cleanup)
{
    WA_BEGIN(t, cx);
    for (t->i = 1; t->i <= 6; t->i++) {
        WA_TRY(wa_send_init(&t->send, &t->tx, &t->i));
        say(cx, "producer: sent %d (queued %zu)", t->i, wa_tx_len(&t->tx));
    }
    say(cx, "producer: done, closing");
    WA_END();
}

typedef struct consumer {
    WA_CORO;
    wa_rx rx;
    wa_recv recv;
    wa_sleep s;
    int v;
} consumer;

static void consumer_cleanup(consumer *t) { wa_rx_drop(&t->rx); }

WA_ASYNC(consumer, t, cx, consumer_cleanup)
{
    WA_BEGIN(t, cx);
    for (;;) {
        WA_AWAIT(wa_recv_init(&t->recv, &t->rx, &t->v));
        if (WA_STATUS == WA_ECLOSED)
            break;
        if (WA_STATUS < 0)
            WA_RETURN(WA_STATUS);
        say(cx, "consumer: got %d, working 100 ms", t->v);
        WA_TRY(wa_sleep_init(&t->s, WA_MS(100)));
    }
    say(cx, "consumer: channel closed");
    WA_END();
}

/* 3. a slow job raced against a timeout */
typedef struct racer {
    WA_CORO;
    WA_COMBO(2) race;
    wa_sleep job, limit;
} racer;

WA_ASYNC(racer, t, cx)
{
    WA_BEGIN(t, cx);
    say(cx, "race: a 5 s job against a 300 ms timeout");
    /* (the status is the winner's) */
    WA_TRY(wa_race_init(&t->race, wa_sleep_init(&t->job, WA_SEC(5)), wa_sleep_init(&t->limit, WA_MS(300))));
    wa_rt_stats st;
    wa_rt_stats_get(cx->rt, &st);
    say(cx, "race: %s won; the loser was dropped, %zu timer(s) left",
        wa_race_winner(&t->race.c) == 1 ? "the timeout" : "the job", st.timers);
    WA_END();
}

/* main: the three parts in order, the first two in a scope */
typedef struct demo {
    WA_CORO;
    wa_scope scope;
    racer race;
    int rc; /* a failed spawn's error */
} demo;

/* Spawns the child at fut into t's scope. A child that cannot be spawned
 * is dropped (releasing what it owns) and cancels the scope; its error is
 * kept, for when the scope is done. */
static void demo_spawn(demo *t, wa_future *fut, size_t size)
{
    int rc = t->rc < 0 ? t->rc : wa_scope_spawn(&t->scope, fut, size, NULL);
    if (rc < 0) {
        wa_drop(fut);
        wa_scope_cancel(&t->scope);
        t->rc = rc;
    }
}

WA_ASYNC(demo, t, cx)
{
    WA_BEGIN(t, cx);
    say(cx, "-- 1. three concurrent sleeps");
    wa_scope_init(&t->scope, cx->rt, WA_SCOPE_FAIL_FAST);
    for (int i = 1; i <= 3; i++) {
        napper n = {.id = i};
        demo_spawn(t, napper_init(&n), sizeof n);
    }
    WA_AWAIT(wa_scope_wait(&t->scope));
    if (t->rc < 0 || WA_STATUS < 0)
        WA_RETURN(t->rc < 0 ? t->rc : WA_STATUS);

    say(cx, "-- 2. producer/consumer, channel capacity 2");
    wa_scope_init(&t->scope, cx->rt, WA_SCOPE_FAIL_FAST);
    {
        producer p;
        consumer c;
        producer_init(&p);
        consumer_init(&c);
        int rc = wa_mpsc_new(2, sizeof(int), &p.tx, &c.rx);
        if (rc < 0) {
            wa_drop(&t->scope.fut);
            WA_RETURN(rc);
        }
        demo_spawn(t, producer_init(&p), sizeof p);
        demo_spawn(t, consumer_init(&c), sizeof c);
    }
    WA_AWAIT(wa_scope_wait(&t->scope));
    if (t->rc < 0 || WA_STATUS < 0)
        WA_RETURN(t->rc < 0 ? t->rc : WA_STATUS);

    say(cx, "-- 3. race with a timeout");
    WA_TRY(racer_init(&t->race));
    say(cx, "done");
    WA_END();
}

int main(void)
{
    wa_rt *rt;
    int rc = wa_rt_new(&rt);
    if (rc < 0) {
        fprintf(stderr, "wa_rt_new: %s\n", wa_strerror(rc));
        return 1;
    }
    t0 = wa_now(rt);
    demo d = {0};
    rc = wa_block_on(rt, demo_init(&d));
    wa_rt_free(rt);
    if (rc < 0) {
        fprintf(stderr, "demo: %s\n", wa_strerror(rc));
        return 1;
    }
    return 0;
}
