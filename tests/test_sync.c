/* SPDX-License-Identifier: MIT */
/* Sync: mpsc channels and oneshots, notify, semaphore, mutex, read-write
 * lock and barrier.
 *
 * Every test checks behaviour and release: no task or timer left, each
 * helper future dropped exactly once (its drop releases the channel end it
 * owns), and no channel leaked (ASan's leak check). Helpers run as tasks, so
 * a waiter left linked in a queue after its task was freed is a
 * use-after-free that ASan reports. */
#include "futures.h"

static int drops; /* helper coroutines dropped */

/* A channel of capacity one, already holding the int 1. */
static int full_chan(wa_tx *tx, wa_rx *rx)
{
    int one = 1, rc = wa_mpsc_new(1, sizeof(int), tx, rx);
    if (rc == 0)
        CHECK_EQ(wa_tx_try_send(tx, &one), 0);
    return rc;
}

typedef struct intlog {
    int v[64];
    int n;
} intlog;

/* Sends n ints base, base + 1, ... through its own sender after an optional
 * delay; *sent counts completed sends. Its drop releases the sender, so the
 * task's end closes the channel when it held the last one. */
typedef struct sender {
    WA_CORO;
    wa_tx tx;
    wa_send s;
    wa_sleep sl;
    uint64_t delay;
    int base, n, i, v;
    int *sent;
} sender;

static int sender_poll(wa_future *f, wa_cx *cx)
{
    sender *t = (sender *)f;
    WA_BEGIN(t, cx);
    if (t->delay) {
        WA_AWAIT(wa_sleep_init(&t->sl, t->delay));
    }
    for (t->i = 0; t->i < t->n; t->i++) {
        t->v = t->base + t->i;
        WA_AWAIT(wa_send_init(&t->s, &t->tx, &t->v));
        if (WA_STATUS != 0)
            WA_RETURN(WA_STATUS);
        (*t->sent)++;
    }
    WA_END();
}

static void sender_drop(wa_future *f)
{
    sender *t = (sender *)f;
    wa_coro_drop(f);
    if (t->tx.ch)
        wa_tx_drop(&t->tx);
    drops++;
}
static const wa_future_vt sender_vt = {sender_poll, sender_drop, "sender"};

/* tx is moved into the task (dropped if it cannot be spawned). */
static int spawn_sender(wa_rt *rt, wa_tx tx, int base, int n, uint64_t delay, int *sent,
                        wa_join *j)
{
    sender s = {.tx = tx, .delay = delay, .base = base, .n = n, .sent = sent};
    wa_coro_init(&s.wa, &sender_vt);
    return check_spawn_of(rt, &s, j);
}

/* Receives up to want ints from a borrowed receiver into log. Status: 0
 * after want items, else that of the failed receive (WA_ECLOSED). */
typedef struct receiver {
    WA_CORO;
    wa_rx *rx;
    wa_recv r;
    int v, want, got;
    intlog *log;
} receiver;

static int receiver_poll(wa_future *f, wa_cx *cx)
{
    receiver *t = (receiver *)f;
    WA_BEGIN(t, cx);
    while (t->got < t->want) {
        WA_AWAIT(wa_recv_init(&t->r, t->rx, &t->v));
        if (WA_STATUS != 0)
            WA_RETURN(WA_STATUS);
        t->log->v[t->log->n++] = t->v;
        t->got++;
    }
    WA_END();
}

static void counted_drop(wa_future *f)
{
    wa_coro_drop(f);
    drops++;
}
static const wa_future_vt receiver_vt = {receiver_poll, counted_drop, "receiver"};

static int spawn_receiver(wa_rt *rt, wa_rx *rx, int want, intlog *log, wa_join *j)
{
    receiver r = {.rx = rx, .want = want, .log = log};
    wa_coro_init(&r.wa, &receiver_vt);
    return check_spawn_of(rt, &r, j);
}

/* Awaits one notification. */
typedef struct waiter {
    WA_CORO;
    wa_notify *n;
    wa_notified nf;
} waiter;

static int waiter_poll(wa_future *f, wa_cx *cx)
{
    waiter *t = (waiter *)f;
    WA_BEGIN(t, cx);
    WA_AWAIT(wa_notified_init(&t->nf, t->n));
    WA_END();
}
static const wa_future_vt waiter_vt = {waiter_poll, counted_drop, "waiter"};

static int spawn_waiter(wa_rt *rt, wa_notify *n, wa_join *j)
{
    waiter w = {.n = n};
    wa_coro_init(&w.wa, &waiter_vt);
    return check_spawn_of(rt, &w, j);
}

/* Acquires n permits, marks its id and ends owning them (the test releases
 * them). */
typedef struct acquirer {
    WA_CORO;
    wa_sem *s;
    wa_acquire a;
    size_t n;
    char id;
} acquirer;

static int acquirer_poll(wa_future *f, wa_cx *cx)
{
    acquirer *t = (acquirer *)f;
    WA_BEGIN(t, cx);
    WA_AWAIT(wa_acquire_init(&t->a, t->s, t->n));
    if (WA_STATUS != 0)
        WA_RETURN(WA_STATUS);
    mark(t->id);
    WA_END();
}
static const wa_future_vt acquirer_vt = {acquirer_poll, counted_drop, "acquirer"};

static int spawn_acquirer(wa_rt *rt, wa_sem *s, size_t n, char id, wa_join *j)
{
    acquirer a = {.s = s, .n = n, .id = id};
    wa_coro_init(&a.wa, &acquirer_vt);
    return check_spawn_of(rt, &a, j);
}

/* Drops the nj handles, checks that rt is empty and frees it, and checks
 * that the helpers spawned since the last finish were each dropped once. */
static void finish(wa_rt *rt, wa_join *js, int nj, int helpers)
{
    for (int i = 0; i < nj; i++)
        CHECK_EQ(wa_join_drop(&js[i]), 0);
    CHECK_RT_EMPTY_FREE(rt);
    CHECK_EQ(drops, helpers);
    drops = 0;
    trail[0] = 0;
}

/* What a test stopped by REQUIRE made, released: the nj handles, rt, and
 * the channel ends the test still owns (NULL: none). */
static void stop(wa_rt *rt, wa_join *js, int nj, wa_tx *tx, wa_rx *rx)
{
    check_joins_drop(js, nj);
    wa_rt_free(rt);
    if (tx)
        wa_tx_drop(tx);
    if (rx)
        wa_rx_drop(rx);
    drops = 0;
    trail[0] = 0;
}

/* Channels */

static void test_mpsc_fifo_several_senders(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_tx tx;
    wa_rx rx;
    REQUIRE_OR(wa_mpsc_new(2, sizeof(int), &tx, &rx) == 0, wa_rt_free(rt));
    int sent[3] = {0};
    intlog log = {0};
    wa_join j[4] = {0};
    REQUIRE_OR(spawn_sender(rt, wa_tx_clone(&tx), 100, 5, 0, &sent[0], &j[0]) == 0, stop(rt, j, 4, &tx, &rx));
    REQUIRE_OR(spawn_sender(rt, wa_tx_clone(&tx), 200, 5, 0, &sent[1], &j[1]) == 0, stop(rt, j, 4, &tx, &rx));
    REQUIRE_OR(spawn_sender(rt, tx, 300, 5, 0, &sent[2], &j[2]) == 0, stop(rt, j, 4, NULL, &rx));
    REQUIRE_OR(spawn_receiver(rt, &rx, 100, &log, &j[3]) == 0, stop(rt, j, 4, NULL, &rx));
    CHECK_EQ(wa_rt_run(rt), 0);
    for (int i = 0; i < 3; i++) {
        CHECK_EQ(wa_join_status(&j[i]), 0);
        CHECK_EQ(sent[i], 5);
    }
    /* every item once, each sender's in its order, then the close */
    CHECK_EQ(wa_join_status(&j[3]), WA_ECLOSED);
    CHECK_EQ(log.n, 15);
    int next[3] = {100, 200, 300};
    for (int i = 0; i < log.n; i++) {
        int k = log.v[i] / 100 - 1;
        CHECK(k >= 0 && k < 3);
        if (k >= 0 && k < 3)
            CHECK_EQ(log.v[i], next[k]++);
    }
    CHECK_EQ(wa_rx_drop(&rx), 0);
    finish(rt, j, 4, 4);
}

static void test_mpsc_blocked_senders_fifo(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_tx tx;
    wa_rx rx;
    int v, sent = 0;
    REQUIRE_OR(full_chan(&tx, &rx) == 0, wa_rt_free(rt));
    wa_join j[3] = {0};
    for (int i = 0; i < 3; i++)
        REQUIRE_OR(spawn_sender(rt, wa_tx_clone(&tx), 10 * (i + 1), 1, 0, &sent, &j[i]) == 0,
                   stop(rt, j, 3, &tx, &rx));
    wa_rt_tick(rt, NULL);
    CHECK_EQ(sent, 0);
    /* each receive lets exactly the longest-waiting sender in */
    int want[] = {1, 10, 20, 30};
    for (int i = 0; i < 4; i++) {
        CHECK_EQ(wa_rx_try_recv(&rx, &v), 0);
        CHECK_EQ(v, want[i]);
        wa_rt_tick(rt, NULL);
        CHECK_EQ(sent, i < 3 ? i + 1 : 3);
    }
    CHECK_EQ(wa_rx_try_recv(&rx, &v), WA_EAGAIN); /* tx is still alive */
    CHECK_EQ(wa_tx_drop(&tx), 0);
    CHECK_EQ(wa_rx_try_recv(&rx, &v), WA_ECLOSED);
    CHECK_EQ(wa_rx_drop(&rx), 0);
    finish(rt, j, 3, 3);
}

