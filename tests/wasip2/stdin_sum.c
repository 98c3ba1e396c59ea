/* SPDX-License-Identifier: MIT */
/* stdin as a wasync stream under jco: says "reading stdin", reads it all
 * with wasync read futures and prints what stdin.test.mjs checks exactly,
 * one "key value" a line: the byte count, their FNV-1a (32-bit), how many reads waited on
 * the pollable for data (wa_wasip2_stats.read_waits), and what is left
 * after the stream is closed (WASI handles and backend sources beyond the
 * starting values: both must be 0). Errors go to stderr, exit status 1. */
#include <inttypes.h>
#include <stdio.h>

#include "wasync.h"
#include "wasync/wasi.h"

typedef struct summer {
    WA_CORO;
    wa_stream *in; /* borrowed */
    wa_read r;
    uint64_t bytes, reads;
    uint32_t fnv;
    unsigned char buf[65536];
} summer;

static int summer_poll(wa_future *f, wa_cx *cx)
{
    summer *t = (summer *)f;
    WA_BEGIN(t, cx);
    for (;;) {
        WA_AWAIT(wa_read_init(&t->r, t->in, t->buf, sizeof t->buf));
        if (WA_STATUS == WA_ECLOSED)
            break; /* the end of stdin */
        if (WA_STATUS < 0)
            WA_RETURN(WA_STATUS);
        for (size_t i = 0; i < t->r.n; i++)
            t->fnv = (t->fnv ^ t->buf[i]) * 16777619u;
        t->bytes += t->r.n;
        t->reads++;
    }
    WA_END();
}
static const wa_future_vt summer_vt = {summer_poll, wa_coro_drop, "summer"};

static summer sum = {.fnv = 2166136261u}; /* static: the buffer is large */

int main(void)
{
    wa_rt *rt;
    if (wa_rt_new(&rt) < 0)
        return 1;
    long handles0 = wa_wasi_live_handles();
    wa_rt_stats rs0, rs;
    wa_rt_stats_get(rt, &rs0);
    printf("reading stdin\n"); /* the test's cue to start its chunks */
    fflush(stdout);
    int rc = wa_stdio_open(rt, 0, &sum.in);
    if (rc == 0) {
        wa_coro_init(&sum.wa, &summer_vt);
        rc = wa_block_on(rt, &sum.wa.fut);
        wa_stream_close(&sum.in);
    }
    wa_wasip2_stats st;
    wa_wasip2_stats_get(rt, &st);
    wa_rt_stats_get(rt, &rs);
    printf("bytes %" PRIu64 "\nfnv1a %08" PRIx32 "\nreads %" PRIu64 "\nread_waits %" PRIu64
           "\nhandles_left %ld\nsources_left %ld\n",
           sum.bytes, sum.fnv, sum.reads, st.read_waits, wa_wasi_live_handles() - handles0,
           (long)rs.sources - (long)rs0.sources);
    wa_rt_free(rt);
    if (rc < 0)
        fprintf(stderr, "stdin_sum: %s\n", wa_strerror(rc));
    return rc < 0;
}
