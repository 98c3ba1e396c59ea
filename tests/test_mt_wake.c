/* SPDX-License-Identifier: MIT */
/* Wakes that come from another worker or thread than the one polling,
 * on the many-threads executor (wa_rt_new_mt): a ring of 50 tasks, each
 * awaiting a consumer and a producer in one wa_all_settled_init over the
 * channels of the ring (a combinator's children woken from other workers
 * while it is polled), round after round; then, for every future type of
 * the library, its wake arranged from another worker or thread, each
 * awaited alone, as a race's child and as a join's child; and the
 * in-process pipe, which has no lock, refused there. Run under TSan
 * by the tsan preset, and under tests/faults (smaller there): a setup that
 * fails stops its test, releasing what it made. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <netinet/in.h>
#include <sys/socket.h>

#include "check.h"
#include "rt_setup.h"
#include "wasync/net.h"

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

/* Every future type, its wake from elsewhere. A case's waiter task awaits
 * the case's future alone, as a race's child (against a long sleep) or as
 * a join's child (beside a child that yields), while its wake comes from
 * another thread (kick, once the waiter armed) or from another worker (a
 * task, a timer, the epoll driver, the blocking pool). PAIRS waiters at a
 * time, so that their tasks spread over the workers. */
#define PAIRS 8
#define WORKERS 4

typedef struct wctx wctx;
typedef struct wcase {
    const char *name;
    int (*prep)(wctx *c, wa_rt *rt);        /* on the test's thread: 0 or an error (NULL: nothing) */
    wa_future *(*pre)(wctx *c, wa_rt *rt);  /* awaited by the waiter first (NULL: nothing) */
    wa_future *(*wait)(wctx *c, wa_rt *rt); /* the future whose wake comes from elsewhere */
    void (*kick)(wctx *c);                  /* on another thread once armed (NULL: no kick) */
    int expect;                             /* the wait's status */
    void (*done)(wctx *c);                  /* checks outputs (rc), releases what prep and the waiter made */
} wcase;

struct wctx {
    const wcase *k;
    int armed;   /* atomic: 1 once the wait is about to be awaited, 2 if it never will be */
    int rc;      /* the wait's status */
    int fds[2], outfd;
    long v, out;
    unsigned char buf[8];
    wa_tx tx;
    wa_rx rx;
    wa_notify n;
    wa_sem sem;
    wa_mutex m;
    wa_event *ev;
    wa_stream *in, *out_s;
    wa_tcp *l;
    uint16_t port;
    wa_interval iv;
    wa_scope scope;
    wa_join jh;
    /* the futures */
    wa_tcp_op op;
    wa_recv recv;
    wa_send send;
    wa_notified nf;
    wa_acquire acq;
    wa_event_wait ew;
    wa_blocking bl;
    wa_dns dns;
    wa_read rd;
    wa_write wr;
    wa_sleep sl;
    wa_timeout to;
    wa_copy copy;
    struct failed {
        wa_future fut;
        int err;
    } failed;
};

/* A future that fails with WA_ENOMEM: a wait whose setup failed. */
static int failed_poll(wa_future *f, wa_cx *cx)
{
    (void)cx;
    return ((struct failed *)f)->err;
}
static const wa_future_vt failed_vt = {failed_poll, NULL, "failed"};

/* A child that yields a few times: the join's sibling, a scope's child. */
typedef struct yields {
    WA_CORO;
    wa_yield y;
    int i, n;
} yields;

WA_ASYNC(yields, t, cx)
{
    WA_BEGIN(t, cx);
    for (t->i = 0; t->i < t->n; t->i++)
        WA_AWAIT(wa_yield_init(&t->y));
    WA_END();
}

