/* net.h on native Linux. TCP: an echo server and concurrent clients in
 * one runtime, 1 MiB each way, writing and reading at once; refused
 * connections, bad addresses, an address in use, a cancelled accept and
 * connect, a listener closed under a waiting accept. DNS on its threads:
 * localhost, a name that does not resolve, lookups at once, one dropped
 * before its thread is done. No fd left open after any of it. */
#define _GNU_SOURCE /* usleep */
#include <arpa/inet.h>
#include <dirent.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "futures.h"
#include "wasync/net.h"

#define BYTES (1 << 20)
#define CLIENTS 3

/* Open fds of this process: a leak shows as growth. */
static int open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    int n = 0;
    while (d && readdir(d))
        n++;
    if (d)
        closedir(d);
    return n;
}

static wa_rt *epoll_rt(void)
{
    wa_rt *rt = NULL;
    CHECK_EQ(wa_rt_new(&rt, wa_backend_epoll_new(NULL)), 0);
    return rt;
}

static unsigned char pattern(size_t i, int seed) { return (unsigned char)(i * 31 + (i >> 12) + (unsigned)seed); }

/* Echoes one connection until the peer closes it. */
typedef struct echo {
    WA_CORO;
    wa_stream *conn;
    wa_read r;
    wa_write w;
    unsigned char buf[4096];
} echo;

static int echo_poll(wa_future *f, wa_cx *cx)
{
    echo *t = (echo *)f;
    WA_BEGIN(t, cx);
    for (;;) {
        WA_AWAIT(wa_read_init(&t->r, t->conn, t->buf, sizeof t->buf));
        if (WA_STATUS < 0)
            break;
        WA_AWAIT(wa_write_init(&t->w, t->conn, t->buf, t->r.n));
        if (WA_STATUS < 0)
            break;
    }
    wa_stream_close(&t->conn);
    WA_RETURN(WA_STATUS == WA_ECLOSED ? 0 : WA_STATUS);
    WA_END();
}
static const wa_future_vt echo_vt = {echo_poll, wa_coro_drop, "echo"};

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
        CHECK_EQ(wa_scope_spawn_of(&t->scope, &e, NULL), 0);
    }
    WA_AWAIT(wa_scope_wait(&t->scope));
    wa_tcp_close(t->l);
    WA_END();
}
static const wa_future_vt server_vt = {server_poll, wa_coro_drop, "server"};

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

/* Writes BYTES of its pattern while reading the echo back; counts itself
 * in *ok when every byte came back in order. */
typedef struct client {
    WA_CORO;
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
    WA_AWAIT(wa_tcp_connect_init(&t->op, cx->rt, "127.0.0.1", t->port));
    if (WA_STATUS < 0)
        WA_RETURN(WA_STATUS);
    t->rd = (reader){.conn = t->op.conn, .into = t->in};
    wa_coro_init(&t->rd.wa, &reader_vt);
    WA_AWAIT(wa_join_all(&t->both, wa_write_init(&t->w, t->op.conn, t->out, BYTES), &t->rd.wa.fut));
    wa_stream_close(&t->op.conn);
    if (WA_STATUS == 0 && t->rd.got == BYTES && !memcmp(t->in, t->out, BYTES))
        (*t->ok)++;
    WA_RETURN(WA_STATUS);
    WA_END();
}
static const wa_future_vt client_vt = {client_poll, wa_coro_drop, "client"};

static void test_echo(void)
{
    int fds = open_fds();
    wa_rt *rt = epoll_rt();
    wa_tcp_op op;
    CHECK_EQ(wa_block_on(rt, wa_tcp_listen_init(&op, rt, "127.0.0.1", 0)), 0);
    uint16_t port = wa_tcp_port(op.listener);
    CHECK(port != 0);
    server s = {.l = op.listener, .n = CLIENTS};
    wa_coro_init(&s.wa, &server_vt);
    wa_join js;
    wa_spawn_of(rt, &s, &js);
    static unsigned char out[CLIENTS][BYTES], in[CLIENTS][BYTES];
    int ok = 0;
    for (int i = 0; i < CLIENTS; i++) {
        for (size_t k = 0; k < BYTES; k++)
            out[i][k] = pattern(k, i);
        client c = {.port = port, .out = out[i], .in = in[i], .ok = &ok};
        wa_coro_init(&c.wa, &client_vt);
        wa_spawn_of(rt, &c, NULL);
    }
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK_EQ(ok, CLIENTS);
    CHECK_EQ(wa_join_status(&js), 0);
    wa_join_drop(&js);
    CHECK_RT_EMPTY_FREE(rt);
    CHECK_EQ(open_fds(), fds);
}