/* A sender that arrives while others wait queues behind them, even when it
 * is polled first and a slot is free. */
static void test_mpsc_newcomer_queues_behind(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_tx tx;
    wa_rx rx;
    int v, sent = 0;
    REQUIRE_OR(full_chan(&tx, &rx) == 0, wa_rt_free(rt));
    wa_join j[3] = {0};
    REQUIRE_OR(spawn_sender(rt, wa_tx_clone(&tx), 10, 1, 0, &sent, &j[0]) == 0, stop(rt, j, 3, &tx, &rx));
    REQUIRE_OR(spawn_sender(rt, wa_tx_clone(&tx), 20, 1, 0, &sent, &j[1]) == 0, stop(rt, j, 3, &tx, &rx));
    wa_rt_tick(rt, NULL);
    REQUIRE_OR(spawn_sender(rt, wa_tx_clone(&tx), 30, 1, 0, &sent, &j[2]) == 0, stop(rt, j, 3, &tx, &rx));
    CHECK_EQ(wa_rx_try_recv(&rx, &v), 0); /* wakes 10, which runs after 30 */
    wa_rt_tick(rt, NULL);
    CHECK_EQ(sent, 1);
    int want[] = {10, 20, 30};
    for (int i = 0; i < 3; i++) {
        CHECK_EQ(wa_rx_try_recv(&rx, &v), 0);
        CHECK_EQ(v, want[i]);
        wa_rt_tick(rt, NULL);
    }
    CHECK_EQ(sent, 3);
    CHECK_EQ(wa_tx_drop(&tx), 0);
    CHECK_EQ(wa_rx_drop(&rx), 0);
    finish(rt, j, 3, 3);
}

/* The slot freed for a woken sender is held for it: a newcomer polled
 * first, or a try_send, cannot take it. */
static void test_mpsc_woken_sender_keeps_its_slot(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_tx tx;
    wa_rx rx;
    int v, sent = 0;
    REQUIRE_OR(full_chan(&tx, &rx) == 0, wa_rt_free(rt));
    wa_join j[2] = {0};
    REQUIRE_OR(spawn_sender(rt, wa_tx_clone(&tx), 10, 1, 0, &sent, &j[0]) == 0, stop(rt, j, 2, &tx, &rx));
    wa_rt_tick(rt, NULL);
    CHECK_EQ(wa_rx_try_recv(&rx, &v), 0); /* frees the slot, reserved for 10 */
    CHECK_EQ(wa_tx_try_send(&tx, &v), WA_EAGAIN);
    REQUIRE_OR(spawn_sender(rt, wa_tx_clone(&tx), 20, 1, 0, &sent, &j[1]) == 0, stop(rt, j, 2, &tx, &rx));
    wa_rt_tick(rt, NULL); /* 10 and 20 both run; 20 must queue */
    CHECK_EQ(sent, 1);
    CHECK_EQ(wa_rx_try_recv(&rx, &v), 0);
    CHECK_EQ(v, 10);
    wa_rt_tick(rt, NULL);
    CHECK_EQ(wa_rx_try_recv(&rx, &v), 0);
    CHECK_EQ(v, 20);
    CHECK_EQ(sent, 2);
    CHECK_EQ(wa_tx_drop(&tx), 0);
    CHECK_EQ(wa_rx_drop(&rx), 0);
    finish(rt, j, 2, 2);
}

static void test_mpsc_backpressure(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_tx tx;
    wa_rx rx;
    REQUIRE_OR(wa_mpsc_new(2, sizeof(int), &tx, &rx) == 0, wa_rt_free(rt));
    wa_tx probe = wa_tx_clone(&tx);
    int v = -1, sent = 0;
    CHECK_EQ(wa_rx_try_recv(&rx, &v), WA_EAGAIN);
    wa_join j;
    REQUIRE_OR(spawn_sender(rt, tx, 0, 10, 0, &sent, &j) == 0, stop(rt, NULL, 0, &probe, &rx));
    wa_rt_tick(rt, NULL);
    CHECK_EQ(sent, 2);
    CHECK_EQ(wa_rx_len(&rx), 2);
    CHECK(!wa_join_done(&j));
    CHECK_EQ(wa_tx_try_send(&probe, &v), WA_EAGAIN);
    wa_rt_tick(rt, NULL); /* nobody received: the sender stays blocked */
    CHECK_EQ(sent, 2);
    /* each receive makes room for exactly one more send */
    for (int i = 0; i < 10; i++) {
        CHECK_EQ(wa_rx_try_recv(&rx, &v), 0);
        CHECK_EQ(v, i);
        CHECK_EQ(wa_rx_len(&rx), (size_t)(sent - i - 1));
        wa_rt_tick(rt, NULL);
        int want = i + 3 < 10 ? i + 3 : 10;
        CHECK_EQ(sent, want);
        CHECK_EQ(wa_rx_len(&rx), (size_t)(want - i - 1));
    }
    CHECK(wa_join_done(&j));
    CHECK_EQ(wa_join_status(&j), 0);
    CHECK_EQ(wa_rx_try_recv(&rx, &v), WA_EAGAIN); /* probe keeps it open */
    CHECK_EQ(wa_tx_drop(&probe), 0);
    CHECK_EQ(wa_rx_try_recv(&rx, &v), WA_ECLOSED);
    CHECK_EQ(wa_rx_drop(&rx), 0);
    finish(rt, &j, 1, 1);
}

static void test_close_by_senders(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_tx tx, tx2;
    wa_rx rx;
    REQUIRE_OR(wa_mpsc_new(4, sizeof(int), &tx, &rx) == 0, wa_rt_free(rt));
    tx2 = wa_tx_clone(&tx);
    int v = 1;
    CHECK_EQ(wa_tx_try_send(&tx, &v), 0);
    v = 2;
    CHECK_EQ(wa_tx_try_send(&tx2, &v), 0);
    CHECK_EQ(wa_tx_drop(&tx), 0);
    CHECK_EQ(wa_tx_drop(&tx2), 0);
    /* closed, but the queued items still come out first */
    intlog log = {0};
    wa_join j[2] = {0};
    REQUIRE_OR(spawn_receiver(rt, &rx, 10, &log, &j[0]) == 0, stop(rt, j, 2, NULL, &rx));
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK_EQ(wa_join_status(&j[0]), WA_ECLOSED);
    CHECK_EQ(log.n, 2);
    CHECK_EQ(log.v[0], 1);
    CHECK_EQ(log.v[1], 2);
    CHECK_EQ(wa_rx_try_recv(&rx, &v), WA_ECLOSED);
    CHECK_EQ(wa_rx_drop(&rx), 0);

    /* a receiver already waiting is woken by the last sender's drop */
    REQUIRE_OR(wa_mpsc_new(4, sizeof(int), &tx, &rx) == 0, stop(rt, j, 2, NULL, NULL));
    tx2 = wa_tx_clone(&tx);
    log.n = 0;
    REQUIRE_OR(spawn_receiver(rt, &rx, 10, &log, &j[1]) == 0, (wa_tx_drop(&tx2), stop(rt, j, 2, &tx, &rx)));
    wa_rt_tick(rt, NULL);
    CHECK_EQ(wa_tx_drop(&tx), 0);
    wa_rt_tick(rt, NULL);
    CHECK(!wa_join_done(&j[1])); /* tx2 is still alive */
    CHECK_EQ(wa_tx_drop(&tx2), 0);
    wa_rt_tick(rt, NULL);
    CHECK_EQ(wa_join_status(&j[1]), WA_ECLOSED);
    CHECK_EQ(log.n, 0);
    CHECK_EQ(wa_rx_drop(&rx), 0);
    finish(rt, j, 2, 2);
}

static void test_close_by_receiver(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_tx tx;
    wa_rx rx;
    int v, sent = 0;
    REQUIRE_OR(full_chan(&tx, &rx) == 0, wa_rt_free(rt));
    wa_join j[2] = {0};
    REQUIRE_OR(spawn_sender(rt, wa_tx_clone(&tx), 10, 3, 0, &sent, &j[0]) == 0, stop(rt, j, 2, &tx, &rx));
    wa_rt_tick(rt, NULL);
    CHECK(!wa_join_done(&j[0])); /* blocked: full */
    CHECK_EQ(wa_rx_drop(&rx), 0);
    wa_rt_tick(rt, NULL);
    CHECK_EQ(wa_join_status(&j[0]), WA_ECLOSED);
    CHECK_EQ(sent, 0);
    CHECK_EQ(wa_tx_try_send(&tx, &v), WA_ECLOSED);
    /* a send started after the close fails at once */
    REQUIRE_OR(spawn_sender(rt, wa_tx_clone(&tx), 20, 1, 0, &sent, &j[1]) == 0, stop(rt, j, 2, &tx, NULL));
    wa_rt_tick(rt, NULL);
    CHECK_EQ(wa_join_status(&j[1]), WA_ECLOSED);
    CHECK_EQ(sent, 0);
    CHECK_EQ(wa_tx_drop(&tx), 0);
    finish(rt, j, 2, 2);
}

/* On a full channel: a send that loses a race against a sleep, then one cut
 * off by a timeout. */
typedef struct cancelled_sends {
    WA_CORO;
    wa_tx *tx;
    wa_send s;
    wa_sleep sl;
    WA_COMBO(2) race;
    wa_timeout to;
    int v;
    int winner, send_status, timeout_rc;
} cancelled_sends;