static int prep_chan(wctx *c, wa_rt *rt)
{
    (void)rt;
    return wa_mpsc_new_shared(1, sizeof(long), &c->tx, &c->rx);
}
static int prep_full_chan(wctx *c, wa_rt *rt)
{
    int rc = prep_chan(c, rt);
    return rc < 0 ? rc : wa_tx_try_send(&c->tx, &c->v);
}
static int prep_oneshot(wctx *c, wa_rt *rt)
{
    (void)rt;
    return wa_oneshot_new_shared(sizeof(long), &c->tx, &c->rx);
}
static void done_chan(wctx *c)
{
    if (c->tx.ch)
        wa_tx_drop(&c->tx);
    if (c->rx.ch)
        wa_rx_drop(&c->rx);
}
static wa_future *wait_recv(wctx *c, wa_rt *rt)
{
    (void)rt;
    return wa_recv_init(&c->recv, &c->rx, &c->out);
}
static wa_future *wait_send(wctx *c, wa_rt *rt)
{
    (void)rt;
    return wa_send_init(&c->send, &c->tx, &c->v);
}
static void kick_send(wctx *c) { wa_tx_try_send(&c->tx, &c->v); }
static void kick_recv(wctx *c) { wa_rx_try_recv(&c->rx, &c->out); }

static int prep_notify(wctx *c, wa_rt *rt)
{
    (void)rt;
    wa_notify_init_shared(&c->n);
    return 0;
}
static wa_future *wait_notified(wctx *c, wa_rt *rt)
{
    (void)rt;
    return wa_notified_init(&c->nf, &c->n);
}
static void kick_notify(wctx *c) { wa_notify_one(&c->n); }

static int prep_sem(wctx *c, wa_rt *rt)
{
    (void)rt;
    wa_sem_init_max_shared(&c->sem, 0, 16);
    return 0;
}
static wa_future *wait_acquire(wctx *c, wa_rt *rt)
{
    (void)rt;
    return wa_acquire_init(&c->acq, &c->sem, 1);
}
static void kick_release(wctx *c) { wa_sem_release(&c->sem, 1); }

static int prep_mutex(wctx *c, wa_rt *rt)
{
    (void)rt;
    wa_mutex_init_shared(&c->m);
    return wa_sem_try_acquire(&c->m.sem, 1); /* held by the kicker until its kick */
}
static wa_future *wait_lock(wctx *c, wa_rt *rt)
{
    (void)rt;
    return wa_lock_init(&c->acq, &c->m);
}
static void kick_unlock(wctx *c) { wa_mutex_unlock(&c->m); }

static int prep_event(wctx *c, wa_rt *rt) { return wa_event_new(rt, &c->ev); }
static wa_future *wait_event(wctx *c, wa_rt *rt)
{
    (void)rt;
    return wa_event_wait_init(&c->ew, c->ev);
}
static void kick_event(wctx *c) { wa_event_set(c->ev); }
static void done_event(wctx *c) { wa_event_drop(c->ev); }

static void *napping(void *arg)
{
    usleep(200);
    return arg;
}
static wa_future *wait_blocking(wctx *c, wa_rt *rt)
{
    (void)rt;
    return wa_blocking_init(&c->bl, napping, NULL, NULL);
}

static wa_future *wait_dns(wctx *c, wa_rt *rt) { return wa_dns_lookup_init(&c->dns, rt, "localhost"); }

static wa_future *wait_sleep(wctx *c, wa_rt *rt)
{
    (void)rt;
    return wa_sleep_init(&c->sl, WA_MS(1));
}

/* a timeout whose inner future wins (a send from another thread), and one
 * whose time runs out (its notify never comes) */
static wa_future *wait_timeout_inner(wctx *c, wa_rt *rt)
{
    return wa_timeout_init(&c->to, wait_recv(c, rt), WA_SEC(60));
}
static wa_future *wait_timeout_expires(wctx *c, wa_rt *rt)
{
    return wa_timeout_init(&c->to, wait_notified(c, rt), WA_MS(1));
}

