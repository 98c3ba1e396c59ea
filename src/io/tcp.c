/* SPDX-License-Identifier: MIT */
/* The listen, accept and connect futures and the listener of every host's
 * TCP (see tcp.h): addresses are read and listeners live and die here,
 * the same everywhere, and the host's ops (wa__tcp_host) do the sockets. A
 * listener is kept alive by an accept in flight. Natively a listen or
 * connect may have a Unix socket's path instead of an address. A connection's options
 * are checked here too (a TCP connection, no write in flight). */
#include <stdlib.h>

#include "../core/rt.h"
#include "stream_handle.h"
#include "tcp.h"

/* The head of listener l (every host's listener begins with it). */
static wa__tcp_head *wa__tcp_head_of(wa_tcp *l) { return (wa__tcp_head *)(void *)l; }

/* Returns a new listener on rt (the handle's reference; the host fills in
 * its socket and port), or NULL without memory. */
static wa_tcp *wa__tcp_new(wa_rt *rt)
{
    wa__tcp_head *l = calloc(1, wa__tcp_host.size);
    if (!l || wa__handle_new(l, WA__HANDLE_TCP, &l->h) < 0) {
        free(l);
        return NULL;
    }
    l->rt = rt;
    l->refs = 1;
    return (wa_tcp *)(void *)l;
}

/* Frees l, a new listener never handed out (a listen that failed). */
static void wa__tcp_discard(wa_tcp *l)
{
    wa__handle_release(wa__tcp_head_of(l)->h);
    free(l);
}

/* The listener of handle h, or NULL (NULL, or closed: through this copy of
 * the handle or another). */
static wa_tcp *wa__tcp_at(const wa_tcp *h) { return wa__handle_get((uintptr_t)h, WA__HANDLE_TCP); }

static void wa__tcp_unref(wa_tcp *l)
{
    if (--wa__tcp_head_of(l)->refs == 0)
        free(l);
}

int wa_tcp_close(wa_tcp **lp)
{
    wa_tcp *l = lp ? wa__tcp_at(*lp) : NULL;
    if (lp)
        *lp = NULL;
    if (!l)
        return wa_misuse(WA_EMISUSE, "wa_tcp_close: a listener closed already (through this copy of the handle or another), or NULL");
    wa__handle_release(wa__tcp_head_of(l)->h); /* every copy of the handle goes stale */
    wa__tcp_head_of(l)->closed = 1;
    wa__tcp_host.close(l);
    wa__tcp_unref(l);
    return 0;
}

uint16_t wa_tcp_port(const wa_tcp *h)
{
    wa_tcp *l = wa__tcp_at(h);
    if (!l) {
        wa_misuse(WA_EMISUSE, "wa_tcp_port: a closed (or NULL) listener");
        return 0;
    }
    return wa__tcp_head_of(l)->port;
}

/* Starts op as a future of vt, fields zero but the host's "none" values. */
static wa_future *wa__tcp_op_begin(wa_tcp_op *op, const wa_future_vt *vt, wa_rt *rt, wa_tcp *listener)
{
    *op = (wa_tcp_op){.fut = {vt}, .rt = rt, .listener = listener};
    if (wa__tcp_host.none)
        wa__tcp_host.none(op);
    return &op->fut;
}

/* Starts op as a listen or connect with vt on rt, at or to ip (borrowed)
 * and port. A bad or NULL ip makes the first poll report WA_EINVAL. */
static wa_future *wa__tcp_op_start(wa_tcp_op *op, const wa_future_vt *vt, wa_rt *rt, const char *ip, uint16_t port)
{
    wa__tcp_op_begin(op, vt, rt, NULL);
    op->port = port;
    if (wa__ip_parse(ip, &op->ip) < 0)
        op->step = WA__TCP_BAD;
    else
        wa__ip_unmap(&op->ip);
    return &op->fut;
}

/* listen: a new listener, held in op->listener while the host works on
 * it; the user gets its handle (WA__TCP_LISTENED) or an error. A listen
 * polled after its end is misuse (a host would make a second listener,
 * the first one's handle lost). */
static int wa__tcp_listen_poll(wa_future *f, wa_cx *cx)
{
    wa_tcp_op *op = (wa_tcp_op *)f;
    if (op->step == WA__TCP_LISTENED)
        return wa_misuse(WA_EMISUSE, "wa__tcp_listen: polled after its end (its listener is in op->listener)");
    if (op->step < 0)
        return WA_EINVAL;
    if (!op->listener && !(op->listener = wa__tcp_new(op->rt)))
        return WA_ENOMEM;
    int rc = wa__tcp_host.listen(op, op->listener, cx);
    if (rc == WA_PENDING)
        return rc;
    if (rc < 0) {
        wa__tcp_discard(op->listener);
        op->listener = NULL;
    } else {
        op->listener = (wa_tcp *)wa__tcp_head_of(op->listener)->h;
        op->step = WA__TCP_LISTENED;
    }
    return rc;
}

static void wa__tcp_listen_drop(wa_future *f)
{
    wa_tcp_op *op = (wa_tcp_op *)f;
    wa__tcp_host.release(op);
    if (op->listener && op->step != WA__TCP_LISTENED) { /* dropped while listening */
        wa__tcp_discard(op->listener);
        op->listener = NULL;
    }
}

static const wa_future_vt wa__tcp_listen_vt = {wa__tcp_listen_poll, wa__tcp_listen_drop, "tcp_listen"};

