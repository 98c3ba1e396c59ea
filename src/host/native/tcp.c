/* SPDX-License-Identifier: MIT */
/* TCP on native Linux: non-blocking IPv4 or IPv6 sockets registered with
 * the epoll backend. Listening completes at once; accept and connect wait
 * on the socket's registration when the kernel says EAGAIN / EINPROGRESS.
 * A connection becomes an fd stream (fd_stream.c) that keeps the socket's
 * registration; its options are setsockopt's, its half-close
 * shutdown(SHUT_WR) (the stream buffers nothing: what was written is the
 * kernel's). An op with a path is a Unix domain socket's: the same steps
 * on an AF_UNIX socket, whose listener removes its path when closed. These
 * are the operations (wa__tcp_host) of the front end, src/io/tcp.c, which
 * makes the futures and the listener. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "../../io/tcp.h"
#include "../posix/errno_map.h"
#include "../posix/fd_stream.h"
#include "sockaddr.h"

/* A listener: its socket and registration; a Unix socket's path. */
struct wa_tcp {
    wa__tcp_head head;
    int fd;
    wa_fd_key key;
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
};

/* The host part of an operation (wa_net_host): its socket, its
 * registration and its readiness wait. */
typedef struct wa__tcp_part {
    int fd;
    wa_fd_key key;
    wa_fd_wait wait;
} wa__tcp_part;
_Static_assert(sizeof(wa__tcp_part) <= sizeof(wa_net_host) && _Alignof(wa__tcp_part) <= _Alignof(wa_net_host),
               "wa_net_host too small");
#define WA__TCP_H(op) ((wa__tcp_part *)(void *)&(op)->host)

/* op's address and port, or its path, into *a; returns its length, or 0
 * for a path too long. */
static socklen_t wa__tcp_sockaddr(const wa_tcp_op *op, wa__sockaddr *a)
{
    if (!op->path)
        return wa__sockaddr_set(a, &op->ip, op->port);
    size_t n = strlen(op->path);
    memset(a, 0, sizeof *a);
    if (n >= sizeof a->un.sun_path)
        return 0;
    a->un.sun_family = AF_UNIX;
    memcpy(a->un.sun_path, op->path, n);
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 1);
}

/* Releases what the op holds: its wait, and a socket of its own (an accept
 * holds none: it borrows the listener's). Any op's release, and again:
 * nothing. */
static void wa__tcp_op_release(wa_tcp_op *op)
{
    wa_drop_held(&WA__TCP_H(op)->wait.fut, &op->waiting);
    if (op->registered) {
        wa_fd_deregister(op->rt, WA__TCP_H(op)->key);
        op->registered = 0;
    }
    if (WA__TCP_H(op)->fd >= 0) {
        close(WA__TCP_H(op)->fd);
        WA__TCP_H(op)->fd = -1;
    }
}

static int wa__tcp_fail(wa_tcp_op *op, int rc)
{
    wa__tcp_op_release(op);
    return rc;
}

/* A new non-blocking socket of op's family, registered with the runtime. */
static int wa__tcp_socket(wa_tcp_op *op)
{
    int family = op->path ? AF_UNIX : op->ip.v6 ? AF_INET6 : AF_INET;
    if ((WA__TCP_H(op)->fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) < 0)
        return wa__errno_reason(op->reason, "socket", errno);
    int rc = wa_fd_register(op->rt, WA__TCP_H(op)->fd, &WA__TCP_H(op)->key);
    if (rc < 0)
        return wa__tcp_fail(op, rc);
    op->registered = 1;
    return 0;
}

/* Polls the wait the op is in, if any: WA_PENDING, 0 (none, or it ended:
 * try again) or an error (WA_ECLOSED: the socket was closed meanwhile). */
static int wa__tcp_waited(wa_tcp_op *op, wa_cx *cx)
{
    return op->waiting ? wa_poll_held(&WA__TCP_H(op)->wait.fut, &op->waiting, cx) : 0;
}

/* Starts a wait for events on key; polls it. */
static int wa__tcp_wait(wa_tcp_op *op, wa_fd_key key, unsigned events, wa_cx *cx)
{
    wa_fd_wait_init(&WA__TCP_H(op)->wait, key, events);
    op->waiting = 1;
    return wa__tcp_waited(op, cx);
}

