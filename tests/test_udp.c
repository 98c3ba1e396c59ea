/* SPDX-License-Identifier: MIT */
/* udp.h natively (epoll, and io_uring in the _uring twin) and on WASI 0.2
 * and 0.3 (jco): an echo over IPv4 and IPv6, datagrams of many sizes each
 * way; a datagram cut by a small buffer (its length still told); bad
 * addresses, an address in use, a peer of the other family; a receive
 * dropped by its timeout, after which the next one gets the datagram (no
 * loss: on WASI 0.3 the socket keeps the call); a socket closed under a
 * waiting receive, closed twice, used after its close; two receives at
 * once. No fd (natively) or WASI handle left open after any of it. */
#define _GNU_SOURCE
#include <stdlib.h>

#include "futures.h"
#include "wasync/udp.h"

#if defined(WASYNC_HOST_WASIP2) || defined(WASYNC_HOST_WASIP3)
/* WASI handles held (sockets, streams, pollables, subtasks): a leak shows
 * as growth. */
static long held(void) { return wa_wasi_live_handles(); }
#else
#include "rt_setup.h"

/* Open fds of this process: a leak shows as growth. */
static long held(void) { return check_fds_held(); }
#endif

#define ROUNDS 40
#define BIG 1400

static wa_rt *net_rt(void)
{
    wa_rt *rt;
    return wa_rt_new(&rt) == 0 ? rt : NULL;
}

static unsigned char pattern(size_t i, int salt) { return (unsigned char)(i * 31 + (unsigned)salt); }

/* A bound socket on rt at ip:0, or NULL. */
static wa_udp *bound(wa_rt *rt, const char *ip)
{
    wa_udp_op op;
    return wa_block_on(rt, wa_udp_bind_init(&op, rt, ip, 0)) == 0 ? op.udp : NULL;
}

/* Sends back every datagram it receives on u, n times. */
typedef struct echoer {
    WA_CORO;
    wa_udp *u;
    wa_udp_op op;
    unsigned char buf[BIG];
    int n, i;
} echoer;

static int echoer_poll(wa_future *f, wa_cx *cx)
{
    echoer *t = (echoer *)f;
    WA_BEGIN(t, cx);
    for (t->i = 0; t->i < t->n; t->i++) {
        WA_AWAIT(wa_udp_recv_from_init(&t->op, t->u, t->buf, sizeof t->buf));
        if (WA_STATUS < 0)
            WA_RETURN(WA_STATUS);
        wa_ip from = t->op.ip;
        WA_AWAIT(wa_udp_send_to_init(&t->op, t->u, t->buf, t->op.n, &from, t->op.port));
        if (WA_STATUS < 0)
            WA_RETURN(WA_STATUS);
    }
    WA_END();
}
static const wa_future_vt echoer_vt = {echoer_poll, wa_coro_drop, "echoer"};

/* Sends ROUNDS datagrams of growing sizes to ip:port and checks each echo
 * (its bytes, and that it came from ip:port); counts itself in *ok. */
typedef struct pinger {
    WA_CORO;
    wa_udp *u;
    wa_ip ip;
    uint16_t port;
    wa_udp_op op;
    unsigned char out[BIG], in[BIG];
    size_t len;
    int i, *ok;
} pinger;

static int pinger_poll(wa_future *f, wa_cx *cx)
{
    pinger *t = (pinger *)f;
    WA_BEGIN(t, cx);
    for (t->i = 0; t->i < ROUNDS; t->i++) {
        t->len = (size_t)t->i * BIG / ROUNDS + 1;
        for (size_t k = 0; k < t->len; k++)
            t->out[k] = pattern(k, t->i);
        WA_AWAIT(wa_udp_send_to_init(&t->op, t->u, t->out, t->len, &t->ip, t->port));
        if (WA_STATUS < 0)
            WA_RETURN(WA_STATUS);
        WA_AWAIT(wa_udp_recv_from_init(&t->op, t->u, t->in, sizeof t->in));
        if (WA_STATUS < 0)
            WA_RETURN(WA_STATUS);
        if (t->op.n != t->len || memcmp(t->in, t->out, t->len) || t->op.port != t->port ||
            memcmp(&t->op.ip, &t->ip, sizeof t->ip))
            WA_RETURN(WA_EPROTO);
    }
    ++*t->ok;
    WA_END();
}
static const wa_future_vt pinger_vt = {pinger_poll, wa_coro_drop, "pinger"};

