/* SPDX-License-Identifier: MIT */
/* udp-echo: binds argv[3] (an IPv4 or IPv6 address; 127.0.0.1 when
 * absent), port argv[1] (0: any), prints "listening PORT", and sends every
 * datagram back to its sender until it has echoed argv[2] of them (0:
 * forever). The same source runs natively and as a WASI 0.2 or 0.3
 * component (wasi:sockets):
 *   build/release/examples/udp_echo 0 0 ::1
 *   jco run build/wasip2/tests/wasip2/udp_echo.component.wasm 0
 * tests/wasip2/udp_echo.test.mjs drives it on every host. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "wasync.h"
#include "wasync/udp.h"

typedef struct server {
    WA_CORO;
    wa_udp_op op;
    wa_udp *u;
    const char *ip;
    uint16_t port;
    long serve, served;
    wa_ip from;
    unsigned char buf[65536];
} server;

/* The socket goes with the server, even one cancelled or dropped early. */
static void server_cleanup(server *t)
{
    if (t->u)
        wa_udp_close(&t->u);
}

WA_ASYNC(server, t, cx, server_cleanup)
{
    WA_BEGIN(t, cx);
    WA_TRY(wa_udp_bind_init(&t->op, cx->rt, t->ip, t->port));
    t->u = t->op.udp;
    printf("listening %u\n", wa_udp_port(t->u));
    fflush(stdout);
    while (!t->serve || t->served < t->serve) {
        WA_TRY(wa_udp_recv_from_init(&t->op, t->u, t->buf, sizeof t->buf));
        t->from = t->op.ip; /* (the send reuses op) */
        WA_TRY(wa_udp_send_to_init(&t->op, t->u, t->buf, t->op.n, &t->from, t->op.port));
        t->served++;
    }
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
    if (port < 0 || serve < 0 || argc > 4) {
        fprintf(stderr, "usage: udp_echo [PORT [DATAGRAMS [ADDRESS]]]\n");
        return 2;
    }
    wa_rt *rt;
    int rc = wa_rt_new(&rt);
    if (rc == 0) {
        static server s; /* (its 64 KiB buffer: not on the stack) */
        s.ip = argc > 3 ? argv[3] : "127.0.0.1";
        s.port = (uint16_t)port;
        s.serve = serve;
        rc = wa_block_on(rt, server_init(&s));
        wa_rt_free(rt);
    }
    if (rc < 0)
        fprintf(stderr, "udp-echo: %s\n", wa_strerror(rc));
    return rc < 0;
}
