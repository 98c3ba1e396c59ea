/* SPDX-License-Identifier: MIT */
/* TCP over wasi:sockets: each step is start-X then finish-X, retried after
 * the socket's pollable (registered once per socket) says it may proceed.
 * A socket is IPv4 or IPv6 as its address is. */
#include <stdlib.h>

#include "../../io/tcp.h"
#include "sockets.h"
#include "stream.h"

/* The host part of an operation (wa_net_host): its socket and network
 * handles, the pollable's registration and the wait on it. */
typedef struct wa_tcp_host {
    uint32_t sock, net;
    wa_pollable_key key;
    wa_pollable_wait wait;
} wa_tcp_host;
_Static_assert(sizeof(wa_tcp_host) <= sizeof(wa_net_host) && _Alignof(wa_tcp_host) <= _Alignof(wa_net_host),
               "wa_net_host too small");
#define WA_TCP_H(op) ((wa_tcp_host *)(void *)&(op)->host)

/* Awaits the socket's pollable after a would-block: 1 retry now, 0
 * pending, < 0 an error. */
static int wa_tcp_await(wa_tcp_op *op, wa_cx *cx)
{
    if (!op->registered) {
        int rc = wa_pollable_register(op->rt, wa_p2_tcp_subscribe(WA_TCP_H(op)->sock), &WA_TCP_H(op)->key);
        if (rc < 0)
            return rc;
        op->registered = 1;
    }
    if (!op->waiting) {
        wa_pollable_wait_init(&WA_TCP_H(op)->wait, WA_TCP_H(op)->key);
        op->waiting = 1;
    }
    int rc = wa_poll_held(&WA_TCP_H(op)->wait.fut, &op->waiting, cx);
    return rc == WA_PENDING ? 0 : rc < 0 ? rc : 1;
}

/* Runs the step function until it finishes, awaiting the pollable when it
 * would block. */
static int wa_tcp_drive(wa_tcp_op *op, wa_cx *cx, int (*step)(wa_tcp_op *))
{
    for (;;) {
        if (op->waiting) {
            int w = wa_tcp_await(op, cx);
            if (w <= 0)
                return w == 0 ? WA_PENDING : w;
        }
        int rc = step(op);
        if (rc != WA_EAGAIN)
            return rc;
        int w = wa_tcp_await(op, cx);
        if (w <= 0)
            return w == 0 ? WA_PENDING : w;
    }
}

static void wa_tcp_op_release(wa_tcp_op *op, int drop_socket)
{
    wa_drop_held(&WA_TCP_H(op)->wait.fut, &op->waiting);
    if (op->registered && drop_socket) {
        wa_pollable_deregister(op->rt, WA_TCP_H(op)->key);
        op->registered = 0;
    }
    if (drop_socket && WA_TCP_H(op)->sock != WA_NO_HANDLE) {
        wa_p2_tcp_drop(WA_TCP_H(op)->sock);
        WA_TCP_H(op)->sock = WA_NO_HANDLE;
    }
    if (WA_TCP_H(op)->net != WA_NO_HANDLE) {
        wa_p2_network_drop(WA_TCP_H(op)->net);
        WA_TCP_H(op)->net = WA_NO_HANDLE;
    }
}

static int wa_tcp_begin(wa_tcp_op *op)
{
    WA_TCP_H(op)->net = wa_p2_instance_network();
    return wa_p2_tcp_create(op->ip.v6, &WA_TCP_H(op)->sock);
}

static wa_p2_addr wa_tcp_addr(const wa_tcp_op *op) { return (wa_p2_addr){.ip = op->ip, .port = op->port}; }

/* listen: create, start-bind, finish-bind, start-listen, finish-listen */
static int wa_tcp_listen_step(wa_tcp_op *op)
{
    int rc = 0;
    wa_p2_addr a = wa_tcp_addr(op);
    switch (op->step) {
    case 0: rc = wa_tcp_begin(op); break;
    case 1: rc = wa_p2_tcp_start_bind(WA_TCP_H(op)->sock, WA_TCP_H(op)->net, &a); break;
    case 2: rc = wa_p2_tcp_finish_bind(WA_TCP_H(op)->sock); break;
    case 3: rc = wa_p2_tcp_start_listen(WA_TCP_H(op)->sock); break;
    case 4: rc = wa_p2_tcp_finish_listen(WA_TCP_H(op)->sock); break;
    default: return 0;
    }
    if (rc == 0 && ++op->step <= 4)
        return wa_tcp_listen_step(op);
    return rc;
}

static int wa_tcp_listen_poll(wa_future *f, wa_cx *cx)
{
    wa_tcp_op *op = (wa_tcp_op *)f;
    if (op->step < 0)
        return WA_EINVAL;
    int rc = wa_tcp_drive(op, cx, wa_tcp_listen_step);
    if (rc != 0)
        return rc;
    wa_tcp *l = wa_tcp_new(op->rt);
    wa_p2_addr a;
    if (!l)
        return WA_ENOMEM;
    if (!op->registered && (rc = wa_pollable_register(op->rt, wa_p2_tcp_subscribe(WA_TCP_H(op)->sock), &WA_TCP_H(op)->key)) < 0) {
        wa_tcp_discard(l);
        return rc;
    }
    l->sock = WA_TCP_H(op)->sock;
    l->net = WA_TCP_H(op)->net;
    l->key = WA_TCP_H(op)->key;
    l->port = wa_p2_tcp_local_address(WA_TCP_H(op)->sock, &a) == 0 ? a.port : 0;
    op->listener = wa_tcp_handle(l);
    op->registered = 0; /* all of it is the listener's now */
    WA_TCP_H(op)->sock = WA_TCP_H(op)->net = WA_NO_HANDLE;
    return 0;
}

