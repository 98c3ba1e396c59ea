/* SPDX-License-Identifier: MIT */
/* The bind, send and receive futures and the socket of every host's UDP
 * (see udp.h): arguments are checked and sockets live and die here, the
 * same everywhere, and the host's ops (wa__udp_host) do the datagrams. A
 * socket is kept alive by a send or a receive in flight, and has one
 * receive at a time. */
#include <stdlib.h>

#include "../core/handles.h"
#include "../core/rt.h"
#include "ip.h"
#include "udp.h"

/* The head of socket u (every host's socket begins with it). */
static wa__udp_head *wa__udp_head_of(wa_udp *u) { return (wa__udp_head *)(void *)u; }

/* Returns a new socket on rt (the handle's reference; the host fills in
 * the rest), or NULL without memory. */
static wa_udp *wa__udp_new(wa_rt *rt, int v6)
{
    wa__udp_head *u = calloc(1, wa__udp_host.size);
    if (!u || wa__handle_new(u, WA__HANDLE_UDP, &u->h) < 0) {
        free(u);
        return NULL;
    }
    u->rt = rt;
    u->refs = 1;
    u->v6 = v6;
    return (wa_udp *)(void *)u;
}

/* Frees u, a new socket never handed out (a bind that failed). */
static void wa__udp_discard(wa_udp *u)
{
    wa__handle_release(wa__udp_head_of(u)->h);
    free(u);
}

/* The socket of handle h, or NULL (NULL, or closed: through this copy of
 * the handle or another). */
static wa_udp *wa__udp_at(const wa_udp *h) { return wa__handle_get((uintptr_t)h, WA__HANDLE_UDP); }

static void wa__udp_unref(wa_udp *u)
{
    if (--wa__udp_head_of(u)->refs == 0)
        free(u);
}

int wa_udp_close(wa_udp **up)
{
    wa_udp *u = up ? wa__udp_at(*up) : NULL;
    if (up)
        *up = NULL;
    if (!u)
        return wa_misuse(WA_EMISUSE, "wa_udp_close: a socket closed already (through this copy of the handle or another), or NULL");
    wa__handle_release(wa__udp_head_of(u)->h); /* every copy of the handle goes stale */
    wa__udp_head_of(u)->closed = 1;
    wa__udp_host.close(u);
    wa__udp_unref(u);
    return 0;
}

const char *wa_udp_op_reason(const wa_udp_op *op) { return op->reason; }

uint16_t wa_udp_port(const wa_udp *h)
{
    wa_udp *u = wa__udp_at(h);
    if (!u) {
        wa_misuse(WA_EMISUSE, "wa_udp_port: a closed (or NULL) socket");
        return 0;
    }
    return wa__udp_head_of(u)->port;
}

/* Starts op as a future of vt on socket u (an op's reference to it, or
 * NULL), fields zero but the host's "none" values. */
static wa_future *wa__udp_op_begin(wa_udp_op *op, const wa_future_vt *vt, wa_rt *rt, wa_udp *u)
{
    *op = (wa_udp_op){.fut = {vt}, .rt = rt, .udp = u};
    if (u)
        wa__udp_head_of(u)->refs++;
    if (wa__udp_host.none)
        wa__udp_host.none(op);
    return &op->fut;
}

/* bind: a new socket, held in op->udp while the host works on it; the
 * user gets its handle (WA__UDP_BOUND) or an error. Polled after its end
 * is misuse (a host would bind a second socket, the first one's handle
 * lost). */
static int wa__udp_bind_poll(wa_future *f, wa_cx *cx)
{
    wa_udp_op *op = (wa_udp_op *)f;
    if (op->step == WA__UDP_BOUND)
        return wa_misuse(WA_EMISUSE, "wa_udp_bind_init: polled after its end (its socket is in op->udp)");
    if (op->step < 0)
        return WA_EINVAL;
    if (!op->udp && !(op->udp = wa__udp_new(op->rt, op->ip.v6)))
        return WA_ENOMEM;
    int rc = wa__udp_host.bind(op, op->udp, cx);
    if (rc == WA_PENDING)
        return rc;
    if (rc < 0) {
        wa__udp_discard(op->udp);
        op->udp = NULL;
    } else {
        op->udp = (wa_udp *)wa__udp_head_of(op->udp)->h;
        op->step = WA__UDP_BOUND;
    }
    return rc;
}

