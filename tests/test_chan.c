/* SPDX-License-Identifier: MIT */
/* Broadcast and watch channels on one runtime: every receiver gets every
 * element, a lagging one is told how many it missed, the close after the
 * drain, a watch's receivers skip to the newest, receives dropped woken or
 * queued (nothing lost, nothing leaked: ASan's leak check), misuse named.
 * Every test ends with its runtime empty and each helper dropped once. */
#include "futures.h"

static int drops; /* helper coroutines dropped */

typedef struct intlog {
    int v[64];
    int n;
} intlog;

/* Receives from a borrowed broadcast receiver until a status other than 0
 * (WA_ELAGGED too: the test looks at it), logging what it got. */
typedef struct bcaster {
    WA_CORO;
    wa_broadcast_rx *rx;
    wa_broadcast_recv r;
    int v, want;
    intlog *log;
} bcaster;

static void bcaster_cleanup(bcaster *t)
{
    (void)t;
    drops++;
}

WA_ASYNC(bcaster, t, cx, bcaster_cleanup)
{
    WA_BEGIN(t, cx);
    while (t->log->n < t->want) {
        WA_AWAIT(wa_broadcast_recv_init(&t->r, t->rx, &t->v));
        if (WA_STATUS != 0)
            WA_RETURN(WA_STATUS);
        t->log->v[t->log->n++] = t->v;
    }
    WA_END();
}

static int spawn_bcaster(wa_rt *rt, wa_broadcast_rx *rx, int want, intlog *log, wa_join *j)
{
    bcaster b = {.rx = rx, .want = want, .log = log};
    bcaster_init(&b);
    return check_spawn_of(rt, &b, j);
}

/* Awaits want changes of a borrowed watch receiver, logging each value. */
typedef struct watcher {
    WA_CORO;
    wa_watch_rx *rx;
    wa_watch_changed c;
    int v, want;
    intlog *log;
} watcher;

static void watcher_cleanup(watcher *t)
{
    (void)t;
    drops++;
}

WA_ASYNC(watcher, t, cx, watcher_cleanup)
{
    WA_BEGIN(t, cx);
    while (t->log->n < t->want) {
        WA_AWAIT(wa_watch_changed_init(&t->c, t->rx, &t->v));
        if (WA_STATUS != 0)
            WA_RETURN(WA_STATUS);
        t->log->v[t->log->n++] = t->v;
    }
    WA_END();
}

static int spawn_watcher(wa_rt *rt, wa_watch_rx *rx, int want, intlog *log, wa_join *j)
{
    watcher w = {.rx = rx, .want = want, .log = log};
    watcher_init(&w);
    return check_spawn_of(rt, &w, j);
}

/* Drops the nj handles, checks that rt is empty and frees it, and that the
 * helpers were each dropped once. */
static void finish(wa_rt *rt, wa_join *js, int nj, int helpers)
{
    for (int i = 0; i < nj; i++)
        CHECK_EQ(wa_join_drop(&js[i]), 0);
    CHECK_RT_EMPTY_FREE(rt);
    CHECK_EQ(drops, helpers);
    drops = 0;
}

/* What a test stopped by REQUIRE made, released. */
static void stop(wa_rt *rt, wa_join *js, int nj, wa_broadcast_tx *tx, wa_broadcast_rx *rx, int nrx)
{
    check_joins_drop(js, nj);
    wa_rt_free(rt);
    if (tx && tx->ch)
        wa_broadcast_tx_drop(tx);
    for (int i = 0; i < nrx; i++)
        if (rx[i].ch)
            wa_broadcast_rx_drop(&rx[i]);
    drops = 0;
}

static void stop_watch(wa_rt *rt, wa_join *js, int nj, wa_watch_tx *tx, wa_watch_rx *rx, int nrx)
{
    check_joins_drop(js, nj);
    wa_rt_free(rt);
    if (tx && tx->ch)
        wa_watch_tx_drop(tx);
    for (int i = 0; i < nrx; i++)
        if (rx[i].ch)
            wa_watch_rx_drop(&rx[i]);
    drops = 0;
}