static int cancelled_sends_poll(wa_future *f, wa_cx *cx)
{
    cancelled_sends *t = (cancelled_sends *)f;
    WA_BEGIN(t, cx);
    t->v = 99;
    WA_AWAIT(wa_race_init(&t->race, wa_send_init(&t->s, t->tx, &t->v),
                     wa_sleep_init(&t->sl, WA_MS(5))));
    t->winner = t->race.c.winner;
    t->send_status = wa_combo_status(&t->race.c, 0);
    WA_AWAIT(wa_timeout_init(&t->to, wa_send_init(&t->s, t->tx, &t->v), WA_MS(5)));
    t->timeout_rc = WA_STATUS;
    WA_END();
}
static const wa_future_vt cancelled_sends_vt = {cancelled_sends_poll, counted_drop,
                                                "cancelled_sends"};

static void test_send_cancelled_while_blocked(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_tx tx;
    wa_rx rx;
    REQUIRE_OR(wa_mpsc_new(1, sizeof(int), &tx, &rx) == 0, wa_rt_free(rt));
    int v = 1;
    CHECK_EQ(wa_tx_try_send(&tx, &v), 0);
    cancelled_sends c = {.tx = &tx};
    wa_coro_init(&c.wa, &cancelled_sends_vt);
    wa_join j;
    REQUIRE_OR(check_spawn_of(rt, &c, &j) == 0, stop(rt, NULL, 0, &tx, &rx));
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK_EQ(wa_join_status(&j), 0);
    cancelled_sends *out = (cancelled_sends *)wa_join_output(&j);
    CHECK_EQ(out->winner, 1);
    CHECK_EQ(out->send_status, WA_PENDING); /* dropped unfinished */
    CHECK_EQ(out->timeout_rc, WA_ETIMEDOUT);
    CHECK_EQ(wa_now(rt), WA_MS(10));
    /* Free the task first: a send waiter it left queued would now be a
     * dangling pointer that the receive below follows. */
    finish(rt, &j, 1, 1);
    CHECK_EQ(wa_rx_len(&rx), 1);
    CHECK_EQ(wa_rx_try_recv(&rx, &v), 0);
    CHECK_EQ(v, 1);
    CHECK_EQ(wa_rx_try_recv(&rx, &v), WA_EAGAIN); /* 99 was never sent */
    v = 2;
    CHECK_EQ(wa_tx_try_send(&tx, &v), 0);
    CHECK_EQ(wa_rx_try_recv(&rx, &v), 0);
    CHECK_EQ(v, 2);
    CHECK_EQ(wa_tx_drop(&tx), 0);
    CHECK_EQ(wa_rx_drop(&rx), 0);
}

static void test_recv_woken_then_dropped(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_tx tx;
    wa_rx rx;
    REQUIRE_OR(wa_mpsc_new(4, sizeof(int), &tx, &rx) == 0, wa_rt_free(rt));
    intlog a = {0}, b = {0};
    wa_join j[3] = {0};
    REQUIRE_OR(spawn_receiver(rt, &rx, 1, &a, &j[0]) == 0, stop(rt, j, 3, &tx, &rx));
    REQUIRE_OR(spawn_receiver(rt, &rx, 1, &b, &j[1]) == 0, stop(rt, j, 3, &tx, &rx));
    wa_rt_tick(rt, NULL);
    int v = 7;
    CHECK_EQ(wa_tx_try_send(&tx, &v), 0); /* wakes j[0] */
    CHECK_EQ(wa_join_abort(&j[0]), 0); /* dropped before it ran */
    CHECK_EQ(wa_rx_len(&rx), 1);
    wa_rt_tick(rt, NULL);
    /* the turn went on to the next receiver, with the element */
    CHECK_EQ(wa_join_status(&j[1]), 0);
    CHECK_EQ(b.n, 1);
    CHECK_EQ(b.v[0], 7);
    CHECK_EQ(a.n, 0);

    /* nobody behind: the element waits for the next receive */
    REQUIRE_OR(spawn_receiver(rt, &rx, 1, &a, &j[2]) == 0, stop(rt, j, 3, &tx, &rx));
    wa_rt_tick(rt, NULL);
    v = 8;
    CHECK_EQ(wa_tx_try_send(&tx, &v), 0);
    CHECK_EQ(wa_join_abort(&j[2]), 0);
    CHECK_EQ(wa_rx_len(&rx), 1);
    v = 0;
    CHECK_EQ(wa_rx_try_recv(&rx, &v), 0);
    CHECK_EQ(v, 8);
    CHECK_EQ(a.n, 0);
    CHECK_EQ(wa_tx_drop(&tx), 0);
    CHECK_EQ(wa_rx_drop(&rx), 0);
    finish(rt, j, 3, 3);
}

static void test_send_woken_then_dropped(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_tx tx;
    wa_rx rx;
    REQUIRE_OR(wa_mpsc_new(1, sizeof(int), &tx, &rx) == 0, wa_rt_free(rt));
    int v = 1, sent1 = 0, sent2 = 0;
    CHECK_EQ(wa_tx_try_send(&tx, &v), 0);
    wa_join j[2] = {0};
    REQUIRE_OR(spawn_sender(rt, wa_tx_clone(&tx), 10, 1, 0, &sent1, &j[0]) == 0, stop(rt, j, 2, &tx, &rx));
    REQUIRE_OR(spawn_sender(rt, wa_tx_clone(&tx), 20, 1, 0, &sent2, &j[1]) == 0, stop(rt, j, 2, &tx, &rx));
    wa_rt_tick(rt, NULL);
    CHECK_EQ(wa_rx_try_recv(&rx, &v), 0); /* room for one: wakes j[0] */
    CHECK_EQ(wa_join_abort(&j[0]), 0);
    wa_rt_tick(rt, NULL);
    /* Without the hand-over j[1] would wait forever next to a free slot. */
    CHECK_EQ(wa_join_status(&j[0]), WA_ECANCELED);
    CHECK_EQ(wa_join_status(&j[1]), 0);
    CHECK_EQ(sent1, 0);
    CHECK_EQ(sent2, 1);
    CHECK_EQ(wa_rx_try_recv(&rx, &v), 0);
    CHECK_EQ(v, 20);
    CHECK_EQ(wa_rx_try_recv(&rx, &v), WA_EAGAIN);
    CHECK_EQ(wa_tx_drop(&tx), 0);
    CHECK_EQ(wa_rx_drop(&rx), 0);
    finish(rt, j, 2, 2);
}

typedef struct pair {
    int a;
    double b;
} pair;

/* Receives one pair from a oneshot. */
typedef struct pair_rx {
    WA_CORO;
    wa_rx rx;
    wa_recv r;
    pair p;
} pair_rx;

static int pair_rx_poll(wa_future *f, wa_cx *cx)
{
    pair_rx *t = (pair_rx *)f;
    WA_BEGIN(t, cx);
    WA_AWAIT(wa_recv_init(&t->r, &t->rx, &t->p));
    WA_RETURN(WA_STATUS);
    WA_END();
}

static void pair_rx_drop(wa_future *f)
{
    wa_coro_drop(f);
    wa_rx_drop(&((pair_rx *)f)->rx);
    drops++;
}
static const wa_future_vt pair_rx_vt = {pair_rx_poll, pair_rx_drop, "pair_rx"};

static void test_oneshot(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_tx tx;
    pair_rx r = {0};
    wa_coro_init(&r.wa, &pair_rx_vt);
    REQUIRE_OR(wa_oneshot_new(sizeof(pair), &tx, &r.rx) == 0, wa_rt_free(rt));
    wa_join j[2] = {0};
    REQUIRE_OR(check_spawn_of(rt, &r, &j[0]) == 0, stop(rt, j, 2, &tx, NULL)); /* (r's drop took r.rx) */
    wa_rt_tick(rt, NULL);
    pair p = {42, 2.5};
    CHECK_EQ(wa_tx_try_send(&tx, &p), 0);
    CHECK_EQ(wa_tx_try_send(&tx, &p), WA_EAGAIN); /* capacity one */
    CHECK_EQ(wa_tx_drop(&tx), 0);
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK_EQ(wa_join_status(&j[0]), 0);
    pair_rx *out = (pair_rx *)wa_join_output(&j[0]);
    CHECK_EQ(out->p.a, 42);
    CHECK(out->p.b == 2.5);

    /* closed without a send */
    wa_coro_init(&r.wa, &pair_rx_vt);
    REQUIRE_OR(wa_oneshot_new(sizeof(pair), &tx, &r.rx) == 0, stop(rt, j, 2, NULL, NULL));
    REQUIRE_OR(check_spawn_of(rt, &r, &j[1]) == 0, stop(rt, j, 2, &tx, NULL));
    wa_rt_tick(rt, NULL);
    CHECK(!wa_join_done(&j[1]));
    CHECK_EQ(wa_tx_drop(&tx), 0);
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK_EQ(wa_join_status(&j[1]), WA_ECLOSED);
    finish(rt, j, 2, 2);
}

/* A value sent from a task after a delay. */
static void test_oneshot_from_task(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_tx tx;
    wa_rx rx;
    REQUIRE_OR(wa_oneshot_new(sizeof(int), &tx, &rx) == 0, wa_rt_free(rt));
    int sent = 0;
    intlog log = {0};
    wa_join j[2] = {0};
    REQUIRE_OR(spawn_sender(rt, tx, 5, 1, WA_MS(3), &sent, &j[0]) == 0, stop(rt, j, 2, NULL, &rx));
    REQUIRE_OR(spawn_receiver(rt, &rx, 2, &log, &j[1]) == 0, stop(rt, j, 2, NULL, &rx));
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK_EQ(wa_now(rt), WA_MS(3));
    CHECK_EQ(log.n, 1);
    CHECK_EQ(log.v[0], 5);
    CHECK_EQ(wa_join_status(&j[1]), WA_ECLOSED); /* the second receive */
    CHECK_EQ(wa_rx_drop(&rx), 0);
    finish(rt, j, 2, 2);
}