static void wa__udp_bind_drop(wa_future *f)
{
    wa_udp_op *op = (wa_udp_op *)f;
    if (wa__udp_host.release)
        wa__udp_host.release(op);
    if (op->udp && op->step != WA__UDP_BOUND) { /* dropped while binding */
        wa__udp_discard(op->udp);
        op->udp = NULL;
    }
}

static const wa_future_vt wa__udp_bind_vt = {wa__udp_bind_poll, wa__udp_bind_drop, "udp_bind"};

wa_future *wa_udp_bind_init(wa_udp_op *op, wa_rt *rt, const char *ip, uint16_t port)
{
    wa__udp_op_begin(op, &wa__udp_bind_vt, rt, NULL);
    op->port = port;
    if (wa__ip_parse(ip, &op->ip) < 0)
        op->step = WA__UDP_BAD;
    else
        wa__ip_unmap(&op->ip);
    return &op->fut;
}

/* A send or a receive lets go of its host's part (by release), its turn
 * to receive and its socket (again: nothing). */
static void wa__udp_io_end(wa_udp_op *op, void (*release)(wa_udp_op *op))
{
    if (!op->udp)
        return;
    wa__udp_head *u = wa__udp_head_of(op->udp);
    release(op);
    if (u->receiving == op)
        u->receiving = NULL;
    wa__udp_unref(op->udp);
    op->udp = NULL;
}

static void wa__udp_send_drop(wa_future *f) { wa__udp_io_end((wa_udp_op *)f, wa__udp_host.send_release); }

static void wa__udp_recv_drop(wa_future *f) { wa__udp_io_end((wa_udp_op *)f, wa__udp_host.recv_release); }

/* The checks every send and receive poll makes: 0 to go on to the host,
 * or the op's end. */
static int wa__udp_io_check(wa_udp_op *op, const char *call)
{
    if (!op->udp)
        return wa__misuse_in(WA_EMISUSE, call, "no socket (NULL, or closed through a copy of the handle), or polled after its end");
    return wa__udp_head_of(op->udp)->closed ? WA_ECLOSED : op->step == WA__UDP_BAD ? WA_EINVAL : 0;
}

static int wa__udp_send_poll(wa_future *f, wa_cx *cx)
{
    wa_udp_op *op = (wa_udp_op *)f;
    int rc = wa__udp_io_check(op, "wa_udp_send_to_init");
    if (rc == 0)
        rc = wa__udp_host.send(op, cx);
    if (rc != WA_PENDING)
        wa__udp_send_drop(f);
    return rc;
}

static const wa_future_vt wa__udp_send_vt = {wa__udp_send_poll, wa__udp_send_drop, "udp_send_to"};

/* The peer is checked at once (its family is the socket's), but reported
 * at the first poll, as every other error. */
wa_future *wa_udp_send_to_init(wa_udp_op *op, wa_udp *h, const void *data, size_t len, const wa_ip *ip, uint16_t port)
{
    wa_udp *u = wa__udp_at(h);
    wa__udp_op_begin(op, &wa__udp_send_vt, u ? wa__udp_head_of(u)->rt : NULL, u);
    op->data = data;
    op->len = len;
    op->port = port;
    if (ip) {
        op->ip = *ip;
        wa__ip_unmap(&op->ip);
    }
    if (!ip || !port || (u && op->ip.v6 != wa__udp_head_of(u)->v6))
        op->step = WA__UDP_BAD;
    return &op->fut;
}

static int wa__udp_recv_poll(wa_future *f, wa_cx *cx)
{
    wa_udp_op *op = (wa_udp_op *)f;
    int rc = wa__udp_io_check(op, "wa_udp_recv_from_init");
    if (rc == 0) {
        wa__udp_head *u = wa__udp_head_of(op->udp);
        if (u->receiving && u->receiving != op)
            rc = wa__misuse_in(WA_EBUSY, "wa_udp_recv_from_init", "a receive in flight on the socket already (one at a time)");
        else
            rc = wa__udp_host.recv((u->receiving = op), cx);
    }
    if (rc != WA_PENDING)
        wa__udp_recv_drop(f);
    return rc;
}

static const wa_future_vt wa__udp_recv_vt = {wa__udp_recv_poll, wa__udp_recv_drop, "udp_recv_from"};

wa_future *wa_udp_recv_from_init(wa_udp_op *op, wa_udp *h, void *buf, size_t len)
{
    wa_udp *u = wa__udp_at(h);
    wa__udp_op_begin(op, &wa__udp_recv_vt, u ? wa__udp_head_of(u)->rt : NULL, u);
    op->buf = buf;
    op->len = len;
    return &op->fut;
}
