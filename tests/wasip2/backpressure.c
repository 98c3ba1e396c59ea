/* SPDX-License-Identifier: MIT */
/* TCP backpressure under jco: connects to 127.0.0.1:argv[1] (a Node server
 * of backpressure.test.mjs that does not read for a while) and writes
 * argv[2] bytes of a known pattern, more than the kernel and Node buffer,
 * so check-write must say 0 and the writer must wait on the pollable. Then
 * it closes the connection and prints, one "key value" a line: the bytes
 * sent, how many writes waited (wa_wasip2_stats.write_waits), and what is
 * left after the close (WASI handles and backend sources beyond the
 * starting values: both must be 0). Errors go to stderr, exit status 1. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "wasync.h"
#include "wasync/net.h"

/* Byte i of the stream; backpressure.test.mjs has the same function. The
 * higher bits make a lost, repeated or reordered chunk show. */
static unsigned char pattern(uint64_t i)
{
    return (unsigned char)(i ^ i >> 8 ^ i >> 16 ^ i >> 24);
}

typedef struct sender {
    WA_CORO;
    uint16_t port;
    const unsigned char *buf; /* borrowed */
    size_t len;
    wa_tcp_op op;
    wa_stream *conn; /* owned: closed when the sending ends */
    wa_write w;
} sender;

static int sender_poll(wa_future *f, wa_cx *cx)
{
    sender *t = (sender *)f;
    WA_BEGIN(t, cx);
    WA_AWAIT(wa_tcp_connect_init(&t->op, cx->rt, "127.0.0.1", t->port));
    if (WA_STATUS < 0)
        WA_RETURN(WA_STATUS);
    t->conn = t->op.conn;
    /* One write of it all: it stops on check-write = 0 and waits, and its
     * one flush comes at the end. (jco's flush on a TCP stream does not
     * return until Node has handed every queued byte to the kernel: a
     * flush per chunk could absorb the stall instead of the pollable.) */
    WA_AWAIT(wa_write_init(&t->w, t->conn, t->buf, t->len));
    WA_END();
}
static void sender_drop(wa_future *f)
{
    sender *t = (sender *)f;
    wa_coro_drop(f);
    if (t->conn)
        wa_stream_close(&t->conn);
    t->conn = NULL;
}
static const wa_future_vt sender_vt = {sender_poll, sender_drop, "sender"};

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: backpressure PORT BYTES\n");
        return 2;
    }
    size_t len = (size_t)strtoull(argv[2], NULL, 10);
    unsigned char *buf = malloc(len ? len : 1);
    wa_rt *rt;
    if (!buf || wa_rt_new(&rt) < 0) {
        free(buf);
        return 1;
    }
    for (size_t i = 0; i < len; i++)
        buf[i] = pattern(i);
    long handles0 = wa_wasi_live_handles();
    wa_rt_stats rs0, rs;
    wa_rt_stats_get(rt, &rs0);
    sender snd = {.port = (uint16_t)atoi(argv[1]), .buf = buf, .len = len};
    wa_coro_init(&snd.wa, &sender_vt);
    int rc = wa_block_on(rt, &snd.wa.fut); /* ...which drops it: the close */
    wa_wasip2_stats st;
    wa_wasip2_stats_get(rt, &st);
    wa_rt_stats_get(rt, &rs);
    printf("sent %zu\nwrite_waits %" PRIu64 "\nhandles_left %ld\nsources_left %ld\n", snd.w.done, st.write_waits,
           wa_wasi_live_handles() - handles0, (long)rs.sources - (long)rs0.sources);
    wa_rt_free(rt);
    free(buf);
    if (rc < 0)
        fprintf(stderr, "backpressure: %s\n", wa_strerror(rc));
    return rc < 0;
}
