/* SPDX-License-Identifier: MIT */
/* net.h natively (epoll) and on WASI 0.2 and 0.3 (jco). TCP: an echo server and
 * concurrent clients in one runtime, 1 MiB each way, writing and reading at
 * once, over IPv4 and IPv6; refused connections, bad addresses (NULL, and
 * what inet_pton refuses), an address in use, IPv6 sockets IPv6 only, a
 * cancelled accept, a listen polled after its end, a listener closed under
 * a waiting accept, closed twice, used after its close. Natively also: the address parser against the
 * libc's inet_pton, running out of file descriptors (WA_EMFILE), two
 * accepts on one listener, a connect that never completes, and DNS on its
 * threads. A connection's options and half-close on every host (natively
 * read back through the socket). No fd (natively) or WASI handle left open after any of it. */
#define _GNU_SOURCE /* usleep */
#include <stdlib.h>

#include "echo.h"
#include "futures.h"
#include "wasync/net.h"

#if defined(WASYNC_HOST_WASIP2)
/* WASI handles held: a leak shows as growth. */
static long held(void) { return wa_wasi_live_handles(); }
#elif defined(WASYNC_HOST_WASIP3)
#include <unistd.h> /* usleep */

#include "wasync/component.h"

/* Socket handles, stream and future ends, subtasks held. */
static long held(void) { return wa_wasi_live_handles(); }
#else
#include <arpa/inet.h>
#include <netinet/tcp.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../src/io/tcp.h"
#include "rt_setup.h"

/* Open fds of this process: a leak shows as growth. */
static long held(void) { return check_fds_held(); }
#endif

#define BYTES (1 << 20)
#define CLIENTS 3

/* A runtime on the default backend (epoll natively, wasip2 on WASI), or
 * NULL. */
static wa_rt *net_rt(void)
{
    wa_rt *rt;
    return wa_rt_new(&rt) == 0 ? rt : NULL;
}

static unsigned char pattern(size_t i, int seed) { return (unsigned char)(i * 31 + (i >> 12) + (unsigned)seed); }


/* Accepts n connections, echoing each in a scope, then closes l. */
typedef struct server {
    WA_CORO;
    wa_tcp *l;
    wa_tcp_op op;
    wa_scope scope;
    int n, i;
} server;

static int server_poll(wa_future *f, wa_cx *cx)
{
    server *t = (server *)f;
    WA_BEGIN(t, cx);
    wa_scope_init(&t->scope, cx->rt, 0);
    for (t->i = 0; t->i < t->n; t->i++) {
        WA_AWAIT(wa_tcp_accept_init(&t->op, t->l));
        if (WA_STATUS < 0)
            break;
        echo e = {.conn = t->op.conn};
        wa_coro_init(&e.wa, &echo_vt);
        CHECK_EQ(check_scope_spawn_of(&t->scope, &e, NULL), 0); /* (or dropped: its drop closes conn) */
    }
    WA_AWAIT(wa_scope_wait(&t->scope));
    CHECK_EQ(wa_tcp_close(&t->l), 0);
    WA_END();
}
static void server_drop(wa_future *f)
{
    server *t = (server *)f;
    wa_coro_drop(f);
    if (t->l) /* dropped before its end */
        wa_tcp_close(&t->l);
}
static const wa_future_vt server_vt = {server_poll, server_drop, "server"};

/* Reads exactly BYTES (the client closes only after: no half-close). */
typedef struct reader {
    WA_CORO;
    wa_stream *conn;
    unsigned char *into;
    size_t got;
    wa_read r;
} reader;

static int reader_poll(wa_future *f, wa_cx *cx)
{
    reader *t = (reader *)f;
    WA_BEGIN(t, cx);
    while (t->got < BYTES) {
        WA_AWAIT(wa_read_init(&t->r, t->conn, t->into + t->got, BYTES - t->got));
        if (WA_STATUS < 0)
            WA_RETURN(WA_STATUS);
        t->got += t->r.n;
    }
    WA_END();
}
static const wa_future_vt reader_vt = {reader_poll, wa_coro_drop, "reader"};

/* Writes BYTES of its pattern to ip:port while reading the echo back;
 * counts itself in *ok when every byte came back in order. */
typedef struct client {
    WA_CORO;
    const char *ip;
    uint16_t port;
    wa_tcp_op op;
    unsigned char *out, *in;
    wa_write w;
    reader rd;
    WA_COMBO(2) both;
    int *ok;
} client;

static int client_poll(wa_future *f, wa_cx *cx)
{
    client *t = (client *)f;
    WA_BEGIN(t, cx);
    WA_AWAIT(wa_tcp_connect_init(&t->op, cx->rt, t->ip, t->port));
    if (WA_STATUS < 0)
        WA_RETURN(WA_STATUS);
    t->rd = (reader){.conn = t->op.conn, .into = t->in};
    wa_coro_init(&t->rd.wa, &reader_vt);
    WA_AWAIT(wa_all_init(&t->both, wa_write_init(&t->w, t->op.conn, t->out, BYTES), &t->rd.wa.fut));
    wa_stream_close(&t->op.conn);
    if (WA_STATUS == 0 && t->rd.got == BYTES && !memcmp(t->in, t->out, BYTES))
        (*t->ok)++;
    WA_RETURN(WA_STATUS);
    WA_END();
}
static void client_drop(wa_future *f)
{
    client *t = (client *)f;
    wa_coro_drop(f);
    if (t->op.conn) /* dropped while connected */
        wa_stream_close(&t->op.conn);
}
static const wa_future_vt client_vt = {client_poll, client_drop, "client"};

/* The echo server and CLIENTS clients over ip. */
static void echo_over(const char *ip)
{
    long before = held();
    wa_rt *rt = net_rt();
    REQUIRE(rt);
    wa_tcp_op op;
    REQUIRE_OR(wa_block_on(rt, wa_tcp_listen_init(&op, rt, ip, 0)) == 0, wa_rt_free(rt));
    uint16_t port = wa_tcp_port(op.listener);
    CHECK(port != 0);
    server s = {.l = op.listener, .n = CLIENTS};
    wa_coro_init(&s.wa, &server_vt);
    wa_join js;
    REQUIRE_OR(check_spawn_of(rt, &s, &js) == 0, wa_rt_free(rt)); /* (s's drop closed l) */
    static unsigned char out[CLIENTS][BYTES], in[CLIENTS][BYTES];
    int ok = 0;
    for (int i = 0; i < CLIENTS; i++) {
        for (size_t k = 0; k < BYTES; k++)
            out[i][k] = pattern(k, i);
        client c = {.ip = ip, .port = port, .out = out[i], .in = in[i], .ok = &ok};
        wa_coro_init(&c.wa, &client_vt);
        REQUIRE_OR(check_spawn_of(rt, &c, NULL) == 0, (wa_join_drop(&js), wa_rt_free(rt)));
    }
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK_EQ(ok, CLIENTS);
    CHECK_EQ(wa_join_status(&js), 0);
    wa_join_drop(&js);
    CHECK_RT_EMPTY_FREE(rt);
    CHECK_EQ(held(), before);
}

