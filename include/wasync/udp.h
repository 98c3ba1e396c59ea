/* SPDX-License-Identifier: MIT */
/* wasync/udp.h - UDP, on WASI 0.2 and 0.3 (wasi:sockets) and native Linux
 * (epoll and io_uring).
 *
 * A socket is bound to an address (net.h's rules: an IPv4 or IPv6 literal,
 * "0.0.0.0" or "::" for every address, an IPv6 socket IPv6 only) and sends
 * datagrams to, and receives them from, any peer of its family. A
 * receive gives the sender as a wa_ip and a port, which a send takes back
 * as they are: an echo answers with what it was given
 * (examples/udp_echo.c). One receive at a time on a socket, as one read
 * at a time on a stream: WASI 0.3's receive is one call the socket keeps
 * in flight, so that a receive dropped (a timeout) loses no datagram to
 * the next. Sends, any number at once.
 */
#ifndef WASYNC_UDP_H
#define WASYNC_UDP_H

#include "net.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The calls below, on a host that has no sockets. */
#if defined(WASYNC_HOST_JS) || defined(WASYNC_HOST_WASIP1)
#define WA__UDP WA__UNAVAILABLE("wasync: no UDP on the " WASYNC_HOST " host (udp.h is native Linux's, WASI 0.2's and WASI 0.3's)")
#else
#define WA__UDP
#endif

typedef struct wa_udp wa_udp; /* a bound socket */

/* A bind, a send or a receive (private fields but the results named). */
typedef struct wa_udp_op {
    wa_future fut;
    wa_rt *rt;
    wa_udp *udp;      /* bind: the result; send, receive: the socket */
    wa_ip ip;         /* bind: the address; send: the peer; receive: the sender */
    uint16_t port;    /* ...and its port */
    int step, registered, waiting;
    wa_net_host host;
    const void *data; /* send: the datagram */
    void *buf;        /* receive: where it goes */
    size_t len;       /* send: the datagram's length; receive: buf's size */
    size_t n;         /* receive: the datagram's length (more than len: cut) */
    char reason[WA_REASON_MAX]; /* wa_udp_op_reason */
} wa_udp_op;

/* Binds a new socket to ip:port (ip borrowed, read at once; port 0: a free
 * one); once ready, op->udp is the socket, the caller's to close with
 * wa_udp_close. WA_EINVAL for a bad or NULL address, WA_EADDRINUSE,
 * WA_EMFILE, WA_ENOSYS on a backend without sockets (sim). */
WA__UDP wa_future *wa_udp_bind_init(wa_udp_op *op, wa_rt *rt, const char *ip, uint16_t port);

/* The port u (borrowed) is bound to; 0 and misuse reported for NULL. */
WA__UDP uint16_t wa_udp_port(const wa_udp *u);

/* Sends the datagram data[0..len) (borrowed until the send ends) on u
 * (borrowed; kept alive by the send) to ip:port (ip borrowed, read at
 * once; an IPv4-mapped address is its IPv4 one), waiting while the host
 * has no room. Status 0 once the host took it (UDP: not that it arrived);
 * WA_EINVAL for a NULL address, one of the other family or port 0,
 * WA_E2BIG for a datagram too large, WA_ECLOSED when u closes first. A
 * NULL u (a closed handle) is misuse, reported at the first poll. */
WA__UDP wa_future *wa_udp_send_to_init(wa_udp_op *op, wa_udp *u, const void *data, size_t len, const wa_ip *ip,
                                       uint16_t port);

/* Receives one datagram on u (borrowed; kept alive by the receive) into
 * buf[0..len): op->n is its length, and when op->n > len it was cut to
 * the len bytes in buf (the rest is lost, as with recvfrom); op->ip and
 * op->port are its sender's. Status 0, or WA_ECLOSED when u closes first.
 * A second receive in flight on u is misuse (WA_EBUSY), as is a NULL u,
 * both reported at the first poll. */
WA__UDP wa_future *wa_udp_recv_from_init(wa_udp_op *op, wa_udp *u, void *buf, size_t len);

/* Why op's bind, send or receive failed, in the host's words with the
 * call ("bind: Address already in use", "start-bind: address-in-use"), as
 * net.h's wa_tcp_op_reason: "" before op ended, after a success, or when
 * the host gave no words; borrowed from op, until it is initialised
 * again. */
WA__UDP const char *wa_udp_op_reason(const wa_udp_op *op);

/* Closes the socket *u (takes it) and clears *u, as wa_tcp_close does: a
 * send or receive in flight ends with WA_ECLOSED, and the memory goes
 * when the last lets go. Returns 0, or WA_EMISUSE (NULL, or closed
 * already through another copy of the handle). */
WA__UDP int wa_udp_close(wa_udp **u);

#ifdef __cplusplus
}
#endif
#endif