static void wa_tcp_op_drop(wa_future *f) { wa_tcp_op_release((wa_tcp_op *)f, 1); }

static const wa_future_vt wa_tcp_listen_vt = {wa_tcp_listen_poll, wa_tcp_op_drop, "tcp_listen"};

/* The host's "none" in a started op's fields. */
static wa_future *wa_tcp_op_none(wa_future *f)
{
    wa_tcp_op *op = (wa_tcp_op *)f;
    WA_TCP_H(op)->sock = WA_TCP_H(op)->net = WA_NO_HANDLE;
    return f;
}

wa_future *wa_tcp_listen_init(wa_tcp_op *op, wa_rt *rt, const char *ip, uint16_t port)
{
    return wa_tcp_op_none(wa_tcp_op_start(op, &wa_tcp_listen_vt, rt, ip, port));
}

static void wa_tcp_release_socket(wa_tcp *l)
{
    wa_pollable_deregister(l->rt, l->key); /* wakes an accept waiting */
    wa_p2_tcp_drop(l->sock);
    wa_p2_network_drop(l->net);
}

int wa_tcp_close(wa_tcp **l) { return wa_tcp_close_with(l, wa_tcp_release_socket); }

/* accept: the listener's socket and pollable, borrowed */
static int wa_tcp_accept_step(wa_tcp_op *op)
{
    uint32_t conn, in, out;
    int rc = wa_p2_tcp_accept(op->listener->sock, &conn, &in, &out);
    if (rc == 0)
        rc = wa_stream_handle_(wa_wasi_stream_open_owned(op->rt, in, out, conn, wa_p2_tcp_drop, &op->conn), &op->conn);
    return rc;
}

static int wa_tcp_accept_try(wa_tcp_op *op, wa_cx *cx)
{
    WA_TCP_H(op)->key = op->listener->key; /* borrowed: release(…, 0) keeps it */
    op->registered = 1;
    return wa_tcp_drive(op, cx, wa_tcp_accept_step);
}

static int wa_tcp_accept_poll(wa_future *f, wa_cx *cx)
{
    return wa_tcp_accept_poll_with((wa_tcp_op *)f, cx, wa_tcp_accept_try);
}

static void wa_tcp_accept_drop(wa_future *f)
{
    wa_tcp_op_release((wa_tcp_op *)f, 0);
    wa_tcp_accept_end((wa_tcp_op *)f);
}

static const wa_future_vt wa_tcp_accept_vt = {wa_tcp_accept_poll, wa_tcp_accept_drop, "tcp_accept"};

wa_future *wa_tcp_accept_init(wa_tcp_op *op, wa_tcp *l)
{
    return wa_tcp_op_none(wa_tcp_accept_start(op, &wa_tcp_accept_vt, l));
}

/* connect: create, start-connect, finish-connect */
static int wa_tcp_connect_step(wa_tcp_op *op)
{
    int rc = 0;
    wa_p2_addr a = wa_tcp_addr(op);
    uint32_t in, out;
    switch (op->step) {
    case 0: rc = wa_tcp_begin(op); break;
    case 1: rc = wa_p2_tcp_start_connect(WA_TCP_H(op)->sock, WA_TCP_H(op)->net, &a); break;
    case 2:
        rc = wa_p2_tcp_finish_connect(WA_TCP_H(op)->sock, &in, &out);
        if (rc == 0) {
            /* the stream takes the socket; the pollable goes first */
            if (op->registered)
                wa_pollable_deregister(op->rt, WA_TCP_H(op)->key);
            op->registered = 0;
            rc = wa_stream_handle_(
                wa_wasi_stream_open_owned(op->rt, in, out, WA_TCP_H(op)->sock, wa_p2_tcp_drop, &op->conn), &op->conn);
            WA_TCP_H(op)->sock = WA_NO_HANDLE;
        }
        break;
    default: return 0;
    }
    if (rc == 0 && ++op->step <= 2)
        return wa_tcp_connect_step(op);
    return rc;
}

static int wa_tcp_connect_poll(wa_future *f, wa_cx *cx)
{
    wa_tcp_op *op = (wa_tcp_op *)f;
    if (op->step < 0)
        return WA_EINVAL;
    int rc = wa_tcp_drive(op, cx, wa_tcp_connect_step);
    if (rc != WA_PENDING)
        wa_tcp_op_release(op, 1);
    return rc;
}

static const wa_future_vt wa_tcp_connect_vt = {wa_tcp_connect_poll, wa_tcp_op_drop, "tcp_connect"};

wa_future *wa_tcp_connect_init(wa_tcp_op *op, wa_rt *rt, const char *ip, uint16_t port)
{
    return wa_tcp_op_none(wa_tcp_op_start(op, &wa_tcp_connect_vt, rt, ip, port));
}