/* the first tick is ready at once; the second comes from a timer */
static wa_future *pre_tick(wctx *c, wa_rt *rt)
{
    (void)rt;
    wa_interval_init(&c->iv, WA_MS(1));
    return wa_interval_tick(&c->iv);
}
static wa_future *wait_tick(wctx *c, wa_rt *rt)
{
    (void)rt;
    return wa_interval_tick(&c->iv);
}
static void done_tick(wctx *c) { wa_interval_drop(&c->iv); }

/* a task of its own, which yields and finishes on any worker */
static wa_future *wait_join(wctx *c, wa_rt *rt)
{
    yields y = {.n = 3};
    yields_init(&y);
    if (wa_spawn_of(rt, &y, &c->jh) < 0) {
        c->failed = (struct failed){{&failed_vt}, WA_ENOMEM};
        return &c->failed.fut;
    }
    return &c->jh.fut;
}

/* a scope of three such children */
static wa_future *wait_scope(wctx *c, wa_rt *rt)
{
    wa_scope_init(&c->scope, rt, 0);
    for (int i = 0; i < 3; i++) {
        yields y = {.n = 3};
        yields_init(&y);
        wa_scope_spawn_of(&c->scope, &y, NULL);
    }
    return wa_scope_wait(&c->scope);
}

/* fd streams over OS pipes, woken by the epoll driver */
static int prep_pipe(wctx *c, wa_rt *rt)
{
    c->fds[0] = c->fds[1] = -1;
    if (pipe2(c->fds, O_CLOEXEC) < 0)
        return WA_EIO;
    int rc = wa_fd_stream_open(rt, c->fds[0], &c->in); /* (it takes the fd) */
    c->fds[0] = -1;
    return rc;
}
static wa_future *wait_read(wctx *c, wa_rt *rt)
{
    (void)rt;
    return wa_read_init(&c->rd, c->in, c->buf, 1);
}
static void kick_write(wctx *c)
{
    ssize_t n = write(c->fds[1], "x", 1);
    (void)n;
}
static void done_pipe(wctx *c)
{
    if (c->in)
        wa_stream_close(&c->in);
    if (c->fds[0] >= 0)
        close(c->fds[0]);
    if (c->fds[1] >= 0)
        close(c->fds[1]);
}

/* the write end as the stream, the pipe filled: a write waits for room */
static int prep_full_pipe(wctx *c, wa_rt *rt)
{
    c->fds[0] = c->fds[1] = -1;
    if (pipe2(c->fds, O_CLOEXEC | O_NONBLOCK) < 0)
        return WA_EIO;
    static const char chunk[4096];
    while (write(c->fds[1], chunk, sizeof chunk) > 0)
        ;
    int rc = wa_fd_stream_open(rt, c->fds[1], &c->in);
    c->fds[1] = -1;
    return rc;
}
static wa_future *wait_write(wctx *c, wa_rt *rt)
{
    (void)rt;
    return wa_write_init(&c->wr, c->in, "x", 1);
}
static void kick_drain(wctx *c)
{
    char chunk[4096];
    while (read(c->fds[0], chunk, sizeof chunk) > 0)
        ;
}

/* a copy from one OS pipe into another: its read woken by the driver,
 * after a write and the close of the writing end from another thread */
static int prep_copy(wctx *c, wa_rt *rt)
{
    int rc = prep_pipe(c, rt), b[2];
    c->outfd = -1;
    if (rc < 0)
        return rc;
    if (pipe2(b, O_CLOEXEC | O_NONBLOCK) < 0)
        return WA_EIO;
    c->outfd = b[0];
    return wa_fd_stream_open(rt, b[1], &c->out_s);
}
static wa_future *wait_copy(wctx *c, wa_rt *rt)
{
    (void)rt;
    return wa_copy_init(&c->copy, c->in, c->out_s);
}
static void kick_write_close(wctx *c)
{
    kick_write(c);
    close(c->fds[1]);
    c->fds[1] = -1;
}
static void done_copy(wctx *c)
{
    if (c->rc == 0 && (c->copy.copied != 1 || read(c->outfd, c->buf, sizeof c->buf) != 1))
        c->rc = WA_EIO;
    if (c->out_s)
        wa_stream_close(&c->out_s);
    if (c->outfd >= 0)
        close(c->outfd);
    done_pipe(c);
}

