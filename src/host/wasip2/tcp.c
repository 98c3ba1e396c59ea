/* SPDX-License-Identifier: MIT */
/* TCP over wasi:sockets: each step is start-X then finish-X, retried after
 * the socket's pollable (registered once per socket) says it may proceed.
 * A socket is IPv4 or IPv6 as its address is. A connection is a stream
 * that owns its socket (stream.c), whose options are the socket's methods;
 * wasi:sockets has no TCP_NODELAY. These are the operations
 * (wa__tcp_host) of the front end, src/io/tcp.c, which makes the futures
 * and the listener. */
#include <stdlib.h>

#include "../../io/tcp.h"
#include "sockets.h"
#include "stream.h"

/* A listener: its socket and network handles, its pollable's
 * registration. */
struct wa_tcp {
    wa__tcp_head head;
    uint32_t sock, net;
    wa_pollable_key key;
};

/* The host part of an operation (wa_net_host): its socket and network
 * handles, the pollable's registration and the wait on it. */
typedef struct wa__tcp_part {
    uint32_t sock, net;
    wa_pollable_key key;
    wa_pollable_wait wait;
} wa__tcp_part;
_Static_assert(sizeof(wa__tcp_part) <= sizeof(wa_net_host) && _Alignof(wa__tcp_part) <= _Alignof(wa_net_host),
               "wa_net_host too small");
#define WA__TCP_H(op) ((wa__tcp_part *)(void *)&(op)->host)

/* Awaits the socket's pollable after a would-block: 1 retry now, 0
 * pending, < 0 an error. */
static int wa__tcp_await(wa_tcp_op *op, wa_cx *cx)
{
    if (!op->registered) {
        int rc = wa_pollable_register(op->rt, wa__wasip2_tcp_subscribe(WA__TCP_H(op)->sock), &WA__TCP_H(op)->key);
        if (rc < 0)
            return rc;
        op->registered = 1;
    }
    if (!op->waiting) {
        wa_pollable_wait_init(&WA__TCP_H(op)->wait, WA__TCP_H(op)->key);
        op->waiting = 1;
    }
    int rc = wa_poll_held(&WA__TCP_H(op)->wait.fut, &op->waiting, cx);
    return rc == WA_PENDING ? 0 : rc < 0 ? rc : 1;
}

/* Runs the step function until it finishes, awaiting the pollable when it
 * would block. */
static int wa__tcp_drive(wa_tcp_op *op, wa_cx *cx, int (*step)(wa_tcp_op *))
{
    for (;;) {
        if (op->waiting) {
            int w = wa__tcp_await(op, cx);
            if (w <= 0)
                return w == 0 ? WA_PENDING : w;
        }
        int rc = step(op);
        if (rc != WA_EAGAIN)
            return rc;
        int w = wa__tcp_await(op, cx);
        if (w <= 0)
            return w == 0 ? WA_PENDING : w;
    }
}

static void wa__tcp_op_release(wa_tcp_op *op, int drop_socket)
{
    wa_drop_held(&WA__TCP_H(op)->wait.fut, &op->waiting);
    if (op->registered && drop_socket) {
        wa_pollable_deregister(op->rt, WA__TCP_H(op)->key);
        op->registered = 0;
    }
    if (drop_socket && WA__TCP_H(op)->sock != WA_NO_HANDLE) {
        wa__wasip2_tcp_drop(WA__TCP_H(op)->sock);
        WA__TCP_H(op)->sock = WA_NO_HANDLE;
    }
    if (WA__TCP_H(op)->net != WA_NO_HANDLE) {
        wa__wasip2_network_drop(WA__TCP_H(op)->net);
        WA__TCP_H(op)->net = WA_NO_HANDLE;
    }
}

/* rc of the wasi:sockets call named call, its error-code op's reason. */
#define WA__SAID(op, call, rc) wa__wasip2_net_said((op)->reason, call, rc)

static int wa__tcp_begin(wa_tcp_op *op)
{
    WA__TCP_H(op)->net = wa__wasip2_instance_network();
    return WA__SAID(op, "create-tcp-socket", wa__wasip2_tcp_create(op->ip.v6, &WA__TCP_H(op)->sock));
}

static wa__wasip2_addr wa__tcp_addr(const wa_tcp_op *op) { return (wa__wasip2_addr){.ip = op->ip, .port = op->port}; }

/* listen: create, start-bind, finish-bind, start-listen, finish-listen */
static int wa__tcp_listen_step(wa_tcp_op *op)
{
    int rc = 0;
    wa__wasip2_addr a = wa__tcp_addr(op);
    switch (op->step) {
    case 0: rc = wa__tcp_begin(op); break;
    case 1: rc = WA__SAID(op, "start-bind", wa__wasip2_tcp_start_bind(WA__TCP_H(op)->sock, WA__TCP_H(op)->net, &a)); break;
    case 2: rc = WA__SAID(op, "finish-bind", wa__wasip2_tcp_finish_bind(WA__TCP_H(op)->sock)); break;
    case 3: rc = WA__SAID(op, "start-listen", wa__wasip2_tcp_start_listen(WA__TCP_H(op)->sock)); break;
    case 4: rc = WA__SAID(op, "finish-listen", wa__wasip2_tcp_finish_listen(WA__TCP_H(op)->sock)); break;
    default: return 0;
    }
    if (rc == 0 && ++op->step <= 4)
        return wa__tcp_listen_step(op);
    return rc;
}

