/* SPDX-License-Identifier: MIT */
/* Internal: what every host's TCP shares (tcp.c, ip.c). The front end
 * (tcp.c) has the operations' futures, the checks and the life of a
 * listener, the checks of a connection's options, and leaves the sockets
 * to its host's wa__tcp_host (src/host/:
 * native/tcp.c, wasip2/tcp.c, wasip3/tcp.c: one links); each host's
 * struct wa_tcp begins with the head every listener has. */
#ifndef WASYNC_IO_TCP_H
#define WASYNC_IO_TCP_H

#include <stddef.h>
#include <stdint.h>

#include "wasync/net.h"

#include "ip.h"
#include "stream_handle.h"

/* What every host's listener begins with. References: its handle's, given
 * up by wa_tcp_close once the socket is released (closed), and each
 * accept's, from its init until it ends, so that an accept finds a closed
 * listener rather than freed memory. The user holds h, a key of the handle
 * table (core/handles.h), not its address: the close releases h, so that
 * a copy of the handle used after it is found out without reading the
 * listener. */
typedef struct wa__tcp_head {
    wa_rt *rt;
    uintptr_t h;
    int refs, closed;
    uint16_t port;
} wa__tcp_head;

/* An op's step when its address was bad (the first poll reports
 * WA_EINVAL), and a listen's once it ended; a host counts its own steps
 * from 0. */
enum { WA__TCP_BAD = -1, WA__TCP_LISTENED = -2 };

/* What a host does of TCP. The front end has checked the op: its address
 * is good, an accept's listener is open. */
typedef struct wa__tcp_ops {
    /* sizeof the host's struct wa_tcp (allocated zeroed by the front end) */
    size_t size;
    /* Sets a new op's host part to "nothing held" (NULL: zeros are). */
    void (*none)(wa_tcp_op *op);
    /* Polls a listen: WA_PENDING; 0 once l (a new listener, borrowed;
     * the same at each poll) holds the socket and its port; or an error,
     * l holding nothing (the front end frees it). A listen or a connect
     * with op->path is a Unix domain socket's (native only). */
    int (*listen)(wa_tcp_op *op, wa_tcp *l, wa_cx *cx);
    /* Polls an accept on op->listener: WA_PENDING, 0 with op->conn, or an
     * error. */
    int (*accept)(wa_tcp_op *op, wa_cx *cx);
    /* Polls a connect: WA_PENDING, 0 with op->conn, or an error. */
    int (*connect)(wa_tcp_op *op, wa_cx *cx);
    /* Releases what a listen or a connect holds (again: nothing). */
    void (*release)(wa_tcp_op *op);
    /* Releases what an accept holds, its listener still referenced. */
    void (*accept_release)(wa_tcp_op *op);
    /* Releases l's socket (borrowed), which wakes an accept waiting on it. */
    void (*close)(wa_tcp *l);
    /* Whether s (a stream's head, borrowed) is a TCP connection of this
     * host; the three below are called on such a stream only. */
    bool (*is_conn)(wa_stream *s);
    /* wa_tcp_nodelay, wa_tcp_keepalive, wa_tcp_shutdown_write (the front
     * end has checked that no write is in flight). */
    int (*nodelay)(wa_stream *s, bool on);
    int (*keepalive)(wa_stream *s, bool on, unsigned idle_s);
    int (*shutdown_write)(wa_stream *s);
} wa__tcp_ops;

extern const wa__tcp_ops wa__tcp_host;

#endif
