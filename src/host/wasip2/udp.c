/* SPDX-License-Identifier: MIT */
/* UDP over wasi:sockets@0.2.12: a socket is bound in two steps (start-bind,
 * then finish-bind once its pollable says so), then stream(none) gives
 * its two datagram streams, each with a pollable registered for the
 * socket's life. A receive takes one datagram from the incoming stream,
 * a send asks check-send for room and sends one; either waits on its
 * stream's pollable when there is nothing or no room. These are the
 * operations (wa__udp_host) of the front end, src/io/udp.c, which makes
 * the futures and the socket.
 *
 * jco's preview2-shim (0.26) never makes the incoming stream's pollable
 * not ready again once a datagram came: a receive waiting on it would
 * find it ready at every turn and nothing to take, a busy spin (about
 * 3,000 host polls a second) until the next datagram. So a receive that
 * the pollable woke for nothing naps before it asks again, 1 ms, then
 * twice as long each time up to 16 ms: on a host whose pollable is right
 * (wasmtime) that never happens, with one receive at a time. */
#include "../../io/udp.h"
#include "sockets.h"
#include "wasync/time.h"

/* A socket: its socket and network handles, its datagram streams and
 * their pollables' registrations. */
struct wa_udp {
    wa__udp_head head;
    uint32_t sock, net, in, out;
    wa_pollable_key kin, kout;
};

/* The host part of an operation (wa_net_host): a bind's handles and its
 * socket's pollable (op->registered), and any op's wait (op->waiting): on
 * a pollable, or a receive's nap (napping), after a wake of the pollable
 * (polled) for nothing; naps, the naps so far. */
typedef struct wa__udp_part {
    uint32_t sock, net, in, out;
    wa_pollable_key key;
    union {
        wa_pollable_wait wait;
        wa_sleep nap;
    } u;
    uint8_t napping, polled, naps;
} wa__udp_part;

#define WA__UDP_NAPS_MAX 4 /* (16 ms) */
_Static_assert(sizeof(wa__udp_part) <= sizeof(wa_net_host) && _Alignof(wa__udp_part) <= _Alignof(wa_net_host),
               "wa_net_host too small");
#define WA__UDP_H(op) ((wa__udp_part *)(void *)&(op)->host)

static void wa__udp_op_none(wa_udp_op *op)
{
    wa__udp_part *h = WA__UDP_H(op);
    h->sock = h->net = h->in = h->out = WA_NO_HANDLE;
}

/* Polls the wait the op is in, if any: WA_PENDING, 0 (none, or it ended:
 * try again) or an error (WA_ECLOSED: the socket closed meanwhile). */
static wa_future *wa__udp_waiting(wa_udp_op *op)
{
    wa__udp_part *h = WA__UDP_H(op);
    return h->napping ? &h->u.nap.fut : &h->u.wait.fut;
}

static int wa__udp_waited(wa_udp_op *op, wa_cx *cx)
{
    return op->waiting ? wa_poll_held(wa__udp_waiting(op), &op->waiting, cx) : 0;
}

/* Starts a wait on key; polls it. */
static int wa__udp_wait(wa_udp_op *op, wa_pollable_key key, wa_cx *cx)
{
    wa__udp_part *h = WA__UDP_H(op);
    wa_pollable_wait_init(&h->u.wait, key);
    h->napping = 0;
    op->waiting = 1;
    return wa__udp_waited(op, cx);
}

/* A bind's release: its wait, its socket's pollable, then its streams,
 * socket and network (again: nothing). */
static void wa__udp_release(wa_udp_op *op)
{
    wa__udp_part *h = WA__UDP_H(op);
    wa_drop_held(&h->u.wait.fut, &op->waiting);
    if (op->registered) {
        wa_pollable_deregister(op->rt, h->key);
        op->registered = 0;
    }
    if (h->in != WA_NO_HANDLE)
        wa__wasip2_udp_in_drop(h->in);
    if (h->out != WA_NO_HANDLE)
        wa__wasip2_udp_out_drop(h->out);
    if (h->sock != WA_NO_HANDLE)
        wa__wasip2_udp_drop(h->sock);
    if (h->net != WA_NO_HANDLE)
        wa__wasip2_network_drop(h->net);
    wa__udp_op_none(op);
}

/* rc of the wasi:sockets call named call, its error-code op's reason. */
#define WA__SAID(op, call, rc) wa__wasip2_net_said((op)->reason, call, rc)

/* The steps of a bind: create, start-bind, finish-bind, stream. */
static int wa__udp_bind_step(wa_udp_op *op)
{
    wa__udp_part *h = WA__UDP_H(op);
    wa__wasip2_addr a = {.ip = op->ip, .port = op->port};
    switch (op->step) {
    case 0: h->net = wa__wasip2_instance_network(); return WA__SAID(op, "create-udp-socket", wa__wasip2_udp_create(op->ip.v6, &h->sock));
    case 1: return WA__SAID(op, "start-bind", wa__wasip2_udp_start_bind(h->sock, h->net, &a));
    case 2: return WA__SAID(op, "finish-bind", wa__wasip2_udp_finish_bind(h->sock));
    default: return WA__SAID(op, "stream", wa__wasip2_udp_stream(h->sock, &h->in, &h->out));
    }
}

