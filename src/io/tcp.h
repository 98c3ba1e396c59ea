/* SPDX-License-Identifier: MIT */
/* Internal: what every host's TCP shares (tcp.c, ip.c), and what each host
 * gives it (src/host/: native/tcp.c, wasip2/tcp.c, wasip3/tcp.c). */
#ifndef WASYNC_IO_TCP_H
#define WASYNC_IO_TCP_H

#include <stdint.h>

#include "wasync/net.h"
#include "wasync/sync.h"

#include "stream_handle.h"

/* Reads s (borrowed), an IPv4 or IPv6 literal, as inet_pton does, into
 * *out. Returns 0, or WA_EINVAL (NULL too). */
int wa_ip_parse(const char *s, wa_ip *out);

/* A listener. References: its handle's, given up by wa_tcp_close once the
 * socket is released (closed), and each accept's, from its init until it
 * ends, so that an accept finds a closed listener rather than freed
 * memory. The user holds h, a key of the handle table (core/handles.h),
 * not its address: the close releases h, so that a copy of the handle
 * used after it is found out without reading the listener. */
struct wa_tcp {
    wa_rt *rt;
    uintptr_t h;
    int refs, closed;
    uint16_t port;
#if defined(WASYNC_HOST_WASIP2)
    uint32_t sock, net;
    wa_pollable_key key;
#elif defined(WASYNC_HOST_WASIP3)
    /* the socket and the readable end of its stream<tcp-socket>, read one
     * socket at a time: the read is the listener's, so an accept dropped
     * while it is BLOCKED leaves it to the next (only the close cancels it) */
    uint32_t sock, accepts;
    uint64_t key;   /* accepts' registration (a wa_waitable_key) */
    int reading;    /* the read's state (src/host/wasip3/tcp.c) */
    uint32_t got;   /* its buffer: one socket */
    wa_tcp_op *waiter; /* the accept waiting on the registration, or NULL */
    wa_notify turn;    /* ...and the others wait for their turn here */
#else
    int fd;
    wa_fd_key key;
#endif
};

/* Returns a new listener on rt (the handle's reference; the host fills in
 * its socket and port), or NULL without memory. */
wa_tcp *wa_tcp_new(wa_rt *rt);

/* Frees l, a new listener never handed out (a listen that failed). */
void wa_tcp_discard(wa_tcp *l);

/* What the user gets for l: its handle. */
static inline wa_tcp *wa_tcp_handle(const wa_tcp *l) { return (wa_tcp *)l->h; }

/* wa_tcp_close, with the host's part: release_socket releases l's socket
 * (borrowed), which wakes an accept waiting on it. */
int wa_tcp_close_with(wa_tcp **l, void (*release_socket)(wa_tcp *));

/* Starts op (host fields zero: the host sets its "none" values after) as
 * a listen or connect with vt on rt, at or to ip (borrowed) and port. A
 * bad or NULL ip makes the first poll report WA_EINVAL (op->step -1). */
wa_future *wa_tcp_op_start(wa_tcp_op *op, const wa_future_vt *vt, wa_rt *rt, const char *ip, uint16_t port);

/* Polls a listen that takes one step (native, WASI 0.3): a bad address
 * is WA_EINVAL; else open (the host's) gives a new listener l its socket
 * and port, and l becomes op's, or open fails (releasing what it made:
 * l is freed here). */
int wa_tcp_listen_poll_with(wa_tcp_op *op, int (*open)(wa_tcp_op *op, wa_tcp *l));

/* Starts op (as above) as an accept with vt on the listener of handle l
 * (borrowed; NULL or closed: none, op->listener NULL), taking a reference
 * to the listener until it ends. */
wa_future *wa_tcp_accept_start(wa_tcp_op *op, const wa_future_vt *vt, wa_tcp *l);

/* Polls an accept: try_accept (the host's) while its listener is open;
 * once the accept ends, drops it (vt->drop: its waits and its reference).
 * A closed listener ends it with WA_ECLOSED; no listener (NULL, or an
 * accept polled after its end) is misuse. */
int wa_tcp_accept_poll_with(wa_tcp_op *op, wa_cx *cx, int (*try_accept)(wa_tcp_op *, wa_cx *));

/* An accept lets go of its listener (again: nothing). */
void wa_tcp_accept_end(wa_tcp_op *op);

#endif
