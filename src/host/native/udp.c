/* SPDX-License-Identifier: MIT */
/* UDP on native Linux: a non-blocking IPv4 or IPv6 datagram socket
 * registered with the runtime's reactor (epoll or io_uring: readiness
 * either way). Binding completes at once; a send or a receive tries its
 * call and waits on the socket's registration when the kernel says
 * EAGAIN. A receive asks for MSG_TRUNC, so that a datagram longer than
 * its buffer still tells its length. These are the operations
 * (wa__udp_host) of the front end, src/io/udp.c, which makes the futures
 * and the socket. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "../../io/udp.h"
#include "../posix/errno_map.h"
#include "sockaddr.h"

/* A socket: its fd and registration. */
struct wa_udp {
    wa__udp_head head;
    int fd;
    wa_fd_key key;
};

/* The host part of an operation (wa_net_host): a send's or a receive's
 * readiness wait. */
typedef struct wa__udp_part {
    wa_fd_wait wait;
} wa__udp_part;
_Static_assert(sizeof(wa__udp_part) <= sizeof(wa_net_host) && _Alignof(wa__udp_part) <= _Alignof(wa_net_host),
               "wa_net_host too small");
#define WA__UDP_H(op) ((wa__udp_part *)(void *)&(op)->host)

/* bind, at once: a new socket for u, bound and registered. IPv6 only, as
 * on WASI 0.2; no SO_REUSEADDR, which would let a second socket bind the
 * same port rather than say WA_EADDRINUSE. */
static int wa__udp_bind(wa_udp_op *op, wa_udp *u, wa_cx *cx)
{
    wa__sockaddr a;
    socklen_t len = wa__sockaddr_set(&a, &op->ip, op->port);
    int one = 1, rc = 0;
    const char *failed = NULL; /* the call, for the reason */
    (void)cx;
    if ((u->fd = socket(op->ip.v6 ? AF_INET6 : AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) < 0)
        return wa__errno_reason(op->reason, "socket", errno);
    if (op->ip.v6 && setsockopt(u->fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one) < 0)
        failed = "setsockopt";
    else if (bind(u->fd, &a.sa, len) < 0)
        failed = "bind";
    else if (getsockname(u->fd, &a.sa, &len) < 0)
        failed = "getsockname";
    if (failed)
        rc = wa__errno_reason(op->reason, failed, errno);
    else
        rc = wa_fd_register(op->rt, u->fd, &u->key);
    if (rc < 0) {
        close(u->fd);
        return rc;
    }
    wa_ip bound;
    u->head.port = wa__sockaddr_get(&a, &bound);
    return 0;
}

/* Polls the wait the op is in, if any: WA_PENDING, 0 (none, or it ended:
 * try again) or an error (WA_ECLOSED: the socket closed meanwhile). */
static int wa__udp_waited(wa_udp_op *op, wa_cx *cx)
{
    return op->waiting ? wa_poll_held(&WA__UDP_H(op)->wait.fut, &op->waiting, cx) : 0;
}

/* Tries call (a send or a receive, named name, which returns what the
 * call did, -1 and errno on failure) until it does not say EAGAIN,
 * waiting for events on the socket between tries. */
static int wa__udp_try(wa_udp_op *op, wa_cx *cx, unsigned events, int (*call)(wa_udp_op *op), const char *name)
{
    int rc = wa__udp_waited(op, cx);
    while (rc == 0) {
        if (call(op) == 0)
            return 0;
        if (errno == EINTR)
            continue;
        if (errno != EAGAIN)
            return wa__errno_reason(op->reason, name, errno);
        wa_fd_wait_init(&WA__UDP_H(op)->wait, op->udp->key, events);
        op->waiting = 1;
        rc = wa__udp_waited(op, cx);
    }
    return rc;
}

static int wa__udp_sendto(wa_udp_op *op)
{
    wa__sockaddr a;
    socklen_t len = wa__sockaddr_set(&a, &op->ip, op->port);
    return sendto(op->udp->fd, op->data, op->len, 0, &a.sa, len) < 0 ? -1 : 0;
}

static int wa__udp_recvfrom(wa_udp_op *op)
{
    wa__sockaddr a;
    socklen_t len = sizeof a;
    ssize_t n = recvfrom(op->udp->fd, op->buf, op->len, MSG_TRUNC, &a.sa, &len);
    if (n < 0)
        return -1;
    op->n = (size_t)n;
    op->port = wa__sockaddr_get(&a, &op->ip);
    return 0;
}

static int wa__udp_send(wa_udp_op *op, wa_cx *cx) { return wa__udp_try(op, cx, WA_WRITABLE, wa__udp_sendto, "sendto"); }

static int wa__udp_recv(wa_udp_op *op, wa_cx *cx) { return wa__udp_try(op, cx, WA_READABLE, wa__udp_recvfrom, "recvfrom"); }

/* A send's or a receive's release: its wait (a bind holds nothing). */
static void wa__udp_io_release(wa_udp_op *op) { wa_drop_held(&WA__UDP_H(op)->wait.fut, &op->waiting); }

static void wa__udp_release_socket(wa_udp *u)
{
    wa_fd_deregister(u->head.rt, u->key); /* wakes the ops waiting */
    close(u->fd);
}

const wa__udp_ops wa__udp_host = {
    .size = sizeof(wa_udp),
    .bind = wa__udp_bind,
    .send = wa__udp_send,
    .recv = wa__udp_recv,
    .release = wa__udp_io_release,
    .send_release = wa__udp_io_release,
    .recv_release = wa__udp_io_release,
    .close = wa__udp_release_socket,
};