/* Refused, bad addresses, an address in use. */
static void test_errors(void)
{
    int fds = open_fds();
    wa_rt *rt = epoll_rt();
    wa_tcp_op op, op2;
    CHECK_EQ(wa_block_on(rt, wa_tcp_listen_init(&op, rt, "127.0.0.1", 0)), 0);
    uint16_t port = wa_tcp_port(op.listener);
    CHECK_EQ(wa_block_on(rt, wa_tcp_listen_init(&op2, rt, "127.0.0.1", port)), WA_EADDRINUSE);
    wa_tcp_close(op.listener); /* nobody listens there now */
    CHECK_EQ(wa_block_on(rt, wa_tcp_connect_init(&op, rt, "127.0.0.1", port)), WA_ECONNREFUSED);
    CHECK_EQ(wa_block_on(rt, wa_tcp_connect_init(&op, rt, "127.0.0.256", port)), WA_EINVAL);
    CHECK_EQ(wa_block_on(rt, wa_tcp_listen_init(&op, rt, "localhost", 0)), WA_EINVAL);
    CHECK_EQ(wa_block_on(rt, wa_tcp_listen_init(&op, rt, "1.2.3", 0)), WA_EINVAL);
    CHECK_RT_EMPTY_FREE(rt);
    CHECK_EQ(open_fds(), fds);
    /* no sockets on the sim backend */
    rt = check_sim_rt(0);
    CHECK_EQ(wa_block_on(rt, wa_tcp_listen_init(&op, rt, "127.0.0.1", 0)), WA_ENOSYS);
    CHECK_RT_EMPTY_FREE(rt);
    CHECK_EQ(open_fds(), fds);
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
    wa_tcp_close(t->l);
    WA_END();
}
static const wa_future_vt closer_vt = {closer_poll, wa_coro_drop, "closer"};

/* An accept that times out leaves the listener usable; one waiting when
 * the listener closes ends with WA_ECLOSED; a connect that never completes
 * and is dropped by a timeout holds nothing after. */
static void test_cancel(void)
{
    int fds = open_fds();
    wa_rt *rt = epoll_rt();
    wa_tcp_op op, acc, con;
    wa_timeout to;
    WA_COMBO(2) both;
    CHECK_EQ(wa_block_on(rt, wa_tcp_listen_init(&op, rt, "127.0.0.1", 0)), 0);
    wa_tcp *l = op.listener;
    CHECK_EQ(wa_block_on(rt, wa_timeout_init(&to, wa_tcp_accept_init(&acc, l), WA_MS(20))), WA_ETIMEDOUT);
    CHECK_EQ(wa_block_on(rt, wa_join_all(&both, wa_tcp_connect_init(&con, rt, "127.0.0.1", wa_tcp_port(l)),
                                         wa_tcp_accept_init(&acc, l))),
             0); /* still listening */
    wa_stream_close(&con.conn);
    wa_stream_close(&acc.conn);
    closer c = {.l = l};
    wa_coro_init(&c.wa, &closer_vt);
    wa_spawn_of(rt, &c, NULL);
    CHECK_EQ(wa_block_on(rt, wa_tcp_accept_init(&acc, l)), WA_ECLOSED);
    int full[3];
    uint16_t port;
    CHECK_EQ(full_listener(full, &port), 0);
    CHECK_EQ(wa_block_on(rt, wa_timeout_init(&to, wa_tcp_connect_init(&con, rt, "127.0.0.1", port), WA_MS(20))),
             WA_ETIMEDOUT);
    for (int i = 0; i < 3; i++)
        close(full[i]);
    CHECK_RT_EMPTY_FREE(rt);
    CHECK_EQ(open_fds(), fds);
}

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
    int fds = open_fds();
    wa_rt *rt = epoll_rt();
    wa_dns d[4];
    CHECK_EQ(wa_block_on(rt, wa_dns_lookup_init(&d[0], rt, "localhost")), 0);
    CHECK(d[0].n >= 1 && has_loopback(&d[0]));
    CHECK_EQ(wa_block_on(rt, wa_dns_lookup_init(&d[0], rt, "127.0.0.1")), 0);
    CHECK(d[0].n == 1 && !d[0].addrs[0].v6 && !memcmp(d[0].addrs[0].bytes, "\x7f\0\0\1", 4));
    int rc = wa_block_on(rt, wa_dns_lookup_init(&d[0], rt, "no-such-host.invalid"));
    CHECK(rc == WA_EIO || rc == WA_ETIMEDOUT); /* (not found; or no resolver reachable) */
    CHECK_EQ(d[0].n, 0);
    /* three at once, each on its own thread */
    WA_COMBO(3) all;
    CHECK_EQ(wa_block_on(rt, wa_join_all(&all, wa_dns_lookup_init(&d[1], rt, "localhost"),
                                         wa_dns_lookup_init(&d[2], rt, "127.0.0.2"),
                                         wa_dns_lookup_init(&d[3], rt, "localhost"))),
             0);
    CHECK(has_loopback(&d[1]) && has_loopback(&d[2]) && has_loopback(&d[3]));
    /* dropped before its thread is done: the thread frees what they share */
    wa_rt_tick(rt, NULL);
    wa_join j;
    CHECK_EQ(wa_spawn(rt, wa_dns_lookup_init(&d[0], rt, "localhost"), sizeof d[0], &j), 0);
    wa_rt_tick(rt, NULL); /* started */
    CHECK_EQ(wa_join_abort(&j), 0);
    wa_join_drop(&j);
    CHECK_RT_EMPTY_FREE(rt);
    /* the abandoned thread closes its eventfd when it ends */
    for (int i = 0; i < 200 && open_fds() != fds; i++)
        usleep(10000);
    CHECK_EQ(open_fds(), fds);
    /* misuse: a finished lookup polled again */
    check_catch_misuse();
    rt = epoll_rt();
    int before = check_misuses;
    CHECK_EQ(wa_block_on(rt, wa_dns_lookup_init(&d[0], rt, "127.0.0.1")), 0);
    CHECK_EQ(wa_block_on(rt, &d[0].fut), WA_EMISUSE);
    CHECK_EQ(check_misuses, before + 1);
    wa_set_misuse_hook(NULL);
    CHECK_RT_EMPTY_FREE(rt);
}

int main(void)
{
    RUN(test_echo);
    RUN(test_errors);
    RUN(test_cancel);
    RUN(test_dns);
    return check_finish();
}
