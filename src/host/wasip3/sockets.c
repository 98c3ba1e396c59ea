/* SPDX-License-Identifier: MIT */
/* wasi:sockets@0.3.0 (sockets.h). An ip-socket-address is laid out as
 * in 0.2 (a case byte, the record at 4: port, then ipv4's address at 6, or
 * ipv6's flow-info at 8, address at 12 and scope-id at 28); results come
 * back in return areas, a tag byte then the payload at 4. An error-code's
 * `other` case carries an optional string the host lowered into our
 * memory: freed here (after a look: preview3-shim puts Node's error code
 * there, EMFILE among them), kept as the failure's reason. */
#include <string.h>

#include "../../io/reason.h"
#include "../../wasi/cabi.h"
#include "sockets.h"

#define TYPES "wasi:sockets/types@0.3.0"
#define LOOKUP "wasi:sockets/ip-name-lookup@0.3.0"
#define I32 int32_t

WA__WASI_IMPORT(TYPES, "[static]tcp-socket.create") void wa__wasip3_imp_sockets_tcp_create(I32, I32);
WA__WASI_IMPORT(TYPES, "[method]tcp-socket.bind")
void wa__wasip3_imp_sockets_bind(I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32);
WA__WASI_IMPORT(TYPES, "[async-lower][method]tcp-socket.connect") uint32_t wa__wasip3_imp_sockets_connect(I32, I32);
WA__WASI_IMPORT(TYPES, "[method]tcp-socket.listen") void wa__wasip3_imp_sockets_listen(I32, I32);
WA__WASI_IMPORT(TYPES, "[method]tcp-socket.send") I32 wa__wasip3_imp_sockets_send(I32, I32);
WA__WASI_IMPORT(TYPES, "[method]tcp-socket.receive") void wa__wasip3_imp_sockets_receive(I32, I32);
WA__WASI_IMPORT(TYPES, "[method]tcp-socket.get-local-address") void wa__wasip3_imp_sockets_local_address(I32, I32);
WA__WASI_IMPORT(TYPES, "[method]tcp-socket.set-keep-alive-enabled") void wa__wasip3_imp_sockets_set_keep_alive(I32, I32, I32);
WA__WASI_IMPORT(TYPES, "[method]tcp-socket.set-keep-alive-idle-time") void wa__wasip3_imp_sockets_set_keep_alive_idle(I32, int64_t, I32);
WA__WASI_IMPORT(TYPES, "[resource-drop]tcp-socket") void wa__wasip3_imp_sockets_tcp_drop(I32);
WA__WASI_IMPORT(TYPES, "[static]udp-socket.create") void wa__wasip3_imp_sockets_udp_create(I32, I32);
WA__WASI_IMPORT(TYPES, "[method]udp-socket.bind")
void wa__wasip3_imp_sockets_udp_bind(I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32);
WA__WASI_IMPORT(TYPES, "[async-lower][method]udp-socket.send") uint32_t wa__wasip3_imp_sockets_udp_send(I32, I32);
WA__WASI_IMPORT(TYPES, "[async-lower][method]udp-socket.receive") uint32_t wa__wasip3_imp_sockets_udp_receive(I32, I32);
WA__WASI_IMPORT(TYPES, "[method]udp-socket.get-local-address") void wa__wasip3_imp_sockets_udp_local_address(I32, I32);
WA__WASI_IMPORT(TYPES, "[resource-drop]udp-socket") void wa__wasip3_imp_sockets_udp_drop(I32);
WA__WASI_IMPORT(LOOKUP, "[async-lower]resolve-addresses") uint32_t wa__wasip3_imp_sockets_resolve(I32, I32, I32);

WA__WASIP3_STREAM_TYPE(wa__wasip3_tcp_sockets, TYPES, 0, "[method]tcp-socket.listen");
WA__WASIP3_FUTURE_TYPE(wa__wasip3_tcp_result, TYPES, 1, "[method]tcp-socket.send");

/* The case `other` of types' and of ip-name-lookup's error-code. */
#define WA__WASIP3_NET_OTHER 14
#define WA__WASIP3_LOOKUP_OTHER 5

