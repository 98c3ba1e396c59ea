/* wasync/net.h - TCP, on WASI 0.2 (wasi:sockets) and native Linux (epoll).
 *
 * A connection is a stream (stream.h): read, write with backpressure,
 * close. Addresses are IPv4 for now ("127.0.0.1"). The same program runs on
 * both hosts (examples/tcp_echo.c).
 */
#ifndef WASYNC_NET_H
#define WASYNC_NET_H

#include "backend.h"
#include "runtime.h"
#include "stream.h"
#include "wasi.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wa_tcp wa_tcp; /* a listening socket */

/* The steps of listening, accepting, connecting (private fields). */
typedef struct wa_tcp_op {
    wa_future fut;
    wa_rt *rt;
    uint8_t ip[4];
    uint16_t port;
    int step, registered, waiting;
#if defined(WASYNC_HOST_WASIP2)
    uint32_t sock, net;
    wa_pollable_key key;
    wa_pollable_wait wait;
#elif defined(__linux__)
    int fd;
    wa_fd_key key;
    wa_fd_wait wait;
#endif
    wa_tcp *listener;  /* listen: the result; accept: the socket */
    wa_stream *conn;   /* accept, connect: the result */
} wa_tcp_op;

/* Listens on ip:port (port 0: a free one); once ready, op->listener is the
 * socket (close it with wa_tcp_close). WA_EINVAL for a bad address,
 * WA_EADDRINUSE, WA_ENOSYS on a backend without sockets (sim). */
wa_future *wa_tcp_listen_init(wa_tcp_op *op, wa_rt *rt, const char *ip, uint16_t port);

/* The port a listener is bound to. */
uint16_t wa_tcp_port(const wa_tcp *l);

/* Accepts one connection on l (borrowed): op->conn, a stream the caller
 * closes with wa_stream_close. One accept at a time per listener. */
wa_future *wa_tcp_accept_init(wa_tcp_op *op, wa_tcp *l);

/* Connects to ip:port: op->conn. WA_ECONNREFUSED and the like. */
wa_future *wa_tcp_connect_init(wa_tcp_op *op, wa_rt *rt, const char *ip, uint16_t port);

void wa_tcp_close(wa_tcp *l);

/* DNS: the addresses of a host name (borrowed until completion), up to
 * WA_DNS_MAX of them. Status 0 (n may be 0), WA_EIO for a name that does
 * not resolve, and the like. Natively getaddrinfo runs on a thread of its
 * own (it blocks); a lookup dropped meanwhile lets it finish unobserved. */
#define WA_DNS_MAX 16
typedef struct wa_ip {
    int v6;
    uint8_t bytes[16]; /* 4 used for IPv4; IPv6 in network order */
} wa_ip;

typedef struct wa_dns {
    wa_future fut;
    wa_rt *rt;
    const char *name;
    int registered, waiting;
#if defined(WASYNC_HOST_WASIP2)
    uint32_t net, stream;
    wa_pollable_key key;
    wa_pollable_wait wait;
#elif defined(__linux__)
    struct wa_dns_job *job;
    wa_fd_key key;
    wa_fd_wait wait;
#endif
    wa_ip addrs[WA_DNS_MAX];
    int n;
} wa_dns;
wa_future *wa_dns_lookup_init(wa_dns *d, wa_rt *rt, const char *name);

#ifdef __cplusplus
}
#endif
#endif
