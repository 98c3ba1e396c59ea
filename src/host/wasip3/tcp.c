/* SPDX-License-Identifier: MIT */
/* TCP over wasi:sockets@0.3.0. Listening is synchronous (create, bind,
 * listen); the listener's connections come as a stream<tcp-socket>, read
 * one socket at a time by whichever accept runs: the read is the
 * listener's, so an accept dropped while it is BLOCKED leaves it to the
 * next, and only the close cancels it. One accept at a time waits on the
 * stream's registration (a cancel needs the end out of the set, and the
 * waiter's wait says whether the event came); others wait for their turn.
 * connect is an async func: a wa_subtask over the call, which holds its
 * area (arguments and result: kept from the host past a cancel,
 * subtask.c). A connection is a wasync stream over receive's
 * stream<u8> and the writable end of one given to send, whose end is the
 * half-close; keep-alive is the socket's methods, and wasi:sockets has no
 * TCP_NODELAY. These are the
 * operations (wa__tcp_host) of the front end, src/io/tcp.c, which makes
 * the futures and the listener. */
#include <stdlib.h>

#include "../../io/tcp.h"
#include "reactor.h"
#include "sockets.h"
#include "stream.h"
#include "wasync/component.h"
#include "wasync/sync.h"

/* The listener's read. */
enum { WA__TCP_P3_IDLE, WA__TCP_P3_BLOCKED, WA__TCP_P3_DONE, WA__TCP_P3_ENDED };

/* A listener: the socket and the readable end of its stream<tcp-socket>,
 * whose read is the listener's (above). */
struct wa_tcp {
    wa__tcp_head head;
    uint32_t sock, accepts;
    uint64_t key;      /* accepts' registration (a wa_waitable_key) */
    int reading;       /* the read's state (below) */
    uint32_t got;      /* its buffer: one socket */
    wa_tcp_op *waiter; /* the accept waiting on the registration, or NULL */
    wa_notify turn;    /* ...and the others wait for their turn here */
};

/* The host part of an operation (wa_net_host): an accept's wait (op->waiting
 * 1: on the registration, 2: for its turn), or a connect's call. */
typedef struct wa__tcp_part {
    union {
        wa_waitable_wait wait;
        wa_notified turn;
        struct {
            wa_subtask call; /* its area: a wa__wasip3_connect_call */
            uint32_t sock;   /* 0: none */
        } c;
    } u;
} wa__tcp_part;
_Static_assert(sizeof(wa__tcp_part) <= sizeof(wa_net_host) && _Alignof(wa__tcp_part) <= _Alignof(wa_net_host),
               "wa_net_host too small");
#define WA__TCP_H(op) ((wa__tcp_part *)(void *)&(op)->host)

static wa_wasip3_stats *wa__tcp_stats(wa_rt *rt)
{
    static wa_wasip3_stats nowhere; /* (another backend: counted nowhere) */
    wa_wasip3_stats *st = wa__wasip3_stats_of(rt);
    return st ? st : &nowhere;
}

static void wa__tcp_drop_accepts(wa_tcp *l)
{
    wa__tcp_stats(l->head.rt)->end_drops++;
    wa__wasip3_live_ends--;
    wa__wasip3_tcp_sockets.drop_readable(l->accepts);
}

/* A new stream *conn over sock (taken): receive's stream and result, and
 * a new stream<u8> whose readable end goes to send. */
static int wa__tcp_conn_open(wa_rt *rt, uint32_t sock, wa_stream **conn)
{
    uint32_t in, in_result;
    wa__wasip3_tcp_receive(sock, &in, &in_result);
    uint64_t ends = wa_wasip3_cli_bytes.new_();
    wa__wasip3_live_ends += 2;
    uint32_t sent = wa__wasip3_tcp_send(sock, (uint32_t)ends);
    return wa__stream_handle(wa__wasip3_stream_open_owned(rt, &wa_wasip3_cli_bytes, in, (uint32_t)(ends >> 32),
                                                         &wa__wasip3_tcp_result, (uint32_t[2]){in_result, sent},
                                                         wa__wasip3_tcp_result_error, sock, wa__wasip3_tcp_drop, conn),
                             conn);
}

/* rc of the wasi:sockets call named call, its error-code op's reason. */
#define WA__SAID(op, call, rc) wa__wasip3_net_said((op)->reason, call, rc)

/* listen, at once: gives l a socket, bound and listening, and its accepts
 * registered. */