static uint32_t wa__wasip3_u32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* types' and ip-name-lookup's error-code's cases, in declaration order. */
static const char *const wa__wasip3_net_names[] = {
    "access-denied", "not-supported", "invalid-argument", "out-of-memory", "timeout", "invalid-state",
    "address-not-bindable", "address-in-use", "remote-unreachable", "connection-refused", "connection-broken",
    "connection-reset", "connection-aborted", "datagram-too-large", "other"};
static const char *const wa__wasip3_lookup_names[] = {
    "access-denied", "invalid-argument", "name-unresolvable", "temporary-resolver-failure",
    "permanent-resolver-failure", "other"};

/* The words of the last error read: its case's name, or other's string
 * ("other: EMFILE"), for wa__wasip3_net_said right after (one thread). */
static char wa__wasip3_net_last[WA_REASON_MAX];

int wa__wasip3_net_said(char *reason, const char *call, int rc)
{
    if (rc < 0)
        wa__reason_say(reason, call, wa__wasip3_net_last);
    return rc;
}

/* Keeps the words of the error-code at e (of count cases, names[]), and
 * frees the string of its other(some(s)) (the option's tag at 4, the
 * string at 8). */
static void wa__wasip3_take_error(const unsigned char *e, const char *const names[], size_t count)
{
    const char *name = e[0] < count ? names[e[0]] : "unknown";
    if (e[0] != count - 1 || !e[4]) { /* (other is the last case) */
        wa__reason_say(wa__wasip3_net_last, NULL, name);
        return;
    }
    const char *s = (const char *)(uintptr_t)wa__wasip3_u32(e + 8);
    uint32_t len = wa__wasip3_u32(e + 12);
    wa__reason_set(wa__wasip3_net_last, name, s, len);
    wa__wasip2_host_free(s, len);
}

/* types' error-code at e, in declaration order. Out of file descriptors
 * has no case: preview3-shim says other(Node's code). */
static int wa__wasip3_net_error(const unsigned char *e)
{
    wa__wasip3_take_error(e, wa__wasip3_net_names, sizeof wa__wasip3_net_names / sizeof *wa__wasip3_net_names);
    if (!strcmp(wa__wasip3_net_last, "other: EMFILE") || !strcmp(wa__wasip3_net_last, "other: ENFILE"))
        return WA_EMFILE;
    switch (e[0]) {
    case 1: return WA_ENOSYS;        /* not-supported */
    case 2: return WA_EINVAL;        /* invalid-argument */
    case 3: return WA_ENOMEM;        /* out-of-memory */
    case 4: return WA_ETIMEDOUT;     /* timeout */
    case 6:                          /* address-not-bindable */
    case 7: return WA_EADDRINUSE;    /* address-in-use */
    case 9: return WA_ECONNREFUSED;  /* connection-refused */
    case 10:                         /* connection-broken */
    case 11:                         /* connection-reset */
    case 12: return WA_ECONNRESET;   /* connection-aborted */
    case 13: return WA_E2BIG;        /* datagram-too-large */
    default: return WA_EIO;
    }
}

/* result<T, error-code> at ret: T (or the error) at 4. */
static int wa__wasip3_result(const unsigned char *ret) { return ret[0] ? wa__wasip3_net_error(ret + 4) : 0; }

int wa__wasip3_tcp_result_error(const unsigned char *value, int dir, char *why)
{
    return wa__wasip3_net_said(why, dir ? "send" : "receive", wa__wasip3_result(value));
}

/* create of tcp's or udp's socket: result<own, error-code>, the handle at 4. */
static int wa__wasip3_create(void (*imp)(I32, I32), int v6, uint32_t *sock)
{
    _Alignas(4) unsigned char ret[20];
    imp(v6 ? 1 : 0, (I32)(uintptr_t)ret);
    int rc = wa__wasip3_result(ret);
    if (rc == 0) {
        *sock = wa__wasip3_u32(ret + 4);
        wa__wasip3_resources++;
    }
    return rc;
}

int wa__wasip3_tcp_create(int v6, uint32_t *sock) { return wa__wasip3_create(wa__wasip3_imp_sockets_tcp_create, v6, sock); }

