/* SPDX-License-Identifier: MIT */
/* tcp-echo: listens on argv[3] (an IPv4 or IPv6 address; 127.0.0.1 when
 * absent), port argv[1] (0: any), prints "listening PORT", and echoes
 * every connection in a scope until it has served argv[2] connections (0:
 * forever). An accept that fails for one connection (out of file
 * descriptors, say) is reported and retried after a pause: a server does
 * not stop for that. Natively, argv[4] worker threads serve it (a
 * many-threads runtime; 0 or absent: the local executor). The same source
 * runs natively (epoll) and as a WASI 0.2 component (wasi:sockets):
 *   build/release/examples/tcp_echo 0 0 ::1
 *   build/release/examples/tcp_echo 7000 0 127.0.0.1 4
 *   jco run build/wasip2/tests/wasip2/tcp_echo.component.wasm 0
 * tests/wasip2/tcp_echo.test.mjs drives both. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "wasync.h"
#include "wasync/net.h"

/* One connection: echoes until the client is done. The connection is the
 * coroutine's: its cleanup closes it, whichever way the echo ends. */
typedef struct echo {
    WA_CORO;
    wa_stream *conn;
    wa_read r;
    wa_write w;
    unsigned char buf[4096];
} echo;

static void echo_cleanup(echo *t)
{
    if (t->conn)
        wa_stream_close(&t->conn);
}

WA_ASYNC(echo, t, cx, echo_cleanup)
{
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

/* The listener goes with the server, even one cancelled or dropped early. */
static void server_cleanup(server *t)
{
    if (t->l)
        wa_tcp_close(&t->l);
}

WA_ASYNC(server, t, cx, server_cleanup)
{
    WA_BEGIN(t, cx);
    WA_TRY(wa_tcp_listen_init(&t->op, cx->rt, t->ip, t->port));
    t->l = t->op.listener;
    printf("listening %u\n", wa_tcp_port(t->l));
    fflush(stdout);
    wa_scope_init(&t->scope, cx->rt, 0);
    while (!t->serve || t->served < t->serve) {
        WA_AWAIT(wa_tcp_accept_init(&t->op, t->l));
        if ((t->rc = WA_STATUS) == 0) {
            echo e = {.conn = t->op.conn};
            echo_init(&e);
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
    WA_RETURN(t->rc < 0 ? t->rc : WA_STATUS);
    WA_END();
}

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
    long workers = arg(argc, argv, 4, 4095);
    if (port < 0 || serve < 0 || workers < 0 || argc > 5) {
        fprintf(stderr, "usage: tcp_echo [PORT [CONNECTIONS [ADDRESS [WORKERS]]]]\n");
        return 2;
    }
    wa_rt *rt;
    int rc = workers ? wa_rt_new_mt(&rt, (unsigned)workers) : wa_rt_new(&rt);
    if (rc == 0) {
        server s = {.ip = argc > 3 ? argv[3] : "127.0.0.1", .port = (uint16_t)port, .serve = serve};
        rc = wa_block_on(rt, server_init(&s));
        wa_rt_free(rt);
    }
    if (rc < 0)
        fprintf(stderr, "tcp-echo: %s\n", wa_strerror(rc));
    return rc < 0;
}