/* TCP: an accept woken by a connect from another thread; a connect to a
 * plain listening socket, woken by the driver */
static wa_future *pre_listen(wctx *c, wa_rt *rt) { return wa_tcp_listen_init(&c->op, rt, "127.0.0.1", 0); }
static wa_future *wait_accept(wctx *c, wa_rt *rt)
{
    (void)rt;
    c->l = c->op.listener;
    c->port = wa_tcp_port(c->l);
    return wa_tcp_accept_init(&c->op, c->l);
}
static void kick_connect(wctx *c)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(c->port), .sin_addr.s_addr = htonl(0x7f000001)};
    c->fds[1] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (c->fds[1] >= 0 && connect(c->fds[1], (struct sockaddr *)&a, sizeof a) < 0) {
        close(c->fds[1]);
        c->fds[1] = -1;
    }
}
static void done_tcp(wctx *c)
{
    if (c->op.conn)
        wa_stream_close(&c->op.conn);
    if (c->l)
        wa_tcp_close(&c->l);
    done_pipe(c);
}
static int prep_listener(wctx *c, wa_rt *rt)
{
    (void)rt;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(0x7f000001)};
    socklen_t len = sizeof a;
    c->fds[0] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    c->fds[1] = -1;
    if (c->fds[0] < 0 || bind(c->fds[0], (struct sockaddr *)&a, sizeof a) < 0 || listen(c->fds[0], PAIRS) < 0 ||
        getsockname(c->fds[0], (struct sockaddr *)&a, &len) < 0)
        return WA_EIO;
    c->port = ntohs(a.sin_port);
    return 0;
}
static wa_future *wait_connect(wctx *c, wa_rt *rt) { return wa_tcp_connect_init(&c->op, rt, "127.0.0.1", c->port); }

static const wcase cases[] = {
    {"recv", prep_chan, NULL, wait_recv, kick_send, 0, done_chan},
    {"send", prep_full_chan, NULL, wait_send, kick_recv, 0, done_chan},
    {"oneshot", prep_oneshot, NULL, wait_recv, kick_send, 0, done_chan},
    {"notified", prep_notify, NULL, wait_notified, kick_notify, 0, NULL},
    {"acquire", prep_sem, NULL, wait_acquire, kick_release, 0, NULL},
    {"lock", prep_mutex, NULL, wait_lock, kick_unlock, 0, NULL},
    {"event", prep_event, NULL, wait_event, kick_event, 0, done_event},
    {"blocking", NULL, NULL, wait_blocking, NULL, 0, NULL},
    {"dns", NULL, NULL, wait_dns, NULL, 0, NULL},
    {"sleep", NULL, NULL, wait_sleep, NULL, 0, NULL},
    {"timeout", prep_chan, NULL, wait_timeout_inner, kick_send, 0, done_chan},
    {"timeout_expires", prep_notify, NULL, wait_timeout_expires, NULL, WA_ETIMEDOUT, NULL},
    {"interval", NULL, pre_tick, wait_tick, NULL, 0, done_tick},
    {"join", NULL, NULL, wait_join, NULL, 0, NULL},
    {"scope", NULL, NULL, wait_scope, NULL, 0, NULL},
    {"read", prep_pipe, NULL, wait_read, kick_write, 0, done_pipe},
    {"write", prep_full_pipe, NULL, wait_write, kick_drain, 0, done_pipe},
    {"copy", prep_copy, NULL, wait_copy, kick_write_close, 0, done_copy},
    {"accept", NULL, pre_listen, wait_accept, kick_connect, 0, done_tcp},
    {"connect", prep_listener, NULL, wait_connect, NULL, 0, done_tcp},
};