/* Broadcast */

static void test_broadcast_every_receiver(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_broadcast_tx tx;
    wa_broadcast_rx rx[3] = {{0}};
    REQUIRE_OR(wa_broadcast_new(8, sizeof(int), &tx, &rx[0]) == 0, wa_rt_free(rt));
    rx[1] = wa_broadcast_tx_subscribe(&tx);
    REQUIRE_OR(rx[1].ch, stop(rt, NULL, 0, &tx, rx, 3));
    intlog a = {0}, b = {0}, c = {0};
    wa_join j[3] = {{0}};
    REQUIRE_OR(spawn_bcaster(rt, &rx[0], 5, &a, &j[0]) == 0, stop(rt, j, 3, &tx, rx, 3));
    REQUIRE_OR(spawn_bcaster(rt, &rx[1], 5, &b, &j[1]) == 0, stop(rt, j, 3, &tx, rx, 3));
    wa_rt_tick(rt, NULL); /* both wait */
    for (int v = 0; v < 2; v++)
        CHECK_EQ(wa_broadcast_tx_send(&tx, &v), 2);
    /* subscribed now: gets what is sent from now on, not the two before */
    rx[2] = wa_broadcast_rx_subscribe(&rx[0]);
    REQUIRE_OR(rx[2].ch, stop(rt, j, 3, &tx, rx, 3));
    CHECK_EQ(wa_broadcast_rx_len(&rx[2]), 0);
    CHECK_EQ(wa_broadcast_rx_len(&rx[0]), 2);
    REQUIRE_OR(spawn_bcaster(rt, &rx[2], 3, &c, &j[2]) == 0, stop(rt, j, 3, &tx, rx, 3));
    wa_rt_tick(rt, NULL);
    for (int v = 2; v < 5; v++)
        CHECK_EQ(wa_broadcast_tx_send(&tx, &v), 3);
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK_EQ(a.n, 5);
    CHECK_EQ(b.n, 5);
    CHECK_EQ(c.n, 3);
    for (int i = 0; i < 5; i++) {
        CHECK_EQ(a.v[i], i);
        CHECK_EQ(b.v[i], i);
    }
    for (int i = 0; i < 3; i++)
        CHECK_EQ(c.v[i], i + 2);
    int v;
    CHECK_EQ(wa_broadcast_rx_try_recv(&rx[0], &v), WA_EAGAIN);
    CHECK_EQ(wa_broadcast_tx_drop(&tx), 0);
    CHECK_EQ(wa_broadcast_rx_try_recv(&rx[0], &v), WA_ECLOSED);
    for (int i = 0; i < 3; i++)
        CHECK_EQ(wa_broadcast_rx_drop(&rx[i]), 0);
    finish(rt, j, 3, 3);
}

/* A receiver more than the ring behind is told how many it missed, once,
 * then goes on from the oldest kept; another at the tail is not. */