static void echo_over(const char *ip)
{
    long before = held();
    wa_rt *rt = net_rt();
    REQUIRE(rt);
    wa_udp *srv = bound(rt, ip), *cli = bound(rt, ip);
    REQUIRE_OR(srv && cli, (srv && wa_udp_close(&srv), cli && wa_udp_close(&cli), wa_rt_free(rt)));
    CHECK(wa_udp_port(srv) != 0);
    CHECK(wa_udp_port(cli) != wa_udp_port(srv));
    static echoer e;
    static pinger p;
    int ok = 0;
    e = (echoer){.u = srv, .n = ROUNDS};
    p = (pinger){.u = cli, .port = wa_udp_port(srv), .ok = &ok};
    CHECK_EQ(wa_ip_parse(ip, &p.ip), 0);
    wa_coro_init(&e.wa, &echoer_vt);
    wa_coro_init(&p.wa, &pinger_vt);
    wa_join je;
    if (check_spawn_of(rt, &e, &je) == 0) { /* (the pinger's end ends it) */
        CHECK_EQ(wa_block_on(rt, &p.wa.fut), 0);
        CHECK_EQ(ok, 1);
        wa_join_abort(&je);
        wa_join_drop(&je);
    }
    CHECK_EQ(wa_udp_close(&srv), 0);
    CHECK_EQ(wa_udp_close(&cli), 0);
    CHECK_RT_EMPTY_FREE(rt);
    CHECK_EQ(held(), before);
}

static void test_echo(void) { echo_over("127.0.0.1"); }
static void test_echo_ipv6(void) { echo_over("::1"); }

/* Sends len bytes of pattern salt from a to b (same runtime). */
static int send_one(wa_rt *rt, wa_udp *a, wa_udp *b, const char *ip, size_t len, int salt)
{
    static unsigned char out[BIG];
    wa_ip to;
    wa_udp_op op;
    for (size_t k = 0; k < len; k++)
        out[k] = pattern(k, salt);
    if (wa_ip_parse(ip, &to) < 0)
        return WA_EINVAL;
    return wa_block_on(rt, wa_udp_send_to_init(&op, a, out, len, &to, wa_udp_port(b)));
}

/* Closes a and b and frees rt: a test's way out when a REQUIRE fails (a
 * receive after a send that failed would wait for ever). */
#define CLOSE_FREE(a, b, rt) (wa_udp_close(&(a)), wa_udp_close(&(b)), wa_rt_free(rt))

/* A datagram larger than the buffer: its first bytes, and its whole
 * length; an empty buffer tells the length alone. The next datagram is
 * whole. */
static void test_truncate(void)
{
    long before = held();
    wa_rt *rt = net_rt();
    REQUIRE(rt);
    wa_udp *a = bound(rt, "127.0.0.1"), *b = bound(rt, "127.0.0.1");
    REQUIRE_OR(a && b, (a && wa_udp_close(&a), b && wa_udp_close(&b), wa_rt_free(rt)));
    unsigned char buf[BIG];
    wa_udp_op op;
    REQUIRE_OR(send_one(rt, a, b, "127.0.0.1", 100, 1) == 0, CLOSE_FREE(a, b, rt));
    CHECK_EQ(wa_block_on(rt, wa_udp_recv_from_init(&op, b, buf, 10)), 0);
    CHECK_EQ(op.n, 100);
    CHECK(op.n > op.len); /* cut */
    CHECK_EQ(buf[9], pattern(9, 1));
    CHECK_EQ(op.port, wa_udp_port(a));
    REQUIRE_OR(send_one(rt, a, b, "127.0.0.1", 50, 2) == 0, CLOSE_FREE(a, b, rt));
    CHECK_EQ(wa_block_on(rt, wa_udp_recv_from_init(&op, b, NULL, 0)), 0);
    CHECK_EQ(op.n, 50);
    REQUIRE_OR(send_one(rt, a, b, "127.0.0.1", 0, 3) == 0, CLOSE_FREE(a, b, rt)); /* an empty datagram is one */
    REQUIRE_OR(send_one(rt, a, b, "127.0.0.1", 30, 4) == 0, CLOSE_FREE(a, b, rt));
    buf[0] = 1;
    CHECK_EQ(wa_block_on(rt, wa_udp_recv_from_init(&op, b, buf, sizeof buf)), 0);
    CHECK_EQ(op.n, 0);
    CHECK_EQ(buf[0], 1);
    CHECK_EQ(wa_block_on(rt, wa_udp_recv_from_init(&op, b, buf, sizeof buf)), 0);
    CHECK_EQ(op.n, 30);
    CHECK_EQ(buf[29], pattern(29, 4));
    CHECK_EQ(wa_udp_close(&a), 0);
    CHECK_EQ(wa_udp_close(&b), 0);
    CHECK_RT_EMPTY_FREE(rt);
    CHECK_EQ(held(), before);
}