/* bind: the steps, waiting on the socket's pollable when one would block;
 * then u takes the handles, with its streams' pollables registered. */
static int wa__udp_bind(wa_udp_op *op, wa_udp *u, wa_cx *cx)
{
    wa__udp_part *h = WA__UDP_H(op);
    int rc;
    while (op->step < 4) {
        if ((rc = wa__udp_waited(op, cx)) != 0)
            return rc == WA_PENDING ? rc : (wa__udp_release(op), rc);
        rc = wa__udp_bind_step(op);
        if (rc == 0) {
            op->step++;
            continue;
        }
        if (rc != WA_EAGAIN)
            return wa__udp_release(op), rc;
        if (!op->registered) {
            if ((rc = wa_pollable_register(op->rt, wa__wasip2_udp_subscribe(h->sock), &h->key)) < 0)
                return wa__udp_release(op), rc;
            op->registered = 1;
        }
        wa_pollable_wait_init(&h->u.wait, h->key);
        op->waiting = 1;
    }
    wa__wasip2_addr a;
    if ((rc = wa__wasip2_udp_local_address(h->sock, &a)) < 0 ||
        (rc = wa_pollable_register(op->rt, wa__wasip2_udp_in_subscribe(h->in), &u->kin)) < 0)
        return wa__udp_release(op), rc;
    if ((rc = wa_pollable_register(op->rt, wa__wasip2_udp_out_subscribe(h->out), &u->kout)) < 0) {
        wa_pollable_deregister(op->rt, u->kin);
        return wa__udp_release(op), rc;
    }
    u->head.port = a.port;
    u->sock = h->sock, u->net = h->net, u->in = h->in, u->out = h->out;
    wa__udp_op_none(op); /* all of it is u's now, but the socket's pollable */
    wa__udp_release(op);
    return 0;
}

static int wa__udp_send(wa_udp_op *op, wa_cx *cx)
{
    wa__wasip2_addr to = {.ip = op->ip, .port = op->port};
    int rc;
    while ((rc = wa__udp_waited(op, cx)) == 0) {
        uint64_t room;
        if ((rc = WA__SAID(op, "check-send", wa__wasip2_udp_check_send(op->udp->out, &room))) < 0)
            return rc;
        if (room && (rc = WA__SAID(op, "send", wa__wasip2_udp_send(op->udp->out, op->data, op->len, &to))) != 0)
            return rc < 0 ? rc : 0;
        if ((rc = wa__udp_wait(op, op->udp->kout, cx)) != 0)
            return rc;
    }
    return rc;
}

/* receive: when nothing is there, waits on the pollable, or naps if the
 * pollable woke it for nothing (jco's, above). */
static int wa__udp_recv(wa_udp_op *op, wa_cx *cx)
{
    wa__udp_part *h = WA__UDP_H(op);
    wa__wasip2_addr from;
    int rc;
    while ((rc = wa__udp_waited(op, cx)) == 0) {
        if ((rc = WA__SAID(op, "receive", wa__wasip2_udp_receive(op->udp->in, op->buf, op->len, &op->n, &from))) != 0) {
            if (rc < 0)
                return rc;
            op->ip = from.ip; /* (written by a datagram alone) */
            op->port = from.port;
            return 0;
        }
        if (!(h->polled = !h->polled)) {
            wa_sleep_init(&h->u.nap, WA_MS(1) << h->naps);
            h->naps += h->naps < WA__UDP_NAPS_MAX;
            h->napping = op->waiting = 1;
        } else if ((rc = wa__udp_wait(op, op->udp->kin, cx)) != 0) {
            return rc;
        }
    }
    return rc;
}

/* A send's or a receive's release: its wait. */
static void wa__udp_io_release(wa_udp_op *op) { wa_drop_held(wa__udp_waiting(op), &op->waiting); }

/* The pollables go first (their deregistrations wake the ops waiting),
 * then the streams, then the socket they came from. */
static void wa__udp_release_socket(wa_udp *u)
{
    wa_pollable_deregister(u->head.rt, u->kin);
    wa_pollable_deregister(u->head.rt, u->kout);
    wa__wasip2_udp_in_drop(u->in);
    wa__wasip2_udp_out_drop(u->out);
    wa__wasip2_udp_drop(u->sock);
    wa__wasip2_network_drop(u->net);
}

const wa__udp_ops wa__udp_host = {
    .size = sizeof(wa_udp),
    .none = wa__udp_op_none,
    .bind = wa__udp_bind,
    .send = wa__udp_send,
    .recv = wa__udp_recv,
    .release = wa__udp_release,
    .send_release = wa__udp_io_release,
    .recv_release = wa__udp_io_release,
    .close = wa__udp_release_socket,
};