enum { ALONE, IN_RACE, IN_JOIN, SHAPES };

typedef struct waiter {
    WA_CORO;
    WA_COMBO(2) j;
    wa_sleep never;
    yields sib;
    wctx *c;
    int shape;
} waiter;

static void waiter_cleanup(waiter *t) { __atomic_store_n(&t->c->armed, 2, __ATOMIC_RELEASE); }

WA_ASYNC(waiter, t, cx, waiter_cleanup)
{
    WA_BEGIN(t, cx);
    if (t->c->k->pre) {
        WA_AWAIT(t->c->k->pre(t->c, cx->rt));
        if (WA_STATUS < 0)
            WA_RETURN(t->c->rc = WA_STATUS);
    }
    wa_future *f = t->c->k->wait(t->c, cx->rt);
    __atomic_store_n(&t->c->armed, 1, __ATOMIC_RELEASE);
    if (t->shape == ALONE) {
        WA_AWAIT(f);
        t->c->rc = WA_STATUS;
    } else if (t->shape == IN_RACE) {
        WA_AWAIT(wa_race_init(&t->j, f, wa_sleep_init(&t->never, WA_SEC(60))));
        t->c->rc = wa_race_winner(&t->j.c) == 0 ? WA_STATUS : WA_EIO;
    } else {
        t->sib = (yields){.n = 3};
        yields_init(&t->sib);
        WA_AWAIT(wa_all_settled_init(&t->j, f, &t->sib.wa.fut));
        t->c->rc = wa_combo_status(&t->j.c, 0);
    }
    WA_END();
}

/* Kicks each waiter of a round once it armed, from this thread. */
static void *kicker(void *arg)
{
    wctx *cs = arg;
    for (int i = 0; i < PAIRS; i++) {
        int a;
        while ((a = __atomic_load_n(&cs[i].armed, __ATOMIC_ACQUIRE)) == 0)
            sched_yield();
        if (a == 1) {
            usleep((useconds_t)(i * 37 % 50)); /* (now before its first poll, now after) */
            cs[i].k->kick(&cs[i]);
        }
    }
    return NULL;
}

/* One round of case k in shape: PAIRS waiters, their wakes from
 * elsewhere. Returns 0, or WA_ENOMEM when a setup failed. */
static int wake_round(wa_rt *rt, const wcase *k, int shape)
{
    wctx cs[PAIRS];
    wa_join js[PAIRS];
    int made = 0, rc = 0;
    memset(cs, 0, sizeof cs);
    memset(js, 0, sizeof js);
    for (; made < PAIRS; made++) {
        cs[made].k = k;
        cs[made].rc = WA_PENDING;
        if (k->prep && k->prep(&cs[made], rt) < 0) {
            if (k->done)
                k->done(&cs[made]);
            rc = WA_ENOMEM;
            break;
        }
        waiter w = {.c = &cs[made], .shape = shape};
        waiter_init(&w);
        if (wa_spawn_of(rt, &w, &js[made]) < 0) {
            cs[made].armed = 2;
            wa_drop(&w.wa.fut);
            made++;
            rc = WA_ENOMEM;
            break;
        }
    }
    for (int i = made; i < PAIRS; i++)
        cs[i].armed = 2; /* (never made: the kicker passes them) */
    pthread_t th;
    bool kicking = k->kick && pthread_create(&th, NULL, kicker, cs) == 0;
    if (k->kick && !kicking)
        for (int i = 0; i < made; i++) /* (no thread: kicked from here) */
            if (__atomic_load_n(&cs[i].armed, __ATOMIC_ACQUIRE) != 2)
                k->kick(&cs[i]), rc = WA_ENOMEM;
    int run = wa_rt_run(rt);
    if (kicking)
        pthread_join(th, NULL);
    for (int i = 0; i < made; i++) {
        if (js[i].task)
            wa_join_drop(&js[i]);
        if (k->done)
            k->done(&cs[i]); /* (which may check outputs: copy) */
        if (cs[i].rc == WA_ENOMEM)
            rc = WA_ENOMEM;
        else if (cs[i].rc != k->expect && rc == 0) {
            fprintf(stderr, "[%s] %s, shape %d: status %d\n", check_current, k->name, shape, cs[i].rc);
            rc = WA_EIO;
        }
    }
    return run < 0 ? run : rc;
}