/* The host's words for an address in use, with its call. */
#if defined(WASYNC_HOST_WASIP2) || defined(WASYNC_HOST_WASIP3)
#define REASON_IN_USE "address-in-use"
#else
#define REASON_IN_USE "bind: Address already in use"
#endif

/* Bad addresses, an address in use (its reason), bad peers; a datagram
 * too large. */
static void test_errors(void)
{
    static const char *const bad[] = {NULL, "localhost", "127.0.0.256", "0127.0.0.1", "", "fe80::1%1", "::1:"};
    long before = held();
    wa_rt *rt = net_rt();
    REQUIRE(rt);
    wa_udp_op op;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK_EQ(wa_block_on(rt, wa_udp_bind_init(&op, rt, bad[i], 0)), WA_EINVAL);
    const char *const ips[] = {"127.0.0.1", "::1"};
    for (int i = 0; i < 2; i++) {
        wa_udp *u = bound(rt, ips[i]);
        REQUIRE_OR(u, wa_rt_free(rt));
        CHECK_EQ(wa_block_on(rt, wa_udp_bind_init(&op, rt, ips[i], wa_udp_port(u))), WA_EADDRINUSE);
        CHECK_HAS(wa_udp_op_reason(&op), REASON_IN_USE);
        wa_ip other, self;
        CHECK_EQ(wa_ip_parse(ips[1 - i], &other), 0);
        CHECK_EQ(wa_ip_parse(ips[i], &self), 0);
        CHECK_EQ(wa_block_on(rt, wa_udp_send_to_init(&op, u, "x", 1, NULL, 9)), WA_EINVAL);
        CHECK_HAS(wa_udp_op_reason(&op), ""); /* (the front end's: no words) */
        CHECK_EQ(wa_block_on(rt, wa_udp_send_to_init(&op, u, "x", 1, &other, 9)), WA_EINVAL);
        CHECK_EQ(wa_block_on(rt, wa_udp_send_to_init(&op, u, "x", 1, &self, 0)), WA_EINVAL);
        CHECK_EQ(wa_udp_close(&u), 0);
    }
    /* ::ffff:127.0.0.1 is 127.0.0.1: an IPv4 socket's peer */
    wa_udp *a = bound(rt, "::ffff:127.0.0.1"), *b = bound(rt, "127.0.0.1");
    REQUIRE_OR(a && b, (a && wa_udp_close(&a), b && wa_udp_close(&b), wa_rt_free(rt)));
    REQUIRE_OR(send_one(rt, a, b, "::ffff:127.0.0.1", 5, 0) == 0, CLOSE_FREE(a, b, rt));
    char buf[8];
    CHECK_EQ(wa_block_on(rt, wa_udp_recv_from_init(&op, b, buf, sizeof buf)), 0);
    CHECK_EQ(op.n, 5);
    CHECK_EQ(op.ip.v6, 0);
    CHECK_HAS(wa_udp_op_reason(&op), "");
    /* larger than any datagram */
    static unsigned char huge[70000];
    wa_ip to;
    CHECK_EQ(wa_ip_parse("127.0.0.1", &to), 0);
    CHECK_EQ(wa_block_on(rt, wa_udp_send_to_init(&op, a, huge, sizeof huge, &to, wa_udp_port(b))), WA_E2BIG);
    CHECK_EQ(wa_udp_close(&a), 0);
    CHECK_EQ(wa_udp_close(&b), 0);
    CHECK_RT_EMPTY_FREE(rt);
    CHECK_EQ(held(), before);
#if !defined(WASYNC_HOST_WASIP2)
    /* no sockets on the sim backend */
    rt = check_sim_rt(0);
    REQUIRE(rt);
    CHECK_EQ(wa_block_on(rt, wa_udp_bind_init(&op, rt, "127.0.0.1", 0)), WA_ENOSYS);
    CHECK_RT_EMPTY_FREE(rt);
    CHECK_EQ(held(), before);
#endif
}

