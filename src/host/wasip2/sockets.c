/* SPDX-License-Identifier: MIT */
/* wasi:sockets: network, instance-network, tcp, tcp-create-socket, udp,
 * udp-create-socket, ip-name-lookup (sockets.h). An ip-socket-address flattens to a discriminant and the
 * eleven i32 of its widest case (IPv6), IPv4 using the first five; the
 * results come back in return areas: a tag byte, then the payload at 4. */
#include <string.h>

#include "../../io/reason.h"
#include "../../wasi/cabi.h"
#include "io.h"
#include "sockets.h"

#define TCP "wasi:sockets/tcp@0.2.12"
#define I32 int32_t

WA__WASI_IMPORT("wasi:sockets/instance-network@0.2.12", "instance-network") I32 wa__wasip2_imp_sockets_instance_network(void);
WA__WASI_IMPORT("wasi:sockets/network@0.2.12", "[resource-drop]network") void wa__wasip2_imp_sockets_network_drop(I32);
WA__WASI_IMPORT("wasi:sockets/tcp-create-socket@0.2.12", "create-tcp-socket") void wa__wasip2_imp_sockets_tcp_create(I32, I32);
WA__WASI_IMPORT(TCP, "[method]tcp-socket.start-bind")
void wa__wasip2_imp_sockets_start_bind(I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32);
WA__WASI_IMPORT(TCP, "[method]tcp-socket.finish-bind") void wa__wasip2_imp_sockets_finish_bind(I32, I32);
WA__WASI_IMPORT(TCP, "[method]tcp-socket.start-listen") void wa__wasip2_imp_sockets_start_listen(I32, I32);
WA__WASI_IMPORT(TCP, "[method]tcp-socket.finish-listen") void wa__wasip2_imp_sockets_finish_listen(I32, I32);
WA__WASI_IMPORT(TCP, "[method]tcp-socket.accept") void wa__wasip2_imp_sockets_accept(I32, I32);
WA__WASI_IMPORT(TCP, "[method]tcp-socket.start-connect")
void wa__wasip2_imp_sockets_start_connect(I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32);
WA__WASI_IMPORT(TCP, "[method]tcp-socket.finish-connect") void wa__wasip2_imp_sockets_finish_connect(I32, I32);
WA__WASI_IMPORT(TCP, "[method]tcp-socket.local-address") void wa__wasip2_imp_sockets_local_address(I32, I32);
WA__WASI_IMPORT(TCP, "[method]tcp-socket.set-keep-alive-enabled") void wa__wasip2_imp_sockets_set_keep_alive(I32, I32, I32);
WA__WASI_IMPORT(TCP, "[method]tcp-socket.set-keep-alive-idle-time") void wa__wasip2_imp_sockets_set_keep_alive_idle(I32, int64_t, I32);
WA__WASI_IMPORT(TCP, "[method]tcp-socket.shutdown") void wa__wasip2_imp_sockets_shutdown(I32, I32, I32);
WA__WASI_IMPORT(TCP, "[method]tcp-socket.subscribe") I32 wa__wasip2_imp_sockets_tcp_subscribe(I32);
WA__WASI_IMPORT(TCP, "[resource-drop]tcp-socket") void wa__wasip2_imp_sockets_tcp_drop(I32);
#define UDP "wasi:sockets/udp@0.2.12"
WA__WASI_IMPORT("wasi:sockets/udp-create-socket@0.2.12", "create-udp-socket") void wa__wasip2_imp_sockets_udp_create(I32, I32);
WA__WASI_IMPORT(UDP, "[method]udp-socket.start-bind")
void wa__wasip2_imp_sockets_udp_start_bind(I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32);
WA__WASI_IMPORT(UDP, "[method]udp-socket.finish-bind") void wa__wasip2_imp_sockets_udp_finish_bind(I32, I32);
WA__WASI_IMPORT(UDP, "[method]udp-socket.stream")
void wa__wasip2_imp_sockets_udp_stream(I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32);
WA__WASI_IMPORT(UDP, "[method]udp-socket.local-address") void wa__wasip2_imp_sockets_udp_local_address(I32, I32);
WA__WASI_IMPORT(UDP, "[method]udp-socket.subscribe") I32 wa__wasip2_imp_sockets_udp_subscribe(I32);
WA__WASI_IMPORT(UDP, "[resource-drop]udp-socket") void wa__wasip2_imp_sockets_udp_drop(I32);
WA__WASI_IMPORT(UDP, "[method]incoming-datagram-stream.receive") void wa__wasip2_imp_sockets_udp_receive(I32, int64_t, I32);
WA__WASI_IMPORT(UDP, "[method]incoming-datagram-stream.subscribe") I32 wa__wasip2_imp_sockets_udp_in_subscribe(I32);
WA__WASI_IMPORT(UDP, "[resource-drop]incoming-datagram-stream") void wa__wasip2_imp_sockets_udp_in_drop(I32);
WA__WASI_IMPORT(UDP, "[method]outgoing-datagram-stream.check-send") void wa__wasip2_imp_sockets_udp_check_send(I32, I32);
WA__WASI_IMPORT(UDP, "[method]outgoing-datagram-stream.send") void wa__wasip2_imp_sockets_udp_send(I32, I32, I32, I32);
WA__WASI_IMPORT(UDP, "[method]outgoing-datagram-stream.subscribe") I32 wa__wasip2_imp_sockets_udp_out_subscribe(I32);
WA__WASI_IMPORT(UDP, "[resource-drop]outgoing-datagram-stream") void wa__wasip2_imp_sockets_udp_out_drop(I32);
#define DNS "wasi:sockets/ip-name-lookup@0.2.12"
WA__WASI_IMPORT(DNS, "resolve-addresses") void wa__wasip2_imp_sockets_resolve(I32, I32, I32, I32);
WA__WASI_IMPORT(DNS, "[method]resolve-address-stream.resolve-next-address") void wa__wasip2_imp_sockets_resolve_next(I32, I32);
WA__WASI_IMPORT(DNS, "[method]resolve-address-stream.subscribe") I32 wa__wasip2_imp_sockets_resolve_subscribe(I32);
WA__WASI_IMPORT(DNS, "[resource-drop]resolve-address-stream") void wa__wasip2_imp_sockets_resolve_drop(I32);