static void test_broadcast_lag(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_broadcast_tx tx;
    wa_broadcast_rx rx[2] = {{0}};
    REQUIRE_OR(wa_broadcast_new(4, sizeof(int), &tx, &rx[0]) == 0, wa_rt_free(rt));
    rx[1] = wa_broadcast_tx_subscribe(&tx);
    REQUIRE_OR(rx[1].ch, stop(rt, NULL, 0, &tx, rx, 2));
    for (int v = 0; v < 10; v++)
        CHECK_EQ(wa_broadcast_tx_send(&tx, &v), 2);
    CHECK_EQ(wa_broadcast_rx_len(&rx[0]), 10);
    int v = -1;
    CHECK_EQ(wa_broadcast_rx_try_recv(&rx[0], &v), WA_ELAGGED);
    CHECK_EQ(v, -1);
    CHECK_EQ(wa_broadcast_rx_missed(&rx[0]), 6);
    for (int want = 6; want < 10; want++) {
        CHECK_EQ(wa_broadcast_rx_try_recv(&rx[0], &v), 0);
        CHECK_EQ(v, want);
    }
    CHECK_EQ(wa_broadcast_rx_try_recv(&rx[0], &v), WA_EAGAIN);

    /* the same through the future: WA_ELAGGED, then the oldest kept */
    intlog a = {0};
    wa_join j[2] = {{0}};
    REQUIRE_OR(spawn_bcaster(rt, &rx[1], 4, &a, &j[0]) == 0, stop(rt, j, 2, &tx, rx, 2));
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK_EQ(wa_join_status(&j[0]), WA_ELAGGED);
    CHECK_EQ(wa_broadcast_rx_missed(&rx[1]), 6);
    CHECK_EQ(a.n, 0);
    REQUIRE_OR(spawn_bcaster(rt, &rx[1], 4, &a, &j[1]) == 0, stop(rt, j, 2, &tx, rx, 2));
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK_EQ(wa_join_status(&j[1]), 0);
    CHECK_EQ(a.n, 4);
    for (int i = 0; i < 4; i++)
        CHECK_EQ(a.v[i], 6 + i);

    /* exactly the ring behind is no lag */
    for (v = 10; v < 14; v++)
        CHECK_EQ(wa_broadcast_tx_send(&tx, &v), 2);
    CHECK_EQ(wa_broadcast_rx_try_recv(&rx[0], &v), 0);
    CHECK_EQ(v, 10);
    CHECK_EQ(wa_broadcast_tx_drop(&tx), 0);
    CHECK_EQ(wa_broadcast_rx_drop(&rx[0]), 0);
    CHECK_EQ(wa_broadcast_rx_drop(&rx[1]), 0);
    finish(rt, j, 2, 2);
}

/* When the last sender goes, waiting receives wake to WA_ECLOSED, and a
 * receiver behind drains first. */
static void test_broadcast_close(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_broadcast_tx tx[2];
    wa_broadcast_rx rx[2] = {{0}};
    REQUIRE_OR(wa_broadcast_new(4, sizeof(int), &tx[0], &rx[0]) == 0, wa_rt_free(rt));
    tx[1] = wa_broadcast_tx_clone(&tx[0]);
    REQUIRE_OR(tx[1].ch, stop(rt, NULL, 0, &tx[0], rx, 2));
    intlog a = {0}, b = {0};
    wa_join j[2] = {{0}};
    REQUIRE_OR(spawn_bcaster(rt, &rx[0], 10, &a, &j[0]) == 0,
               (wa_broadcast_tx_drop(&tx[1]), stop(rt, j, 2, &tx[0], rx, 2)));
    wa_rt_tick(rt, NULL);
    int v = 1;
    CHECK_EQ(wa_broadcast_tx_send(&tx[1], &v), 1);
    rx[1] = wa_broadcast_tx_subscribe(&tx[0]);
    REQUIRE_OR(rx[1].ch, (wa_broadcast_tx_drop(&tx[1]), stop(rt, j, 2, &tx[0], rx, 2)));
    v = 2;
    CHECK_EQ(wa_broadcast_tx_send(&tx[0], &v), 2);
    wa_rt_tick(rt, NULL);
    CHECK_EQ(a.n, 2);
    CHECK_EQ(wa_broadcast_tx_drop(&tx[0]), 0);
    wa_rt_tick(rt, NULL);
    CHECK_EQ(wa_join_done(&j[0]), 0); /* a sender is left */
    CHECK_EQ(wa_broadcast_tx_drop(&tx[1]), 0);
    wa_rt_tick(rt, NULL);
    CHECK_EQ(wa_join_status(&j[0]), WA_ECLOSED);
    /* rx[1] drains the one it has not received, then is closed */
    REQUIRE_OR(spawn_bcaster(rt, &rx[1], 10, &b, &j[1]) == 0, stop(rt, j, 2, NULL, rx, 2));
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK_EQ(wa_join_status(&j[1]), WA_ECLOSED);
    CHECK_EQ(b.n, 1);
    CHECK_EQ(b.v[0], 2);
    /* a receiver subscribed from a receiver of a closed channel is closed */
    wa_broadcast_rx late = wa_broadcast_rx_subscribe(&rx[1]);
    REQUIRE_OR(late.ch, stop(rt, j, 2, NULL, rx, 2));
    CHECK_EQ(wa_broadcast_rx_try_recv(&late, &v), WA_ECLOSED);
    CHECK_EQ(wa_broadcast_rx_drop(&late), 0);
    CHECK_EQ(wa_broadcast_rx_drop(&rx[0]), 0);
    CHECK_EQ(wa_broadcast_rx_drop(&rx[1]), 0);
    finish(rt, j, 2, 2);
}

