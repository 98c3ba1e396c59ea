/* SPDX-License-Identifier: MIT */
/* Every public header the host has, through wasync.h alone, and one call
 * of each, linked into one program and run on the host's default runtime
 * (natively, and on the JS host, WASI 0.1, 0.2 and 0.3). Two headers whose
 * bindings cannot live in one program (two host imports under one C
 * name, as net.h's and http.h's on WASI 0.3 were) fail its link; a header
 * wasync.h leaves out fails its compile. The headers a host refuses (net.h
 * and udp.h on the JS host and WASI 0.1, thread.h off native Linux) are included all
 * the same: their calls, not the headers, are refused (tests/unavailable.c). */
#include <stdlib.h>
#include <string.h>

#include "check.h" /* (includes wasync.h, and nothing else of ours) */

/* Which headers wasync.h must have brought in, on every host and on this
 * one's. */
#if !defined(WASYNC_VERSION_H) || !defined(WASYNC_ERROR_H) || !defined(WASYNC_FUTURE_H) ||                      \
    !defined(WASYNC_CORO_H) || !defined(WASYNC_RUNTIME_H) || !defined(WASYNC_TIME_H) ||                         \
    !defined(WASYNC_COMBINE_H) || !defined(WASYNC_SCOPE_H) || !defined(WASYNC_SYNC_H) ||                        \
    !defined(WASYNC_CHANNEL_H) || !defined(WASYNC_STREAM_H) || !defined(WASYNC_BACKEND_H) ||                    \
    !defined(WASYNC_THREAD_H) || !defined(WASYNC_NET_H) || !defined(WASYNC_HTTP_H) ||                          \
    !defined(WASYNC_JOIN_SET_H) || !defined(WASYNC_UDP_H)
#error "wasync.h leaves out a header every host has"
#endif
#if defined(WASYNC_HOST_WASIP2) && !defined(WASYNC_WASI_H)
#error "wasync.h leaves out wasync/wasi.h"
#endif
#if defined(WASYNC_HOST_WASIP3) && !defined(WASYNC_COMPONENT_H)
#error "wasync.h leaves out wasync/component.h"
#endif
#if defined(WASYNC_HOST_JS) && !defined(WASYNC_JS_H)
#error "wasync.h leaves out wasync/js.h"
#endif

#if defined(WASYNC_HOST_NATIVE) || defined(WASYNC_HOST_WASIP2) || defined(WASYNC_HOST_WASIP3)
#define HAS_NET 1
#endif
#if !defined(WASYNC_HOST_WASIP1)
#define HAS_HTTP_CLIENT 1
#endif

/* A child of the scope: sends 7 on its channel. */
typedef struct sender {
    WA_CORO;
    wa_tx tx;
} sender;
static int sender_poll(wa_future *f, wa_cx *cx)
{
    sender *t = (sender *)f;
    WA_BEGIN(t, cx);
    int v = 7;
    WA_RETURN(wa_tx_try_send(&t->tx, &v));
    WA_END();
}
static void sender_drop(wa_future *f)
{
    wa_tx_drop(&((sender *)f)->tx);
    wa_coro_drop(f);
}
static const wa_future_vt sender_vt = {sender_poll, sender_drop, "sender"};

/* The calls, one await each where the header's call is a future. */
typedef struct all {
    WA_CORO;
    WA_COMBO(2) both;
    wa_sleep a, b;
    wa_scope scope;
    wa_join_set set;
    wa_join_next next;
    wa_tx tx;
    wa_rx rx;
    wa_sem sem;
    wa_acquire acq;
    wa_rwlock rw;
    wa_barrier bar;
    wa_barrier_wait bw;
    wa_broadcast_tx btx;
    wa_broadcast_rx brx;
    wa_broadcast_recv brecv;
    wa_watch_tx wtx;
    wa_watch_rx wrx;
    wa_watch_changed changed;
    int v;
    wa_stream *r, *w;
    wa_write write;
    wa_read read;
    char buf[8];
    unsigned char rbuf[8];
    wa_reader rd;
    wa_read_until line;
    wa_read_exact exact;
#if HAS_NET
    wa_tcp_op listen;
    wa_udp_op bind;
#endif
#if HAS_HTTP_CLIENT
    wa_http_request req;
    wa_http_fetch fetch;
#endif
} all;