/* Whether the Unix socket at a (a bind said EADDRINUSE) is left over from
 * a server gone: a socket file whose connect is refused. errno stays. */
static bool wa__tcp_unix_stale(const wa__sockaddr *a, socklen_t len)
{
    struct stat st;
    int fd, err = errno;
    bool stale = false;
    if (stat(a->un.sun_path, &st) == 0 && S_ISSOCK(st.st_mode) &&
        (fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) >= 0) {
        stale = connect(fd, &a->sa, len) < 0 && errno == ECONNREFUSED;
        close(fd);
    }
    errno = err;
    return stale;
}

/* Binds fd to a: an IPv6 socket IPv6 only, as on WASI 0.2 (and "::" then
 * leaves IPv4 to "0.0.0.0"); a Unix socket's stale file replaced. NULL, or
 * the call that failed (for the reason) and errno. */
static const char *wa__tcp_bind(const wa_tcp_op *op, int fd, const wa__sockaddr *a, socklen_t len)
{
    int one = 1;
    if (op->path) {
        if (bind(fd, &a->sa, len) == 0)
            return NULL;
        if (errno != EADDRINUSE || !wa__tcp_unix_stale(a, len))
            return "bind";
        unlink(a->un.sun_path);
    } else if ((op->ip.v6 && setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one) < 0) ||
               setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0) {
        return "setsockopt";
    }
    return bind(fd, &a->sa, len) < 0 ? "bind" : NULL;
}

/* listen, at once: gives l op's socket, bound and listening. */
static int wa__tcp_listen(wa_tcp_op *op, wa_tcp *l, wa_cx *cx)
{
    wa__sockaddr a;
    socklen_t len = wa__tcp_sockaddr(op, &a);
    (void)cx;
    if (!len)
        return WA_EINVAL; /* (a path too long) */
    int fd, rc = wa__tcp_socket(op);
    if (rc < 0)
        return rc;
    fd = WA__TCP_H(op)->fd;
    const char *failed = wa__tcp_bind(op, fd, &a, len); /* the call, for the reason */
    if (!failed && listen(fd, SOMAXCONN) < 0)
        failed = "listen";
    else if (!failed && getsockname(fd, &a.sa, &len) < 0)
        failed = "getsockname";
    if (failed) {
        rc = wa__errno_reason(op->reason, failed, errno);
        if (op->path && strcmp(failed, "bind")) /* (bound: its file is there) */
            unlink(a.un.sun_path);
        return wa__tcp_fail(op, rc);
    }
    l->fd = fd; /* the socket is the listener's now */
    l->key = WA__TCP_H(op)->key;
    if (op->path)
        strcpy(l->path, op->path); /* (its length checked) */
    else
        l->head.port = ntohs(op->ip.v6 ? a.v6.sin6_port : a.v4.sin_port);
    WA__TCP_H(op)->fd = -1;
    op->registered = 0;
    return 0;
}

/* The host's "none" in a started op's fields. */
static void wa__tcp_op_none(wa_tcp_op *op) { WA__TCP_H(op)->fd = -1; }

static void wa__tcp_release_socket(wa_tcp *l)
{
    wa_fd_deregister(l->head.rt, l->key); /* wakes an accept waiting */
    close(l->fd);
    if (l->path[0])
        unlink(l->path);
}

/* Errors of one connection that accept(2) passes on: retry at once (Linux
 * reports the new socket's pending network errors this way). */
static int wa__tcp_accept_again(int err)
{
    switch (err) {
    case EINTR:
    case ECONNABORTED:
    case EPROTO:
    case ENETDOWN:
    case ENOPROTOOPT:
    case EHOSTDOWN:
    case ENONET:
    case EHOSTUNREACH:
    case EOPNOTSUPP:
    case ENETUNREACH:
        return 1;
    default:
        return 0;
    }
}

static int wa__tcp_accept(wa_tcp_op *op, wa_cx *cx)
{
    int rc = wa__tcp_waited(op, cx);
    if (rc != 0)
        return rc;
    for (;;) {
        int fd = accept4(op->listener->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd >= 0)
            return wa__stream_handle(wa__fd_stream_socket(op->rt, fd, NULL, &op->conn), &op->conn);
        if (wa__tcp_accept_again(errno))
            continue;
        if (errno != EAGAIN)
            return wa__errno_reason(op->reason, "accept4", errno); /* WA_EMFILE: the next accept may do */
        if ((rc = wa__tcp_wait(op, op->listener->key, WA_READABLE, cx)) != 0)
            return rc;
    }
}

