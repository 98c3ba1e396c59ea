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

static int napper_poll(wa_future *f, wa_cx *cx)
{
    napper *t = (napper *)f;
    WA_BEGIN(t, cx);
    say(cx, "task %d: sleeping 1 s", t->id);
    WA_AWAIT(wa_sleep_init(&t->s, WA_SEC(1)));
    if (WA_STATUS < 0)
        WA_RETURN(WA_STATUS);
    say(cx, "task %d: awake", t->id);
    WA_END();
}
static const wa_future_vt napper_vt = {napper_poll, wa_coro_drop, "napper"};

/* 2. producer and consumer around a channel of capacity 2; each owns its
 * end of the channel, released when the task ends or is dropped (the
 * channel closes when the producer's goes) */
typedef struct producer {
    WA_CORO;
    wa_tx tx;
    wa_send send;
    int i;
} producer;

static int producer_poll(wa_future *f, wa_cx *cx)
{
    producer *t = (producer *)f;
    WA_BEGIN(t, cx);
    for (t->i = 1; t->i <= 6; t->i++) {
        WA_AWAIT(wa_send_init(&t->send, &t->tx, &t->i));
        if (WA_STATUS < 0)
            WA_RETURN(WA_STATUS);
        say(cx, "producer: sent %d (queued %zu)", t->i, wa_tx_len(&t->tx));
    }
    say(cx, "producer: done, closing");
    WA_END();
}
static void producer_drop(wa_future *f)
{
    wa_coro_drop(f);
    wa_tx_drop(&((producer *)f)->tx);
}
static const wa_future_vt producer_vt = {producer_poll, producer_drop, "producer"};

typedef struct consumer {
    WA_CORO;
    wa_rx rx;
    wa_recv recv;
    wa_sleep s;
    int v;
} consumer;

static int consumer_poll(wa_future *f, wa_cx *cx)
{
    consumer *t = (consumer *)f;
    WA_BEGIN(t, cx);
    for (;;) {
        WA_AWAIT(wa_recv_init(&t->recv, &t->rx, &t->v));
        if (WA_STATUS == WA_ECLOSED)
            break;
        if (WA_STATUS < 0)
            WA_RETURN(WA_STATUS);
        say(cx, "consumer: got %d, working 100 ms", t->v);
        WA_AWAIT(wa_sleep_init(&t->s, WA_MS(100)));
        if (WA_STATUS < 0)
            WA_RETURN(WA_STATUS);
    }
    say(cx, "consumer: channel closed");
    WA_END();
}
static void consumer_drop(wa_future *f)
{
    wa_coro_drop(f);
    wa_rx_drop(&((consumer *)f)->rx);
}
static const wa_future_vt consumer_vt = {consumer_poll, consumer_drop, "consumer"};

/* 3. a slow job raced against a timeout */
typedef struct racer {
    WA_CORO;
    WA_COMBO(2) race;
    wa_sleep job, limit;
} racer;

static int racer_poll(wa_future *f, wa_cx *cx)
{
    racer *t = (racer *)f;
    WA_BEGIN(t, cx);
    say(cx, "race: a 5 s job against a 300 ms timeout");
    WA_AWAIT(wa_race_init(&t->race, wa_sleep_init(&t->job, WA_SEC(5)),
                     wa_sleep_init(&t->limit, WA_MS(300))));
    if (WA_STATUS < 0) /* (the winner's status) */
        WA_RETURN(WA_STATUS);
    wa_rt_stats st;
    wa_rt_stats_get(cx->rt, &st);
    say(cx, "race: %s won; the loser was dropped, %zu timer(s) left",
        wa_race_winner(&t->race.c) == 1 ? "the timeout" : "the job", st.timers);
    WA_END();
}
static const wa_future_vt racer_vt = {racer_poll, wa_coro_drop, "racer"};

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

static int demo_poll(wa_future *f, wa_cx *cx)
{
    demo *t = (demo *)f;
    WA_BEGIN(t, cx);
    say(cx, "-- 1. three concurrent sleeps");
    wa_scope_init(&t->scope, cx->rt, WA_SCOPE_FAIL_FAST);
    for (int i = 1; i <= 3; i++) {
        napper n = {.id = i};
        wa_coro_init(&n.wa, &napper_vt);
        demo_spawn(t, &n.wa.fut, sizeof n);
    }
    WA_AWAIT(wa_scope_wait(&t->scope));
    if (t->rc < 0 || WA_STATUS < 0)
        WA_RETURN(t->rc < 0 ? t->rc : WA_STATUS);

    say(cx, "-- 2. producer/consumer, channel capacity 2");
    wa_scope_init(&t->scope, cx->rt, WA_SCOPE_FAIL_FAST);
    {
        producer p;
        consumer c;
        wa_coro_init(&p.wa, &producer_vt);
        wa_coro_init(&c.wa, &consumer_vt);
        int rc = wa_mpsc_new(2, sizeof(int), &p.tx, &c.rx);
        if (rc < 0) {
            wa_drop(&t->scope.fut);
            WA_RETURN(rc);
        }
        demo_spawn(t, &p.wa.fut, sizeof p);
        demo_spawn(t, &c.wa.fut, sizeof c);
    }
    WA_AWAIT(wa_scope_wait(&t->scope));
    if (t->rc < 0 || WA_STATUS < 0)
        WA_RETURN(t->rc < 0 ? t->rc : WA_STATUS);

    say(cx, "-- 3. race with a timeout");
    WA_AWAIT(wa_coro_init(&t->race.wa, &racer_vt));
    if (WA_STATUS < 0)
        WA_RETURN(WA_STATUS);
    say(cx, "done");
    WA_END();
}
static const wa_future_vt demo_vt = {demo_poll, wa_coro_drop, "demo"};

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
    wa_coro_init(&d.wa, &demo_vt);
    rc = wa_block_on(rt, &d.wa.fut);
    wa_rt_free(rt);
    if (rc < 0) {
        fprintf(stderr, "demo: %s\n", wa_strerror(rc));
        return 1;
    }
    return 0;
}
