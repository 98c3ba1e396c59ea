/* SPDX-License-Identifier: MIT */
/* TCP over wasi:sockets: each step is start-X then finish-X, retried after
 * the socket's pollable (registered once per socket) says it may proceed.
 * A socket is IPv4 or IPv6 as its address is. These are the operations
 * (wa_tcp_host) of the front end, src/io/tcp.c, which makes the futures
 * and the listener. */
#include <stdlib.h>

#include "../../io/tcp.h"
#include "sockets.h"
#include "stream.h"

/* A listener: its socket and network handles, its pollable's
 * registration. */
struct wa_tcp {
    wa_tcp_head head;
    uint32_t sock, net;
    wa_pollable_key key;
};

/* The host part of an operation (wa_net_host): its socket and network
 * handles, the pollable's registration and the wait on it. */
typedef struct wa_tcp_part {
    uint32_t sock, net;
    wa_pollable_key key;
    wa_pollable_wait wait;
} wa_tcp_part;
_Static_assert(sizeof(wa_tcp_part) <= sizeof(wa_net_host) && _Alignof(wa_tcp_part) <= _Alignof(wa_net_host),
               "wa_net_host too small");
#define WA_TCP_H(op) ((wa_tcp_part *)(void *)&(op)->host)

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

/* Once listening, gives l the socket, with its pollable registered. */
static int wa_tcp_listen(wa_tcp_op *op, wa_tcp *l, wa_cx *cx)
{
    int rc = wa_tcp_drive(op, cx, wa_tcp_listen_step);
    wa_p2_addr a;
    if (rc != 0)
        return rc;
    if (!op->registered && (rc = wa_pollable_register(op->rt, wa_p2_tcp_subscribe(WA_TCP_H(op)->sock), &WA_TCP_H(op)->key)) < 0)
        return rc;
    l->sock = WA_TCP_H(op)->sock;
    l->net = WA_TCP_H(op)->net;
    l->key = WA_TCP_H(op)->key;
    l->head.port = wa_p2_tcp_local_address(WA_TCP_H(op)->sock, &a) == 0 ? a.port : 0;
    op->registered = 0; /* all of it is the listener's now */
    WA_TCP_H(op)->sock = WA_TCP_H(op)->net = WA_NO_HANDLE;
    return 0;
}

/* A listen's or a connect's release: its socket too. */
static void wa_tcp_op_drop(wa_tcp_op *op) { wa_tcp_op_release(op, 1); }

/* The host's "none" in a started op's fields. */
static void wa_tcp_op_none(wa_tcp_op *op) { WA_TCP_H(op)->sock = WA_TCP_H(op)->net = WA_NO_HANDLE; }

static void wa_tcp_release_socket(wa_tcp *l)
{
    wa_pollable_deregister(l->head.rt, l->key); /* wakes an accept waiting */
    wa_p2_tcp_drop(l->sock);
    wa_p2_network_drop(l->net);
}

/* accept: the listener's socket and pollable, borrowed */
static int wa_tcp_accept_step(wa_tcp_op *op)
{
    uint32_t conn, in, out;
    int rc = wa_p2_tcp_accept(op->listener->sock, &conn, &in, &out);
    if (rc == 0)
        rc = wa_stream_handle_(wa_wasi_stream_open_owned(op->rt, in, out, conn, wa_p2_tcp_drop, &op->conn), &op->conn);
    return rc;
}

static int wa_tcp_accept(wa_tcp_op *op, wa_cx *cx)
{
    WA_TCP_H(op)->key = op->listener->key; /* borrowed: release(…, 0) keeps it */
    op->registered = 1;
    return wa_tcp_drive(op, cx, wa_tcp_accept_step);
}

/* An accept's release: its wait, not the listener's socket. */
static void wa_tcp_accept_release(wa_tcp_op *op) { wa_tcp_op_release(op, 0); }

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

static int wa_tcp_connect(wa_tcp_op *op, wa_cx *cx)
{
    int rc = wa_tcp_drive(op, cx, wa_tcp_connect_step);
    if (rc != WA_PENDING)
        wa_tcp_op_release(op, 1);
    return rc;
}

const wa_tcp_ops wa_tcp_host = {
    .size = sizeof(wa_tcp),
    .none = wa_tcp_op_none,
    .listen = wa_tcp_listen,
    .accept = wa_tcp_accept,
    .connect = wa_tcp_connect,
    .release = wa_tcp_op_drop,
    .accept_release = wa_tcp_accept_release,
    .close = wa_tcp_release_socket,
};