static void test_echo(void) { echo_over("127.0.0.1"); }
static void test_echo_ipv6(void) { echo_over("::1"); }

/* A connect to ip:port and an accept on l at once; both connections closed.
 * Returns the connect's status. */
static int connect_accept(wa_rt *rt, const char *ip, wa_tcp *l)
{
    wa_tcp_op con, acc;
    WA_COMBO(2) both;
    int rc = wa_block_on(rt, wa_all_init(&both, wa_tcp_connect_init(&con, rt, ip, wa_tcp_port(l)),
                                         wa_tcp_accept_init(&acc, l)));
    if (con.conn)
        wa_stream_close(&con.conn);
    if (acc.conn)
        wa_stream_close(&acc.conn);
    return rc;
}

/* Refused, bad addresses, an address in use; IPv6 sockets are IPv6 only,
 * and an IPv4-mapped address is its IPv4 one. */
static void test_errors(void)
{
    static const char *const bad[] = {
        NULL,           /* was 0.0.0.0 */
        "0127.00.00.01" /* was 127.0.0.1; inet_pton refuses it */,
        "127.0.0.256",
        "localhost",
        "1.2.3",
        "",
        "fe80::1%1", /* no zone ids */
        "[::1]",
        "::1:",
        "1::2::3",
    };
    long before = held();
    wa_rt *rt = net_rt();
    REQUIRE(rt);
    wa_tcp_op op, op2;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_EQ(wa_block_on(rt, wa_tcp_listen_init(&op, rt, bad[i], 0)), WA_EINVAL);
        CHECK_EQ(wa_block_on(rt, wa_tcp_connect_init(&op, rt, bad[i], 7)), WA_EINVAL);
    }
    const char *const ips[] = {"127.0.0.1", "::1"};
    for (int i = 0; i < 2; i++) {
        REQUIRE_OR(wa_block_on(rt, wa_tcp_listen_init(&op, rt, ips[i], 0)) == 0, wa_rt_free(rt));
        uint16_t port = wa_tcp_port(op.listener);
        CHECK_EQ(wa_block_on(rt, wa_tcp_listen_init(&op2, rt, ips[i], port)), WA_EADDRINUSE);
        CHECK_EQ(connect_accept(rt, ips[i], op.listener), 0);
        if (i == 0) /* ::ffff:127.0.0.1 is 127.0.0.1 */
            CHECK_EQ(connect_accept(rt, "::ffff:127.0.0.1", op.listener), 0);
        CHECK_EQ(wa_tcp_close(&op.listener), 0); /* nobody listens there now */
        CHECK_EQ(wa_block_on(rt, wa_tcp_connect_init(&op, rt, ips[i], port)), WA_ECONNREFUSED);
    }
    /* "::" leaves IPv4 to "0.0.0.0", on one port */
    REQUIRE_OR(wa_block_on(rt, wa_tcp_listen_init(&op, rt, "::", 0)) == 0, wa_rt_free(rt));
    REQUIRE_OR(wa_block_on(rt, wa_tcp_listen_init(&op2, rt, "0.0.0.0", wa_tcp_port(op.listener))) == 0,
               (wa_tcp_close(&op.listener), wa_rt_free(rt)));
    CHECK_EQ(wa_tcp_close(&op.listener), 0);
    CHECK_EQ(wa_tcp_close(&op2.listener), 0);
    CHECK_RT_EMPTY_FREE(rt);
    CHECK_EQ(held(), before);
#ifndef WASYNC_HOST_WASIP2
    /* no sockets on the sim backend */
    rt = check_sim_rt(0);
    REQUIRE(rt);
    CHECK_EQ(wa_block_on(rt, wa_tcp_listen_init(&op, rt, "127.0.0.1", 0)), WA_ENOSYS);
    CHECK_RT_EMPTY_FREE(rt);
    CHECK_EQ(held(), before);
#endif
}

/* The host's words for a failure, with its call: wasi:sockets'
 * error-code on WASI, the system call and strerror natively. */
#if defined(WASYNC_HOST_WASIP2) || defined(WASYNC_HOST_WASIP3)
#define REASON_REFUSED "connection-refused"
#define REASON_IN_USE "address-in-use"
#define REASON_NO_NAME "name-unresolvable"
#else
#define REASON_REFUSED "connect: Connection refused"
#define REASON_IN_USE "bind: Address already in use"
#define REASON_NO_NAME "getaddrinfo: "
#endif

/* Each op's reason after a failure the host explained, "" after a success
 * and after a failure of the front end's (a bad address). */
static void test_reasons(void)
{
    long before = held();
    wa_rt *rt = net_rt();
    REQUIRE(rt);
    wa_tcp_op op, op2;
    REQUIRE_OR(wa_block_on(rt, wa_tcp_listen_init(&op, rt, "127.0.0.1", 0)) == 0, wa_rt_free(rt));
    CHECK_HAS(wa_tcp_op_reason(&op), "");
    uint16_t port = wa_tcp_port(op.listener);
    CHECK_EQ(wa_block_on(rt, wa_tcp_listen_init(&op2, rt, "127.0.0.1", port)), WA_EADDRINUSE);
    CHECK_HAS(wa_tcp_op_reason(&op2), REASON_IN_USE);
    CHECK_EQ(wa_tcp_close(&op.listener), 0);
    CHECK_EQ(wa_block_on(rt, wa_tcp_connect_init(&op, rt, "127.0.0.1", port)), WA_ECONNREFUSED);
    CHECK_HAS(wa_tcp_op_reason(&op), REASON_REFUSED);
    CHECK_EQ(wa_block_on(rt, wa_tcp_connect_init(&op, rt, "localhost", port)), WA_EINVAL);
    CHECK_HAS(wa_tcp_op_reason(&op), "");
    CHECK_RT_EMPTY_FREE(rt);
    CHECK_EQ(held(), before);
}