/* Each future type awaited alone, in a race and in a join, its wake from
 * another thread or worker: no lost wake (the watchdog), no race (TSan),
 * no use after free (ASan: a combinator that ended while a wake moved out
 * of a lock was still on its way). */
static void test_mt_wake_every_future(void)
{
    wa_rt *rt;
    wa_remote *r; /* held: the kicks come from a thread of ours */
    REQUIRE(check_rt_new(&rt, WORKERS, &r, NULL) == 0);
    int rounds = 20 / SCALE + 1;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        for (int shape = 0; shape < SHAPES; shape++)
            for (int i = 0; i < rounds; i++) {
                int rc = wake_round(rt, &cases[k], shape);
                REQUIRE_OR(rc != WA_ENOMEM, (wa_remote_drop(r), wa_rt_free(rt)));
                CHECK_EQ(rc, 0);
                step();
            }
    wa_remote_drop(r);
    CHECK_RT_EMPTY_FREE(rt);
}

/* A wake moved out of a lock and made after it, as a primitive's grant
 * does, that lands after the combinator ended: a handoff future keeps its
 * waker in a slot under a mutex; another thread takes it out (granting),
 * and wakes it 50 ms later. Meanwhile the race's other child, ready once
 * the grant is made, wins: the combinator drops the handoff (its slot is
 * empty) and ends, and its task with it. The end waits for the wake in
 * flight; before, the wake wrote into the freed task (ASan). */
typedef struct slot {
    pthread_mutex_t lock;
    wa_waker waker;
    int granted; /* atomic */
} slot;

typedef struct handoff {
    wa_future fut;
    slot *sl;
} handoff;

static int handoff_poll(wa_future *f, wa_cx *cx)
{
    slot *sl = ((handoff *)f)->sl;
    pthread_mutex_lock(&sl->lock);
    int granted = __atomic_load_n(&sl->granted, __ATOMIC_RELAXED);
    if (!granted)
        wa_waker_store(&sl->waker, cx);
    pthread_mutex_unlock(&sl->lock);
    return granted ? WA_READY : WA_PENDING;
}

static void handoff_drop(wa_future *f)
{
    slot *sl = ((handoff *)f)->sl;
    pthread_mutex_lock(&sl->lock);
    wa_waker_drop(&sl->waker);
    pthread_mutex_unlock(&sl->lock);
}

static const wa_future_vt handoff_vt = {handoff_poll, handoff_drop, "handoff"};

/* Ready once the slot was granted; until then it yields. */
typedef struct after_grant {
    wa_future fut;
    slot *sl;
} after_grant;

static int after_grant_poll(wa_future *f, wa_cx *cx)
{
    if (__atomic_load_n(&((after_grant *)f)->sl->granted, __ATOMIC_ACQUIRE))
        return WA_READY;
    wa_waker_wake_by_ref(&cx->waker);
    return WA_PENDING;
}

static const wa_future_vt after_grant_vt = {after_grant_poll, NULL, "after_grant"};

typedef struct racer {
    WA_CORO;
    WA_COMBO(2) j;
    handoff h;
    after_grant a;
    int *winner;
} racer;

WA_ASYNC(racer, t, cx)
{
    WA_BEGIN(t, cx);
    WA_AWAIT(wa_race_init(&t->j, &t->h.fut, &t->a.fut));
    *t->winner = wa_race_winner(&t->j.c);
    WA_END();
}