/* connect: start it, wait until the socket is writable, read its error */
static int wa__tcp_connect(wa_tcp_op *op, wa_cx *cx)
{
    int rc, err = 0;
    if (op->step == 0) {
        wa__sockaddr a;
        socklen_t len = wa__tcp_sockaddr(op, &a);
        if (!len)
            return WA_EINVAL; /* (a path too long) */
        if ((rc = wa__tcp_socket(op)) < 0)
            return rc;
        op->step = 1;
        /* (a Unix socket's connect is done at once, or refused: EAGAIN
         * when the server's queue is full) */
        if (connect(WA__TCP_H(op)->fd, &a.sa, len) == 0) {
            rc = 0;
        } else if (errno == EINPROGRESS) {
            rc = wa__tcp_wait(op, WA__TCP_H(op)->key, WA_WRITABLE, cx);
        } else {
            err = errno;
            rc = wa__errno_reason(op->reason, "connect", err);
            return wa__tcp_fail(op, op->path && err == EAGAIN ? WA_ECONNREFUSED : rc);
        }
    } else {
        rc = wa__tcp_waited(op, cx);
    }
    if (rc != 0)
        return rc == WA_PENDING ? rc : wa__tcp_fail(op, rc);
    socklen_t len = sizeof err;
    const char *failed = "connect"; /* (the connect's error, read off the socket) */
    if (getsockopt(WA__TCP_H(op)->fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0) {
        err = errno;
        failed = "getsockopt";
    }
    if (err)
        return wa__tcp_fail(op, wa__errno_reason(op->reason, failed, err));
    rc = wa__stream_handle(wa__fd_stream_socket(op->rt, WA__TCP_H(op)->fd, &WA__TCP_H(op)->key, &op->conn), /* takes both */
                           &op->conn);
    WA__TCP_H(op)->fd = -1;
    op->registered = 0;
    return rc;
}

/* A connection is any fd stream over a TCP socket: the library's, or
 * wa_fd_stream_open's over one the program made or was given. */
static bool wa__tcp_is_conn(wa_stream *s)
{
    int fd = wa__fd_stream_fd(s), proto = 0;
    socklen_t len = sizeof proto;
    return fd >= 0 && getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &proto, &len) == 0 && proto == IPPROTO_TCP;
}

static int wa__tcp_setopt(wa_stream *s, int level, int name, int value)
{
    return setsockopt(wa__fd_stream_fd(s), level, name, &value, sizeof value) < 0 ? wa__errno_map(errno) : 0;
}

static int wa__tcp_nodelay(wa_stream *s, bool on) { return wa__tcp_setopt(s, IPPROTO_TCP, TCP_NODELAY, on); }

static int wa__tcp_keepalive(wa_stream *s, bool on, unsigned idle_s)
{
    int rc = wa__tcp_setopt(s, SOL_SOCKET, SO_KEEPALIVE, on);
    if (rc == 0 && on && idle_s) /* (Linux refuses more than 32767: EINVAL) */
        rc = wa__tcp_setopt(s, IPPROTO_TCP, TCP_KEEPIDLE, idle_s > INT_MAX ? INT_MAX : (int)idle_s);
    return rc;
}

/* A write after it fails with EPIPE: WA_ECLOSED. */
static int wa__tcp_shutdown_write(wa_stream *s)
{
    return shutdown(wa__fd_stream_fd(s), SHUT_WR) < 0 ? wa__errno_map(errno) : 0;
}

const wa__tcp_ops wa__tcp_host = {
    .size = sizeof(wa_tcp),
    .none = wa__tcp_op_none,
    .listen = wa__tcp_listen,
    .accept = wa__tcp_accept,
    .connect = wa__tcp_connect,
    .release = wa__tcp_op_release,
    .accept_release = wa__tcp_op_release,
    .close = wa__tcp_release_socket,
    .is_conn = wa__tcp_is_conn,
    .nodelay = wa__tcp_nodelay,
    .keepalive = wa__tcp_keepalive,
    .shutdown_write = wa__tcp_shutdown_write,
};