/* Closes the listener after 20 ms. */
typedef struct closer {
    WA_CORO;
    wa_sleep s;
    wa_tcp *l;
} closer;

static int closer_poll(wa_future *f, wa_cx *cx)
{
    closer *t = (closer *)f;
    WA_BEGIN(t, cx);
    WA_AWAIT(wa_sleep_init(&t->s, WA_MS(20)));
    CHECK_EQ(wa_tcp_close(&t->l), 0);
    WA_END();
}
static void closer_drop(wa_future *f)
{
    closer *t = (closer *)f;
    wa_coro_drop(f);
    if (t->l) /* dropped before it closed l */
        wa_tcp_close(&t->l);
}
static const wa_future_vt closer_vt = {closer_poll, closer_drop, "closer"};

/* An accept that times out leaves the listener usable; one waiting when the
 * listener closes ends with WA_ECLOSED. */
static void test_cancel(void)
{
    long before = held();
    wa_rt *rt = net_rt();
    REQUIRE(rt);
    wa_tcp_op op, acc;
    wa_timeout to;
    REQUIRE_OR(wa_block_on(rt, wa_tcp_listen_init(&op, rt, "127.0.0.1", 0)) == 0, wa_rt_free(rt));
    wa_tcp *l = op.listener;
    CHECK_EQ(wa_block_on(rt, wa_timeout_init(&to, wa_tcp_accept_init(&acc, l), WA_MS(20))), WA_ETIMEDOUT);
    CHECK_EQ(connect_accept(rt, "127.0.0.1", l), 0); /* still listening */
    closer c = {.l = l};
    wa_coro_init(&c.wa, &closer_vt);
    REQUIRE_OR(check_spawn_of(rt, &c, NULL) == 0, wa_rt_free(rt)); /* (c's drop closed l) */
    CHECK_EQ(wa_block_on(rt, wa_tcp_accept_init(&acc, l)), WA_ECLOSED);
    CHECK_RT_EMPTY_FREE(rt);
    CHECK_EQ(held(), before);
}

/* A listen polled after its end is misuse (it does not listen again). A
 * listener handle is closed once: a second close, or a use after, is
 * misuse; an accept never touches freed memory (ASan says so natively),
 * whether it waits when the listener closes, is dropped after, or was only
 * initialised. */
static void test_close(void)
{
    long before = held();
    wa_rt *rt = net_rt();
    REQUIRE(rt);
    wa_tcp_op op, acc, acc2;
    check_catch_misuse();
    int misuses = check_misuses;
    REQUIRE_OR(wa_block_on(rt, wa_tcp_listen_init(&op, rt, "127.0.0.1", 0)) == 0, wa_rt_free(rt));
    wa_tcp *l = op.listener;
    CHECK_MISUSE(wa_block_on(rt, &op.fut), WA_EMISUSE, "wa__tcp_listen"); /* polled after its end */
    CHECK(op.listener == l);
    CHECK_EQ(wa_tcp_close(&l), 0);
    CHECK(l == NULL);
    CHECK_EQ(wa_tcp_close(&l), WA_EMISUSE);
    CHECK_EQ(wa_tcp_port(l), 0);
    CHECK_EQ(wa_block_on(rt, wa_tcp_accept_init(&acc, l)), WA_EMISUSE); /* at its first poll */
    CHECK_EQ(check_misuses, misuses + 4);
    /* initialised, then its listener closed: its first poll finds it so */
    REQUIRE_OR(wa_block_on(rt, wa_tcp_listen_init(&op, rt, "127.0.0.1", 0)) == 0, wa_rt_free(rt));
    l = op.listener;
    wa_tcp_accept_init(&acc, l);
    wa_tcp_accept_init(&acc2, l);
    CHECK_EQ(wa_tcp_close(&l), 0);
    CHECK_EQ(wa_block_on(rt, &acc.fut), WA_ECLOSED);
    CHECK_EQ(wa_block_on(rt, &acc.fut), WA_EMISUSE); /* polled after its end */
    wa_drop(&acc2.fut);                              /* never polled */
    /* waiting, its listener closed through one copy of the handle and then
     * through another; dropped without another poll */
    REQUIRE_OR(wa_block_on(rt, wa_tcp_listen_init(&op, rt, "127.0.0.1", 0)) == 0, wa_rt_free(rt));
    l = op.listener;
    wa_tcp *copy = l;
    wa_join j;
    REQUIRE_OR(check_spawn(rt, NULL, wa_tcp_accept_init(&acc, l), sizeof acc, &j) == 0,
               (wa_tcp_close(&l), wa_rt_free(rt)));
    wa_rt_tick(rt, NULL); /* waiting */
    CHECK_EQ(wa_tcp_close(&l), 0);
    CHECK_EQ(wa_tcp_close(&copy), WA_EMISUSE); /* the accept keeps it to see */
    CHECK_EQ(check_misuses, misuses + 6);
    CHECK_EQ(wa_join_abort(&j), 0);
    wa_join_drop(&j);
    wa_misuse_set_hook(NULL);
    CHECK_RT_EMPTY_FREE(rt);
    CHECK_EQ(held(), before);
}

/* A read dropped by its timeout gives its buffer back at once: what the
 * peer sends after goes to the next read's buffer, never into the dropped
 * one's, which its owner reuses (on WASI 0.3 the read's buffer was the
 * host's while its copy was BLOCKED, until the cancel). */
static void test_read_timeout_buffer(void)
{
    long before = held();
    wa_rt *rt = net_rt();
    REQUIRE(rt);
    wa_tcp_op op, con, acc;
    REQUIRE_OR(wa_block_on(rt, wa_tcp_listen_init(&op, rt, "127.0.0.1", 0)) == 0, wa_rt_free(rt));
    wa_tcp *l = op.listener;
    WA_COMBO(2) both;
    int rc = wa_block_on(rt, wa_all_init(&both, wa_tcp_connect_init(&con, rt, "127.0.0.1", wa_tcp_port(l)),
                                         wa_tcp_accept_init(&acc, l)));
    CHECK_EQ(rc, 0);
    if (rc == 0) {
        static unsigned char dropped[64], next[64];
        wa_read rd;
        wa_write wr;
        wa_timeout to;
        wa_sleep sl;
        CHECK_EQ(wa_block_on(rt, wa_timeout_init(&to, wa_read_init(&rd, con.conn, dropped, sizeof dropped), WA_MS(20))),
                 WA_ETIMEDOUT);
        memset(dropped, 0x5a, sizeof dropped); /* reused by its owner */
        rc = wa_block_on(rt, wa_write_init(&wr, acc.conn, "hello", 5));
        CHECK_EQ(rc, 0);
        size_t got = 0; /* (nothing to wait for if the write failed) */
        while (rc == 0 && got < 5 && wa_block_on(rt, wa_read_init(&rd, con.conn, next + got, sizeof next - got)) == 0)
            got += rd.n;
        CHECK_EQ(got, 5);
        CHECK(memcmp(next, "hello", 5) == 0);
        wa_block_on(rt, wa_sleep_init(&sl, WA_MS(20))); /* (a late copy would land by now) */
        size_t kept = 0;
        while (kept < sizeof dropped && dropped[kept] == 0x5a)
            kept++;
        CHECK_EQ(kept, sizeof dropped);
    }
    if (con.conn)
        wa_stream_close(&con.conn);
    if (acc.conn)
        wa_stream_close(&acc.conn);
    wa_tcp_close(&l);
    CHECK_RT_EMPTY_FREE(rt);
    CHECK_EQ(held(), before);
}