/* wasi:sockets/network error-code's cases, in declaration order: the
 * host's words for a failure. */
static const char *const wa__wasip2_net_names[] = {
    "unknown", "access-denied", "not-supported", "invalid-argument", "out-of-memory", "timeout",
    "concurrency-conflict", "not-in-progress", "would-block", "invalid-state", "new-socket-limit",
    "address-not-bindable", "address-in-use", "remote-unreachable", "connection-refused", "connection-reset",
    "connection-aborted", "datagram-too-large", "name-unresolvable", "temporary-resolver-failure",
    "permanent-resolver-failure"};

/* The error-code the last call that failed gave (read by
 * wa__wasip2_net_said right after: one thread). */
static uint8_t wa__wasip2_net_last;

int wa__wasip2_net_said(char *reason, const char *call, int rc)
{
    if (rc < 0 && rc != WA_EAGAIN) {
        uint8_t c = wa__wasip2_net_last;
        wa__reason_say(reason, call, c < sizeof wa__wasip2_net_names / sizeof *wa__wasip2_net_names ? wa__wasip2_net_names[c] : "unknown");
    }
    return rc;
}

/* wasi:sockets/network error-code, in declaration order. */
static int wa__wasip2_net_error(uint8_t code)
{
    wa__wasip2_net_last = code;
    switch (code) {
    case 3: return WA_EINVAL;        /* invalid-argument */
    case 4: return WA_ENOMEM;        /* out-of-memory */
    case 5: return WA_ETIMEDOUT;     /* timeout */
    case 8: return WA_EAGAIN;        /* would-block */
    case 10: return WA_EMFILE;       /* new-socket-limit */
    case 11:                         /* address-not-bindable */
    case 12: return WA_EADDRINUSE;   /* address-in-use */
    case 14: return WA_ECONNREFUSED; /* connection-refused */
    case 15:                         /* connection-reset */
    case 16: return WA_ECONNRESET;   /* connection-aborted */
    case 17: return WA_E2BIG;        /* datagram-too-large */
    case 2: return WA_ENOSYS;        /* not-supported */
    case 18: return WA_ENOTFOUND;    /* name-unresolvable */
    case 19: return WA_ETIMEDOUT;    /* temporary-resolver-failure */
    default: return WA_EIO;
    }
}