/* Notify */

static void test_notify_one_permit(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_notify n;
    wa_notify_init(&n);
    wa_notify_one(&n);
    wa_notify_one(&n); /* permits do not add up */
    wa_join j[2] = {0};
    REQUIRE_OR(spawn_waiter(rt, &n, &j[0]) == 0, stop(rt, j, 2, NULL, NULL));
    REQUIRE_OR(spawn_waiter(rt, &n, &j[1]) == 0, stop(rt, j, 2, NULL, NULL));
    wa_rt_tick(rt, NULL);
    CHECK(wa_join_done(&j[0]));
    CHECK(!wa_join_done(&j[1]));
    wa_notify_one(&n);
    wa_rt_tick(rt, NULL);
    CHECK(wa_join_done(&j[1]));
    CHECK_EQ(wa_join_status(&j[1]), 0);
    finish(rt, j, 2, 2);
}

static void test_notify_all(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_notify n;
    wa_notify_init(&n);
    wa_join j[4] = {0};
    for (int i = 0; i < 3; i++)
        REQUIRE_OR(spawn_waiter(rt, &n, &j[i]) == 0, stop(rt, j, 4, NULL, NULL));
    wa_rt_tick(rt, NULL);
    wa_notify_all(&n);
    wa_rt_tick(rt, NULL);
    for (int i = 0; i < 3; i++)
        CHECK_EQ(wa_join_status(&j[i]), 0);
    /* notify_all leaves no permit behind */
    REQUIRE_OR(spawn_waiter(rt, &n, &j[3]) == 0, stop(rt, j, 4, NULL, NULL));
    wa_rt_tick(rt, NULL);
    CHECK(!wa_join_done(&j[3]));
    wa_notify_one(&n);
    wa_rt_tick(rt, NULL);
    CHECK(wa_join_done(&j[3]));
    finish(rt, j, 4, 4);
}

static void test_notify_woken_then_dropped(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_notify n;
    wa_notify_init(&n);
    wa_join j[6] = {0};
    REQUIRE_OR(spawn_waiter(rt, &n, &j[0]) == 0, stop(rt, j, 6, NULL, NULL));
    REQUIRE_OR(spawn_waiter(rt, &n, &j[1]) == 0, stop(rt, j, 6, NULL, NULL));
    wa_rt_tick(rt, NULL);
    wa_notify_one(&n);                 /* wakes j[0] */
    CHECK_EQ(wa_join_abort(&j[0]), 0); /* which never sees it */
    wa_rt_tick(rt, NULL);
    CHECK_EQ(wa_join_status(&j[1]), 0);
    /* handed on, not duplicated */
    REQUIRE_OR(spawn_waiter(rt, &n, &j[2]) == 0, stop(rt, j, 6, NULL, NULL));
    wa_rt_tick(rt, NULL);
    CHECK(!wa_join_done(&j[2]));

    /* with nobody else waiting it becomes the permit */
    wa_notify_one(&n);
    CHECK_EQ(wa_join_abort(&j[2]), 0);
    REQUIRE_OR(spawn_waiter(rt, &n, &j[3]) == 0, stop(rt, j, 6, NULL, NULL));
    wa_rt_tick(rt, NULL);
    CHECK_EQ(wa_join_status(&j[3]), 0);

    /* a notify_all wake owns nothing to hand on */
    REQUIRE_OR(spawn_waiter(rt, &n, &j[4]) == 0, stop(rt, j, 6, NULL, NULL));
    wa_rt_tick(rt, NULL);
    wa_notify_all(&n);
    CHECK_EQ(wa_join_abort(&j[4]), 0);
    REQUIRE_OR(spawn_waiter(rt, &n, &j[5]) == 0, stop(rt, j, 6, NULL, NULL));
    wa_rt_tick(rt, NULL);
    CHECK(!wa_join_done(&j[5]));
    CHECK_EQ(wa_join_abort(&j[5]), 0);
    finish(rt, j, 6, 6);
}

/* Semaphore and mutex */

static void test_sem_fifo_fairness(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_sem s;
    wa_sem_init_max(&s, 3, 3);
    CHECK_EQ(wa_sem_try_acquire(&s, 3), 0);
    wa_join j[3] = {0};
    REQUIRE_OR(spawn_acquirer(rt, &s, 2, 'B', &j[0]) == 0, stop(rt, j, 3, NULL, NULL));
    REQUIRE_OR(spawn_acquirer(rt, &s, 1, 'C', &j[1]) == 0, stop(rt, j, 3, NULL, NULL));
    wa_rt_tick(rt, NULL);
    CHECK_EQ(wa_sem_release(&s, 1), 0);
    wa_rt_tick(rt, NULL);
    /* one permit would do for C, but B is ahead */
    CHECK_EQ(trail[0], 0);
    CHECK_EQ(wa_sem_available(&s), 1);
    CHECK_EQ(wa_sem_try_acquire(&s, 1), WA_EAGAIN); /* no barging either */
    CHECK_EQ(wa_sem_release(&s, 1), 0);
    CHECK_EQ(wa_sem_available(&s), 0); /* handed straight to B */
    wa_rt_tick(rt, NULL);
    CHECK(strcmp(trail, "B") == 0);
    CHECK(!wa_join_done(&j[1]));
    CHECK_EQ(wa_sem_release(&s, 1), 0);
    wa_rt_tick(rt, NULL);
    CHECK(strcmp(trail, "BC") == 0);
    CHECK_EQ(wa_sem_release(&s, 3), 0);
    CHECK_EQ(wa_sem_available(&s), 3);
    /* more than the semaphore ever has can never be granted */
    REQUIRE_OR(spawn_acquirer(rt, &s, 4, 'X', &j[2]) == 0, stop(rt, j, 3, NULL, NULL));
    wa_rt_tick(rt, NULL);
    CHECK_EQ(wa_join_status(&j[2]), WA_EINVAL);
    CHECK_EQ(wa_sem_available(&s), 3);
    finish(rt, j, 3, 3);
}

/* Takes the mutex rounds times, holding it across a 10 ms sleep. */
typedef struct locker {
    WA_CORO;
    wa_mutex *m;
    wa_acquire a;
    wa_sleep sl;
    int rounds, i;
    char id;
    int *inside, *overlaps;
} locker;

static int locker_poll(wa_future *f, wa_cx *cx)
{
    locker *t = (locker *)f;
    WA_BEGIN(t, cx);
    for (t->i = 0; t->i < t->rounds; t->i++) {
        WA_AWAIT(wa_lock_init(&t->a, t->m));
        if ((*t->inside)++ != 0)
            (*t->overlaps)++;
        mark(t->id);
        WA_AWAIT(wa_sleep_init(&t->sl, WA_MS(10)));
        (*t->inside)--;
        CHECK_EQ(wa_mutex_unlock(t->m), 0);
    }
    WA_END();
}
static const wa_future_vt locker_vt = {locker_poll, counted_drop, "locker"};

static void test_mutex_exclusion(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_mutex m;
    wa_mutex_init(&m);
    int inside = 0, overlaps = 0;
    wa_join j[4] = {0};
    for (int i = 0; i < 4; i++) {
        locker l = {.m = &m, .rounds = 2, .id = (char)('0' + i), .inside = &inside,
                    .overlaps = &overlaps};
        wa_coro_init(&l.wa, &locker_vt);
        REQUIRE_OR(check_spawn_of(rt, &l, &j[i]) == 0, stop(rt, j, 4, NULL, NULL));
    }
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK_EQ(overlaps, 0);
    CHECK_EQ(inside, 0);
    /* fair: a task that unlocks and locks again queues behind the others */
    CHECK(strcmp(trail, "01230123") == 0);
    CHECK_EQ(wa_now(rt), WA_MS(8 * 10)); /* the holds never overlapped */
    CHECK_EQ(wa_mutex_try_lock(&m), 0);
    CHECK_EQ(wa_mutex_unlock(&m), 0);
    finish(rt, j, 4, 4);
}

static void test_acquire_granted_then_dropped(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_sem s;
    wa_sem_init(&s, 2);
    CHECK_EQ(wa_sem_try_acquire(&s, 2), 0);
    wa_join j[3] = {0};
    REQUIRE_OR(spawn_acquirer(rt, &s, 2, 'B', &j[0]) == 0, stop(rt, j, 3, NULL, NULL));
    wa_rt_tick(rt, NULL);
    CHECK_EQ(wa_sem_release(&s, 2), 0); /* granted to B */
    CHECK_EQ(wa_sem_available(&s), 0);
    CHECK_EQ(wa_join_abort(&j[0]), 0);   /* before B could take them */
    CHECK_EQ(wa_sem_available(&s), 2);

    /* the returned permits go on to the next waiter */
    CHECK_EQ(wa_sem_try_acquire(&s, 2), 0);
    REQUIRE_OR(spawn_acquirer(rt, &s, 2, 'C', &j[1]) == 0, stop(rt, j, 3, NULL, NULL));
    REQUIRE_OR(spawn_acquirer(rt, &s, 1, 'D', &j[2]) == 0, stop(rt, j, 3, NULL, NULL));
    wa_rt_tick(rt, NULL);
    CHECK_EQ(wa_sem_release(&s, 2), 0); /* granted to C; D needs one more */
    CHECK_EQ(wa_join_abort(&j[1]), 0);
    CHECK_EQ(wa_sem_available(&s), 1); /* one went to D */
    wa_rt_tick(rt, NULL);
    CHECK(strcmp(trail, "D") == 0);
    CHECK_EQ(wa_sem_release(&s, 1), 0);
    CHECK_EQ(wa_sem_available(&s), 2);
    finish(rt, j, 3, 3);
}