/* A receive dropped after a send woke it, or while it waits, has taken
 * nothing: the receiver's next receive gets the element. The channel
 * outlives its ends while a receive holds it, and goes with the last. */
static void test_broadcast_recv_dropped(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_broadcast_tx tx;
    wa_broadcast_rx rx[1] = {{0}};
    REQUIRE_OR(wa_broadcast_new(2, sizeof(int), &tx, &rx[0]) == 0, wa_rt_free(rt));
    intlog a = {0};
    wa_join j[3] = {{0}};
    REQUIRE_OR(spawn_bcaster(rt, &rx[0], 1, &a, &j[0]) == 0, stop(rt, j, 3, &tx, rx, 1));
    wa_rt_tick(rt, NULL);
    int v = 7;
    CHECK_EQ(wa_broadcast_tx_send(&tx, &v), 1); /* wakes j[0] */
    CHECK_EQ(wa_join_abort(&j[0]), 0);          /* dropped before it ran */
    wa_rt_tick(rt, NULL);
    CHECK_EQ(a.n, 0);
    CHECK_EQ(wa_broadcast_rx_len(&rx[0]), 1);

    /* queued, then dropped: the next send wakes no one */
    REQUIRE_OR(spawn_bcaster(rt, &rx[0], 2, &a, &j[1]) == 0, stop(rt, j, 3, &tx, rx, 1));
    wa_rt_tick(rt, NULL);
    CHECK_EQ(a.n, 1);
    CHECK_EQ(a.v[0], 7);
    CHECK_EQ(wa_join_abort(&j[1]), 0);
    wa_rt_tick(rt, NULL);
    v = 8;
    CHECK_EQ(wa_broadcast_tx_send(&tx, &v), 1);
    CHECK_EQ(wa_broadcast_rx_try_recv(&rx[0], &v), 0);
    CHECK_EQ(v, 8);

    /* the ends dropped while a receive waits: it holds the channel, which
     * its task's end frees (ASan's leak check) */
    intlog c = {0};
    REQUIRE_OR(spawn_bcaster(rt, &rx[0], 1, &c, &j[2]) == 0, stop(rt, j, 3, &tx, rx, 1));
    wa_rt_tick(rt, NULL);
    CHECK_EQ(wa_broadcast_rx_drop(&rx[0]), 0);
    CHECK_EQ(wa_broadcast_tx_drop(&tx), 0); /* wakes it: closed */
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK_EQ(wa_join_status(&j[2]), WA_ECLOSED);
    finish(rt, j, 3, 3);
}

/* Watch */