/* A connection on l: *con connected to it, *acc accepted. Returns the
 * status (both NULL on failure). */
static int conn_pair(wa_rt *rt, wa_tcp *l, wa_stream **con, wa_stream **acc)
{
    wa_tcp_op c, a;
    WA_COMBO(2) both;
    int rc = wa_block_on(rt, wa_all_init(&both, wa_tcp_connect_init(&c, rt, "127.0.0.1", wa_tcp_port(l)),
                                         wa_tcp_accept_init(&a, l)));
    if (rc < 0) {
        if (c.conn)
            wa_stream_close(&c.conn);
        if (a.conn)
            wa_stream_close(&a.conn);
    }
    *con = c.conn;
    *acc = a.conn;
    return rc;
}

/* Writes len bytes of buf to s: the status. */
static int write_all(wa_rt *rt, wa_stream *s, const void *buf, size_t len)
{
    wa_write w;
    return wa_block_on(rt, wa_write_init(&w, s, buf, len));
}

/* Reads s to its end into buf (at most cap): the count, or -1 on an error
 * before the end (or more than cap). */
static long read_to_end(wa_rt *rt, wa_stream *s, char *buf, size_t cap)
{
    wa_read_all r;
    int rc = wa_block_on(rt, wa_read_all_init(&r, s, cap));
    long n = rc == 0 ? (long)r.len : -1;
    if (rc == 0)
        memcpy(buf, r.data, r.len);
    free(r.data);
    return n;
}

/* Half-close both ways: the client writes and shuts its write side down;
 * the server reads the bytes then the end, and answers; the client reads
 * the answer after its shutdown, then the end (the server shut down too).
 * A write after a shutdown is WA_ECLOSED, a second shutdown 0. Under jco,
 * WASI 0.2's shutdown closes the whole socket (preview2-shim destroys the
 * Node socket, whatever the shutdown-type): there the server's answer is
 * a write to a socket the peer destroyed, WA_EIO with the runtime's words
 * for it (the stream-error's to-debug-string: "flush: Error: write
 * EPIPE"). */
static void test_half_close(void)
{
    long before = held();
    wa_rt *rt = net_rt();
    REQUIRE(rt);
    wa_tcp_op op;
    wa_stream *con, *acc;
    char buf[64];
    REQUIRE_OR(wa_block_on(rt, wa_tcp_listen_init(&op, rt, "127.0.0.1", 0)) == 0, wa_rt_free(rt));
    REQUIRE_OR(conn_pair(rt, op.listener, &con, &acc) == 0, (wa_tcp_close(&op.listener), wa_rt_free(rt)));
    CHECK_EQ(write_all(rt, con, "ping", 4), 0);
    CHECK_EQ(wa_tcp_shutdown_write(con), 0);
    CHECK_EQ(wa_tcp_shutdown_write(con), 0); /* again: nothing to do */
    CHECK_EQ(write_all(rt, con, "late", 4), WA_ECLOSED);
    CHECK_EQ(read_to_end(rt, acc, buf, sizeof buf), 4); /* the bytes, then the end */
    CHECK(memcmp(buf, "ping", 4) == 0);
#ifdef WASYNC_HOST_WASIP2
    const char *runner = getenv("WASYNC_RUNNER");
    int whole = runner && !strcmp(runner, "wasmtime"); /* (not jco: above) */
#else
    int whole = 1;
#endif
    if (whole) {
        CHECK_EQ(write_all(rt, acc, "pong!", 5), 0); /* the server still writes */
        CHECK_EQ(wa_tcp_shutdown_write(acc), 0);
        CHECK_EQ(read_to_end(rt, con, buf, sizeof buf), 5); /* the client still reads */
        CHECK(memcmp(buf, "pong!", 5) == 0);
    } else { /* jco: the write fails, in the runtime's words (its error's to-debug-string) */
        CHECK_EQ(write_all(rt, acc, "pong!", 5), WA_EIO);
        const char *why = wa_stream_reason(acc, WA_STREAM_WRITE);
        static const char *const calls[] = {"check-write: ", "write: ", "blocking-write-and-flush: ", "flush: "};
        int named = 0;
        for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
            named |= !strncmp(why, calls[i], strlen(calls[i])) && why[strlen(calls[i])];
        CHECK(named);
        printf("  a write to a destroyed socket: %s\n", why);
    }
    CHECK_EQ(wa_stream_close(&con), 0);
    CHECK_EQ(wa_stream_close(&acc), 0);
    CHECK_EQ(wa_tcp_close(&op.listener), 0);
    CHECK_RT_EMPTY_FREE(rt);
    CHECK_EQ(held(), before);
}

/* A peer that closes with bytes unread resets the connection (RST): the
 * other side's read fails, and the stream says why in the host's words
 * (natively "read: Connection reset by peer"; on WASI the runtime's, when
 * it tells a reset from an end). A read that ends is "". */
