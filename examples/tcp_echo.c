/* tcp-echo: listens on 127.0.0.1 (port from argv[1], 0: any), prints
 * "listening PORT", and echoes every connection in a scope until it has
 * served argv[2] connections (0: forever). The same source runs natively
 * (epoll) and as a WASI 0.2 component (wasi:sockets):
 *   build/release/examples/tcp_echo 0
 *   jco run build/wasip2/tests/wasip2/tcp_echo.component.wasm 0
 * tests/wasip2/tcp_echo.test.mjs drives both. */
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
    t->conn = NULL;
}
static const wa_future_vt echo_vt = {echo_poll, echo_drop, "echo"};

typedef struct server {
    WA_CORO;
    wa_tcp_op op;
    wa_tcp *l;
    wa_scope scope;
    uint16_t port;
    long serve, served;
} server;

static int server_poll(wa_future *f, wa_cx *cx)
{
    server *t = (server *)f;
    WA_BEGIN(t, cx);
    WA_AWAIT(wa_tcp_listen_init(&t->op, cx->rt, "127.0.0.1", t->port));
    if (WA_STATUS < 0)
        WA_RETURN(WA_STATUS);
    t->l = t->op.listener;
    printf("listening %u\n", wa_tcp_port(t->l));
    fflush(stdout);
    wa_scope_init(&t->scope, cx->rt, 0);
    while (!t->serve || t->served < t->serve) {
        WA_AWAIT(wa_tcp_accept_init(&t->op, t->l));
        if (WA_STATUS < 0)
            break;
        echo e = {.conn = t->op.conn};
        wa_coro_init(&e.wa, &echo_vt);
        if (wa_scope_spawn_of(&t->scope, &e, NULL) < 0)
            wa_stream_close(&e.conn);
        t->served++;
    }
    WA_AWAIT(wa_scope_wait(&t->scope));
    wa_tcp_close(t->l);
    WA_END();
}
static const wa_future_vt server_vt = {server_poll, wa_coro_drop, "server"};

int main(int argc, char **argv)
{
    wa_rt *rt;
    if (wa_rt_new(&rt, NULL) < 0)
        return 1;
    server s = {.port = (uint16_t)(argc > 1 ? atoi(argv[1]) : 0), .serve = argc > 2 ? atol(argv[2]) : 0};
    wa_coro_init(&s.wa, &server_vt);
    int rc = wa_block_on(rt, &s.wa.fut);
    wa_rt_free(rt);
    if (rc < 0)
        fprintf(stderr, "tcp-echo: %s\n", wa_strerror(rc));
    return rc < 0;
}