wa_future *wa_tcp_listen_init(wa_tcp_op *op, wa_rt *rt, const char *ip, uint16_t port)
{
    return wa__tcp_op_start(op, &wa__tcp_listen_vt, rt, ip, port);
}

/* An accept lets go of its host's part and its listener (again: nothing). */
static void wa__tcp_accept_drop(wa_future *f)
{
    wa_tcp_op *op = (wa_tcp_op *)f;
    if (op->listener) {
        wa__tcp_host.accept_release(op);
        wa__tcp_unref(op->listener);
        op->listener = NULL;
    }
}

/* accept: the host's while its listener is open; once the accept ends, it
 * is dropped (its waits and its reference). A closed listener ends it
 * with WA_ECLOSED; no listener (NULL, or an accept polled after its end)
 * is misuse. */
static int wa__tcp_accept_poll(wa_future *f, wa_cx *cx)
{
    wa_tcp_op *op = (wa_tcp_op *)f;
    int rc;
    if (!op->listener)
        rc = wa_misuse(WA_EMISUSE, "wa__tcp_accept: no listener (NULL, or closed through a copy of the handle), or polled after its end");
    else
        rc = wa__tcp_head_of(op->listener)->closed ? WA_ECLOSED : wa__tcp_host.accept(op, cx);
    if (rc != WA_PENDING)
        wa__tcp_accept_drop(f);
    return rc;
}

static const wa_future_vt wa__tcp_accept_vt = {wa__tcp_accept_poll, wa__tcp_accept_drop, "tcp_accept"};

/* The accept takes a reference to the listener of handle l (NULL or
 * closed: none, op->listener NULL) until it ends. */
wa_future *wa_tcp_accept_init(wa_tcp_op *op, wa_tcp *h)
{
    wa_tcp *l = wa__tcp_at(h);
    wa_future *f = wa__tcp_op_begin(op, &wa__tcp_accept_vt, l ? wa__tcp_head_of(l)->rt : NULL, l);
    if (l)
        wa__tcp_head_of(l)->refs++;
    return f;
}

static int wa__tcp_connect_poll(wa_future *f, wa_cx *cx)
{
    wa_tcp_op *op = (wa_tcp_op *)f;
    return op->step < 0 ? WA_EINVAL : wa__tcp_host.connect(op, cx);
}

static void wa__tcp_connect_drop(wa_future *f) { wa__tcp_host.release((wa_tcp_op *)f); }

static const wa_future_vt wa__tcp_connect_vt = {wa__tcp_connect_poll, wa__tcp_connect_drop, "tcp_connect"};

wa_future *wa_tcp_connect_init(wa_tcp_op *op, wa_rt *rt, const char *ip, uint16_t port)
{
    return wa__tcp_op_start(op, &wa__tcp_connect_vt, rt, ip, port);
}

#if defined(WASYNC_HOST_NATIVE)
/* A Unix domain socket's listen or connect: a listen or connect with a
 * path, which the host's ops take instead of the address. A NULL or empty
 * path makes the first poll report WA_EINVAL. */
static wa_future *wa__tcp_unix_start(wa_tcp_op *op, const wa_future_vt *vt, wa_rt *rt, const char *path)
{
    wa__tcp_op_begin(op, vt, rt, NULL);
    op->path = path;
    if (!path || !*path)
        op->step = WA__TCP_BAD;
    return &op->fut;
}

wa_future *wa_unix_listen_init(wa_tcp_op *op, wa_rt *rt, const char *path)
{
    return wa__tcp_unix_start(op, &wa__tcp_listen_vt, rt, path);
}

wa_future *wa_unix_connect_init(wa_tcp_op *op, wa_rt *rt, const char *path)
{
    return wa__tcp_unix_start(op, &wa__tcp_connect_vt, rt, path);
}
#endif

const char *wa_tcp_op_reason(const wa_tcp_op *op) { return op->reason; }

/* The stream of connection handle h, or NULL and misuse of call reported
 * (NULL, closed, or not a TCP connection of this host). */
static wa_stream *wa__tcp_conn(wa_stream *h, const char *call)
{
    wa_stream *s = h ? wa__stream_at(h) : NULL;
    if (!s)
        wa__misuse_in(WA_EMISUSE, call, "no connection (NULL, or a stream closed through a copy of the handle)");
    else if (!wa__tcp_host.is_conn(s))
        wa__misuse_in(WA_EMISUSE, call, "not a TCP connection (a pipe, a file, stdio, another stream)");
    else
        return s;
    return NULL;
}

int wa_tcp_nodelay(wa_stream *conn, bool on)
{
    wa_stream *s = wa__tcp_conn(conn, "wa_tcp_nodelay");
    return s ? wa__tcp_host.nodelay(s, on) : WA_EMISUSE;
}

int wa_tcp_keepalive(wa_stream *conn, bool on, unsigned idle_s)
{
    wa_stream *s = wa__tcp_conn(conn, "wa_tcp_keepalive");
    return s ? wa__tcp_host.keepalive(s, on, idle_s) : WA_EMISUSE;
}

/* A write in flight is refused rather than cut short: its bytes may still
 * be on their way to the host (a write waiting for room, or its flush). */
int wa_tcp_shutdown_write(wa_stream *conn)
{
    wa_stream *s = wa__tcp_conn(conn, "wa_tcp_shutdown_write");
    if (!s)
        return WA_EMISUSE;
    if (s->busy & WA_STREAM_WRITE)
        return wa__misuse_in(WA_EBUSY, "wa_tcp_shutdown_write", "a write in flight on the connection (await it first)");
    return wa__tcp_host.shutdown_write(s);
}