static void test_stream_reason(void)
{
    long before = held();
    wa_rt *rt = net_rt();
    REQUIRE(rt);
    wa_tcp_op op;
    wa_stream *con, *acc;
    char buf[8];
    REQUIRE_OR(wa_block_on(rt, wa_tcp_listen_init(&op, rt, "127.0.0.1", 0)) == 0, wa_rt_free(rt));
    REQUIRE_OR(conn_pair(rt, op.listener, &con, &acc) == 0, (wa_tcp_close(&op.listener), wa_rt_free(rt)));
    CHECK_EQ(write_all(rt, con, "unread", 6), 0);
    CHECK_HAS(wa_stream_reason(con, WA_STREAM_WRITE), "");
    wa_sleep nap;
    CHECK_EQ(wa_block_on(rt, wa_sleep_init(&nap, WA_MS(20))), 0); /* (the bytes arrive) */
    CHECK_EQ(wa_stream_close(&acc), 0);
    wa_read r;
    int rc = wa_block_on(rt, wa_read_init(&r, con, buf, sizeof buf));
    const char *why = wa_stream_reason(con, WA_STREAM_READ);
    printf("  a read after a reset: %s (%s)\n", wa_strerror(rc), why);
#if defined(WASYNC_HOST_WASIP2) || defined(WASYNC_HOST_WASIP3)
    CHECK(rc == WA_ECONNRESET || rc == WA_EIO || rc == WA_ECLOSED);
    CHECK(rc == WA_ECLOSED ? !*why : !!*why);
#else
    CHECK_EQ(rc, WA_ECONNRESET);
    CHECK_HAS(why, "read: Connection reset by peer");
#endif
    CHECK_EQ(wa_stream_close(&con), 0);
    CHECK_EQ(wa_tcp_close(&op.listener), 0);
    CHECK_RT_EMPTY_FREE(rt);
    CHECK_EQ(held(), before);
}

/* Writes 1 MiB at a time to conn, which nobody reads, until the host
 * pushes back (at most 64 MiB): then it waits inside a write. */
typedef struct flooder {
    WA_CORO;
    wa_stream *conn;
    wa_write w;
    int i;
} flooder;

static int flooder_poll(wa_future *f, wa_cx *cx)
{
    static unsigned char mib[1 << 20];
    flooder *t = (flooder *)f;
    WA_BEGIN(t, cx);
    for (t->i = 0; t->i < 64; t->i++) {
        WA_AWAIT(wa_write_init(&t->w, t->conn, mib, sizeof mib));
        if (WA_STATUS < 0)
            break;
    }
    WA_END();
}
static const wa_future_vt flooder_vt = {flooder_poll, wa_coro_drop, "flooder"};

/* The options of a connection: keep-alive on every host, NODELAY where
 * there is one (WA_ENOSYS on WASI). Misuse: NULL, a closed stream, a
 * stream that is no TCP connection (a pipe's end), a shutdown with a
 * write in flight (WA_EBUSY). */
static void test_options(void)
{
    long before = held();
    wa_rt *rt = net_rt();
    REQUIRE(rt);
    wa_tcp_op op;
    wa_stream *con, *acc;
    REQUIRE_OR(wa_block_on(rt, wa_tcp_listen_init(&op, rt, "127.0.0.1", 0)) == 0, wa_rt_free(rt));
    REQUIRE_OR(conn_pair(rt, op.listener, &con, &acc) == 0, (wa_tcp_close(&op.listener), wa_rt_free(rt)));
#if defined(WASYNC_HOST_WASIP2) || defined(WASYNC_HOST_WASIP3)
    CHECK_EQ(wa_tcp_nodelay(con, true), WA_ENOSYS);
#else
    CHECK_EQ(wa_tcp_nodelay(con, true), 0);
    CHECK_EQ(wa_tcp_nodelay(acc, false), 0);
#endif
    CHECK_EQ(wa_tcp_keepalive(con, true, 30), 0);
    CHECK_EQ(wa_tcp_keepalive(acc, true, 0), 0);
    CHECK_EQ(wa_tcp_keepalive(acc, false, 0), 0);
    /* a shutdown with a write in flight */
    check_catch_misuse();
    flooder fl = {.conn = con};
    wa_coro_init(&fl.wa, &flooder_vt);
    wa_join j;
#define UNDO (wa_misuse_set_hook(NULL), wa_stream_close(&con), wa_stream_close(&acc), wa_tcp_close(&op.listener), wa_rt_free(rt))
    REQUIRE_OR(check_spawn_of(rt, &fl, &j) == 0, UNDO);
    wa_rt_tick(rt, NULL); /* writing, until the host pushes back */
    CHECK_MISUSE(wa_tcp_shutdown_write(con), WA_EBUSY, "wa_tcp_shutdown_write");
    CHECK_EQ(wa_join_abort(&j), 0);
    wa_join_drop(&j);
    /* misuse: NULL, not TCP, closed */
    wa_stream *r = NULL, *w = NULL, *copy = acc;
    CHECK_MISUSE(wa_tcp_nodelay(NULL, true), WA_EMISUSE, "wa_tcp_nodelay");
    CHECK_MISUSE(wa_tcp_keepalive(NULL, true, 1), WA_EMISUSE, "wa_tcp_keepalive");
    CHECK_MISUSE(wa_tcp_shutdown_write(NULL), WA_EMISUSE, "wa_tcp_shutdown_write");
    REQUIRE_OR(wa_pipe_new(16, &r, &w) == 0, UNDO);
#undef UNDO
    CHECK_MISUSE(wa_tcp_nodelay(w, true), WA_EMISUSE, "wa_tcp_nodelay");
    CHECK_MISUSE(wa_tcp_keepalive(r, true, 1), WA_EMISUSE, "wa_tcp_keepalive");
    CHECK_MISUSE(wa_tcp_shutdown_write(w), WA_EMISUSE, "wa_tcp_shutdown_write");
    CHECK_EQ(wa_stream_close(&r), 0);
    CHECK_EQ(wa_stream_close(&w), 0);
    CHECK_EQ(wa_stream_close(&acc), 0);
    CHECK_MISUSE(wa_tcp_nodelay(copy, true), WA_EMISUSE, "wa_tcp_nodelay");
    CHECK_MISUSE(wa_tcp_keepalive(copy, true, 1), WA_EMISUSE, "wa_tcp_keepalive");
    CHECK_MISUSE(wa_tcp_shutdown_write(copy), WA_EMISUSE, "wa_tcp_shutdown_write");
    wa_misuse_set_hook(NULL);
    CHECK_EQ(wa_stream_close(&con), 0);
    CHECK_EQ(wa_tcp_close(&op.listener), 0);
    CHECK_RT_EMPTY_FREE(rt);
    CHECK_EQ(held(), before);
}