/* A receive dropped by its timeout leaves the socket as it was: the
 * datagram sent after goes to the next receive, whole. */
static void test_cancel(void)
{
    long before = held();
    wa_rt *rt = net_rt();
    REQUIRE(rt);
    wa_udp *a = bound(rt, "127.0.0.1"), *b = bound(rt, "127.0.0.1");
    REQUIRE_OR(a && b, (a && wa_udp_close(&a), b && wa_udp_close(&b), wa_rt_free(rt)));
    unsigned char buf[64];
    wa_udp_op op;
    wa_timeout to;
    for (int i = 0; i < 3; i++)
        CHECK_EQ(wa_block_on(rt, wa_timeout_init(&to, wa_udp_recv_from_init(&op, b, buf, sizeof buf), WA_MS(20))),
                 WA_ETIMEDOUT);
    REQUIRE_OR(send_one(rt, a, b, "127.0.0.1", 40, 7) == 0, CLOSE_FREE(a, b, rt));
    CHECK_EQ(wa_block_on(rt, wa_timeout_init(&to, wa_udp_recv_from_init(&op, b, buf, sizeof buf), WA_MS(5000))), 0);
    CHECK_EQ(op.n, 40);
    CHECK_EQ(buf[39], pattern(39, 7));
    /* dropped with only its init */
    wa_udp_recv_from_init(&op, b, buf, sizeof buf);
    wa_drop(&op.fut);
    CHECK_EQ(wa_udp_close(&a), 0);
    CHECK_EQ(wa_udp_close(&b), 0);
    CHECK_RT_EMPTY_FREE(rt);
    CHECK_EQ(held(), before);
}

/* Closes the socket after 20 ms. */
typedef struct closer {
    WA_CORO;
    wa_sleep s;
    wa_udp *u;
} closer;

static int closer_poll(wa_future *f, wa_cx *cx)
{
    closer *t = (closer *)f;
    WA_BEGIN(t, cx);
    WA_AWAIT(wa_sleep_init(&t->s, WA_MS(20)));
    CHECK_EQ(wa_udp_close(&t->u), 0);
    WA_END();
}
static void closer_drop(wa_future *f)
{
    closer *t = (closer *)f;
    wa_coro_drop(f);
    if (t->u) /* dropped before it closed u */
        wa_udp_close(&t->u);
}
static const wa_future_vt closer_vt = {closer_poll, closer_drop, "closer"};

/* A receive waiting when its socket closes ends with WA_ECLOSED; a second
 * receive at once is misuse, and so is a closed socket's use; a bind
 * polled after its end does not bind again. */