/* The flattened ip-socket-address: case, then its fields as i32s. */
static void wa__wasip3_flat_addr(const wa_ip *ip, uint16_t port, I32 f[12])
{
    const uint8_t *b = ip->bytes;
    memset(f, 0, 12 * sizeof *f);
    f[0] = ip->v6;
    f[1] = port;
    if (!ip->v6) {
        for (int i = 0; i < 4; i++)
            f[2 + i] = b[i];
    } else {
        for (int i = 0; i < 8; i++)
            f[3 + i] = b[2 * i] << 8 | b[2 * i + 1];
    }
}

/* bind of tcp's or udp's socket, whose flat signatures are the same. */
typedef void (*wa__wasip3_bind_imp)(I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32);

static int wa__wasip3_bind(wa__wasip3_bind_imp imp, uint32_t sock, const wa_ip *ip, uint16_t port)
{
    _Alignas(4) unsigned char ret[20];
    I32 f[12];
    wa__wasip3_flat_addr(ip, port, f);
    imp((I32)sock, f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9], f[10], f[11], (I32)(uintptr_t)ret);
    return wa__wasip3_result(ret);
}

int wa__wasip3_tcp_bind(uint32_t sock, const wa_ip *ip, uint16_t port)
{
    return wa__wasip3_bind(wa__wasip3_imp_sockets_bind, sock, ip, port);
}

int wa__wasip3_tcp_listen(uint32_t sock, uint32_t *accepts)
{
    _Alignas(4) unsigned char ret[20];
    wa__wasip3_imp_sockets_listen((I32)sock, (I32)(uintptr_t)ret);
    int rc = wa__wasip3_result(ret);
    if (rc == 0) {
        *accepts = wa__wasip3_u32(ret + 4);
        wa__wasip3_live_ends++;
    }
    return rc;
}

/* get-local-address of tcp's or udp's socket: its port. */
static int wa__wasip3_local_port(void (*imp)(I32, I32), uint32_t sock, uint16_t *port)
{
    _Alignas(4) unsigned char ret[36];
    imp((I32)sock, (I32)(uintptr_t)ret);
    int rc = wa__wasip3_result(ret);
    if (rc == 0) /* the address's record at 8, its port first */
        memcpy(port, ret + 8, 2);
    return rc;
}

int wa__wasip3_tcp_local_port(uint32_t sock, uint16_t *port)
{
    return wa__wasip3_local_port(wa__wasip3_imp_sockets_local_address, sock, port);
}

int wa__wasip3_tcp_set_keep_alive(uint32_t sock, int on)
{
    _Alignas(4) unsigned char ret[20];
    wa__wasip3_imp_sockets_set_keep_alive((I32)sock, on ? 1 : 0, (I32)(uintptr_t)ret);
    return wa__wasip3_result(ret);
}

int wa__wasip3_tcp_set_keep_alive_idle(uint32_t sock, uint64_t ns)
{
    _Alignas(4) unsigned char ret[20];
    wa__wasip3_imp_sockets_set_keep_alive_idle((I32)sock, (int64_t)ns, (I32)(uintptr_t)ret);
    return wa__wasip3_result(ret);
}

uint32_t wa__wasip3_tcp_send(uint32_t sock, uint32_t readable)
{
    /* (one end handed over, one taken: the count stays) */
    return (uint32_t)wa__wasip3_imp_sockets_send((I32)sock, (I32)readable);
}

void wa__wasip3_tcp_receive(uint32_t sock, uint32_t *stream, uint32_t *result)
{
    _Alignas(4) uint32_t ret[2];
    wa__wasip3_imp_sockets_receive((I32)sock, (I32)(uintptr_t)ret);
    *stream = ret[0];
    *result = ret[1];
    wa__wasip3_live_ends += 2;
}

void wa__wasip3_tcp_drop(uint32_t sock)
{
    wa__wasip3_resources--;
    wa__wasip3_imp_sockets_tcp_drop((I32)sock);
}

/* An ip-socket-address into memory at c: its case, the record at c + 4
 * (the port, then ipv4's address at c + 6, or ipv6's at c + 12: u16s,
 * little-endian). */