static int wa__tcp_listen(wa_tcp_op *op, wa_tcp *l, wa_cx *cx)
{
    int rc = WA__SAID(op, "create", wa__wasip3_tcp_create(op->ip.v6, &l->sock));
    (void)cx;
    if (rc < 0)
        return rc;
    if ((rc = WA__SAID(op, "bind", wa__wasip3_tcp_bind(l->sock, &op->ip, op->port))) == 0 &&
        (rc = WA__SAID(op, "listen", wa__wasip3_tcp_listen(l->sock, &l->accepts))) == 0 &&
        (rc = WA__SAID(op, "get-local-address", wa__wasip3_tcp_local_port(l->sock, &l->head.port))) == 0 &&
        (rc = wa_waitable_register(op->rt, l->accepts, &l->key)) == 0) { /* (WA_ENOSYS on sim) */
        wa_notify_init(&l->turn);
        return 0;
    }
    if (l->accepts)
        wa__tcp_drop_accepts(l);
    wa__wasip3_tcp_drop(l->sock);
    return rc;
}

/* The accept waiting on the registration cancels nothing: the read stays
 * the listener's. Its event came if its wait says so (taken or not). */
static void wa__tcp_release_socket(wa_tcp *l)
{
    wa_wasip3_stats *st = wa__tcp_stats(l->head.rt);
    uint32_t r = 0;
    if (l->reading == WA__TCP_P3_BLOCKED && l->waiter && WA__TCP_H(l->waiter)->u.wait.ready)
        l->reading = WA__TCP_P3_DONE;
    if (l->reading == WA__TCP_P3_DONE)
        wa_waitable_payload(l->head.rt, l->key, &r);
    wa_waitable_deregister(l->head.rt, l->key); /* wakes the waiter; out of the set */
    wa_notify_all(&l->turn);                    /* and the others */
    if (l->reading == WA__TCP_P3_BLOCKED) {
        st->copy_cancels++;
        r = wa__wasip3_tcp_sockets.cancel_read(l->accepts);
    }
    l->reading = WA__TCP_P3_IDLE;
    if (wa__wasip3_copy_count(r)) { /* a connection nobody will take */
        wa__wasip3_resources++;
        wa__wasip3_tcp_drop(l->got);
    }
    wa__tcp_drop_accepts(l);
    wa__wasip3_tcp_drop(l->sock);
}

/* Ends op's wait: the registration's passes the turn on, and marks the
 * read DONE if its event came. */
static void wa__tcp_accept_leave(wa_tcp_op *op)
{
    wa_tcp *l = op->listener;
    wa__tcp_part *h = WA__TCP_H(op);
    if (op->waiting == 1) {
        if (h->u.wait.ready && l->reading == WA__TCP_P3_BLOCKED)
            l->reading = WA__TCP_P3_DONE;
        wa_drop(&h->u.wait.fut);
        l->waiter = NULL;
        wa_notify_all(&l->turn);
    } else if (op->waiting == 2) {
        wa_drop(&h->u.turn.fut);
    }
    op->waiting = 0;
}

/* The read's result r: a connection, WA_EAGAIN (none came), or the end
 * of the listener's stream (the host gave up on it: WA_EIO). */
static int wa__tcp_took(wa_tcp_op *op, uint32_t r)
{
    wa_tcp *l = op->listener;
    l->reading = wa__wasip3_copy_status(r) == WA__WASIP3_COPY_DROPPED ? WA__TCP_P3_ENDED : WA__TCP_P3_IDLE;
    if (wa__wasip3_copy_count(r)) {
        wa__wasip3_resources++; /* taken */
        return wa__tcp_conn_open(op->rt, l->got, &op->conn);
    }
    return l->reading == WA__TCP_P3_ENDED ? WA_EIO : WA_EAGAIN;
}

static int wa__tcp_accept(wa_tcp_op *op, wa_cx *cx)
{
    wa_tcp *l = op->listener;
    wa__tcp_part *h = WA__TCP_H(op);
    for (;;) {
        int rc;
        uint32_t r;
        if (op->waiting) {
            rc = wa_poll(op->waiting == 1 ? &h->u.wait.fut : &h->u.turn.fut, cx);
            if (rc == WA_PENDING)
                return rc;
            wa__tcp_accept_leave(op);
            if (rc < 0)
                return rc;
        }
        switch (l->reading) {
        case WA__TCP_P3_ENDED:
            return WA_EIO;
        case WA__TCP_P3_DONE:
            wa_waitable_payload(op->rt, l->key, &r);
            if ((rc = wa__tcp_took(op, r)) != WA_EAGAIN)
                return rc;
            continue;
        case WA__TCP_P3_IDLE: {
            wa_wasip3_stats *st = wa__tcp_stats(op->rt);
            st->copies++;
            r = wa__wasip3_tcp_sockets.read(l->accepts, &l->got, 1);
            if (r != WA__WASIP3_BLOCKED) {
                if ((rc = wa__tcp_took(op, r)) != WA_EAGAIN)
                    return rc;
                continue;
            }
            st->copies_blocked++;
            l->reading = WA__TCP_P3_BLOCKED;
            break;
        }
        }
        if (!l->waiter) {
            l->waiter = op;
            wa_waitable_wait_init(&h->u.wait, l->key);
            op->waiting = 1;
        } else {
            wa_notified_init(&h->u.turn, &l->turn);
            op->waiting = 2;
        }
    }
}