static int all_poll(wa_future *f, wa_cx *cx)
{
    all *t = (all *)f;
    WA_BEGIN(t, cx);
    /* future.h: nothing asked this task to stop */
    CHECK(!wa_cancel_requested(cx));

    /* time.h and combine.h: two sleeps at once */
    WA_AWAIT(wa_all_init(&t->both, wa_sleep_init(&t->a, WA_MS(1)), wa_sleep_init(&t->b, WA_MS(2))));
    CHECK_EQ(WA_STATUS, 0);

    /* channel.h and scope.h: a child sends, the scope waits for it */
    if (wa_mpsc_new(1, sizeof(int), &t->tx, &t->rx) == 0) {
        wa_scope_init(&t->scope, cx->rt, WA_SCOPE_FAIL_FAST);
        sender s;
        wa_coro_init(&s.wa, &sender_vt);
        s.tx = t->tx; /* (moved into the child) */
        CHECK_EQ(check_scope_spawn_of(&t->scope, &s, NULL), 0);
        WA_AWAIT(wa_scope_wait(&t->scope));
        CHECK_EQ(WA_STATUS, 0);
        int v = 0;
        CHECK_EQ(wa_rx_try_recv(&t->rx, &v), 0);
        CHECK_EQ(v, 7);
        wa_rx_drop(&t->rx);
    } else {
        CHECK(!"wa_mpsc_new");
    }

    /* join_set.h: a task that yields once, joined */
    wa_join_set_init(&t->set, cx->rt);
    wa_yield y;
    wa_yield_init(&y);
    CHECK_EQ(wa_join_set_spawn_of(&t->set, &y), 0);
    WA_AWAIT(wa_join_next_init(&t->next, &t->set));
    CHECK_EQ(WA_STATUS, 0);
    CHECK_EQ(t->next.status, 0);
    wa_join_set_drop(&t->set);

    /* sync.h: a permit */
    wa_sem_init(&t->sem, 1);
    WA_AWAIT(wa_acquire_init(&t->acq, &t->sem, 1));
    CHECK_EQ(WA_STATUS, 0);
    CHECK_EQ(wa_acquire_release(&t->acq), 0);
    /* a write lock, and a barrier of one: its leader */
    wa_rwlock_init(&t->rw);
    WA_AWAIT(wa_write_lock_init(&t->acq, &t->rw));
    CHECK_EQ(WA_STATUS, 0);
    CHECK_EQ(wa_acquire_release(&t->acq), 0);
    wa_barrier_init(&t->bar, 1);
    WA_AWAIT(wa_barrier_wait_init(&t->bw, &t->bar));
    CHECK(WA_STATUS == 0 && wa_barrier_wait_is_leader(&t->bw));

    /* channel.h: a broadcast's element, a watch's change */
    if (wa_broadcast_new(2, sizeof(int), &t->btx, &t->brx) == 0) {
        t->v = 5;
        CHECK_EQ(wa_broadcast_tx_send(&t->btx, &t->v), 1);
        wa_broadcast_tx_drop(&t->btx);
        t->v = 0;
        WA_AWAIT(wa_broadcast_recv_init(&t->brecv, &t->brx, &t->v));
        CHECK(WA_STATUS == 0 && t->v == 5);
        wa_broadcast_rx_drop(&t->brx);
    } else {
        CHECK(!"wa_broadcast_new");
    }
    t->v = 1;
    if (wa_watch_new(sizeof(int), &t->v, &t->wtx, &t->wrx) == 0) {
        t->v = 2;
        CHECK_EQ(wa_watch_tx_send(&t->wtx, &t->v), 1);
        wa_watch_tx_drop(&t->wtx);
        t->v = 0;
        WA_AWAIT(wa_watch_changed_init(&t->changed, &t->wrx, &t->v));
        CHECK(WA_STATUS == 0 && t->v == 2);
        wa_watch_rx_drop(&t->wrx);
    } else {
        CHECK(!"wa_watch_new");
    }

    /* runtime.h: a task-local value */
    static const wa_task_local key = {NULL};
    CHECK_EQ(wa_task_local_set(&key, t), 0);
    CHECK(wa_task_local_get(&key) == t);

    /* stream.h: four bytes through a pipe; a line and two bytes through a
     * reader */
    if (wa_pipe_new(16, &t->r, &t->w) == 0) {
        WA_AWAIT(wa_write_init(&t->write, t->w, "ping", 4));
        CHECK_EQ(WA_STATUS, 0);
        WA_AWAIT(wa_read_init(&t->read, t->r, t->buf, sizeof t->buf));
        CHECK_EQ(WA_STATUS, 0);
        CHECK(t->read.n == 4 && memcmp(t->buf, "ping", 4) == 0);
        WA_AWAIT(wa_write_init(&t->write, t->w, "a\nbc", 4));
        CHECK_EQ(WA_STATUS, 0);
        wa_reader_init(&t->rd, t->r, t->rbuf, sizeof t->rbuf);
        WA_AWAIT(wa_read_until_init(&t->line, &t->rd, '\n', 0));
        CHECK(WA_STATUS == 0 && t->line.len == 2 && memcmp(t->line.line, "a\n", 2) == 0);
        WA_AWAIT(wa_read_exact_init(&t->exact, &t->rd, t->buf, 2));
        CHECK(WA_STATUS == 0 && memcmp(t->buf, "bc", 2) == 0);
        wa_stream_close(&t->r);
        wa_stream_close(&t->w);
    } else {
        CHECK(!"wa_pipe_new");
    }

#if HAS_NET
    /* net.h: a listener on a free port */
    WA_AWAIT(wa_tcp_listen_init(&t->listen, cx->rt, "127.0.0.1", 0));
    CHECK_EQ(WA_STATUS, 0);
    if (WA_STATUS == 0) {
        CHECK(wa_tcp_port(t->listen.listener) != 0);
        CHECK_EQ(wa_tcp_close(&t->listen.listener), 0);
    }
    /* udp.h: a socket on a free port */
    WA_AWAIT(wa_udp_bind_init(&t->bind, cx->rt, "127.0.0.1", 0));
    CHECK_EQ(WA_STATUS, 0);
    if (WA_STATUS == 0) {
        CHECK(wa_udp_port(t->bind.udp) != 0);
        CHECK_EQ(wa_udp_close(&t->bind.udp), 0);
    }
#endif
#if HAS_HTTP_CLIENT
    /* http.h: a URL refused before anything is sent (no network needed) */
    t->req = (wa_http_request){.url = "http://a b/"};
    WA_AWAIT(wa_http_fetch_init(&t->fetch, &t->req, 16));
    CHECK_EQ(WA_STATUS, WA_EINVAL);
#endif
    WA_RETURN(0);
    WA_END();
}
static void all_drop(wa_future *f)
{
    all *t = (all *)f;
    if (t->r)
        wa_stream_close(&t->r);
    if (t->w)
        wa_stream_close(&t->w);
    if (t->set.rt)
        wa_join_set_drop(&t->set);
    wa_coro_drop(f);
}
static const wa_future_vt all_vt = {all_poll, all_drop, "all_headers"};