static void wa__wasip3_store_addr(unsigned char *c, const wa_ip *ip, uint16_t port)
{
    c[0] = (unsigned char)ip->v6;
    memcpy(c + 4, &port, 2);
    if (!ip->v6) {
        memcpy(c + 6, ip->bytes, 4);
        return;
    }
    for (int i = 0; i < 8; i++) {
        c[12 + 2 * i] = ip->bytes[2 * i + 1];
        c[13 + 2 * i] = ip->bytes[2 * i];
    }
}

/* ...and back. */
static void wa__wasip3_load_addr(const unsigned char *c, wa_ip *ip, uint16_t *port)
{
    *ip = (wa_ip){.v6 = c[0]};
    memcpy(port, c + 4, 2);
    if (!ip->v6) {
        memcpy(ip->bytes, c + 6, 4);
        return;
    }
    for (int i = 0; i < 8; i++) {
        ip->bytes[2 * i] = c[13 + 2 * i];
        ip->bytes[2 * i + 1] = c[12 + 2 * i];
    }
}

/* The arguments in memory: the socket, then the ip-socket-address at 4. */
uint32_t wa__wasip3_tcp_connect(wa__wasip3_connect_call *c, uint32_t sock, const wa_ip *ip, uint16_t port)
{
    unsigned char *a = c->args;
    memset(a, 0, sizeof c->args); /* (the result's bytes stay unwritten) */
    memcpy(a, &sock, 4);
    wa__wasip3_store_addr(a + 4, ip, port);
    return wa__wasip3_imp_sockets_connect((I32)(uintptr_t)c->args, (I32)(uintptr_t)c->ret);
}

int wa__wasip3_tcp_connect_result(wa__wasip3_connect_call *c) { return wa__wasip3_result(c->ret); }

/* Whether a result<T, error-code> at ret that the host wrote late is
 * whole: its tag comes first, then the ok case's pointer at ok_last
 * (0: none) or the error's case, whose other(some(s)) string's pointer
 * comes last. */
static int wa__wasip3_late_whole(const unsigned char *ret, unsigned ok_last, uint8_t other)
{
    if (!wa_subtask_written(ret, 1))
        return 0;
    if (!ret[0])
        return !ok_last || wa_subtask_written(ret + ok_last, 4);
    const unsigned char *e = ret + 4;
    return wa_subtask_written(e, 1) && (e[0] != other || !e[4] || wa_subtask_written(e + 8, 4));
}

int wa__wasip3_tcp_connect_late(void *area)
{
    wa__wasip3_connect_call *c = area;
    if (!wa__wasip3_late_whole(c->ret, 0, WA__WASIP3_NET_OTHER))
        return 0;
    wa__wasip3_tcp_connect_result(c);
    return 1;
}

int wa__wasip3_resolve_late(void *area)
{
    int n;
    if (!wa__wasip3_late_whole(area, 4, WA__WASIP3_LOOKUP_OTHER))
        return 0;
    wa__wasip3_resolve_result(area, NULL, 0, &n);
    return 1;
}

uint32_t wa__wasip3_resolve(unsigned char *area)
{
    const char *name = (const char *)area + WA__WASIP3_RESOLVE_NAME;
    return wa__wasip3_imp_sockets_resolve((I32)(uintptr_t)name, (I32)strlen(name), (I32)(uintptr_t)area);
}

/* ip-name-lookup's error-code at e, in declaration order. */
static int wa__wasip3_lookup_error(const unsigned char *e)
{
    wa__wasip3_take_error(e, wa__wasip3_lookup_names, sizeof wa__wasip3_lookup_names / sizeof *wa__wasip3_lookup_names);
    switch (e[0]) {
    case 1: return WA_EINVAL;     /* invalid-argument */
    case 2: return WA_ENOTFOUND;  /* name-unresolvable */
    case 3: return WA_ETIMEDOUT;  /* temporary-resolver-failure */
    default: return WA_EIO;
    }
}