static void *granter(void *arg)
{
    slot *sl = arg;
    wa_waker w = {NULL, NULL};
    while (!w.vt) {
        pthread_mutex_lock(&sl->lock);
        w = sl->waker;
        sl->waker = (wa_waker){NULL, NULL};
        if (w.vt)
            __atomic_store_n(&sl->granted, 1, __ATOMIC_RELEASE);
        pthread_mutex_unlock(&sl->lock);
        if (!w.vt)
            sched_yield();
    }
    usleep(50000);
    wa_waker_wake(&w);
    return NULL;
}

static void test_mt_wake_lands_after_the_end(void)
{
    wa_rt *rt;
    wa_remote *r; /* held: the wake comes from a thread of ours */
    REQUIRE(check_rt_new(&rt, 2, &r, NULL) == 0);
    for (int i = 0; i < 3; i++) {
        slot sl = {.lock = PTHREAD_MUTEX_INITIALIZER};
        int winner = -1;
        racer t = {.h = {{&handoff_vt}, &sl}, .a = {{&after_grant_vt}, &sl}, .winner = &winner};
        racer_init(&t);
        wa_join j;
        REQUIRE_OR(wa_spawn_of(rt, &t, &j) == 0, (wa_remote_drop(r), wa_rt_free(rt)));
        pthread_t th;
        REQUIRE_OR(pthread_create(&th, NULL, granter, &sl) == 0, (wa_join_drop(&j), wa_remote_drop(r), wa_rt_free(rt)));
        wa_join_drop(&j); /* (detached: its task is freed when it ends) */
        CHECK_EQ(wa_rt_run(rt), 0);
        pthread_join(th, NULL);
        CHECK_EQ(winner, 1);
        step();
    }
    wa_remote_drop(r);
    CHECK_RT_EMPTY_FREE(rt);
}

/* The in-process pipe has no lock: a task of a many-threads runtime that
 * reads or writes it is refused (WA_EMISUSE, reported naming
 * wa_pipe_new), rather than sharing it between two workers. */
typedef struct pipe_user {
    WA_CORO;
    wa_stream *s;
    int write;
    unsigned char b[4];
    wa_read r;
    wa_write w;
    int rc;
} pipe_user;

WA_ASYNC(pipe_user, t, cx)
{
    WA_BEGIN(t, cx);
    if (t->write)
        WA_AWAIT(wa_write_init(&t->w, t->s, "abc", 3));
    else
        WA_AWAIT(wa_read_init(&t->r, t->s, t->b, sizeof t->b));
    t->rc = WA_STATUS;
    WA_END();
}

static void test_mt_wake_pipe_refused(void)
{
    wa_rt *rt;
    wa_stream *rd, *wr;
    REQUIRE(wa_rt_new_mt(&rt, 2) == 0);
    REQUIRE_OR(wa_pipe_new(16, &rd, &wr) == 0, wa_rt_free(rt));
    check_catch_misuse();
    check_misuses = 0;
    for (int write = 0; write < 2; write++) {
        pipe_user u = {.s = write ? wr : rd, .write = write};
        pipe_user_init(&u);
        REQUIRE_OR(wa_block_on(rt, &u.wa.fut) == 0, (wa_stream_close(&rd), wa_stream_close(&wr), wa_rt_free(rt)));
        CHECK_EQ(u.rc, WA_EMISUSE);
    }
    CHECK_EQ(check_misuses, 2);
    wa_stream_close(&rd);
    wa_stream_close(&wr);
    wa_rt_free(rt);
}

int main(void)
{
    watchdog_start();
    RUN(test_mt_wake_all_settled_ring);
    RUN(test_mt_wake_every_future);
    RUN(test_mt_wake_lands_after_the_end);
    RUN(test_mt_wake_pipe_refused);
    watchdog_stop();
    return check_finish();
}