/* Once listening, gives l the socket, with its pollable registered. */
static int wa__tcp_listen(wa_tcp_op *op, wa_tcp *l, wa_cx *cx)
{
    int rc = wa__tcp_drive(op, cx, wa__tcp_listen_step);
    wa__wasip2_addr a;
    if (rc != 0)
        return rc;
    if (!op->registered && (rc = wa_pollable_register(op->rt, wa__wasip2_tcp_subscribe(WA__TCP_H(op)->sock), &WA__TCP_H(op)->key)) < 0)
        return rc;
    l->sock = WA__TCP_H(op)->sock;
    l->net = WA__TCP_H(op)->net;
    l->key = WA__TCP_H(op)->key;
    l->head.port = wa__wasip2_tcp_local_address(WA__TCP_H(op)->sock, &a) == 0 ? a.port : 0;
    op->registered = 0; /* all of it is the listener's now */
    WA__TCP_H(op)->sock = WA__TCP_H(op)->net = WA_NO_HANDLE;
    return 0;
}

/* A listen's or a connect's release: its socket too. */
static void wa__tcp_op_drop(wa_tcp_op *op) { wa__tcp_op_release(op, 1); }

/* The host's "none" in a started op's fields. */
static void wa__tcp_op_none(wa_tcp_op *op) { WA__TCP_H(op)->sock = WA__TCP_H(op)->net = WA_NO_HANDLE; }

static void wa__tcp_release_socket(wa_tcp *l)
{
    wa_pollable_deregister(l->head.rt, l->key); /* wakes an accept waiting */
    wa__wasip2_tcp_drop(l->sock);
    wa__wasip2_network_drop(l->net);
}

/* accept: the listener's socket and pollable, borrowed */
static int wa__tcp_accept_step(wa_tcp_op *op)
{
    uint32_t conn, in, out;
    int rc = WA__SAID(op, "accept", wa__wasip2_tcp_accept(op->listener->sock, &conn, &in, &out));
    if (rc == 0)
        rc = wa__stream_handle(wa__wasi_stream_open_owned(op->rt, in, out, conn, wa__wasip2_tcp_drop, &op->conn), &op->conn);
    return rc;
}

static int wa__tcp_accept(wa_tcp_op *op, wa_cx *cx)
{
    WA__TCP_H(op)->key = op->listener->key; /* borrowed: release(…, 0) keeps it */
    op->registered = 1;
    return wa__tcp_drive(op, cx, wa__tcp_accept_step);
}

/* An accept's release: its wait, not the listener's socket. */
static void wa__tcp_accept_release(wa_tcp_op *op) { wa__tcp_op_release(op, 0); }

/* connect: create, start-connect, finish-connect */
static int wa__tcp_connect_step(wa_tcp_op *op)
{
    int rc = 0;
    wa__wasip2_addr a = wa__tcp_addr(op);
    uint32_t in, out;
    switch (op->step) {
    case 0: rc = wa__tcp_begin(op); break;
    case 1: rc = WA__SAID(op, "start-connect", wa__wasip2_tcp_start_connect(WA__TCP_H(op)->sock, WA__TCP_H(op)->net, &a)); break;
    case 2:
        rc = WA__SAID(op, "finish-connect", wa__wasip2_tcp_finish_connect(WA__TCP_H(op)->sock, &in, &out));
        if (rc == 0) {
            /* the stream takes the socket; the pollable goes first */
            if (op->registered)
                wa_pollable_deregister(op->rt, WA__TCP_H(op)->key);
            op->registered = 0;
            rc = wa__stream_handle(
                wa__wasi_stream_open_owned(op->rt, in, out, WA__TCP_H(op)->sock, wa__wasip2_tcp_drop, &op->conn), &op->conn);
            WA__TCP_H(op)->sock = WA_NO_HANDLE;
        }
        break;
    default: return 0;
    }
    if (rc == 0 && ++op->step <= 2)
        return wa__tcp_connect_step(op);
    return rc;
}

static int wa__tcp_connect(wa_tcp_op *op, wa_cx *cx)
{
    int rc = wa__tcp_drive(op, cx, wa__tcp_connect_step);
    if (rc != WA_PENDING)
        wa__tcp_op_release(op, 1);
    return rc;
}

static bool wa__tcp_is_conn(wa_stream *s) { return wa__wasi_stream_owner(s, wa__wasip2_tcp_drop) != WA_NO_HANDLE; }

static int wa__tcp_nodelay(wa_stream *s, bool on)
{
    (void)s, (void)on;
    return WA_ENOSYS;
}

static int wa__tcp_keepalive(wa_stream *s, bool on, unsigned idle_s)
{
    uint32_t sock = wa__wasi_stream_owner(s, wa__wasip2_tcp_drop);
    int rc = wa__wasip2_tcp_set_keep_alive(sock, on);
    if (rc == 0 && on && idle_s)
        rc = wa__wasip2_tcp_set_keep_alive_idle(sock, (uint64_t)idle_s * 1000000000u);
    return rc;
}

static int wa__tcp_shutdown_write(wa_stream *s) { return wa__wasi_stream_end_write(s, wa__wasip2_tcp_shutdown_send); }

const wa__tcp_ops wa__tcp_host = {
    .size = sizeof(wa_tcp),
    .none = wa__tcp_op_none,
    .listen = wa__tcp_listen,
    .accept = wa__tcp_accept,
    .connect = wa__tcp_connect,
    .release = wa__tcp_op_drop,
    .accept_release = wa__tcp_accept_release,
    .close = wa__tcp_release_socket,
    .is_conn = wa__tcp_is_conn,
    .nodelay = wa__tcp_nodelay,
    .keepalive = wa__tcp_keepalive,
    .shutdown_write = wa__tcp_shutdown_write,
};