/* result<_, error-code> and result<T, error-code> with T at offset 4 */
static int wa__wasip2_result(const unsigned char *ret) { return ret[0] ? wa__wasip2_net_error(ret[4]) : 0; }
static int wa__wasip2_result_unit(const unsigned char *ret) { return ret[0] ? wa__wasip2_net_error(ret[1]) : 0; }

static uint32_t wa__wasip2_u32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

uint32_t wa__wasip2_instance_network(void) { return wa__wasip2_live++, (uint32_t)wa__wasip2_imp_sockets_instance_network(); }

void wa__wasip2_network_drop(uint32_t net)
{
    wa__wasip2_live--;
    wa__wasip2_imp_sockets_network_drop((I32)net);
}

/* result<tuple<own, ...>, error-code>: n handles from offset 4, now ours */
static int wa__wasip2_handles(const unsigned char *ret, uint32_t *h[], int n)
{
    int rc = wa__wasip2_result(ret);
    if (rc == 0) {
        for (int i = 0; i < n; i++)
            *h[i] = wa__wasip2_u32(ret + 4 + 4 * i);
        wa__wasip2_live += n;
    }
    return rc;
}

int wa__wasip2_tcp_create(int v6, uint32_t *sock)
{
    _Alignas(4) unsigned char ret[8];
    wa__wasip2_imp_sockets_tcp_create(v6 ? 1 : 0, (I32)(uintptr_t)ret);
    return wa__wasip2_handles(ret, (uint32_t *[]){sock}, 1);
}

/* The flattened ip-socket-address: case, then its fields as i32s. */
static void wa__wasip2_flat_addr(const wa__wasip2_addr *a, I32 f[12])
{
    const uint8_t *b = a->ip.bytes;
    memset(f, 0, 12 * sizeof *f);
    f[0] = a->ip.v6;
    f[1] = a->port;
    if (!a->ip.v6) {
        for (int i = 0; i < 4; i++)
            f[2 + i] = b[i];
    } else {
        f[2] = (I32)a->flow;
        for (int i = 0; i < 8; i++)
            f[3 + i] = b[2 * i] << 8 | b[2 * i + 1];
        f[11] = (I32)a->scope;
    }
}

/* The address at p in memory: an ipv4 tuple of u8s, or (v6) an ipv6 one
 * of u16s, little-endian. */
static wa_ip wa__wasip2_load_ip(int v6, const unsigned char *p)
{
    wa_ip ip = {.v6 = v6};
    if (!v6) {
        memcpy(ip.bytes, p, 4);
        return ip;
    }
    for (int i = 0; i < 8; i++) {
        ip.bytes[2 * i] = p[2 * i + 1];
        ip.bytes[2 * i + 1] = p[2 * i];
    }
    return ip;
}

/* A call of sock on net at address a: start-bind and start-connect, whose
 * flat signatures are the same. */
typedef void (*wa__wasip2_addr_imp)(I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32);

static int wa__wasip2_addr_call(wa__wasip2_addr_imp imp, uint32_t sock, uint32_t net, const wa__wasip2_addr *a)
{
    _Alignas(4) unsigned char ret[4];
    I32 f[12];
    wa__wasip2_flat_addr(a, f);
    imp((I32)sock, (I32)net, f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9], f[10], f[11],
        (I32)(uintptr_t)ret);
    return wa__wasip2_result_unit(ret);
}

int wa__wasip2_tcp_start_bind(uint32_t sock, uint32_t net, const wa__wasip2_addr *a)
{
    return wa__wasip2_addr_call(wa__wasip2_imp_sockets_start_bind, sock, net, a);
}