#if !defined(WASYNC_HOST_WASIP2) && !defined(WASYNC_HOST_WASIP3)
/* Our parser and the libc's inet_pton agree, on both families. */
static void test_ip_parse(void)
{
    static const char *const in[] = {
        "127.0.0.1", "0.0.0.0", "255.255.255.255", "0127.0.0.1", "0127.00.00.01", "00.0.0.0", "1.2.3", "1.2.3.4.5",
        "256.1.1.1", "1.2.3.1000", " 1.2.3.4", "1.2.3.4 ", "1..2.3", "0x1.2.3.4", "1.2.3.4.", ".1.2.3.4", "01.2.3.4",
        "::", "::1", "fe80::1", "::ffff:1.2.3.4", "::FFFF:1.2.3.4", "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8:9",
        "1:2:3:4:5:6:7::", "::2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8::", "::1:2:3:4:5:6:7:8", "1:2:3:4:5:6::1.2.3.4",
        "1:2:3:4:5:6:1.2.3.4", "1:2:3:4:5::1.2.3.4", "1:2:3:4:5:6:7:1.2.3.4", "::ffff:01.2.3.4", "::1.2.3.4",
        "::1.2.3", "::256.1.1.1", "::1.2.3.4:1", "::1a.2.3.4", "::1234.1.1.1", "fe80::1%lo", "fe80::1%1", "00001::",
        "0001::", "ABCD::ef", ":::", "1::2::3", ":1::", "1:", "1::", ":", "", "[::1]", "1:2:3:4:5:6:7",
        "::0:0:0:0:0:0:0", "1:2:3:4:5:6:7:8:", "g::", "1.2.3.4::", "::1.2.3.4.5", "1:2:3:4:5:6:7:8:1.2.3.4",
        "::.1.2.3", "localhost",
    };
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
        unsigned char b4[4], b6[16];
        int v4 = inet_pton(AF_INET, in[i], b4) == 1, v6 = inet_pton(AF_INET6, in[i], b6) == 1;
        wa_ip ip;
        int rc = wa__ip_parse(in[i], &ip);
        int same = rc == (v4 || v6 ? 0 : WA_EINVAL) &&
                   (rc < 0 || (ip.v6 == v6 && !memcmp(ip.bytes, v6 ? b6 : b4, v6 ? 16 : 4)));
        CHECK(same);
        if (!same)
            fprintf(stderr, "  (on \"%s\")\n", in[i]);
    }
    wa_ip ip;
    CHECK_EQ(wa__ip_parse(NULL, &ip), WA_EINVAL);
}

/* Connects a plain blocking socket to 127.0.0.1:port: the fd, or -1. */
static int plain_connect(uint16_t port)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* An int socket option of fd, or -1. */
static int sockopt(int fd, int level, int name)
{
    int v = -1;
    socklen_t len = sizeof v;
    return getsockopt(fd, level, name, &v, &len) == 0 ? v : -1;
}

/* Natively the options are the socket's, read back through its fd: a
 * stream of wa_fd_stream_open over a TCP socket is a connection too (a
 * Unix socket's is not). A half-closed socket: the peer's recv says 0. */
static void test_options_fd(void)
{
    long before = held();
    wa_rt *rt = net_rt();
    REQUIRE(rt);
    wa_tcp_op op, acc;
    wa_stream *s = NULL, *u = NULL;
    int sv[2];
    REQUIRE_OR(wa_block_on(rt, wa_tcp_listen_init(&op, rt, "127.0.0.1", 0)) == 0, wa_rt_free(rt));
    int fd = plain_connect(wa_tcp_port(op.listener));
    REQUIRE_OR(fd >= 0, (wa_tcp_close(&op.listener), wa_rt_free(rt)));
    REQUIRE_OR(wa_fd_stream_open(rt, fd, &s) == 0, (wa_tcp_close(&op.listener), wa_rt_free(rt)));
    REQUIRE_OR(wa_block_on(rt, wa_tcp_accept_init(&acc, op.listener)) == 0,
               (wa_stream_close(&s), wa_tcp_close(&op.listener), wa_rt_free(rt)));
    CHECK_EQ(sockopt(fd, IPPROTO_TCP, TCP_NODELAY), 0);
    CHECK_EQ(wa_tcp_nodelay(s, true), 0);
    CHECK_EQ(sockopt(fd, IPPROTO_TCP, TCP_NODELAY), 1);
    CHECK_EQ(wa_tcp_nodelay(s, false), 0);
    CHECK_EQ(sockopt(fd, IPPROTO_TCP, TCP_NODELAY), 0);
    CHECK_EQ(wa_tcp_keepalive(s, true, 42), 0);
    CHECK_EQ(sockopt(fd, SOL_SOCKET, SO_KEEPALIVE), 1);
    CHECK_EQ(sockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE), 42);
    CHECK_EQ(wa_tcp_keepalive(s, true, 0), 0); /* the idle time kept */
    CHECK_EQ(sockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE), 42);
    CHECK_EQ(wa_tcp_keepalive(s, true, 40000), WA_EINVAL); /* Linux's limit: 32767 */
    CHECK_EQ(wa_tcp_keepalive(s, false, 0), 0);
    CHECK_EQ(sockopt(fd, SOL_SOCKET, SO_KEEPALIVE), 0);
    CHECK_EQ(wa_tcp_shutdown_write(s), 0);
    char buf[8];
    CHECK_EQ(read_to_end(rt, acc.conn, buf, sizeof buf), 0); /* the end at once */
    CHECK_EQ(wa_stream_close(&s), 0);
    CHECK_EQ(wa_stream_close(&acc.conn), 0);
    CHECK_EQ(wa_tcp_close(&op.listener), 0);
    /* a Unix socket's stream is no TCP connection */
    REQUIRE_OR(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0, wa_rt_free(rt));
    close(sv[1]);
    REQUIRE_OR(wa_fd_stream_open(rt, sv[0], &u) == 0, wa_rt_free(rt));
    check_catch_misuse();
    CHECK_MISUSE(wa_tcp_shutdown_write(u), WA_EMISUSE, "wa_tcp_shutdown_write");
    wa_misuse_set_hook(NULL);
    CHECK_EQ(wa_stream_close(&u), 0);
    CHECK_RT_EMPTY_FREE(rt);
    CHECK_EQ(held(), before);
}

/* With every file descriptor in use, accept, connect and listen say
 * WA_EMFILE; once there are some again, they work, and nothing leaked. */