static void test_watch_latest(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_watch_tx tx;
    wa_watch_rx rx[3] = {{0}};
    int v = 1;
    REQUIRE_OR(wa_watch_new(sizeof(int), &v, &tx, &rx[0]) == 0, wa_rt_free(rt));
    CHECK_EQ(wa_watch_rx_has_changed(&rx[0]), 0); /* the first value is seen */
    v = 0;
    CHECK_EQ(wa_watch_rx_read(&rx[0], &v), 0);
    CHECK_EQ(v, 1);
    v = 2;
    CHECK_EQ(wa_watch_tx_send(&tx, &v), 1);
    rx[1] = wa_watch_tx_subscribe(&tx); /* has seen 2 */
    REQUIRE_OR(rx[1].ch, stop_watch(rt, NULL, 0, &tx, rx, 3));
    rx[2] = wa_watch_rx_clone(&rx[0]); /* has seen 1, as rx[0] */
    REQUIRE_OR(rx[2].ch, stop_watch(rt, NULL, 0, &tx, rx, 3));
    CHECK_EQ(wa_watch_rx_has_changed(&rx[0]), 1);
    CHECK_EQ(wa_watch_rx_has_changed(&rx[1]), 0);
    CHECK_EQ(wa_watch_rx_has_changed(&rx[2]), 1);
    v = 3;
    int old = 0;
    CHECK_EQ(wa_watch_tx_replace(&tx, &v, &old), 3);
    CHECK_EQ(old, 2);

    /* rx[0]'s changed is ready at once, with the newest (2 skipped) */
    intlog a = {0}, b = {0};
    wa_join j[2] = {{0}};
    REQUIRE_OR(spawn_watcher(rt, &rx[0], 2, &a, &j[0]) == 0, stop_watch(rt, j, 2, &tx, rx, 3));
    REQUIRE_OR(spawn_watcher(rt, &rx[1], 2, &b, &j[1]) == 0, stop_watch(rt, j, 2, &tx, rx, 3));
    wa_rt_tick(rt, NULL);
    CHECK_EQ(a.n, 1);
    CHECK_EQ(a.v[0], 3);
    CHECK_EQ(b.n, 1);
    CHECK_EQ(b.v[0], 3);
    for (v = 4; v < 7; v++) /* several before they run: they see the last */
        CHECK_EQ(wa_watch_tx_send(&tx, &v), 3);
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK_EQ(a.n, 2);
    CHECK_EQ(a.v[1], 6);
    CHECK_EQ(b.v[1], 6);
    CHECK_EQ(wa_watch_rx_has_changed(&rx[0]), 0);
    CHECK_EQ(wa_watch_rx_read(&rx[2], &v), 0);
    CHECK_EQ(v, 6);
    CHECK_EQ(wa_watch_tx_drop(&tx), 0);
    CHECK_EQ(wa_watch_rx_has_changed(&rx[0]), WA_ECLOSED);
    CHECK_EQ(wa_watch_rx_read(&rx[0], &v), 0); /* the last value stays readable */
    CHECK_EQ(v, 6);
    for (int i = 0; i < 3; i++)
        CHECK_EQ(wa_watch_rx_drop(&rx[i]), 0);
    finish(rt, j, 2, 2);
}

/* The sender's drop: a waiting changed ends with WA_ECLOSED; one whose
 * receiver has not seen the last value gets it first (tokio's order). */
static void test_watch_close(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_watch_tx tx;
    wa_watch_rx rx[2] = {{0}};
    int v = 1;
    REQUIRE_OR(wa_watch_new(sizeof(int), &v, &tx, &rx[0]) == 0, wa_rt_free(rt));
    rx[1] = wa_watch_rx_clone(&rx[0]);
    REQUIRE_OR(rx[1].ch, stop_watch(rt, NULL, 0, &tx, rx, 2));
    intlog a = {0}, b = {0};
    wa_join j[2] = {{0}};
    REQUIRE_OR(spawn_watcher(rt, &rx[0], 5, &a, &j[0]) == 0, stop_watch(rt, j, 2, &tx, rx, 2));
    wa_rt_tick(rt, NULL);
    v = 2;
    CHECK_EQ(wa_watch_tx_send(&tx, &v), 2);
    CHECK_EQ(wa_watch_tx_drop(&tx), 0);
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK_EQ(wa_join_status(&j[0]), WA_ECLOSED);
    CHECK_EQ(a.n, 1);
    CHECK_EQ(a.v[0], 2);
    REQUIRE_OR(spawn_watcher(rt, &rx[1], 5, &b, &j[1]) == 0, stop_watch(rt, j, 2, NULL, rx, 2));
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK_EQ(wa_join_status(&j[1]), WA_ECLOSED);
    CHECK_EQ(b.n, 1);
    CHECK_EQ(b.v[0], 2);
    CHECK_EQ(wa_watch_rx_drop(&rx[0]), 0);
    CHECK_EQ(wa_watch_rx_drop(&rx[1]), 0);
    finish(rt, j, 2, 2);
}

