/* SPDX-License-Identifier: MIT */
/* Internal: Canonical ABI bindings for wasi:sockets@0.2.12 (network,
 * instance-network, tcp, tcp-create-socket, udp, udp-create-socket,
 * ip-name-lookup). Errors are mapped to wasync
 * codes; would-block is WA_EAGAIN. */
#ifndef WASYNC_HOST_WASIP2_SOCKETS_H
#define WASYNC_HOST_WASIP2_SOCKETS_H

#include <stddef.h>
#include <stdint.h>

#include "wasync/net.h"

/* An ip-socket-address (ip-address: ip only, port 0). IPv6's eight u16
 * groups are ip's bytes in network order: the bindings convert. */
typedef struct wa__wasip2_addr {
    wa_ip ip;
    uint16_t port;
    uint32_t flow, scope;
} wa__wasip2_addr;

uint32_t wa__wasip2_instance_network(void);
/* Returns rc, the status of the call named call (a WIT function's name)
 * made just before; when it failed (not would-block), reason
 * (WA_REASON_MAX bytes) is the call and its error-code's case
 * ("finish-connect: connection-refused"). */
int wa__wasip2_net_said(char *reason, const char *call, int rc);
void wa__wasip2_network_drop(uint32_t net);

/* A socket of the family ipv4 (v6 0) or ipv6. */
int wa__wasip2_tcp_create(int v6, uint32_t *sock);
int wa__wasip2_tcp_start_bind(uint32_t sock, uint32_t net, const wa__wasip2_addr *a);
int wa__wasip2_tcp_finish_bind(uint32_t sock);
int wa__wasip2_tcp_start_listen(uint32_t sock);
int wa__wasip2_tcp_finish_listen(uint32_t sock);
int wa__wasip2_tcp_accept(uint32_t sock, uint32_t *conn, uint32_t *in, uint32_t *out);
int wa__wasip2_tcp_start_connect(uint32_t sock, uint32_t net, const wa__wasip2_addr *a);
int wa__wasip2_tcp_finish_connect(uint32_t sock, uint32_t *in, uint32_t *out);
int wa__wasip2_tcp_local_address(uint32_t sock, wa__wasip2_addr *a);
/* A connection's options: keep-alive on or off, its idle time (ns, > 0),
 * and shutdown(send). */
int wa__wasip2_tcp_set_keep_alive(uint32_t sock, int on);
int wa__wasip2_tcp_set_keep_alive_idle(uint32_t sock, uint64_t ns);
int wa__wasip2_tcp_shutdown_send(uint32_t sock);
uint32_t wa__wasip2_tcp_subscribe(uint32_t sock);
void wa__wasip2_tcp_drop(uint32_t sock);

/* A UDP socket of the family ipv4 (v6 0) or ipv6, bound in two steps as
 * TCP's; stream(none) gives its datagram streams, in and out. */
int wa__wasip2_udp_create(int v6, uint32_t *sock);
int wa__wasip2_udp_start_bind(uint32_t sock, uint32_t net, const wa__wasip2_addr *a);
int wa__wasip2_udp_finish_bind(uint32_t sock);
int wa__wasip2_udp_stream(uint32_t sock, uint32_t *in, uint32_t *out);
int wa__wasip2_udp_local_address(uint32_t sock, wa__wasip2_addr *a);
uint32_t wa__wasip2_udp_subscribe(uint32_t sock);
void wa__wasip2_udp_drop(uint32_t sock);
/* One datagram from in: 1 with its first len bytes in buf, its length in
 * *n and its sender in *from; 0 when none is there; or an error. */
int wa__wasip2_udp_receive(uint32_t in, void *buf, size_t len, size_t *n, wa__wasip2_addr *from);
uint32_t wa__wasip2_udp_in_subscribe(uint32_t in);
void wa__wasip2_udp_in_drop(uint32_t in);
/* How many datagrams out takes now (check-send, before each send). */
int wa__wasip2_udp_check_send(uint32_t out, uint64_t *n);
/* Sends data[0..len) (borrowed) to *to: 1 sent, 0 not, or an error. */
int wa__wasip2_udp_send(uint32_t out, const void *data, size_t len, const wa__wasip2_addr *to);
uint32_t wa__wasip2_udp_out_subscribe(uint32_t out);
void wa__wasip2_udp_out_drop(uint32_t out);

/* ip-name-lookup: a resolve-address-stream for name (borrowed). */
int wa__wasip2_resolve(uint32_t net, const char *name, uint32_t *stream);
/* The next address: 1 with *a, 0 at the end, WA_EAGAIN not yet, < 0. */
int wa__wasip2_resolve_next(uint32_t stream, wa__wasip2_addr *a);
uint32_t wa__wasip2_resolve_subscribe(uint32_t stream);
void wa__wasip2_resolve_drop(uint32_t stream);

#endif