int wa__wasip2_tcp_start_connect(uint32_t sock, uint32_t net, const wa__wasip2_addr *a)
{
    return wa__wasip2_addr_call(wa__wasip2_imp_sockets_start_connect, sock, net, a);
}

#define WA__WASIP2_UNIT_CALL(name, imp)                      \
    int name(uint32_t sock)                             \
    {                                                   \
        _Alignas(4) unsigned char ret[4];               \
        imp((I32)sock, (I32)(uintptr_t)ret);            \
        return wa__wasip2_result_unit(ret);                  \
    }
WA__WASIP2_UNIT_CALL(wa__wasip2_tcp_finish_bind, wa__wasip2_imp_sockets_finish_bind)
WA__WASIP2_UNIT_CALL(wa__wasip2_tcp_start_listen, wa__wasip2_imp_sockets_start_listen)
WA__WASIP2_UNIT_CALL(wa__wasip2_tcp_finish_listen, wa__wasip2_imp_sockets_finish_listen)

int wa__wasip2_tcp_set_keep_alive(uint32_t sock, int on)
{
    _Alignas(4) unsigned char ret[4];
    wa__wasip2_imp_sockets_set_keep_alive((I32)sock, on ? 1 : 0, (I32)(uintptr_t)ret);
    return wa__wasip2_result_unit(ret);
}

int wa__wasip2_tcp_set_keep_alive_idle(uint32_t sock, uint64_t ns)
{
    _Alignas(4) unsigned char ret[4];
    wa__wasip2_imp_sockets_set_keep_alive_idle((I32)sock, (int64_t)ns, (I32)(uintptr_t)ret);
    return wa__wasip2_result_unit(ret);
}

/* shutdown-type: receive, send, both */
int wa__wasip2_tcp_shutdown_send(uint32_t sock)
{
    _Alignas(4) unsigned char ret[4];
    wa__wasip2_imp_sockets_shutdown((I32)sock, 1, (I32)(uintptr_t)ret);
    return wa__wasip2_result_unit(ret);
}

int wa__wasip2_tcp_accept(uint32_t sock, uint32_t *conn, uint32_t *in, uint32_t *out)
{
    _Alignas(4) unsigned char ret[16];
    wa__wasip2_imp_sockets_accept((I32)sock, (I32)(uintptr_t)ret);
    return wa__wasip2_handles(ret, (uint32_t *[]){conn, in, out}, 3);
}

int wa__wasip2_tcp_finish_connect(uint32_t sock, uint32_t *in, uint32_t *out)
{
    _Alignas(4) unsigned char ret[12];
    wa__wasip2_imp_sockets_finish_connect((I32)sock, (I32)(uintptr_t)ret);
    return wa__wasip2_handles(ret, (uint32_t *[]){in, out}, 2);
}

/* The ip-socket-address whose case byte is at c: its record at c + 4,
 * the port first, then ipv4's address at c + 6, or ipv6's flow-info at
 * c + 8, address at c + 12 and scope-id at c + 28. */
static void wa__wasip2_load_addr(const unsigned char *c, wa__wasip2_addr *a)
{
    memset(a, 0, sizeof *a);
    a->ip = wa__wasip2_load_ip(c[0], c + (c[0] ? 12 : 6));
    memcpy(&a->port, c + 4, 2);
    if (a->ip.v6) {
        memcpy(&a->flow, c + 8, 4);
        memcpy(&a->scope, c + 28, 4);
    }
}

/* ...and a into memory at c, the same way. */
static void wa__wasip2_store_addr(unsigned char *c, const wa__wasip2_addr *a)
{
    const uint8_t *b = a->ip.bytes;
    memset(c, 0, 32);
    c[0] = (unsigned char)a->ip.v6;
    memcpy(c + 4, &a->port, 2);
    if (!a->ip.v6) {
        memcpy(c + 6, b, 4);
        return;
    }
    memcpy(c + 8, &a->flow, 4);
    for (int i = 0; i < 8; i++) {
        c[12 + 2 * i] = b[2 * i + 1];
        c[13 + 2 * i] = b[2 * i];
    }
    memcpy(c + 28, &a->scope, 4);
}

