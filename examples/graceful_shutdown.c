/* SPDX-License-Identifier: MIT */
/* graceful-shutdown: a line echo server that stops gracefully (native
 * Linux: wasync/signals.h). It listens on 127.0.0.1, port argv[1] (0 or
 * absent: any), prints "listening PORT", and echoes each line of each
 * connection (a buffered reader: wa_read_until) until SIGINT or SIGTERM.
 * Then it stops accepting, cancels the scope of the connections, each of
 * which says "bye" in its cleanup, and waits for them, 5 s at most (then
 * they are dropped). The watch is closed once the signal came, so a second
 * Ctrl-C during the drain ends the process at once, the default way.
 * argv[2] worker threads serve it (0 or absent: the local executor):
 *   build/release/examples/graceful_shutdown 7000 4
 * tests/graceful_shutdown.sh drives it. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "wasync.h"

/* One connection: echoes lines until the client is done, or says bye
 * when cancelled. The connection is the coroutine's. */
typedef struct conn {
    WA_CORO;
    wa_stream *s;
    wa_reader rd;
    wa_read_until line;
    wa_write w;
    unsigned char buf[1024];
} conn;

static void conn_cleanup(conn *t)
{
    if (t->s)
        wa_stream_close(&t->s);
}

WA_ASYNC(conn, t, cx, conn_cleanup)
{
    WA_BEGIN(t, cx);
    wa_reader_init(&t->rd, t->s, t->buf, sizeof t->buf);
    for (;;) {
        WA_AWAIT(wa_read_until_init(&t->line, &t->rd, '\n', 0));
        if (WA_STATUS < 0 && (WA_STATUS != WA_ECLOSED || t->line.len == 0))
            break; /* the client is done (a last line without its newline is echoed first) */
        WA_AWAIT(wa_write_init(&t->w, t->s, t->line.line, t->line.len));
        if (WA_STATUS < 0)
            break;
    }
    WA_RETURN(0);
    WA_ON_CANCEL(); /* (the server stops: this await is shielded) */
    WA_AWAIT(wa_write_init(&t->w, t->s, "bye\n", 4));
    WA_END();
}

/* Accepts connections into the server's scope until cancelled or the
 * listener is closed. */
typedef struct acceptor {
    WA_CORO;
    wa_tcp *l;
    wa_scope *scope;
    wa_tcp_op op;
} acceptor;

WA_ASYNC(acceptor, t, cx)
{
    WA_BEGIN(t, cx);
    for (;;) {
        WA_AWAIT(wa_tcp_accept_init(&t->op, t->l));
        if (WA_STATUS == WA_ECLOSED)
            break;
        if (WA_STATUS < 0) {
            fprintf(stderr, "graceful-shutdown: accept: %s\n", wa_strerror(WA_STATUS));
            continue; /* one connection's error (out of fds, say) */
        }
        conn c = {.s = t->op.conn};
        conn_init(&c);
        if (wa_scope_spawn_of(t->scope, &c, NULL) < 0)
            wa_stream_close(&c.s);
    }
    WA_END();
}

typedef struct server {
    WA_CORO;
    wa_signals *sigs;
    uint16_t port;
    wa_tcp_op op;
    wa_tcp *l;
    wa_scope scope;
    wa_signals_wait sig;
    wa_timeout drain;
} server;

static void server_cleanup(server *t)
{
    if (t->l)
        wa_tcp_close(&t->l);
}

WA_ASYNC(server, t, cx, server_cleanup)
{
    WA_BEGIN(t, cx);
    WA_TRY(wa_tcp_listen_init(&t->op, cx->rt, "127.0.0.1", t->port));
    t->l = t->op.listener;
    wa_scope_init(&t->scope, cx->rt, 0);
    acceptor a = {.l = t->l, .scope = &t->scope};
    acceptor_init(&a);
    if (wa_scope_spawn_of(&t->scope, &a, NULL) < 0)
        wa_scope_cancel(&t->scope);
    printf("listening %u\n", wa_tcp_port(t->l));
    fflush(stdout);
    WA_AWAIT(wa_signals_wait_init(&t->sig, t->sigs));
    if (WA_STATUS == 0)
        printf("%s: draining\n", t->sig.signo == SIGINT ? "SIGINT" : "SIGTERM");
    fflush(stdout);
    wa_signals_close(&t->sigs); /* a second signal ends the process */
    wa_tcp_close(&t->l);        /* no new connections */
    wa_scope_cancel(&t->scope); /* the connections say bye */
    WA_AWAIT(wa_timeout_init(&t->drain, wa_scope_wait(&t->scope), WA_SEC(5)));
    printf(WA_STATUS == WA_ETIMEDOUT ? "drain timed out: connections dropped\n" : "drained\n");
    WA_END();
}

int main(int argc, char **argv)
{
    long port = argc > 1 ? strtol(argv[1], NULL, 10) : 0, workers = argc > 2 ? strtol(argv[2], NULL, 10) : 0;
    if (argc > 3 || port < 0 || port > UINT16_MAX || workers < 0 || workers > 4095) {
        fprintf(stderr, "usage: graceful_shutdown [PORT [WORKERS]]\n");
        return 2;
    }
    wa_rt *rt;
    int rc = workers ? wa_rt_new_mt(&rt, (unsigned)workers) : wa_rt_new(&rt);
    if (rc < 0) {
        fprintf(stderr, "graceful-shutdown: %s\n", wa_strerror(rc));
        return 1;
    }
    /* On this thread, before the runtime runs: from now on SIGINT and
     * SIGTERM wait for the server rather than end the process. */
    server s = {.port = (uint16_t)port};
    if ((rc = wa_signals_open(rt, WA_SIGNAL_INT | WA_SIGNAL_TERM, &s.sigs)) == 0) {
        rc = wa_block_on(rt, server_init(&s));
        if (s.sigs) /* (the server ended before a signal) */
            wa_signals_close(&s.sigs);
    }
    wa_rt_free(rt);
    if (rc < 0)
        fprintf(stderr, "graceful-shutdown: %s\n", wa_strerror(rc));
    return rc < 0;
}