/* A changed dropped woken or queued marks nothing seen; the runtime freed
 * while one waits drops it (and the channel goes with its ends). */
static void test_watch_changed_dropped(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_watch_tx tx;
    wa_watch_rx rx[1] = {{0}};
    int v = 1;
    REQUIRE_OR(wa_watch_new(sizeof(int), &v, &tx, &rx[0]) == 0, wa_rt_free(rt));
    intlog a = {0};
    wa_join j[3] = {{0}};
    REQUIRE_OR(spawn_watcher(rt, &rx[0], 1, &a, &j[0]) == 0, stop_watch(rt, j, 3, &tx, rx, 1));
    wa_rt_tick(rt, NULL);
    v = 2;
    CHECK_EQ(wa_watch_tx_send(&tx, &v), 1);
    CHECK_EQ(wa_join_abort(&j[0]), 0);
    wa_rt_tick(rt, NULL);
    CHECK_EQ(a.n, 0);
    CHECK_EQ(wa_watch_rx_has_changed(&rx[0]), 1);
    REQUIRE_OR(spawn_watcher(rt, &rx[0], 1, &a, &j[1]) == 0, stop_watch(rt, j, 3, &tx, rx, 1));
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK_EQ(a.n, 1);
    CHECK_EQ(a.v[0], 2);
    REQUIRE_OR(spawn_watcher(rt, &rx[0], 2, &a, &j[2]) == 0, stop_watch(rt, j, 3, &tx, rx, 1));
    wa_rt_tick(rt, NULL);
    CHECK_EQ(wa_watch_rx_drop(&rx[0]), 0);
    CHECK_EQ(wa_watch_tx_drop(&tx), 0);
    for (int i = 0; i < 3; i++)
        CHECK_EQ(wa_join_drop(&j[i]), 0);
    wa_rt_free(rt); /* drops the waiting changed, the channel's last hold */
    CHECK_EQ(drops, 3);
    drops = 0;
}

/* Misuse */

