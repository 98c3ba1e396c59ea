/* SPDX-License-Identifier: MIT */
/* tcp_peer PORT read|write|many, against a Node peer on 127.0.0.1:PORT
 * (tcp_peer.test.mjs):
 *   read:  connects, reads to the end, prints "read N bytes, then ERROR";
 *   write: the same, then writes until a write fails (at most 64 MiB) and
 *          prints "write: ERROR";
 *   many:  connects until a connect fails (at most 4096 connections) and
 *          prints "connect: ERROR".
 * Last, "held N": the handles still held after the closes (0). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasync.h"
#include "wasync/component.h"
#include "wasync/net.h"

#define MANY 4096

typedef struct client {
    WA_CORO;
    wa_tcp_op op;
    wa_stream *conn;
    wa_read r;
    wa_write w;
    uint16_t port;
    const char *mode;
    size_t got, sent;
    wa_stream **many;
    int n;
    unsigned char buf[8192];
} client;

static void client_cleanup(client *t)
{
    if (t->conn)
        wa_stream_close(&t->conn);
    while (t->n > 0)
        wa_stream_close(&t->many[--t->n]);
}

WA_ASYNC(client, t, cx, client_cleanup)
{
    WA_BEGIN(t, cx);
    if (!strcmp(t->mode, "many")) {
        while (t->n < MANY) {
            WA_AWAIT(wa_tcp_connect_init(&t->op, cx->rt, "127.0.0.1", t->port));
            if (WA_STATUS < 0)
                break;
            t->many[t->n++] = t->op.conn;
        }
        printf("connect: %s\n", t->n < MANY ? wa_strerror(WA_STATUS) : "all connected");
        WA_RETURN(0);
    }
    WA_TRY(wa_tcp_connect_init(&t->op, cx->rt, "127.0.0.1", t->port));
    t->conn = t->op.conn;
    for (;;) {
        WA_AWAIT(wa_read_init(&t->r, t->conn, t->buf, sizeof t->buf));
        if (WA_STATUS < 0)
            break;
        t->got += t->r.n;
    }
    printf("read %zu bytes, then %s\n", t->got, wa_strerror(WA_STATUS));
    if (!strcmp(t->mode, "write")) {
        memset(t->buf, 'x', sizeof t->buf);
        while (t->sent < (64u << 20)) {
            WA_AWAIT(wa_write_init(&t->w, t->conn, t->buf, sizeof t->buf));
            if (WA_STATUS < 0)
                break;
            t->sent += sizeof t->buf;
        }
        printf("write: %s\n", WA_STATUS < 0 ? wa_strerror(WA_STATUS) : "all taken");
    }
    WA_END();
}

int main(int argc, char **argv)
{
    static wa_stream *many[MANY];
    if (argc != 3) {
        fprintf(stderr, "usage: tcp_peer PORT read|write|many\n");
        return 2;
    }
    long before = wa_wasi_live_handles();
    wa_rt *rt;
    int rc = wa_rt_new(&rt);
    if (rc == 0) {
        client c = {.port = (uint16_t)atoi(argv[1]), .mode = argv[2], .many = many};
        rc = wa_block_on(rt, client_init(&c));
        wa_rt_free(rt);
    }
    printf("held %ld\n", wa_wasi_live_handles() - before);
    if (rc < 0)
        fprintf(stderr, "tcp_peer: %s\n", wa_strerror(rc));
    return rc < 0;
}