static void test_close(void)
{
    long before = held();
    wa_rt *rt = net_rt();
    REQUIRE(rt);
    check_catch_misuse();
    unsigned char buf[16];
    wa_udp_op op, op2;
    REQUIRE_OR(wa_block_on(rt, wa_udp_bind_init(&op, rt, "127.0.0.1", 0)) == 0, (wa_misuse_set_hook(NULL), wa_rt_free(rt)));
    wa_udp *u = op.udp, *copy = u;
    CHECK_MISUSE(wa_block_on(rt, &op.fut), WA_EMISUSE, "wa_udp_bind_init");
    CHECK(op.udp == u);
    wa_join j;
    REQUIRE_OR(check_spawn(rt, NULL, wa_udp_recv_from_init(&op, u, buf, sizeof buf), sizeof op, &j) == 0,
               (wa_udp_close(&u), wa_misuse_set_hook(NULL), wa_rt_free(rt)));
    wa_rt_tick(rt, NULL); /* receiving */
    CHECK_MISUSE(wa_block_on(rt, wa_udp_recv_from_init(&op2, u, buf, sizeof buf)), WA_EBUSY, "wa_udp_recv_from_init");
    closer c = {.u = u}; /* (only now: the second receive must find u open) */
    wa_coro_init(&c.wa, &closer_vt);
    REQUIRE_OR(check_spawn_of(rt, &c, NULL) == 0, (wa_join_drop(&j), wa_misuse_set_hook(NULL), wa_rt_free(rt))); /* (its drop closed u) */
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK_EQ(wa_join_status(&j), WA_ECLOSED);
    wa_join_drop(&j);
    CHECK_MISUSE(wa_udp_close(&copy), WA_EMISUSE, "wa_udp_close");
    CHECK_MISUSE(wa_udp_port(copy), 0, "wa_udp_port");
    copy = op.udp;
    CHECK_MISUSE(wa_block_on(rt, wa_udp_recv_from_init(&op, copy, buf, sizeof buf)), WA_EMISUSE, "wa_udp_recv_from_init");
    wa_ip to;
    CHECK_EQ(wa_ip_parse("127.0.0.1", &to), 0);
    CHECK_MISUSE(wa_block_on(rt, wa_udp_send_to_init(&op, copy, "x", 1, &to, 9)), WA_EMISUSE, "wa_udp_send_to_init");
    /* initialised, then its socket closed: its first poll finds it so */
    u = bound(rt, "127.0.0.1");
    REQUIRE_OR(u, (wa_misuse_set_hook(NULL), wa_rt_free(rt)));
    wa_udp_recv_from_init(&op, u, buf, sizeof buf);
    wa_udp_send_to_init(&op2, u, "x", 1, &to, 9);
    CHECK_EQ(wa_udp_close(&u), 0);
    CHECK_EQ(wa_block_on(rt, &op.fut), WA_ECLOSED);
    CHECK_EQ(wa_block_on(rt, &op2.fut), WA_ECLOSED);
    wa_misuse_set_hook(NULL);
    CHECK_RT_EMPTY_FREE(rt);
    CHECK_EQ(held(), before);
}

#if defined(WASYNC_HOST_WASIP2)
/* A receive waiting after a datagram came asks the host a bounded number
 * of times: jco's incoming pollable stays ready once a datagram came, and
 * a receive that only waited on it spun (587 polls in 200 ms); its naps
 * make that under 30 (wasmtime: 1). */
static void test_idle_polls(void)
{
    long before = held();
    wa_rt *rt = net_rt();
    REQUIRE(rt);
    wa_udp *a = bound(rt, "127.0.0.1"), *b = bound(rt, "127.0.0.1");
    REQUIRE_OR(a && b, (a && wa_udp_close(&a), b && wa_udp_close(&b), wa_rt_free(rt)));
    unsigned char buf[8];
    wa_udp_op op;
    wa_timeout to;
    wa_wasip2_stats s0, s1;
    REQUIRE_OR(send_one(rt, a, b, "127.0.0.1", 3, 0) == 0, CLOSE_FREE(a, b, rt));
    CHECK_EQ(wa_block_on(rt, wa_udp_recv_from_init(&op, b, buf, sizeof buf)), 0);
    CHECK_EQ(wa_wasip2_stats_get(rt, &s0), 0);
    CHECK_EQ(wa_block_on(rt, wa_timeout_init(&to, wa_udp_recv_from_init(&op, b, buf, sizeof buf), WA_MS(200))),
             WA_ETIMEDOUT);
    CHECK_EQ(wa_wasip2_stats_get(rt, &s1), 0);
    CHECK(s1.polls - s0.polls < 60);
    printf("  (polls in an idle receive of 200 ms: %llu)\n", (unsigned long long)(s1.polls - s0.polls));
    /* a datagram after the naps still comes */
    REQUIRE_OR(send_one(rt, a, b, "127.0.0.1", 4, 0) == 0, CLOSE_FREE(a, b, rt));
    CHECK_EQ(wa_block_on(rt, wa_udp_recv_from_init(&op, b, buf, sizeof buf)), 0);
    CHECK_EQ(op.n, 4);
    CHECK_EQ(wa_udp_close(&a), 0);
    CHECK_EQ(wa_udp_close(&b), 0);
    CHECK_RT_EMPTY_FREE(rt);
    CHECK_EQ(held(), before);
}
#endif

int main(void)
{
    RUN(test_echo);
    RUN(test_echo_ipv6);
    RUN(test_truncate);
    RUN(test_errors);
    RUN(test_cancel);
    RUN(test_close);
#if defined(WASYNC_HOST_WASIP2)
    RUN(test_idle_polls);
#endif
    return check_finish();
}
