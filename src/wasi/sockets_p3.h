/* SPDX-License-Identifier: MIT */
/* Internal: Canonical ABI bindings for wasi:sockets@0.3.0 (types'
 * tcp-socket, ip-name-lookup). Errors are mapped to wasync codes as the 0.2
 * bindings map theirs; tcp-socket handles are counted in
 * wa_wasi_live_handles. */
#ifndef WASYNC_WASI_SOCKETS_P3_H
#define WASYNC_WASI_SOCKETS_P3_H

#include <stdint.h>

#include "p3.h"
#include "wasync/net.h"

/* The types of the sockets' streams and futures: stream<tcp-socket>
 * (listen's), future<result<_, error-code>> (send's and receive's).
 * Their stream<u8> is wa_wasip3_cli_bytes: one type in the component. */
extern const struct wa_wasip3_stream_type wa_wasip3_tcp_sockets;
extern const struct wa_wasip3_future_type wa_wasip3_tcp_result;

/* A socket of the family ipv4 (v6 0) or ipv6: 0 and the new handle. */
int wa_p3_tcp_create(int v6, uint32_t *sock);
/* Borrows sock; ip is read at once. */
int wa_p3_tcp_bind(uint32_t sock, const wa_ip *ip, uint16_t port);
/* Borrows sock: 0 and the owned readable end of its stream<tcp-socket>. */
int wa_p3_tcp_listen(uint32_t sock, uint32_t *accepts);
int wa_p3_tcp_local_port(uint32_t sock, uint16_t *port);
/* Borrows sock; takes readable (not joined): returns the owned future of
 * the send's result. */
uint32_t wa_p3_tcp_send(uint32_t sock, uint32_t readable);
/* Borrows sock: the owned receive stream and the future of its result. */
void wa_p3_tcp_receive(uint32_t sock, uint32_t *stream, uint32_t *result);
/* The error of send's or receive's result<_, error-code> at value, or 0
 * (frees what the host lowered in it). */
int wa_p3_tcp_result_error(const unsigned char *value);
/* Consumes sock. */
void wa_p3_tcp_drop(uint32_t sock);

/* connect, async-lowered: its argument area (the socket, borrowed, and the
 * address) and its return area, which the caller keeps until the subtask
 * resolves or is cancelled. */
typedef struct wa_p3_connect_call {
    _Alignas(4) unsigned char args[36];
    _Alignas(4) unsigned char ret[20];
} wa_p3_connect_call;
/* Fills c and starts the call: the packed state | subtask << 4. */
uint32_t wa_p3_tcp_connect(wa_p3_connect_call *c, uint32_t sock, const wa_ip *ip, uint16_t port);
/* The result of a connect that returned (frees what the host lowered). */
int wa_p3_tcp_connect_result(wa_p3_connect_call *c);

/* resolve-addresses, async-lowered: name is borrowed, ret (20 bytes,
 * 4-aligned) kept, until the subtask resolves or is cancelled. */
uint32_t wa_p3_resolve(const char *name, unsigned char *ret);
/* The result of a resolve that returned: up to max addresses into out,
 * their count in *n (frees what the host lowered). */
int wa_p3_resolve_result(unsigned char *ret, wa_ip *out, int max, int *n);

#endif