static void test_acquire_queued_then_dropped(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_mutex m;
    wa_mutex_init(&m);
    CHECK_EQ(wa_mutex_try_lock(&m), 0);
    wa_join j[4] = {0};
    REQUIRE_OR(spawn_acquirer(rt, &m.sem, 1, 'A', &j[0]) == 0, stop(rt, j, 4, NULL, NULL));
    REQUIRE_OR(spawn_acquirer(rt, &m.sem, 1, 'B', &j[1]) == 0, stop(rt, j, 4, NULL, NULL));
    wa_rt_tick(rt, NULL);
    /* A leaves the queue; its task is freed, so a waiter left linked would
     * be a use-after-free in the unlock below. */
    CHECK_EQ(wa_join_abort(&j[0]), 0);
    CHECK_EQ(wa_join_drop(&j[0]), 0);
    CHECK_EQ(wa_mutex_unlock(&m), 0);
    wa_rt_tick(rt, NULL);
    CHECK(strcmp(trail, "B") == 0);
    CHECK_EQ(wa_mutex_unlock(&m), 0);
    CHECK_EQ(wa_sem_available(&m.sem), 1);

    /* the head of the queue leaves: smaller requests behind it now fit */
    wa_sem s;
    wa_sem_init(&s, 3);
    CHECK_EQ(wa_sem_try_acquire(&s, 2), 0);
    REQUIRE_OR(spawn_acquirer(rt, &s, 2, 'C', &j[2]) == 0, stop(rt, j, 4, NULL, NULL));
    REQUIRE_OR(spawn_acquirer(rt, &s, 1, 'D', &j[3]) == 0, stop(rt, j, 4, NULL, NULL));
    wa_rt_tick(rt, NULL);
    CHECK(!wa_join_done(&j[3])); /* it fits, but C is ahead */
    CHECK_EQ(wa_join_abort(&j[2]), 0);
    CHECK_EQ(wa_sem_available(&s), 0); /* granted to D at once */
    wa_rt_tick(rt, NULL);
    CHECK(strcmp(trail, "BD") == 0);
    CHECK_EQ(wa_sem_release(&s, 3), 0);
    CHECK_EQ(wa_sem_available(&s), 3);
    finish(rt, j + 1, 3, 4);
}

/* Read-write lock and barrier */

/* Read- or write-locks l, marks its id and ends holding the lock (the test
 * unlocks it). */
typedef struct rwlocker {
    WA_CORO;
    wa_rwlock *l;
    wa_acquire a;
    bool write;
    char id;
} rwlocker;

static int rwlocker_poll(wa_future *f, wa_cx *cx)
{
    rwlocker *t = (rwlocker *)f;
    WA_BEGIN(t, cx);
    WA_AWAIT(t->write ? wa_write_lock_init(&t->a, t->l) : wa_read_lock_init(&t->a, t->l));
    if (WA_STATUS != 0)
        WA_RETURN(WA_STATUS);
    mark(t->id);
    WA_END();
}
static const wa_future_vt rwlocker_vt = {rwlocker_poll, counted_drop, "rwlocker"};

/* A reader of l when id is a small letter, a writer when it is a capital. */
static int spawn_rwlocker(wa_rt *rt, wa_rwlock *l, char id, wa_join *j)
{
    rwlocker r = {.l = l, .write = id >= 'A' && id <= 'Z', .id = id};
    wa_coro_init(&r.wa, &rwlocker_vt);
    return check_spawn_of(rt, &r, j);
}

/* A rwlocker for each of ids, in order, into j[0...]: 0, or the first
 * spawn's failure. */
