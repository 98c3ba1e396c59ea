/* SPDX-License-Identifier: MIT */
/* stdout as a wasync stream on WASI 0.3 (wa_stdio_open over stream<u8>),
 * for stdout_stream.test.mjs: a line through printf (the preview1
 * adapter's wasi:cli@0.2 stdout), a line through the stream, a second
 * printf line, then 1 MiB of a known pattern in 64 KiB writes, each timed:
 * a slow reader on the Node side shows as writes that wait. The report
 * goes to stderr. */
#include <stdio.h>
#include <stdlib.h>

#include "wasync.h"

#define SIZE (1u << 20)
#define PIECE (64u << 10)

int main(void)
{
    wa_rt *rt;
    wa_stream *out;
    if (wa_rt_new(&rt) < 0 || wa_stdio_open(rt, 1, &out) < 0)
        return 1;
    unsigned char *data = malloc(SIZE);
    if (!data)
        return 1;
    for (uint32_t i = 0; i < SIZE; i++)
        data[i] = (unsigned char)(i * 7 + (i >> 12));
    wa_write w;
    printf("printf 1\n");
    fflush(stdout);
    int rc = wa_block_on(rt, wa_write_init(&w, out, "stream 1\n", 9));
    printf("printf 2\n");
    fflush(stdout);
    uint64_t waited = 0, longest = 0, t0 = wa_now(rt);
    for (uint32_t at = 0; rc == 0 && at < SIZE; at += PIECE) {
        uint64_t t = wa_now(rt);
        rc = wa_block_on(rt, wa_write_init(&w, out, data + at, PIECE));
        t = wa_now(rt) - t;
        waited += t;
        longest = t > longest ? t : longest;
    }
    uint64_t took = wa_now(rt) - t0;
    wa_wasip3_stats st;
    wa_wasip3_stats_get(rt, &st);
    wa_stream_close(&out);
    wa_rt_free(rt);
    free(data);
    fprintf(stderr,
            "stdout_stream: 1 MiB in %u writes of 64 KiB: %.1f ms; %llu copies, %llu BLOCKED; waited %.1f ms, "
            "longest %.1f ms; live ends %ld\n",
            SIZE / PIECE, took / 1e6, (unsigned long long)st.copies, (unsigned long long)st.copies_blocked,
            waited / 1e6, longest / 1e6, wa_wasip3_live_ends());
    fprintf(stderr, "%s\n", rc < 0 ? wa_strerror(rc) : "ok");
    return rc < 0 || wa_wasip3_live_ends() != 0;
}