/* What needs no runtime, or a runtime of its own. */
static void test_plain(void)
{
    /* version.h (macros only) and error.h */
    CHECK(strlen(WASYNC_VERSION_STRING) > 0);
    CHECK(strcmp(wa_strerror(WA_ETIMEDOUT), wa_strerror(WA_EINVAL)) != 0);
    /* backend.h: a runtime on the sim backend */
    wa_rt *sim = check_sim_rt(0);
    REQUIRE(sim);
    CHECK_RT_EMPTY_FREE(sim);
}

/* The host's own header, given the host's runtime. */
static void host_calls(wa_rt *rt)
{
#if defined(WASYNC_HOST_NATIVE) && defined(__linux__)
    /* thread.h */
    wa_remote *r = NULL;
    CHECK_EQ(wa_remote_new(rt, &r), 0);
    wa_remote_drop(r);
    /* signals.h: a watch opened and closed */
    wa_signals *s = NULL;
    int rc = wa_signals_open(rt, WA_SIGNAL_HUP, &s);
    CHECK_EQ(rc, 0);
    if (rc == 0)
        CHECK_EQ(wa_signals_close(&s), 0);
#elif defined(WASYNC_HOST_WASIP2)
    /* wasi.h */
    wa_wasip2_stats st;
    CHECK_EQ(wa_wasip2_stats_get(rt, &st), 0);
#elif defined(WASYNC_HOST_WASIP3)
    /* component.h */
    wa_wasip3_stats st;
    CHECK_EQ(wa_wasip3_stats_get(rt, &st), 0);
#elif defined(WASYNC_HOST_JS)
    /* js.h */
    CHECK(wa_js_rt() == rt);
#elif defined(WASYNC_HOST_WASIP1)
    /* backend.h's WASI 0.1 part: a second runtime on its backend */
    (void)rt;
    wa_rt *other = NULL;
    REQUIRE(wa_rt_new_on(&other, wa_backend_wasip1_new(NULL)) == 0);
    CHECK_RT_EMPTY_FREE(other);
#else
    (void)rt;
#endif
}