static int spawn_rwlockers(wa_rt *rt, wa_rwlock *l, const char *ids, wa_join *j)
{
    for (int i = 0; ids[i]; i++) {
        int rc = spawn_rwlocker(rt, l, ids[i], &j[i]);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static void test_rwlock_readers_share(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_rwlock l;
    wa_rwlock_init(&l);
    wa_join j[2] = {0};
    REQUIRE_OR(spawn_rwlockers(rt, &l, "ab", j) == 0, stop(rt, j, 2, NULL, NULL));
    wa_rt_tick(rt, NULL);
    CHECK(strcmp(trail, "ab") == 0);
    CHECK_EQ(wa_rwlock_try_read(&l), 0); /* a third */
    CHECK_EQ(wa_rwlock_try_write(&l), WA_EAGAIN);
    for (int i = 0; i < 3; i++)
        CHECK_EQ(wa_rwlock_read_unlock(&l), 0);
    CHECK_EQ(wa_rwlock_try_write(&l), 0);
    CHECK_EQ(wa_rwlock_try_read(&l), WA_EAGAIN); /* a writer excludes readers */
    CHECK_EQ(wa_rwlock_try_write(&l), WA_EAGAIN); /* and writers */
    CHECK_EQ(wa_rwlock_write_unlock(&l), 0);
    finish(rt, j, 2, 2);
}

/* Queued in order: a waiting writer holds back the readers that come after
 * it, so a stream of readers cannot starve it; readers queued together get
 * in together. */
static void test_rwlock_fifo_writer_not_starved(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_rwlock l;
    wa_rwlock_init(&l);
    CHECK_EQ(wa_rwlock_try_read(&l), 0);
    wa_join j[5] = {0};
    REQUIRE_OR(spawn_rwlockers(rt, &l, "WabXc", j) == 0, stop(rt, j, 5, NULL, NULL));
    wa_rt_tick(rt, NULL);
    CHECK_EQ(trail[0], 0);                       /* a and b wait behind W */
    CHECK_EQ(wa_rwlock_try_read(&l), WA_EAGAIN); /* and so does a newcomer */
    CHECK_EQ(wa_rwlock_read_unlock(&l), 0);
    wa_rt_tick(rt, NULL);
    CHECK(strcmp(trail, "W") == 0);
    CHECK_EQ(wa_rwlock_write_unlock(&l), 0);
    wa_rt_tick(rt, NULL);
    CHECK(strcmp(trail, "Wab") == 0); /* together; c waits behind X */
    CHECK(!wa_join_done(&j[4]));
    CHECK_EQ(wa_rwlock_read_unlock(&l), 0);
    wa_rt_tick(rt, NULL);
    CHECK(strcmp(trail, "Wab") == 0);
    CHECK_EQ(wa_rwlock_read_unlock(&l), 0);
    wa_rt_tick(rt, NULL);
    CHECK(strcmp(trail, "WabX") == 0);
    CHECK_EQ(wa_rwlock_write_unlock(&l), 0);
    wa_rt_tick(rt, NULL);
    CHECK(strcmp(trail, "WabXc") == 0);
    CHECK_EQ(wa_rwlock_read_unlock(&l), 0);
    CHECK_EQ(wa_rwlock_try_write(&l), 0);
    CHECK_EQ(wa_rwlock_write_unlock(&l), 0);
    finish(rt, j, 5, 5);
}

/* Holds l rounds times across a 10 ms sleep, reading or writing, counting
 * who is inside. */
typedef struct rwuser {
    WA_CORO;
    wa_rwlock *l;
    wa_acquire a;
    wa_sleep sl;
    bool write;
    int rounds, i;
    int *readers, *writers, *most_readers, *bad;
} rwuser;

static int rwuser_poll(wa_future *f, wa_cx *cx)
{
    rwuser *t = (rwuser *)f;
    WA_BEGIN(t, cx);
    for (t->i = 0; t->i < t->rounds; t->i++) {
        WA_AWAIT(t->write ? wa_write_lock_init(&t->a, t->l) : wa_read_lock_init(&t->a, t->l));
        if (WA_STATUS != 0)
            WA_RETURN(WA_STATUS);
        if (*t->writers || (t->write && *t->readers))
            (*t->bad)++;
        if (t->write)
            (*t->writers)++;
        else if (++*t->readers > *t->most_readers)
            *t->most_readers = *t->readers;
        WA_AWAIT(wa_sleep_init(&t->sl, WA_MS(10)));
        (*(t->write ? t->writers : t->readers))--;
        CHECK_EQ(wa_acquire_release(&t->a), 0);
        CHECK_EQ(wa_acquire_release(&t->a), 0); /* again: nothing */
    }
    WA_END();
}
static const wa_future_vt rwuser_vt = {rwuser_poll, counted_drop, "rwuser"};

/* Three readers and two writers, twice each: writers alone, readers
 * together, the holds in the order of arrival. */
static void test_rwlock_exclusion(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_rwlock l;
    wa_rwlock_init(&l);
    int readers = 0, writers = 0, most = 0, bad = 0;
    wa_join j[5] = {0};
    for (int i = 0; i < 5; i++) {
        rwuser u = {.l = &l, .write = i == 1 || i == 3, .rounds = 2, .readers = &readers,
                    .writers = &writers, .most_readers = &most, .bad = &bad};
        wa_coro_init(&u.wa, &rwuser_vt);
        REQUIRE_OR(check_spawn_of(rt, &u, &j[i]) == 0, stop(rt, j, 5, NULL, NULL));
    }
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK_EQ(bad, 0);
    CHECK_EQ(readers + writers, 0);
    CHECK_EQ(most, 2);
    /* 10 holds in 9 slots of 10 ms: the last reader's first round and the
     * first reader's second, queued one behind the other after a writer,
     * hold together, and so again in the second round */
    CHECK_EQ(wa_now(rt), WA_MS(9 * 10));
    finish(rt, j, 5, 5);
}

/* A queued writer that leaves lets the readers behind it in; a queued
 * reader that leaves changes nothing. */
static void test_rwlock_queued_then_dropped(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_rwlock l;
    wa_rwlock_init(&l);
    CHECK_EQ(wa_rwlock_try_read(&l), 0);
    wa_join j[5] = {0};
    REQUIRE_OR(spawn_rwlockers(rt, &l, "Wab", j) == 0, stop(rt, j, 5, NULL, NULL));
    wa_rt_tick(rt, NULL);
    CHECK_EQ(trail[0], 0);
    /* W's task is freed: a waiter left linked would be a use-after-free */
    CHECK_EQ(wa_join_abort(&j[0]), 0);
    CHECK_EQ(wa_join_drop(&j[0]), 0);
    wa_rt_tick(rt, NULL);
    CHECK(strcmp(trail, "ab") == 0);
    REQUIRE_OR(spawn_rwlockers(rt, &l, "Xc", j + 3) == 0, stop(rt, j + 1, 4, NULL, NULL));
    wa_rt_tick(rt, NULL);
    CHECK_EQ(wa_join_abort(&j[4]), 0); /* c, behind X */
    for (int i = 0; i < 3; i++)
        CHECK_EQ(wa_rwlock_read_unlock(&l), 0);
    wa_rt_tick(rt, NULL);
    CHECK(strcmp(trail, "abX") == 0);
    CHECK_EQ(wa_rwlock_write_unlock(&l), 0);
    CHECK_EQ(wa_rwlock_try_write(&l), 0);
    CHECK_EQ(wa_rwlock_write_unlock(&l), 0);
    finish(rt, j + 1, 4, 5);
}

/* A lock granted and dropped before its task saw it passes it on. */
static void test_rwlock_granted_then_dropped(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_rwlock l;
    wa_rwlock_init(&l);
    CHECK_EQ(wa_rwlock_try_write(&l), 0);
    wa_join j[4] = {0};
    REQUIRE_OR(spawn_rwlockers(rt, &l, "Wa", j) == 0, stop(rt, j, 4, NULL, NULL));
    wa_rt_tick(rt, NULL);
    CHECK_EQ(wa_rwlock_write_unlock(&l), 0); /* granted to W */
    CHECK_EQ(wa_rwlock_try_read(&l), WA_EAGAIN);
    CHECK_EQ(wa_join_abort(&j[0]), 0); /* before W could take it: a gets it */
    wa_rt_tick(rt, NULL);
    CHECK(strcmp(trail, "a") == 0);
    /* a reader granted and dropped: the writer behind it gets the lock */
    REQUIRE_OR(spawn_rwlockers(rt, &l, "bX", j + 2) == 0, stop(rt, j, 4, NULL, NULL));
    wa_rt_tick(rt, NULL);
    CHECK(strcmp(trail, "ab") == 0);
    CHECK_EQ(wa_rwlock_read_unlock(&l), 0); /* a */
    CHECK_EQ(wa_rwlock_read_unlock(&l), 0); /* b: X is granted */
    CHECK_EQ(wa_join_abort(&j[3]), 0);
    CHECK_EQ(wa_rwlock_try_write(&l), 0);
    CHECK_EQ(wa_rwlock_write_unlock(&l), 0);
    finish(rt, j, 4, 4);
}

/* Waits at b rounds times, counting the times it led. */
typedef struct barrier_user {
    WA_CORO;
    wa_barrier *b;
    wa_barrier_wait w;
    int rounds, i;
    int *leaders;
    char id;
} barrier_user;

static int barrier_user_poll(wa_future *f, wa_cx *cx)
{
    barrier_user *t = (barrier_user *)f;
    WA_BEGIN(t, cx);
    for (t->i = 0; t->i < t->rounds; t->i++) {
        WA_AWAIT(wa_barrier_wait_init(&t->w, t->b));
        if (WA_STATUS != 0)
            WA_RETURN(WA_STATUS);
        *t->leaders += wa_barrier_wait_is_leader(&t->w);
        mark(t->id);
    }
    WA_END();
}
static const wa_future_vt barrier_user_vt = {barrier_user_poll, counted_drop, "barrier_user"};

static int spawn_barrier_user(wa_rt *rt, wa_barrier *b, int rounds, int *leaders, char id, wa_join *j)
{
    barrier_user u = {.b = b, .rounds = rounds, .leaders = leaders, .id = id};
    wa_coro_init(&u.wa, &barrier_user_vt);
    return check_spawn_of(rt, &u, j);
}

/* A barrier of 3: no one passes before the third arrives, then all do, one
 * of them the leader; the next generation the same. */
static void test_barrier_generations(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_barrier b;
    wa_barrier_init(&b, 3);
    int leaders = 0;
    wa_join j[3] = {0};
    REQUIRE_OR(spawn_barrier_user(rt, &b, 2, &leaders, 'a', &j[0]) == 0, stop(rt, j, 3, NULL, NULL));
    REQUIRE_OR(spawn_barrier_user(rt, &b, 2, &leaders, 'b', &j[1]) == 0, stop(rt, j, 3, NULL, NULL));
    wa_rt_tick(rt, NULL);
    CHECK_EQ(trail[0], 0);
    REQUIRE_OR(spawn_barrier_user(rt, &b, 2, &leaders, 'c', &j[2]) == 0, stop(rt, j, 3, NULL, NULL));
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK_EQ(strlen(trail), 6);
    CHECK_EQ(leaders, 2);
    /* each passed the first barrier before anyone passed the second */
    for (int i = 0; i < 3; i++)
        CHECK(strchr(trail, 'a' + i) < trail + 3);
    finish(rt, j, 3, 3);
}

/* A wait dropped before the barrier tripped un-counts itself; one dropped
 * after, before its task saw it, takes nothing from the next generation. */
static void test_barrier_cancelled_waiter(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_barrier b;
    wa_barrier_init(&b, 3);
    int leaders = 0;
    wa_join j[4] = {0};
    REQUIRE_OR(spawn_barrier_user(rt, &b, 1, &leaders, 'a', &j[0]) == 0, stop(rt, j, 4, NULL, NULL));
    REQUIRE_OR(spawn_barrier_user(rt, &b, 1, &leaders, 'b', &j[1]) == 0, stop(rt, j, 4, NULL, NULL));
    wa_rt_tick(rt, NULL);
    CHECK_EQ(wa_join_abort(&j[0]), 0);
    CHECK_EQ(wa_join_drop(&j[0]), 0); /* its task freed: linked, it would be a use-after-free */
    REQUIRE_OR(spawn_barrier_user(rt, &b, 1, &leaders, 'c', &j[2]) == 0, stop(rt, j + 1, 3, NULL, NULL));
    wa_rt_tick(rt, NULL);
    CHECK_EQ(trail[0], 0); /* two of three */
    REQUIRE_OR(spawn_barrier_user(rt, &b, 1, &leaders, 'd', &j[3]) == 0, stop(rt, j + 1, 3, NULL, NULL));
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK_EQ(strlen(trail), 3);
    CHECK(strchr(trail, 'a') == NULL);
    CHECK_EQ(leaders, 1);
    finish(rt, j + 1, 3, 4);

    /* by hand: w[0] granted, then dropped unseen */
    wa_rt *rt2 = check_sim_rt(0);
    REQUIRE(rt2);
    wa_cx cx = {.waker = WA_NOOP_WAKER, .rt = rt2};
    wa_barrier_wait w[4];
    wa_barrier_init(&b, 2);
    CHECK_EQ(wa_poll(wa_barrier_wait_init(&w[0], &b), &cx), WA_PENDING);
    CHECK_EQ(wa_poll(wa_barrier_wait_init(&w[1], &b), &cx), WA_READY);
    CHECK(wa_barrier_wait_is_leader(&w[1]));
    CHECK(!wa_barrier_wait_is_leader(&w[0]));
    wa_drop(&w[0].fut);
    wa_drop(&w[1].fut);
    CHECK_EQ(wa_poll(wa_barrier_wait_init(&w[2], &b), &cx), WA_PENDING);
    CHECK_EQ(wa_poll(wa_barrier_wait_init(&w[3], &b), &cx), WA_READY);
    CHECK(wa_barrier_wait_is_leader(&w[3]));
    CHECK_EQ(wa_poll(&w[2].fut, &cx), WA_READY);
    CHECK(!wa_barrier_wait_is_leader(&w[2]));
    wa_drop(&w[2].fut);
    wa_drop(&w[3].fut);
    CHECK_RT_EMPTY_FREE(rt2);
}

static void test_rwlock_barrier_misuse(void)
{
    check_catch_misuse();
    wa_rwlock l;
    wa_rwlock_init(&l);
    CHECK_MISUSE(wa_rwlock_read_unlock(&l), WA_EMISUSE, "wa_rwlock_read_unlock");
    CHECK_MISUSE(wa_rwlock_write_unlock(&l), WA_EMISUSE, "wa_rwlock_write_unlock");
    CHECK_EQ(wa_rwlock_try_read(&l), 0);
    CHECK_MISUSE(wa_rwlock_write_unlock(&l), WA_EMISUSE, "wa_rwlock_write_unlock"); /* read-locked */
    CHECK_EQ(wa_rwlock_read_unlock(&l), 0);
    CHECK_MISUSE(wa_rwlock_read_unlock(&l), WA_EMISUSE, "wa_rwlock_read_unlock"); /* twice */
    CHECK_EQ(wa_rwlock_try_write(&l), 0);
    CHECK_MISUSE(wa_rwlock_read_unlock(&l), WA_EMISUSE, "wa_rwlock_read_unlock"); /* write-locked */
    CHECK_EQ(wa_rwlock_write_unlock(&l), 0);
    CHECK_MISUSE(wa_rwlock_write_unlock(&l), WA_EMISUSE, "wa_rwlock_write_unlock"); /* twice */
    CHECK_MISUSE(wa_rwlock_try_read(NULL), WA_EINVAL, "wa_rwlock_try_read");
    CHECK_MISUSE(wa_rwlock_try_write(NULL), WA_EINVAL, "wa_rwlock_try_write");
    CHECK_MISUSE(wa_rwlock_read_unlock(NULL), WA_EINVAL, "wa_rwlock_read_unlock");
    CHECK_MISUSE(wa_rwlock_write_unlock(NULL), WA_EINVAL, "wa_rwlock_write_unlock");
    CHECK_MISUSE(wa_acquire_release(NULL), WA_EINVAL, "wa_acquire_release");
    CHECK_EQ(wa_rwlock_try_write(&l), 0); /* the lock is whole */
    CHECK_EQ(wa_rwlock_write_unlock(&l), 0);

    wa_rt *rt = check_sim_rt(0);
    REQUIRE_OR(rt, wa_misuse_set_hook(NULL));
    wa_cx cx = {.waker = WA_NOOP_WAKER, .rt = rt};
    wa_acquire a;
    CHECK_MISUSE(wa_poll(wa_read_lock_init(&a, NULL), &cx), WA_EINVAL, "wa_read_lock_init");
    wa_drop(&a.fut);
    CHECK_MISUSE(wa_poll(wa_write_lock_init(&a, NULL), &cx), WA_EINVAL, "wa_write_lock_init");
    wa_drop(&a.fut);
    CHECK_EQ(wa_poll(wa_write_lock_init(&a, &l), &cx), WA_READY);
    CHECK_MISUSE(wa_poll(&a.fut, &cx), WA_EMISUSE, "wa_write_lock_init"); /* polled after it finished */
    wa_drop(&a.fut);
    CHECK_EQ(wa_acquire_release(&a), 0);
    CHECK_EQ(wa_acquire_release(&a), 0); /* twice: nothing */
    CHECK_EQ(wa_rwlock_try_write(&l), 0);
    CHECK_EQ(wa_rwlock_write_unlock(&l), 0);
    wa_barrier_wait w;
    CHECK_MISUSE(wa_poll(wa_barrier_wait_init(&w, NULL), &cx), WA_EINVAL, "wa_barrier_wait");
    wa_drop(&w.fut);
    wa_barrier b;
    wa_barrier_init(&b, 0); /* taken as 1 */
    CHECK_EQ(wa_poll(wa_barrier_wait_init(&w, &b), &cx), WA_READY);
    CHECK(wa_barrier_wait_is_leader(&w));
    CHECK_MISUSE(wa_poll(&w.fut, &cx), WA_EMISUSE, "wa_barrier_wait");
    wa_drop(&w.fut);
    CHECK_MISUSE(wa_barrier_wait_is_leader(NULL), false, "wa_barrier_wait_is_leader");
    CHECK_RT_EMPTY_FREE(rt);
    wa_misuse_set_hook(NULL);
}

/* Misuse */

static void test_sync_misuse(void)
{
    check_catch_misuse();
    int before = check_misuses;
    wa_mutex m;
    wa_mutex_init(&m);
    CHECK_EQ(wa_mutex_unlock(&m), WA_EMISUSE);
    CHECK_EQ(check_misuses, before + 1);
    CHECK_EQ(wa_mutex_try_lock(&m), 0);
    CHECK_EQ(wa_mutex_try_lock(&m), WA_EAGAIN);
    CHECK_EQ(wa_mutex_unlock(&m), 0);
    wa_sem s;
    wa_sem_init_max(&s, 2, 2);
    CHECK_EQ(wa_sem_try_acquire(&s, 1), 0);
    CHECK_EQ(wa_sem_release(&s, 2), WA_EMISUSE); /* one more than was taken */
    CHECK_EQ(wa_sem_available(&s), 1);
    CHECK_EQ(check_misuses, before + 2);

    /* send and receive on dropped ends */
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_cx cx = {.waker = WA_NOOP_WAKER, .rt = rt};
    wa_tx tx;
    wa_rx rx;
    REQUIRE_OR(wa_mpsc_new(1, sizeof(int), &tx, &rx) == 0, wa_rt_free(rt));
    int v = 1;
    CHECK_EQ(wa_tx_drop(&tx), 0);
    CHECK(tx.ch == NULL);
    CHECK_EQ(wa_tx_try_send(&tx, &v), WA_ESTALE);
    wa_send snd;
    CHECK_EQ(wa_poll(wa_send_init(&snd, &tx, &v), &cx), WA_ESTALE);
    CHECK_EQ(wa_poll(&snd.fut, &cx), WA_EMISUSE); /* polled after it finished */
    CHECK_HAS(check_misuse_text, "poll of a finished or freed send");
    wa_drop(&snd.fut);
    CHECK_EQ(check_misuses, before + 5);
    CHECK_EQ(wa_rx_drop(&rx), 0);
    CHECK_EQ(wa_rx_try_recv(&rx, &v), WA_ESTALE);
    wa_recv rcv;
    CHECK_EQ(wa_poll(wa_recv_init(&rcv, &rx, &v), &cx), WA_ESTALE);
    wa_drop(&rcv.fut);
    CHECK_EQ(check_misuses, before + 7);
    CHECK_EQ(wa_mpsc_new(0, sizeof(int), &tx, &rx), WA_EINVAL);
    CHECK_EQ(check_misuses, before + 7);
    CHECK_RT_EMPTY_FREE(rt);
    wa_misuse_set_hook(NULL);
}

/* A gate that starts closed: wa_sem_init(s, 0), opened by a release. */
static void test_sem_gate(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_sem s;
    wa_sem_init(&s, 0);
    wa_join j[1] = {0};
    REQUIRE_OR(spawn_acquirer(rt, &s, 1, 'G', &j[0]) == 0, stop(rt, j, 1, NULL, NULL));
    wa_rt_tick(rt, NULL);
    CHECK(!wa_join_done(&j[0]));
    CHECK_EQ(wa_sem_release(&s, 1), 0);
    wa_rt_tick(rt, NULL);
    CHECK(strcmp(trail, "G") == 0);
    finish(rt, j, 1, 1);
}

/* A receive that completes in the very poll that delivers the task's
 * cancellation wins its race: the message reaches the task (not dropped
 * with the race), which then sees the cancellation at its next await. */
typedef struct racer {
    WA_CORO;
    WA_COMBO(2) race;
    wa_recv r;
    wa_sleep sl, after;
    wa_rx *rx;
    int got, winner, race_rc, after_rc;
} racer;

static int racer_poll(wa_future *f, wa_cx *cx)
{
    racer *t = (racer *)f;
    WA_BEGIN(t, cx);
    WA_AWAIT(wa_race_init(&t->race, wa_recv_init(&t->r, t->rx, &t->got), wa_sleep_init(&t->sl, WA_SEC(100))));
    t->race_rc = WA_STATUS;
    t->winner = wa_race_winner(&t->race.c);
    WA_AWAIT(wa_sleep_init(&t->after, WA_MS(1)));
    t->after_rc = 0;
    WA_ON_CANCEL();
    t->after_rc = WA_ECANCELED;
    WA_RETURN(WA_ECANCELED);
    WA_END();
}
static const wa_future_vt racer_vt = {racer_poll, wa_coro_drop, "racer"};

static void test_race_keeps_completed_recv(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_tx tx;
    wa_rx rx;
    REQUIRE_OR(wa_mpsc_new(1, sizeof(int), &tx, &rx) == 0, wa_rt_free(rt));
    racer t = {.rx = &rx, .got = 0, .winner = -2, .race_rc = 1, .after_rc = 1};
    wa_coro_init(&t.wa, &racer_vt);
    wa_join j;
    REQUIRE_OR(wa_spawn_of(rt, &t, &j) == 0, (wa_tx_drop(&tx), wa_rx_drop(&rx), wa_rt_free(rt)));
    wa_rt_tick(rt, NULL); /* waiting in the race */
    int v = 42;
    CHECK_EQ(wa_tx_try_send(&tx, &v), 0);
    CHECK_EQ(wa_join_cancel(&j), 0); /* in the same tick as the message */
    CHECK_EQ(wa_rt_run(rt), 0);
    racer *out = (racer *)wa_join_output(&j);
    CHECK(out != NULL);
    if (out) {
        CHECK_EQ(out->race_rc, 0);
        CHECK_EQ(out->winner, 0);
        CHECK_EQ(out->got, 42);
        CHECK_EQ(out->after_rc, WA_ECANCELED);
    }
    CHECK_EQ(wa_join_status(&j), WA_ECANCELED);
    wa_join_drop(&j);
    wa_tx_drop(&tx);
    wa_rx_drop(&rx);
    CHECK_RT_EMPTY_FREE(rt);
}

/* Cloning a dropped sender is reported and gives a dropped sender back,
 * not a crash; NULL ends and elements are reported too. */
static void test_chan_bad_arguments(void)
{
    check_catch_misuse();
    int before = check_misuses;
    wa_tx tx;
    wa_rx rx;
    REQUIRE(wa_mpsc_new(1, sizeof(int), &tx, &rx) == 0);
    CHECK_EQ(wa_tx_drop(&tx), 0);
    wa_tx c = wa_tx_clone(&tx);
    CHECK(c.ch == NULL);
    CHECK(wa_tx_clone(NULL).ch == NULL);
    CHECK_EQ(wa_tx_try_send(NULL, &before), WA_ESTALE);
    CHECK_EQ(wa_rx_try_recv(&rx, NULL), WA_EINVAL);
    CHECK_EQ(wa_mpsc_new(1, 1, NULL, &rx), WA_EINVAL);
    CHECK_EQ(wa_rx_drop(NULL), WA_EMISUSE);
    CHECK_EQ(check_misuses - before, 6);
    CHECK_EQ(wa_rx_drop(&rx), 0);
}

/* A struct copy of a dropped end is stale too, whether the channel lives
 * on (another sender and the receiver hold it) or is gone: a send, a
 * clone, a drop through it is reported by the call, a receive through a
 * dropped receiver's copy too; nothing reaches the channel. The same for a
 * oneshot, and for a shared channel. */
static void check_end_copies(int shared)
{
    check_catch_misuse();
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_tx tx;
    wa_rx rx;
    REQUIRE_OR((shared ? wa_mpsc_new_shared : wa_mpsc_new)(4, sizeof(int), &tx, &rx) == 0, wa_rt_free(rt));
    wa_tx other = wa_tx_clone(&tx);
    REQUIRE_OR(other.ch, (wa_tx_drop(&tx), wa_rx_drop(&rx), wa_rt_free(rt)));
    wa_tx copy = tx;
    int v = 7;
    CHECK_EQ(wa_tx_drop(&tx), 0);
    CHECK_MISUSE(wa_tx_try_send(&copy, &v), WA_ESTALE, "wa_tx_try_send");
    wa_send snd;
    CHECK_MISUSE(wa_block_on(rt, wa_send_init(&snd, &copy, &v)), WA_ESTALE, "wa_send");
    CHECK_MISUSE(wa_tx_clone(&copy).ch == NULL, 1, "wa_tx_clone");
    CHECK_MISUSE(wa_tx_drop(&copy), WA_EMISUSE, "wa_tx_drop");
    CHECK_EQ(wa_rx_len(&rx), 0); /* nothing got in */
    CHECK_EQ(wa_tx_try_send(&other, &v), 0); /* the other sender is another handle */
    wa_rx rx_copy = rx;
    CHECK_EQ(wa_rx_drop(&rx), 0);
    CHECK_MISUSE(wa_rx_try_recv(&rx_copy, &v), WA_ESTALE, "wa_rx_try_recv");
    wa_recv rcv;
    CHECK_MISUSE(wa_block_on(rt, wa_recv_init(&rcv, &rx_copy, &v)), WA_ESTALE, "wa_recv");
    wa_tx other_copy = other;
    CHECK_EQ(wa_tx_drop(&other), 0); /* the channel goes */
    CHECK_MISUSE(wa_rx_drop(&rx_copy), WA_EMISUSE, "wa_rx_drop");
    CHECK_MISUSE(wa_tx_try_send(&other_copy, &v), WA_ESTALE, "wa_tx_try_send");
    CHECK_MISUSE(wa_tx_drop(&other_copy), WA_EMISUSE, "wa_tx_drop");
    /* a oneshot's ends, the channel gone with the first drop of each */
    REQUIRE_OR((shared ? wa_oneshot_new_shared : wa_oneshot_new)(sizeof(int), &tx, &rx) == 0, wa_rt_free(rt));
    copy = tx;
    rx_copy = rx;
    CHECK_EQ(wa_tx_try_send(&tx, &v), 0);
    CHECK_EQ(wa_tx_drop(&tx), 0);
    CHECK_MISUSE(wa_tx_try_send(&copy, &v), WA_ESTALE, "wa_tx_try_send");
    CHECK_EQ(wa_rx_try_recv(&rx, &v), 0);
    CHECK_EQ(wa_rx_drop(&rx), 0);
    CHECK_MISUSE(wa_rx_drop(&rx_copy), WA_EMISUSE, "wa_rx_drop");
    CHECK_MISUSE(wa_tx_drop(&copy), WA_EMISUSE, "wa_tx_drop");
    CHECK_RT_EMPTY_FREE(rt);
}

static void test_end_copies(void) { check_end_copies(0); }
static void test_end_copies_shared(void) { check_end_copies(1); }

/* A guard: the acquire that locked a mutex releases it from the
 * coroutine's cleanup, whichever way the coroutine ends (normal end, a
 * cancel or a hard drop while holding it, a cancel while still waiting). */
typedef struct guarded {
    WA_CORO;
    wa_acquire guard;
    wa_sleep s;
    wa_mutex *m;
    uint64_t hold;
} guarded;

static void guarded_cleanup(guarded *t) { wa_acquire_release(&t->guard); }

WA_ASYNC(guarded, t, cx, guarded_cleanup)
{
    WA_BEGIN(t, cx);
    WA_TRY(wa_lock_init(&t->guard, t->m));
    WA_TRY(wa_sleep_init(&t->s, t->hold));
    WA_END();
}

static void test_guard_releases_on_every_path(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_mutex m;
    wa_mutex_init(&m);
    /* a normal end */
    guarded a = {.m = &m, .hold = WA_MS(1)};
    CHECK_EQ(wa_block_on(rt, guarded_init(&a)), 0);
    CHECK_EQ(wa_mutex_try_lock(&m), 0);
    CHECK_EQ(wa_mutex_unlock(&m), 0);
    /* b holds the lock and is cancelled, c waits for it and is dropped, d
     * gets it after them, holds it and is dropped */
    guarded b = {.m = &m, .hold = WA_SEC(5)}, c = b, d = b;
    wa_join j[3] = {0};
    guarded_init(&b);
    guarded_init(&c);
    guarded_init(&d);
    REQUIRE_OR(check_spawn_of(rt, &b, &j[0]) == 0, wa_rt_free(rt));
    REQUIRE_OR(check_spawn_of(rt, &c, &j[1]) == 0, (check_joins_drop(j, 3), wa_rt_free(rt)));
    REQUIRE_OR(check_spawn_of(rt, &d, &j[2]) == 0, (check_joins_drop(j, 3), wa_rt_free(rt)));
    wa_rt_tick(rt, NULL);
    CHECK_EQ(wa_mutex_try_lock(&m), WA_EAGAIN);
    wa_join_abort(&j[1]);
    wa_join_cancel(&j[0]);
    wa_rt_tick(rt, NULL);
    wa_rt_tick(rt, NULL);
    CHECK(wa_join_done(&j[0]) && wa_join_done(&j[1]));
    CHECK(!wa_join_done(&j[2]));
    CHECK_EQ(wa_mutex_try_lock(&m), WA_EAGAIN); /* d holds it now */
    wa_join_abort(&j[2]);
    CHECK_EQ(wa_mutex_try_lock(&m), 0);
    CHECK_EQ(wa_mutex_unlock(&m), 0);
    check_joins_drop(j, 3);
    /* a zeroed guard and a second release do nothing */
    wa_acquire z = {0};
    CHECK_EQ(wa_acquire_release(&z), 0);
    CHECK_EQ(wa_block_on(rt, wa_lock_init(&z, &m)), 0);
    CHECK_EQ(wa_acquire_release(&z), 0);
    CHECK_EQ(wa_acquire_release(&z), 0);
    CHECK_EQ(wa_mutex_try_lock(&m), 0);
    CHECK_EQ(wa_mutex_unlock(&m), 0);
    CHECK_RT_EMPTY_FREE(rt);
}

int main(void)
{
    RUN(test_mpsc_fifo_several_senders);
    RUN(test_mpsc_blocked_senders_fifo);
    RUN(test_mpsc_newcomer_queues_behind);
    RUN(test_mpsc_woken_sender_keeps_its_slot);
    RUN(test_mpsc_backpressure);
    RUN(test_close_by_senders);
    RUN(test_close_by_receiver);
    RUN(test_send_cancelled_while_blocked);
    RUN(test_recv_woken_then_dropped);
    RUN(test_send_woken_then_dropped);
    RUN(test_oneshot);
    RUN(test_oneshot_from_task);
    RUN(test_notify_one_permit);
    RUN(test_notify_all);
    RUN(test_notify_woken_then_dropped);
    RUN(test_sem_fifo_fairness);
    RUN(test_mutex_exclusion);
    RUN(test_acquire_granted_then_dropped);
    RUN(test_acquire_queued_then_dropped);
    RUN(test_rwlock_readers_share);
    RUN(test_rwlock_fifo_writer_not_starved);
    RUN(test_rwlock_exclusion);
    RUN(test_rwlock_queued_then_dropped);
    RUN(test_rwlock_granted_then_dropped);
    RUN(test_barrier_generations);
    RUN(test_barrier_cancelled_waiter);
    RUN(test_rwlock_barrier_misuse);
    RUN(test_sync_misuse);
    RUN(test_sem_gate);
    RUN(test_guard_releases_on_every_path);
    RUN(test_race_keeps_completed_recv);
    RUN(test_chan_bad_arguments);
    RUN(test_end_copies);
    RUN(test_end_copies_shared);
    return check_finish();
}
