/* SPDX-License-Identifier: MIT */
/* Internal: what every host's UDP shares (udp.c). The front end has the
 * operations' futures, their checks and the life of a socket, and leaves
 * the sockets to its host's wa__udp_host (src/host/: native/udp.c,
 * wasip2/udp.c, wasip3/udp.c: one links); each host's struct wa_udp
 * begins with the head every socket has. */
#ifndef WASYNC_IO_UDP_H
#define WASYNC_IO_UDP_H

#include <stddef.h>
#include <stdint.h>

#include "wasync/udp.h"

/* What every host's socket begins with. References: its handle's, given
 * up by wa_udp_close once the host released the socket, and each send's
 * and receive's from its init until it ends (tcp.h's listener, the same
 * way). */
typedef struct wa__udp_head {
    wa_rt *rt;
    uintptr_t h;
    int refs, closed, v6;
    uint16_t port;
    wa_udp_op *receiving; /* the receive in flight, or NULL */
} wa__udp_head;

/* An op's step when its arguments were bad (the first poll reports
 * WA_EINVAL), and a bind's once it ended; a host counts its own steps
 * from 0. */
enum { WA__UDP_BAD = -1, WA__UDP_BOUND = -2 };

/* What a host does of UDP. The front end has checked the op: its address
 * is good and of the socket's family, the socket open, a receive the only
 * one on it. */
typedef struct wa__udp_ops {
    /* sizeof the host's struct wa_udp (allocated zeroed by the front end) */
    size_t size;
    /* Sets a new op's host part to "nothing held" (NULL: zeros are). */
    void (*none)(wa_udp_op *op);
    /* Polls a bind: WA_PENDING; 0 once u (a new socket, borrowed; the
     * same at each poll) holds the socket and its port; or an error, u
     * holding nothing (the front end frees it). */
    int (*bind)(wa_udp_op *op, wa_udp *u, wa_cx *cx);
    /* Polls a send on op->udp: WA_PENDING, 0 once sent, or an error. */
    int (*send)(wa_udp_op *op, wa_cx *cx);
    /* Polls a receive on op->udp: WA_PENDING, 0 with op->n, op->ip and
     * op->port, or an error. */
    int (*recv)(wa_udp_op *op, wa_cx *cx);
    /* Releases what a bind holds (again: nothing; NULL: it holds
     * nothing). */
    void (*release)(wa_udp_op *op);
    /* Release what a send, a receive holds, its socket still referenced
     * (again: nothing). */
    void (*send_release)(wa_udp_op *op);
    void (*recv_release)(wa_udp_op *op);
    /* Releases u's socket (borrowed), which wakes the ops waiting on it. */
    void (*close)(wa_udp *u);
} wa__udp_ops;

extern const wa__udp_ops wa__udp_host;

#endif
