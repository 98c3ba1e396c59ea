/* tcp-echo: listens on argv[3] (an IPv4 or IPv6 address; 127.0.0.1 when
 * absent), port argv[1] (0: any), prints "listening PORT", and echoes
 * every connection in a scope until it has served argv[2] connections (0:
 * forever). An accept that fails for one connection (out of file
 * descriptors, say) is reported and retried after a pause: a server does
 * not stop for that. The same source runs natively (epoll) and as a WASI
 * 0.2 component (wasi:sockets):
 *   build/release/examples/tcp_echo 0 0 ::1
 *   jco run build/wasip2/tests/wasip2/tcp_echo.component.wasm 0
 * tests/wasip2/tcp_echo.test.mjs drives both. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "wasync.h"
#include "wasync/net.h"

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
            break; /* WA_ECLOSED: the client is done */
        WA_AWAIT(wa_write_init(&t->w, t->conn, t->buf, t->r.n));
        if (WA_STATUS < 0)
            break;
    }
    WA_END();
}
static void echo_drop(wa_future *f)
{
    echo *t = (echo *)f;
    wa_coro_drop(f);
    if (t->conn)
        wa_stream_close(&t->conn);
}
static const wa_future_vt echo_vt = {echo_poll, echo_drop, "echo"};

typedef struct server {
    WA_CORO;
    wa_tcp_op op;
    wa_tcp *l;
    wa_scope scope;
    wa_sleep pause;
    const char *ip;
    uint16_t port;
    long serve, served;
    int rc;
} server;

/* Errors of one connection, not of the listener: accept again. Out of
 * file descriptors or memory, the next accept fails too until a
 * connection ends, hence a pause first. */
static int accept_again(int err) { return err == WA_EMFILE || err == WA_ENOMEM || err == WA_ECONNRESET; }

static int server_poll(wa_future *f, wa_cx *cx)
{
    server *t = (server *)f;
    WA_BEGIN(t, cx);
    WA_AWAIT(wa_tcp_listen_init(&t->op, cx->rt, t->ip, t->port));
    if (WA_STATUS < 0)
        WA_RETURN(WA_STATUS);
    t->l = t->op.listener;
    printf("listening %u\n", wa_tcp_port(t->l));
    fflush(stdout);
    wa_scope_init(&t->scope, cx->rt, 0);
    while (!t->serve || t->served < t->serve) {
        WA_AWAIT(wa_tcp_accept_init(&t->op, t->l));
        if ((t->rc = WA_STATUS) == 0) {
            echo e = {.conn = t->op.conn};
            wa_coro_init(&e.wa, &echo_vt);
            if ((t->rc = wa_scope_spawn_of(&t->scope, &e, NULL)) < 0)
                wa_stream_close(&e.conn);
            else
                t->served++;
        }
        if (t->rc < 0) {
            if (!accept_again(t->rc))
                break; /* WA_ECLOSED and the like: the listener is done */
            fprintf(stderr, "tcp-echo: %s; accepting again in 50 ms\n", wa_strerror(t->rc));
            WA_AWAIT(wa_sleep_init(&t->pause, WA_MS(50)));
            if ((t->rc = WA_STATUS) < 0)
                break;
        }
    }
    WA_AWAIT(wa_scope_wait(&t->scope));
    wa_tcp_close(&t->l);
    WA_RETURN(t->rc < 0 ? t->rc : WA_STATUS);
    WA_END();
}
/* Dropped before its end (cancelled, or the runtime freed): the listener
 * goes too. */
static void server_drop(wa_future *f)
{
    server *t = (server *)f;
    wa_coro_drop(f);
    if (t->l)
        wa_tcp_close(&t->l);
}
static const wa_future_vt server_vt = {server_poll, server_drop, "server"};

/* argv[i] as a number from 0 to max (0 when absent), or -1. */
static long arg(int argc, char **argv, int i, long max)
{
    if (i >= argc)
        return 0;
    char *end;
    long v = strtol(argv[i], &end, 10);
    return *argv[i] && !*end && v >= 0 && v <= max ? v : -1;
}

int main(int argc, char **argv)
{
    long port = arg(argc, argv, 1, UINT16_MAX), serve = arg(argc, argv, 2, LONG_MAX);
    if (port < 0 || serve < 0 || argc > 4) {
        fprintf(stderr, "usage: tcp_echo [PORT [CONNECTIONS [ADDRESS]]]\n");
        return 2;
    }
    wa_rt *rt;
    int rc = wa_rt_new(&rt);
    if (rc == 0) {
        server s = {.ip = argc > 3 ? argv[3] : "127.0.0.1", .port = (uint16_t)port, .serve = serve};
        rc = wa_block_on(rt, wa_coro_init(&s.wa, &server_vt));
        wa_rt_free(rt);
    }
    if (rc < 0)
        fprintf(stderr, "tcp-echo: %s\n", wa_strerror(rc));
    return rc < 0;
}