/* A connect's release (a listen's too: it holds nothing). A call dropped
 * after it returned wrote its result: its error's string is freed. */
static void wa__tcp_connect_drop(wa_tcp_op *op)
{
    wa__tcp_part *h = WA__TCP_H(op);
    if (op->waiting) {
        wa_drop(&h->u.c.call.fut);
        op->waiting = 0;
        if (h->u.c.call.state == WA_SUBTASK_RETURNED)
            wa__wasip3_tcp_connect_result(h->u.c.call.area);
    }
    wa_subtask_area_free(h->u.c.call.area); /* (NULL if kept from the host) */
    h->u.c.call.area = NULL;
    if (h->u.c.sock) {
        wa__wasip3_tcp_drop(h->u.c.sock);
        h->u.c.sock = 0;
    }
}

/* connect: create, then the async call; its socket is the stream's after. */
static int wa__tcp_connect(wa_tcp_op *op, wa_cx *cx)
{
    wa__tcp_part *h = WA__TCP_H(op);
    int rc;
    if (op->step == 0) {
        wa__wasip3_connect_call *area = wa_subtask_area_new(sizeof *area, wa__wasip3_tcp_connect_late);
        if (!area)
            return WA_ENOMEM;
        if ((rc = WA__SAID(op, "create", wa__wasip3_tcp_create(op->ip.v6, &h->u.c.sock))) < 0) {
            wa_subtask_area_free(area);
            return rc;
        }
        wa__tcp_stats(op->rt)->async_calls++;
        wa_subtask_init_area(&h->u.c.call, wa__wasip3_tcp_connect(area, h->u.c.sock, &op->ip, op->port), area);
        op->waiting = 1;
        op->step = 1;
    }
    rc = wa_poll_held(&h->u.c.call.fut, &op->waiting, cx);
    if (rc == WA_PENDING)
        return rc;
    if (rc == 0 && (rc = WA__SAID(op, "connect", wa__wasip3_tcp_connect_result(h->u.c.call.area))) == 0) {
        rc = wa__tcp_conn_open(op->rt, h->u.c.sock, &op->conn);
        h->u.c.sock = 0;
    }
    wa__tcp_connect_drop(op);
    return rc;
}

static bool wa__tcp_is_conn(wa_stream *s) { return wa__wasip3_stream_owner(s, wa__wasip3_tcp_drop) != 0; }

static int wa__tcp_nodelay(wa_stream *s, bool on)
{
    (void)s, (void)on;
    return WA_ENOSYS;
}

static int wa__tcp_keepalive(wa_stream *s, bool on, unsigned idle_s)
{
    uint32_t sock = wa__wasip3_stream_owner(s, wa__wasip3_tcp_drop);
    int rc = wa__wasip3_tcp_set_keep_alive(sock, on);
    if (rc == 0 && on && idle_s)
        rc = wa__wasip3_tcp_set_keep_alive_idle(sock, (uint64_t)idle_s * 1000000000u);
    return rc;
}

/* 0.3 has no shutdown: the end of the stream given to send is one. */
static int wa__tcp_shutdown_write(wa_stream *s)
{
    wa__wasip3_stream_end_write(s);
    return 0;
}

const wa__tcp_ops wa__tcp_host = {
    .size = sizeof(wa_tcp),
    .listen = wa__tcp_listen,
    .accept = wa__tcp_accept,
    .connect = wa__tcp_connect,
    .release = wa__tcp_connect_drop,
    .accept_release = wa__tcp_accept_leave,
    .close = wa__tcp_release_socket,
    .is_conn = wa__tcp_is_conn,
    .nodelay = wa__tcp_nodelay,
    .keepalive = wa__tcp_keepalive,
    .shutdown_write = wa__tcp_shutdown_write,
};