static void test_broadcast_watch_misuse(void)
{
    check_catch_misuse();
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_cx cx = {.waker = WA_NOOP_WAKER, .rt = rt};
    wa_broadcast_tx tx, copy;
    wa_broadcast_rx rx;
    int v = 1;
    CHECK_MISUSE(wa_broadcast_new(1, sizeof(int), NULL, &rx), WA_EINVAL, "wa_broadcast_new");
    CHECK_EQ(wa_broadcast_new(0, sizeof(int), &tx, &rx), WA_EINVAL);
    CHECK_EQ(wa_broadcast_new(1, 0, &tx, &rx), WA_EINVAL);
    REQUIRE_OR(wa_broadcast_new(1, sizeof(int), &tx, &rx) == 0, wa_rt_free(rt));
    copy = tx;
    CHECK_MISUSE(wa_broadcast_tx_send(&tx, NULL), WA_EINVAL, "wa_broadcast_tx_send");
    CHECK_MISUSE(wa_broadcast_rx_try_recv(&rx, NULL), WA_EINVAL, "wa_broadcast_rx_try_recv");
    CHECK_EQ(wa_broadcast_tx_drop(&tx), 0);
    CHECK_MISUSE(wa_broadcast_tx_drop(&tx), WA_EMISUSE, "wa_broadcast_tx_drop");
    CHECK_MISUSE(wa_broadcast_tx_drop(&copy), WA_EMISUSE, "wa_broadcast_tx_drop");
    CHECK_MISUSE(wa_broadcast_tx_send(&copy, &v), WA_ESTALE, "wa_broadcast_tx_send");
    wa_broadcast_rx none = {0};
    CHECK_MISUSE((none = wa_broadcast_tx_subscribe(&copy), none.ch == NULL), 1, "wa_broadcast_tx_subscribe");
    wa_broadcast_tx tnone;
    CHECK_MISUSE((tnone = wa_broadcast_tx_clone(NULL), tnone.ch == NULL), 1, "wa_broadcast_tx_clone");
    /* NULL out, caught at the poll, which finishes the receive */
    wa_broadcast_recv r;
    CHECK_MISUSE(wa_poll(wa_broadcast_recv_init(&r, &rx, NULL), &cx), WA_EINVAL, "wa_broadcast_recv");
    CHECK_MISUSE(wa_poll(&r.fut, &cx), WA_EMISUSE, "wa_broadcast_recv");
    wa_drop(&r.fut);
    wa_broadcast_rx rcopy = rx;
    CHECK_EQ(wa_broadcast_rx_drop(&rx), 0);
    CHECK_MISUSE(wa_broadcast_rx_drop(&rcopy), WA_EMISUSE, "wa_broadcast_rx_drop");
    CHECK_MISUSE(wa_broadcast_rx_try_recv(&rcopy, &v), WA_ESTALE, "wa_broadcast_rx_try_recv");
    CHECK_MISUSE(wa_poll(wa_broadcast_recv_init(&r, &rcopy, &v), &cx), WA_ESTALE, "wa_broadcast_recv");
    wa_drop(&r.fut);

    wa_watch_tx wtx;
    wa_watch_rx wrx;
    CHECK_MISUSE(wa_watch_new(sizeof(int), NULL, &wtx, &wrx), WA_EINVAL, "wa_watch_new");
    REQUIRE_OR(wa_watch_new(sizeof(int), &v, &wtx, &wrx) == 0, wa_rt_free(rt));
    CHECK_MISUSE(wa_watch_tx_replace(&wtx, &v, NULL), WA_EINVAL, "wa_watch_tx_replace");
    CHECK_MISUSE(wa_watch_rx_read(&wrx, NULL), WA_EINVAL, "wa_watch_rx_read");
    wa_watch_rx wcopy = wrx;
    CHECK_EQ(wa_watch_rx_drop(&wrx), 0);
    CHECK_MISUSE(wa_watch_rx_drop(&wcopy), WA_EMISUSE, "wa_watch_rx_drop");
    CHECK_MISUSE(wa_watch_rx_has_changed(&wcopy), WA_ESTALE, "wa_watch_rx_has_changed");
    CHECK_MISUSE(wa_watch_rx_read(&wcopy, &v), WA_ESTALE, "wa_watch_rx_read");
    wa_watch_changed c;
    CHECK_MISUSE(wa_poll(wa_watch_changed_init(&c, &wcopy, NULL), &cx), WA_ESTALE, "wa_watch_changed");
    wa_drop(&c.fut);
    CHECK_EQ(wa_watch_tx_send(&wtx, &v), 0); /* no receiver: set all the same */
    CHECK_EQ(wa_watch_tx_drop(&wtx), 0);
    CHECK_MISUSE(wa_watch_tx_send(&wtx, &v), WA_ESTALE, "wa_watch_tx_send");
    wa_rt_free(rt);
}

int main(void)
{
    RUN(test_broadcast_every_receiver);
    RUN(test_broadcast_lag);
    RUN(test_broadcast_close);
    RUN(test_broadcast_recv_dropped);
    RUN(test_watch_latest);
    RUN(test_watch_close);
    RUN(test_watch_changed_dropped);
    RUN(test_broadcast_watch_misuse);
    return check_finish();
}