static all *new_all(void)
{
    all *t = calloc(1, sizeof *t);
    if (t)
        wa_coro_init(&t->wa, &all_vt);
    return t;
}

#if defined(WASYNC_HOST_JS)
/* run(call): the calls on the module's runtime (the glue drives it), then
 * the closing line; call fails (WA_EIO) if a check did. */
typedef struct runner {
    WA_CORO;
    uint32_t call;
    all *t;
} runner;
static int runner_poll(wa_future *f, wa_cx *cx)
{
    runner *r = (runner *)f;
    WA_BEGIN(r, cx);
    WA_AWAIT(&r->t->wa.fut);
    CHECK_EQ(WA_STATUS, 0);
    free(r->t);
    r->t = NULL;
    host_calls(cx->rt);
    wa_js_settle(r->call, check_finish() ? WA_EIO : 0, NULL, 0, 0);
    WA_RETURN(0);
    WA_END();
}
static void runner_drop(wa_future *f)
{
    free(((runner *)f)->t);
    wa_coro_drop(f);
}
static const wa_future_vt runner_vt = {runner_poll, runner_drop, "run"};

__attribute__((export_name("run"))) int run(uint32_t call)
{
    RUN(test_plain);
    runner r;
    wa_coro_init(&r.wa, &runner_vt);
    r.call = call;
    r.t = new_all();
    if (!r.t)
        return WA_ENOMEM;
    int rc = wa_spawn_of(wa_js_rt(), &r, NULL);
    if (rc < 0)
        wa_drop(&r.wa.fut);
    return rc;
}
#else
static void test_all(void)
{
    wa_rt *rt = NULL;
    REQUIRE(wa_rt_new(&rt) == 0);
    all *t = new_all();
    REQUIRE_OR(t, wa_rt_free(rt));
    CHECK_EQ(wa_block_on(rt, &t->wa.fut), 0);
    free(t);
    host_calls(rt);
    CHECK_RT_EMPTY_FREE(rt);
}

int main(void)
{
    RUN(test_plain);
    RUN(test_all);
    return check_finish();
}
#endif