/* local-address of tcp's or udp's socket: result<ip-socket-address,
 * error-code>, the address at 4. */
static int wa__wasip2_local_address(void (*imp)(I32, I32), uint32_t sock, wa__wasip2_addr *a)
{
    _Alignas(4) unsigned char ret[36];
    imp((I32)sock, (I32)(uintptr_t)ret);
    int rc = wa__wasip2_result(ret);
    if (rc == 0)
        wa__wasip2_load_addr(ret + 4, a);
    return rc;
}

int wa__wasip2_tcp_local_address(uint32_t sock, wa__wasip2_addr *a)
{
    return wa__wasip2_local_address(wa__wasip2_imp_sockets_local_address, sock, a);
}

uint32_t wa__wasip2_tcp_subscribe(uint32_t sock) { return wa__wasip2_live++, (uint32_t)wa__wasip2_imp_sockets_tcp_subscribe((I32)sock); }

void wa__wasip2_tcp_drop(uint32_t sock)
{
    wa__wasip2_live--;
    wa__wasip2_imp_sockets_tcp_drop((I32)sock);
}

int wa__wasip2_resolve(uint32_t net, const char *name, uint32_t *stream)
{
    _Alignas(4) unsigned char ret[8];
    wa__wasip2_imp_sockets_resolve((I32)net, (I32)(uintptr_t)name, (I32)strlen(name), (I32)(uintptr_t)ret);
    return wa__wasip2_handles(ret, (uint32_t *[]){stream}, 1);
}

int wa__wasip2_resolve_next(uint32_t stream, wa__wasip2_addr *a)
{
    /* result<option<ip-address>, error-code>, everything 2-aligned: the
     * result's payload at 2 (the option's tag, or the error), the address's
     * case at 4 and its fields at 6 */
    _Alignas(4) unsigned char ret[24];
    wa__wasip2_imp_sockets_resolve_next((I32)stream, (I32)(uintptr_t)ret);
    if (ret[0])
        return wa__wasip2_net_error(ret[2]);
    if (!ret[2])
        return 0;
    memset(a, 0, sizeof *a);
    a->ip = wa__wasip2_load_ip(ret[4], ret + 6);
    return 1;
}

uint32_t wa__wasip2_resolve_subscribe(uint32_t stream) { return wa__wasip2_live++, (uint32_t)wa__wasip2_imp_sockets_resolve_subscribe((I32)stream); }

void wa__wasip2_resolve_drop(uint32_t stream)
{
    wa__wasip2_live--;
    wa__wasip2_imp_sockets_resolve_drop((I32)stream);
}

int wa__wasip2_udp_create(int v6, uint32_t *sock)
{
    _Alignas(4) unsigned char ret[8];
    wa__wasip2_imp_sockets_udp_create(v6 ? 1 : 0, (I32)(uintptr_t)ret);
    return wa__wasip2_handles(ret, (uint32_t *[]){sock}, 1);
}

int wa__wasip2_udp_start_bind(uint32_t sock, uint32_t net, const wa__wasip2_addr *a)
{
    return wa__wasip2_addr_call(wa__wasip2_imp_sockets_udp_start_bind, sock, net, a);
}

WA__WASIP2_UNIT_CALL(wa__wasip2_udp_finish_bind, wa__wasip2_imp_sockets_udp_finish_bind)

/* stream(none): the option's tag, then an unused address's twelve i32s */
int wa__wasip2_udp_stream(uint32_t sock, uint32_t *in, uint32_t *out)
{
    _Alignas(4) unsigned char ret[12];
    wa__wasip2_imp_sockets_udp_stream((I32)sock, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (I32)(uintptr_t)ret);
    return wa__wasip2_handles(ret, (uint32_t *[]){in, out}, 2);
}

