/* SPDX-License-Identifier: MIT */
/* wasync-transfer: one HTTP body through http.h natively, for
 * bench/http/transfer.sh to time beside the curl command line.
 *
 *   get URL [READ]     GET URL and read its body in reads of READ bytes
 *                      (65536), dropping them, as curl -o /dev/null does
 *   put URL N [READ]   POST N bytes read from a stream that copies them
 *                      out of memory READ bytes at a time (65536), as
 *                      curl -T reads a file in the page cache
 *
 * Prints one line: bytes=... ns=... mb_per_s=... status=... Wall time runs
 * from the send to the body's end; under callgrind only that region is
 * counted (run with --collect-atstart=no).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../region.h"
#include "wasync.h"
#include "wasync/http.h"

/* The upload's source: n bytes out of a block in memory, at most step per
 * read, never waiting. */
typedef struct source {
    wa_stream base;
    size_t left, step;
    unsigned char block[65536];
} source;

static int source_try_read(wa_stream *s, void *buf, size_t cap, size_t *n)
{
    source *src = (source *)s;
    if (!src->left)
        return WA_ECLOSED;
    size_t m = cap < src->step ? cap : src->step;
    m = m < sizeof src->block ? m : sizeof src->block;
    m = m < src->left ? m : src->left;
    memcpy(buf, src->block, m);
    src->left -= m;
    *n = m;
    return 0;
}

static wa_future *source_ready(wa_stream *s, int dir, void *storage)
{
    (void)s;
    return wa_stream_error_init(storage, dir == WA_STREAM_READ ? 0 : WA_EINVAL);
}

static void source_close(wa_stream *s) { (void)s; }

static const wa_stream_vt source_vt = {source_try_read, NULL, NULL, source_ready, source_close};

typedef struct transfer {
    WA_CORO;
    wa_http_request req;
    wa_http_send send;
    wa_read r;
    size_t got, step;
    unsigned char *buf;
} transfer;

WA_ASYNC(transfer, t, cx)
{
    WA_BEGIN(t, cx);
    region_begin();
    WA_AWAIT(wa_http_send_init(&t->send, &t->req));
    if (WA_STATUS < 0) {
        fprintf(stderr, "wasync-transfer: %s: %s\n", wa_strerror(WA_STATUS), wa_http_send_reason(&t->send));
        WA_RETURN(WA_STATUS);
    }
    for (;;) {
        WA_AWAIT(wa_read_init(&t->r, wa_http_response_body(t->send.response), t->buf, t->step));
        if (WA_STATUS == WA_ECLOSED)
            break;
        if (WA_STATUS < 0)
            WA_RETURN(WA_STATUS);
        t->got += t->r.n;
    }
    region_end();
    WA_END();
}

int main(int argc, char **argv)
{
    int put = argc >= 4 && !strcmp(argv[1], "put");
    if (!put && !(argc >= 3 && !strcmp(argv[1], "get"))) {
        fprintf(stderr, "usage: %s get URL [READ] | put URL N [READ]\n", argv[0]);
        return 2;
    }
    long step = argc > 3 + put ? strtol(argv[3 + put], NULL, 10) : 65536;
    static source src = {.base = WA_STREAM_INIT(&source_vt)};
    transfer t = {.req = {.url = argv[2]}, .step = (size_t)(step > 0 ? step : 65536)};
    size_t sent = 0;
    if (put) {
        src.left = sent = strtoull(argv[3], NULL, 10);
        src.step = t.step;
        memset(src.block, 'x', sizeof src.block);
        t.req.method = "POST";
        t.req.body_stream = &src.base;
    }
    wa_rt *rt;
    if (!(t.buf = malloc(t.step)) || wa_rt_new(&rt) < 0)
        return 1;
    transfer_init(&t);
    int rc = wa_block_on(rt, &t.wa.fut);
    int status = rc == 0 ? wa_http_response_status(t.send.response) : 0;
    wa_http_response_free(t.send.response);
    wa_rt_free(rt);
    free(t.buf);
    if (rc < 0 || status != 200) {
        fprintf(stderr, "wasync-transfer: %s (status %d)\n", wa_strerror(rc), status);
        return 1;
    }
    size_t bytes = put ? sent : t.got;
    printf("bytes=%zu ns=%llu mb_per_s=%.1f status=%d\n", bytes, (unsigned long long)region_ns(),
           (double)bytes * 1e3 / (double)region_ns(), status);
    return 0;
}
