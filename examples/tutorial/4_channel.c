/* SPDX-License-Identifier: MIT */
/* Tutorial, step 4: channels (docs/tutorial.md).
 *
 * Two producers send to one consumer through a bounded channel. Each task
 * owns its end of the channel and drops it in its cleanup; when both
 * senders are gone, the consumer's receive ends with WA_ECLOSED. The
 * producers send on a schedule of absolute deadlines from one start, so
 * a late wake does not push the next sends back (on a busy machine only
 * messages due close together, a2 and b1 or a3 and b2, may swap). */
#include <stdio.h>

#include "wasync.h"

typedef struct msg {
    char from;
    int n;
} msg;

typedef struct producer {
    WA_CORO;
    wa_tx tx; /* owned: dropped by the cleanup */
    wa_sleep sleep;
    wa_send send;
    msg m;
    uint64_t start; /* wa_now's clock */
    int period_ms;
} producer;

static void producer_cleanup(producer *t) { wa_tx_drop(&t->tx); }

WA_ASYNC(producer, t, cx, producer_cleanup)
{
    WA_BEGIN(t, cx);
    for (t->m.n = 1; t->m.n <= 3; t->m.n++) {
        WA_TRY(wa_sleep_until_init(&t->sleep, t->start + WA_MS(t->m.n * t->period_ms)));
        /* waits while the channel is full (backpressure) */
        WA_TRY(wa_send_init(&t->send, &t->tx, &t->m));
    }
    WA_END();
}

typedef struct consumer {
    WA_CORO;
    wa_rx rx; /* owned: dropped by the cleanup */
    wa_recv recv;
    msg m;
} consumer;

static void consumer_cleanup(consumer *t) { wa_rx_drop(&t->rx); }

WA_ASYNC(consumer, t, cx, consumer_cleanup)
{
    WA_BEGIN(t, cx);
    for (;;) {
        WA_AWAIT(wa_recv_init(&t->recv, &t->rx, &t->m));
        if (WA_STATUS == WA_ECLOSED)
            break;
        if (WA_STATUS < 0)
            WA_RETURN(WA_STATUS);
        printf("got %c%d\n", t->m.from, t->m.n);
    }
    printf("closed: every sender is gone\n");
    WA_END();
}

typedef struct app {
    WA_CORO;
    wa_scope scope;
    int rc; /* a failed spawn's error */
} app;

/* Spawns the task at fut (initialised) into t's scope. One that cannot be
 * spawned is dropped, which releases its end of the channel. */
static void spawn(app *t, wa_future *fut, size_t size)
{
    int rc = t->rc < 0 ? t->rc : wa_scope_spawn(&t->scope, fut, size, NULL);
    if (rc < 0) {
        wa_drop(fut);
        wa_scope_cancel(&t->scope);
        t->rc = rc;
    }
}

WA_ASYNC(app, t, cx)
{
    WA_BEGIN(t, cx);
    {
        uint64_t start = wa_now(cx->rt);
        producer a = {.m.from = 'a', .start = start, .period_ms = 40};
        producer b = {.m.from = 'b', .start = start, .period_ms = 100};
        consumer c = {0};
        int rc = wa_mpsc_new(2, sizeof(msg), &a.tx, &c.rx); /* capacity 2 */
        if (rc < 0)
            WA_RETURN(rc);
        b.tx = wa_tx_clone(&a.tx); /* a second sender */
        wa_scope_init(&t->scope, cx->rt, WA_SCOPE_FAIL_FAST);
        spawn(t, producer_init(&a), sizeof a);
        spawn(t, producer_init(&b), sizeof b);
        spawn(t, consumer_init(&c), sizeof c);
    }
    WA_AWAIT(wa_scope_wait(&t->scope));
    WA_RETURN(t->rc < 0 ? t->rc : WA_STATUS);
    WA_END();
}

int main(void)
{
    wa_rt *rt;
    if (wa_rt_new(&rt) < 0)
        return 1;
    app a = {0};
    int rc = wa_block_on(rt, app_init(&a));
    wa_rt_free(rt);
    if (rc < 0)
        fprintf(stderr, "channel: %s\n", wa_strerror(rc));
    return rc < 0;
}
