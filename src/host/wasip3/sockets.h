/* SPDX-License-Identifier: MIT */
/* Internal: Canonical ABI bindings for wasi:sockets@0.3.0 (types'
 * tcp-socket and udp-socket, ip-name-lookup). Errors are mapped to wasync codes as the 0.2
 * bindings map theirs; tcp-socket handles are counted in
 * wa_wasi_live_handles. */
#ifndef WASYNC_HOST_WASIP3_SOCKETS_H
#define WASYNC_HOST_WASIP3_SOCKETS_H

#include <stddef.h>
#include <stdint.h>

#include "builtins.h"
#include "wasync/net.h"

/* The types of the sockets' streams and futures: stream<tcp-socket>
 * (listen's), future<result<_, error-code>> (send's and receive's).
 * Their stream<u8> is wa_wasip3_cli_bytes: one type in the component. */
extern const struct wa_wasip3_stream_type wa__wasip3_tcp_sockets;
extern const struct wa_wasip3_future_type wa__wasip3_tcp_result;

/* Returns rc, the status of the call named call (a WIT function's name)
 * whose result was read just before; when it failed, reason
 * (WA_REASON_MAX bytes) is the call and its error-code's case, other's
 * string in full ("connect: connection-refused", "bind: other: EACCES"). */
int wa__wasip3_net_said(char *reason, const char *call, int rc);

/* A socket of the family ipv4 (v6 0) or ipv6: 0 and the new handle. */
int wa__wasip3_tcp_create(int v6, uint32_t *sock);
/* Borrows sock; ip is read at once. */
int wa__wasip3_tcp_bind(uint32_t sock, const wa_ip *ip, uint16_t port);
/* Borrows sock: 0 and the owned readable end of its stream<tcp-socket>. */
int wa__wasip3_tcp_listen(uint32_t sock, uint32_t *accepts);
int wa__wasip3_tcp_local_port(uint32_t sock, uint16_t *port);
/* Borrows sock; takes readable (not joined): returns the owned future of
 * the send's result. */
uint32_t wa__wasip3_tcp_send(uint32_t sock, uint32_t readable);
/* A connection's keep-alive: on or off, its idle time (ns, > 0). */
int wa__wasip3_tcp_set_keep_alive(uint32_t sock, int on);
int wa__wasip3_tcp_set_keep_alive_idle(uint32_t sock, uint64_t ns);
/* Borrows sock: the owned receive stream and the future of its result. */
void wa__wasip3_tcp_receive(uint32_t sock, uint32_t *stream, uint32_t *result);
/* The error of receive's (dir 0) or send's (1) result<_, error-code> at
 * value, or 0 (frees what the host lowered in it); its words, with the
 * call, in why (WA_REASON_MAX bytes, left alone on success). */
int wa__wasip3_tcp_result_error(const unsigned char *value, int dir, char *why);
/* Consumes sock. */
void wa__wasip3_tcp_drop(uint32_t sock);

/* connect, async-lowered: its area (wa_subtask_area_new, with
 * wa__wasip3_tcp_connect_late) holds its arguments (the socket, borrowed, and
 * the address) and its result. */
typedef struct wa__wasip3_connect_call {
    _Alignas(4) unsigned char args[36];
    _Alignas(4) unsigned char ret[20];
} wa__wasip3_connect_call;
/* Fills c's arguments and starts the call: the packed state | subtask << 4. */
uint32_t wa__wasip3_tcp_connect(wa__wasip3_connect_call *c, uint32_t sock, const wa_ip *ip, uint16_t port);
/* The result of a connect that returned (frees what the host lowered). */
int wa__wasip3_tcp_connect_result(wa__wasip3_connect_call *c);
/* The late hook of a connect's area: 1 once the host's write of a
 * cancelled connect's result is whole (what it lowered freed), else 0. */
int wa__wasip3_tcp_connect_late(void *area);

/* A UDP socket, made, bound and dropped as TCP's (udp handles are
 * counted the same way). */
int wa__wasip3_udp_create(int v6, uint32_t *sock);
int wa__wasip3_udp_bind(uint32_t sock, const wa_ip *ip, uint16_t port);
int wa__wasip3_udp_local_port(uint32_t sock, uint16_t *port);
void wa__wasip3_udp_drop(uint32_t sock);

/* send, async-lowered, on an area (wa_subtask_area_new, with
 * wa__wasip3_udp_send_late) of WA__WASIP3_UDP_SEND_DATA + len bytes: its
 * arguments, its result at WA__WASIP3_UDP_SEND_RET, then a copy of the
 * datagram, which the caller puts at WA__WASIP3_UDP_SEND_DATA (the host
 * reads it from there, maybe after a cancel). Borrows sock; ip is read
 * at once. Returns the packed state | subtask << 4. */
#define WA__WASIP3_UDP_SEND_RET 48
#define WA__WASIP3_UDP_SEND_DATA 68
uint32_t wa__wasip3_udp_send(unsigned char *area, uint32_t sock, size_t len, const wa_ip *ip, uint16_t port);
/* The result of a send that returned (frees what the host lowered). */
int wa__wasip3_udp_send_result(unsigned char *area);
int wa__wasip3_udp_send_late(void *area);
/* receive, async-lowered, its result into an area of
 * WA__WASIP3_UDP_RECEIVE_SIZE bytes (with wa__wasip3_udp_receive_late).
 * Borrows sock. */
#define WA__WASIP3_UDP_RECEIVE_SIZE 44
uint32_t wa__wasip3_udp_receive(unsigned char *ret, uint32_t sock);
/* The result of a receive that returned: the datagram's first len bytes
 * into buf, its length in *n, its sender in *ip and *port; frees what the
 * host lowered. */
int wa__wasip3_udp_receive_result(unsigned char *ret, void *buf, size_t len, size_t *n, wa_ip *ip, uint16_t *port);
int wa__wasip3_udp_receive_late(void *area);

/* resolve-addresses, async-lowered, on an area (wa_subtask_area_new, with
 * wa__wasip3_resolve_late) that holds the result (20 bytes, 4-aligned) and
 * then, at WA__WASIP3_RESOLVE_NAME, the name, NUL-terminated: the host reads
 * it from there (jco a turn of its loop after the call, maybe after a
 * cancel). */
#define WA__WASIP3_RESOLVE_NAME 20
uint32_t wa__wasip3_resolve(unsigned char *area);
/* The late hook of a resolve's area, as wa__wasip3_tcp_connect_late. */
int wa__wasip3_resolve_late(void *area);
/* The result of a resolve that returned: up to max addresses into out,
 * their count in *n (frees what the host lowered). */
int wa__wasip3_resolve_result(unsigned char *ret, wa_ip *out, int max, int *n);

#endif