static void test_emfile(void)
{
    long before = held();
    wa_rt *rt = net_rt();
    REQUIRE(rt);
    wa_tcp_op op, acc, con;
    REQUIRE_OR(wa_block_on(rt, wa_tcp_listen_init(&op, rt, "127.0.0.1", 0)) == 0, wa_rt_free(rt));
    wa_tcp *l = op.listener;
    int peer = plain_connect(wa_tcp_port(l)); /* queued: for the accept */
    CHECK(peer >= 0);
    /* fds are allocated lowest first: the first free one is the limit */
    int first_free = open("/dev/null", O_RDONLY | O_CLOEXEC);
    struct rlimit old, low;
    REQUIRE_OR(first_free >= 0 && getrlimit(RLIMIT_NOFILE, &old) == 0, (close(peer), wa_tcp_close(&l), wa_rt_free(rt)));
    close(first_free);
    low = old;
    low.rlim_cur = (rlim_t)first_free;
    CHECK_EQ(setrlimit(RLIMIT_NOFILE, &low), 0);
    int accepted = wa_block_on(rt, wa_tcp_accept_init(&acc, l));
    int connected = wa_block_on(rt, wa_tcp_connect_init(&con, rt, "127.0.0.1", wa_tcp_port(l)));
    int listened = wa_block_on(rt, wa_tcp_listen_init(&op, rt, "::1", 0));
    CHECK_EQ(setrlimit(RLIMIT_NOFILE, &old), 0);
    CHECK_EQ(accepted, WA_EMFILE);
    CHECK_EQ(connected, WA_EMFILE);
    CHECK_EQ(listened, WA_EMFILE);
    CHECK_EQ(wa_block_on(rt, wa_tcp_accept_init(&acc, l)), 0); /* the same connection */
    if (acc.conn)
        wa_stream_close(&acc.conn);
    CHECK_EQ(connect_accept(rt, "127.0.0.1", l), 0);
    CHECK_EQ(wa_tcp_close(&l), 0);
    close(peer);
    CHECK_RT_EMPTY_FREE(rt);
    CHECK_EQ(held(), before);
}

/* A listener whose accept queue is full (backlog 0, two connections
 * queued): a further connect stays in progress (its SYN is dropped). */
static int full_listener(int fds[3], uint16_t *port)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    fds[0] = socket(AF_INET, SOCK_STREAM, 0);
    if (bind(fds[0], (struct sockaddr *)&a, sizeof a) < 0 || listen(fds[0], 0) < 0 ||
        getsockname(fds[0], (struct sockaddr *)&a, &len) < 0)
        return -1;
    for (int i = 1; i < 3; i++) {
        fds[i] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
        connect(fds[i], (struct sockaddr *)&a, sizeof a);
    }
    *port = ntohs(a.sin_port);
    return 0;
}

/* A connect that never completes and is dropped by a timeout holds nothing
 * after. */
static void test_connect_timeout(void)
{
    long before = held();
    wa_rt *rt = net_rt();
    REQUIRE(rt);
    wa_tcp_op con;
    wa_timeout to;
    int full[3];
    uint16_t port;
    REQUIRE_OR(full_listener(full, &port) == 0, wa_rt_free(rt));
    CHECK_EQ(wa_block_on(rt, wa_timeout_init(&to, wa_tcp_connect_init(&con, rt, "127.0.0.1", port), WA_MS(20))),
             WA_ETIMEDOUT);
    for (int i = 0; i < 3; i++)
        close(full[i]);
    CHECK_RT_EMPTY_FREE(rt);
    CHECK_EQ(held(), before);
}

#endif

#ifndef WASYNC_HOST_WASIP2
/* (on WASI 0.3 a lookup is an async call: "its thread" below is its subtask) */
static int has_loopback(const wa_dns *d)
{
    static const uint8_t v6[16] = {[15] = 1};
    int found = 0;
    for (int i = 0; i < d->n; i++)
        found |= d->addrs[i].v6 ? !memcmp(d->addrs[i].bytes, v6, 16) : d->addrs[i].bytes[0] == 127;
    return found;
}

static void test_dns(void)
{
    long before = held();
    wa_rt *rt = net_rt();
    REQUIRE(rt);
    wa_dns d[4];
    CHECK_EQ(wa_block_on(rt, wa_dns_lookup_init(&d[0], rt, "localhost")), 0);
    CHECK(d[0].n >= 1 && has_loopback(&d[0]));
    CHECK_EQ(wa_block_on(rt, wa_dns_lookup_init(&d[0], rt, "127.0.0.1")), 0);
    CHECK(d[0].n == 1 && !d[0].addrs[0].v6 && !memcmp(d[0].addrs[0].bytes, "\x7f\0\0\1", 4));
    int rc = wa_block_on(rt, wa_dns_lookup_init(&d[0], rt, "no-such-host.invalid"));
    CHECK(rc == WA_ENOTFOUND || rc == WA_ETIMEDOUT); /* (not found; or no resolver reachable; was WA_EIO) */
    CHECK_EQ(d[0].n, 0);
    CHECK_HAS(wa_dns_reason(&d[0]), REASON_NO_NAME);
    CHECK_EQ(wa_block_on(rt, wa_dns_lookup_init(&d[0], rt, "localhost")), 0);
    CHECK_HAS(wa_dns_reason(&d[0]), "");
    /* three at once (natively on the blocking pool) */
    WA_COMBO(3) all;
    CHECK_EQ(wa_block_on(rt, wa_all_init(&all, wa_dns_lookup_init(&d[1], rt, "localhost"),
                                         wa_dns_lookup_init(&d[2], rt, "127.0.0.2"),
                                         wa_dns_lookup_init(&d[3], rt, "localhost"))),
             0);
    CHECK(has_loopback(&d[1]) && has_loopback(&d[2]) && has_loopback(&d[3]));
    /* dropped before getaddrinfo is done: the thread frees the job */
    wa_rt_tick(rt, NULL);
    wa_join j;
    REQUIRE_OR(check_spawn(rt, NULL, wa_dns_lookup_init(&d[0], rt, "localhost"), sizeof d[0], &j) == 0, wa_rt_free(rt));
    wa_rt_tick(rt, NULL); /* started */
    CHECK_EQ(wa_join_abort(&j), 0);
    wa_join_drop(&j);
    CHECK_RT_EMPTY_FREE(rt);
    /* nothing of the abandoned lookup holds an fd once its thread ends */
    for (int i = 0; i < 200 && held() != before; i++)
        usleep(10000);
    CHECK_EQ(held(), before);
    /* misuse: a finished lookup polled again, a NULL name */
    check_catch_misuse();
    rt = net_rt();
    REQUIRE(rt);
    CHECK_EQ(wa_block_on(rt, wa_dns_lookup_init(&d[0], rt, "127.0.0.1")), 0);
    CHECK_MISUSE(wa_block_on(rt, &d[0].fut), WA_EMISUSE, "wa__dns_lookup");
    CHECK_MISUSE(wa_block_on(rt, wa_dns_lookup_init(&d[0], rt, NULL)), WA_EMISUSE, "wa__dns_lookup");
    wa_misuse_set_hook(NULL);
    CHECK_RT_EMPTY_FREE(rt);
}
#endif

