/* TCP on native Linux: non-blocking sockets registered with the epoll
 * backend. Listening completes at once; accept and connect wait on the
 * socket's registration when the kernel says EAGAIN / EINPROGRESS. A
 * connection becomes an fd stream (fd_stream.c) that keeps the socket's
 * registration. */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "errno_map.h"
#include "fd_stream.h"
#include "tcp.h"
#include "wasync/net.h"

struct wa_tcp {
    wa_rt *rt;
    int fd;
    wa_fd_key key;
    uint16_t port;
};

static struct sockaddr_in wa_tcp_sockaddr(const wa_tcp_op *op)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(op->port)};
    memcpy(&a.sin_addr, op->ip, 4);
    return a;
}

/* Releases what the op holds: its wait, and a socket of its own (an accept
 * holds none: it borrows the listener's). */
static void wa_tcp_op_release(wa_tcp_op *op)
{
    wa_drop_held(&op->wait.fut, &op->waiting);
    if (op->registered) {
        wa_fd_deregister(op->rt, op->key);
        op->registered = 0;
    }
    if (op->fd >= 0) {
        close(op->fd);
        op->fd = -1;
    }
}

static int wa_tcp_fail(wa_tcp_op *op, int rc)
{
    wa_tcp_op_release(op);
    return rc;
}

/* A new non-blocking socket, registered with the runtime. */
static int wa_tcp_socket(wa_tcp_op *op)
{
    if ((op->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) < 0)
        return wa_errno_map(errno);
    int rc = wa_fd_register(op->rt, op->fd, &op->key);
    if (rc < 0)
        return wa_tcp_fail(op, rc);
    op->registered = 1;
    return 0;
}

/* Polls the wait the op is in, if any: WA_PENDING, 0 (none, or it ended:
 * try again) or an error (WA_ECLOSED: the socket was closed meanwhile).
 * First thing in every poll, so a closed listener is never touched. */
static int wa_tcp_waited(wa_tcp_op *op, wa_cx *cx)
{
    return op->waiting ? wa_poll_held(&op->wait.fut, &op->waiting, cx) : 0;
}

/* Starts a wait for events on key; polls it. */
static int wa_tcp_wait(wa_tcp_op *op, wa_fd_key key, unsigned events, wa_cx *cx)
{
    wa_fd_wait_init(&op->wait, key, events);
    op->waiting = 1;
    return wa_tcp_waited(op, cx);
}

static int wa_tcp_listen_poll(wa_future *f, wa_cx *cx)
{
    wa_tcp_op *op = (wa_tcp_op *)f;
    (void)cx;
    if (op->step < 0)
        return WA_EINVAL;
    wa_tcp *l = malloc(sizeof *l);
    if (!l)
        return WA_ENOMEM;
    struct sockaddr_in a = wa_tcp_sockaddr(op);
    socklen_t len = sizeof a;
    int one = 1, rc = wa_tcp_socket(op);
    if (rc == 0 && (setsockopt(op->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
                    bind(op->fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(op->fd, SOMAXCONN) < 0 ||
                    getsockname(op->fd, (struct sockaddr *)&a, &len) < 0))
        rc = wa_tcp_fail(op, wa_errno_map(errno));
    if (rc < 0) {
        free(l);
        return rc;
    }
    *l = (wa_tcp){.rt = op->rt, .fd = op->fd, .key = op->key, .port = ntohs(a.sin_port)};
    op->listener = l; /* the socket is the listener's now */
    op->fd = -1;
    op->registered = 0;
    return 0;
}

static void wa_tcp_op_drop(wa_future *f) { wa_tcp_op_release((wa_tcp_op *)f); }

static const wa_future_vt wa_tcp_listen_vt = {wa_tcp_listen_poll, wa_tcp_op_drop, "tcp_listen"};

static wa_future *wa_tcp_op_init(wa_tcp_op *op, const wa_future_vt *vt, wa_rt *rt, const char *ip, uint16_t port)
{
    wa_future *f = wa_tcp_op_start(op, vt, rt, ip, port);
    op->fd = -1;
    return f;
}

wa_future *wa_tcp_listen_init(wa_tcp_op *op, wa_rt *rt, const char *ip, uint16_t port)
{
    return wa_tcp_op_init(op, &wa_tcp_listen_vt, rt, ip, port);
}

uint16_t wa_tcp_port(const wa_tcp *l) { return l->port; }

void wa_tcp_close(wa_tcp *l)
{
    wa_fd_deregister(l->rt, l->key); /* an accept waiting gets WA_ECLOSED */
    close(l->fd);
    free(l);
}

static int wa_tcp_accept_poll(wa_future *f, wa_cx *cx)
{
    wa_tcp_op *op = (wa_tcp_op *)f;
    int rc = wa_tcp_waited(op, cx);
    if (rc != 0)
        return rc;
    for (;;) {
        int fd = accept4(op->listener->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd >= 0)
            return wa_fd_stream_adopt(op->rt, fd, NULL, &op->conn);
        if (errno == EINTR || errno == ECONNABORTED)
            continue;
        if (errno != EAGAIN)
            return wa_errno_map(errno);
        if ((rc = wa_tcp_wait(op, op->listener->key, WA_READABLE, cx)) != 0)
            return rc;
    }
}

static const wa_future_vt wa_tcp_accept_vt = {wa_tcp_accept_poll, wa_tcp_op_drop, "tcp_accept"};

wa_future *wa_tcp_accept_init(wa_tcp_op *op, wa_tcp *l)
{
    wa_tcp_op_init(op, &wa_tcp_accept_vt, l->rt, NULL, 0);
    op->listener = l;
    return &op->fut;
}

/* connect: start it, wait until the socket is writable, read its error */
static int wa_tcp_connect_poll(wa_future *f, wa_cx *cx)
{
    wa_tcp_op *op = (wa_tcp_op *)f;
    int rc, err = 0;
    if (op->step < 0)
        return WA_EINVAL;
    if (op->step == 0) {
        struct sockaddr_in a = wa_tcp_sockaddr(op);
        if ((rc = wa_tcp_socket(op)) < 0)
            return rc;
        op->step = 1;
        if (connect(op->fd, (struct sockaddr *)&a, sizeof a) < 0 && errno != EINPROGRESS)
            return wa_tcp_fail(op, wa_errno_map(errno));
        rc = wa_tcp_wait(op, op->key, WA_WRITABLE, cx);
    } else {
        rc = wa_tcp_waited(op, cx);
    }
    if (rc != 0)
        return rc == WA_PENDING ? rc : wa_tcp_fail(op, rc);
    socklen_t len = sizeof err;
    if (getsockopt(op->fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
        err = errno;
    if (err)
        return wa_tcp_fail(op, wa_errno_map(err));
    rc = wa_fd_stream_adopt(op->rt, op->fd, &op->key, &op->conn); /* takes both */
    op->fd = -1;
    op->registered = 0;
    return rc;
}

static const wa_future_vt wa_tcp_connect_vt = {wa_tcp_connect_poll, wa_tcp_op_drop, "tcp_connect"};

wa_future *wa_tcp_connect_init(wa_tcp_op *op, wa_rt *rt, const char *ip, uint16_t port)
{
    return wa_tcp_op_init(op, &wa_tcp_connect_vt, rt, ip, port);
}