int wa__wasip2_udp_local_address(uint32_t sock, wa__wasip2_addr *a)
{
    return wa__wasip2_local_address(wa__wasip2_imp_sockets_udp_local_address, sock, a);
}

uint32_t wa__wasip2_udp_subscribe(uint32_t sock) { return wa__wasip2_live++, (uint32_t)wa__wasip2_imp_sockets_udp_subscribe((I32)sock); }

void wa__wasip2_udp_drop(uint32_t sock)
{
    wa__wasip2_live--;
    wa__wasip2_imp_sockets_udp_drop((I32)sock);
}

/* receive(1): result<list<incoming-datagram>, error-code>, the list at 4;
 * a datagram is its data (a list<u8>) and then its sender's address at 8.
 * Both lists are the host's, lowered into our memory: freed here. */
int wa__wasip2_udp_receive(uint32_t in, void *buf, size_t len, size_t *n, wa__wasip2_addr *from)
{
    _Alignas(4) unsigned char ret[12];
    wa__wasip2_imp_sockets_udp_receive((I32)in, 1, (I32)(uintptr_t)ret);
    int rc = wa__wasip2_result(ret);
    if (rc < 0)
        return rc;
    const unsigned char *list = (const unsigned char *)(uintptr_t)wa__wasip2_u32(ret + 4);
    uint32_t count = wa__wasip2_u32(ret + 8);
    if (!count)
        return 0;
    const unsigned char *data = (const unsigned char *)(uintptr_t)wa__wasip2_u32(list);
    *n = wa__wasip2_u32(list + 4);
    if (len)
        memcpy(buf, data, *n < len ? *n : len);
    wa__wasip2_load_addr(list + 8, from);
    wa__wasip2_host_free(data, *n);
    wa__wasip2_host_free(list, count);
    return 1;
}

uint32_t wa__wasip2_udp_in_subscribe(uint32_t in) { return wa__wasip2_live++, (uint32_t)wa__wasip2_imp_sockets_udp_in_subscribe((I32)in); }

void wa__wasip2_udp_in_drop(uint32_t in)
{
    wa__wasip2_live--;
    wa__wasip2_imp_sockets_udp_in_drop((I32)in);
}

/* result<u64, error-code>: the u64, or the error, at 8 */
static int wa__wasip2_result_u64(const unsigned char *ret, uint64_t *v)
{
    if (ret[0])
        return wa__wasip2_net_error(ret[8]);
    memcpy(v, ret + 8, 8);
    return 0;
}

int wa__wasip2_udp_check_send(uint32_t out, uint64_t *n)
{
    _Alignas(8) unsigned char ret[16];
    wa__wasip2_imp_sockets_udp_check_send((I32)out, (I32)(uintptr_t)ret);
    return wa__wasip2_result_u64(ret, n);
}

/* send of a list of one outgoing-datagram: its data, then its
 * option<ip-socket-address> at 8 (the tag; the address at 12). */
int wa__wasip2_udp_send(uint32_t out, const void *data, size_t len, const wa__wasip2_addr *to)
{
    _Alignas(4) unsigned char d[44];
    _Alignas(8) unsigned char ret[16];
    uint32_t p = (uint32_t)(uintptr_t)data, l = (uint32_t)len;
    uint64_t sent = 0;
    memcpy(d, &p, 4);
    memcpy(d + 4, &l, 4);
    memset(d + 8, 0, 4);
    d[8] = 1;
    wa__wasip2_store_addr(d + 12, to);
    wa__wasip2_imp_sockets_udp_send((I32)out, (I32)(uintptr_t)d, 1, (I32)(uintptr_t)ret);
    int rc = wa__wasip2_result_u64(ret, &sent);
    return rc < 0 ? rc : sent == 1;
}

uint32_t wa__wasip2_udp_out_subscribe(uint32_t out) { return wa__wasip2_live++, (uint32_t)wa__wasip2_imp_sockets_udp_out_subscribe((I32)out); }

void wa__wasip2_udp_out_drop(uint32_t out)
{
    wa__wasip2_live--;
    wa__wasip2_imp_sockets_udp_out_drop((I32)out);
}