int wa__wasip3_resolve_result(unsigned char *ret, wa_ip *out, int max, int *n)
{
    if (ret[0])
        return wa__wasip3_lookup_error(ret + 4);
    /* list<ip-address> at 4: each 18 bytes, 2-aligned: its case, then its
     * fields at 2 (four u8s, or eight u16s little-endian) */
    const unsigned char *list = (const unsigned char *)(uintptr_t)wa__wasip3_u32(ret + 4);
    uint32_t len = wa__wasip3_u32(ret + 8);
    *n = 0;
    for (uint32_t i = 0; i < len && *n < max; i++) {
        const unsigned char *e = list + 18 * i;
        wa_ip ip = {.v6 = e[0]};
        if (!ip.v6) {
            memcpy(ip.bytes, e + 2, 4);
        } else {
            for (int k = 0; k < 8; k++) {
                ip.bytes[2 * k] = e[3 + 2 * k];
                ip.bytes[2 * k + 1] = e[2 + 2 * k];
            }
        }
        out[(*n)++] = ip;
    }
    wa__wasip2_host_free(list, len);
    return 0;
}

int wa__wasip3_udp_create(int v6, uint32_t *sock) { return wa__wasip3_create(wa__wasip3_imp_sockets_udp_create, v6, sock); }

int wa__wasip3_udp_bind(uint32_t sock, const wa_ip *ip, uint16_t port)
{
    return wa__wasip3_bind(wa__wasip3_imp_sockets_udp_bind, sock, ip, port);
}

int wa__wasip3_udp_local_port(uint32_t sock, uint16_t *port)
{
    return wa__wasip3_local_port(wa__wasip3_imp_sockets_udp_local_address, sock, port);
}

void wa__wasip3_udp_drop(uint32_t sock)
{
    wa__wasip3_resources--;
    wa__wasip3_imp_sockets_udp_drop((I32)sock);
}

/* The arguments in memory: the socket, the data's list at 4, then the
 * option<ip-socket-address> at 12 (its tag; the address at 16). */
uint32_t wa__wasip3_udp_send(unsigned char *area, uint32_t sock, size_t len, const wa_ip *ip, uint16_t port)
{
    uint32_t data = (uint32_t)(uintptr_t)(area + WA__WASIP3_UDP_SEND_DATA), n = (uint32_t)len;
    memset(area, 0, WA__WASIP3_UDP_SEND_RET); /* (the result's bytes stay unwritten) */
    memcpy(area, &sock, 4);
    memcpy(area + 4, &data, 4);
    memcpy(area + 8, &n, 4);
    area[12] = 1;
    wa__wasip3_store_addr(area + 16, ip, port);
    return wa__wasip3_imp_sockets_udp_send((I32)(uintptr_t)area, (I32)(uintptr_t)(area + WA__WASIP3_UDP_SEND_RET));
}

int wa__wasip3_udp_send_result(unsigned char *area) { return wa__wasip3_result(area + WA__WASIP3_UDP_SEND_RET); }

int wa__wasip3_udp_send_late(void *area)
{
    unsigned char *ret = (unsigned char *)area + WA__WASIP3_UDP_SEND_RET;
    if (!wa__wasip3_late_whole(ret, 0, WA__WASIP3_NET_OTHER))
        return 0;
    wa__wasip3_result(ret);
    return 1;
}

uint32_t wa__wasip3_udp_receive(unsigned char *ret, uint32_t sock)
{
    return wa__wasip3_imp_sockets_udp_receive((I32)sock, (I32)(uintptr_t)ret);
}

/* result<tuple<list<u8>, ip-socket-address>, error-code>: the list at 4,
 * the address at 12. */
int wa__wasip3_udp_receive_result(unsigned char *ret, void *buf, size_t len, size_t *n, wa_ip *ip, uint16_t *port)
{
    if (ret[0])
        return wa__wasip3_net_error(ret + 4);
    const unsigned char *data = (const unsigned char *)(uintptr_t)wa__wasip3_u32(ret + 4);
    *n = wa__wasip3_u32(ret + 8);
    if (len)
        memcpy(buf, data, *n < len ? *n : len);
    wa__wasip3_load_addr(ret + 12, ip, port);
    wa__wasip2_host_free(data, *n);
    return 0;
}

int wa__wasip3_udp_receive_late(void *area)
{
    size_t n;
    wa_ip ip;
    uint16_t port;
    if (!wa__wasip3_late_whole(area, 8, WA__WASIP3_NET_OTHER))
        return 0;
    wa__wasip3_udp_receive_result(area, NULL, 0, &n, &ip, &port);
    return 1;
}