/* Accepts one connection on l into *accepted. */
typedef struct acceptor {
    WA_CORO;
    wa_tcp *l;
    wa_tcp_op op;
    int *accepted;
} acceptor;

static int acceptor_poll(wa_future *f, wa_cx *cx)
{
    acceptor *t = (acceptor *)f;
    WA_BEGIN(t, cx);
    WA_AWAIT(wa_tcp_accept_init(&t->op, t->l));
    if (WA_STATUS == 0) {
        (*t->accepted)++;
        wa_stream_close(&t->op.conn);
    }
    WA_END();
}
static const wa_future_vt acceptor_vt = {acceptor_poll, wa_coro_drop, "acceptor"};

/* Two tasks accept on one listener, two clients connect: both are
 * accepted (each wait on the listener is woken). */
static void test_two_accepts(void)
{
    long before = held();
    wa_rt *rt = net_rt();
    REQUIRE(rt);
    wa_tcp_op op, con[2];
    REQUIRE_OR(wa_block_on(rt, wa_tcp_listen_init(&op, rt, "127.0.0.1", 0)) == 0, wa_rt_free(rt));
    wa_tcp *l = op.listener;
    int accepted = 0;
    for (int i = 0; i < 2; i++) {
        acceptor a = {.l = l, .accepted = &accepted};
        wa_coro_init(&a.wa, &acceptor_vt);
        REQUIRE_OR(check_spawn_of(rt, &a, NULL) == 0, (wa_tcp_close(&l), wa_rt_free(rt)));
    }
    wa_rt_tick(rt, NULL); /* both wait on l */
    WA_COMBO(2) both;
    CHECK_EQ(wa_block_on(rt, wa_all_init(&both, wa_tcp_connect_init(&con[0], rt, "127.0.0.1", wa_tcp_port(l)),
                                         wa_tcp_connect_init(&con[1], rt, "127.0.0.1", wa_tcp_port(l)))),
             0);
    /* a second to be accepted (an accept never woken would wait for ever) */
    wa_sleep s;
    for (int i = 0; i < 100 && accepted < 2; i++)
        CHECK_EQ(wa_block_on(rt, wa_sleep_init(&s, WA_MS(10))), 0);
    CHECK_EQ(accepted, 2);
    for (int i = 0; i < 2; i++)
        if (con[i].conn)
            wa_stream_close(&con[i].conn);
    CHECK_EQ(wa_tcp_close(&l), 0); /* (an accept still waiting ends) */
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK_RT_EMPTY_FREE(rt);
    CHECK_EQ(held(), before);
}

/* Copies of handles used after the close through another copy: a
 * connection's stream closed twice or read, a listener closed twice, its
 * port asked, an accept on it, also once a new listener is open. Each is
 * reported by the call, and none reads the freed object (ASan natively). */
static void test_handle_copies(void)
{
    long before = held();
    wa_rt *rt = net_rt();
    REQUIRE(rt);
    check_catch_misuse();
    wa_tcp_op op, acc, con;
    REQUIRE_OR(wa_block_on(rt, wa_tcp_listen_init(&op, rt, "127.0.0.1", 0)) == 0, wa_rt_free(rt));
    wa_tcp *l = op.listener, *copy = l;
    REQUIRE_OR(wa_block_on(rt, wa_tcp_connect_init(&con, rt, "127.0.0.1", wa_tcp_port(l))) == 0,
               (wa_tcp_close(&l), wa_rt_free(rt)));
    REQUIRE_OR(wa_block_on(rt, wa_tcp_accept_init(&acc, l)) == 0,
               (wa_stream_close(&con.conn), wa_tcp_close(&l), wa_rt_free(rt)));
    wa_stream *c = acc.conn, *c_copy = c;
    char buf[4];
    wa_read r;
    CHECK_EQ(wa_stream_close(&c), 0);
    CHECK_MISUSE(wa_stream_close(&c_copy), WA_EMISUSE, "wa_stream_close");
    CHECK_MISUSE(wa_block_on(rt, wa_read_init(&r, acc.conn, buf, sizeof buf)), WA_EMISUSE, "wa_read");
    CHECK_EQ(wa_block_on(rt, wa_read_init(&r, con.conn, buf, sizeof buf)), WA_ECLOSED);
    CHECK_EQ(wa_stream_close(&con.conn), 0);
    CHECK_EQ(wa_tcp_close(&l), 0);
    CHECK_MISUSE(wa_tcp_close(&copy), WA_EMISUSE, "wa_tcp_close");
    copy = op.listener;
    CHECK_MISUSE(wa_tcp_port(copy), 0, "wa_tcp_port");
    CHECK_MISUSE(wa_block_on(rt, wa_tcp_accept_init(&acc, copy)), WA_EMISUSE, "wa__tcp_accept");
    /* a new listener (perhaps where the old one was) is another handle */
    REQUIRE_OR(wa_block_on(rt, wa_tcp_listen_init(&op, rt, "127.0.0.1", 0)) == 0, (wa_misuse_set_hook(NULL), wa_rt_free(rt)));
    CHECK_MISUSE(wa_tcp_close(&copy), WA_EMISUSE, "wa_tcp_close");
    CHECK(wa_tcp_port(op.listener) != 0);
    CHECK_EQ(wa_tcp_close(&op.listener), 0);
    wa_misuse_set_hook(NULL);
    CHECK_RT_EMPTY_FREE(rt);
    CHECK_EQ(held(), before);
}

int main(void)
{
    RUN(test_echo);
    RUN(test_echo_ipv6);
    RUN(test_errors);
    RUN(test_reasons);
    RUN(test_cancel);
    RUN(test_close);
    RUN(test_two_accepts);
    RUN(test_read_timeout_buffer);
    RUN(test_handle_copies);
    RUN(test_half_close);
    RUN(test_stream_reason);
    RUN(test_options);
#if !defined(WASYNC_HOST_WASIP2) && !defined(WASYNC_HOST_WASIP3)
    RUN(test_options_fd);
    RUN(test_ip_parse);
    RUN(test_emfile);
    RUN(test_connect_timeout);
#endif
#ifndef WASYNC_HOST_WASIP2
    RUN(test_dns);
#endif
    return check_finish();
}
