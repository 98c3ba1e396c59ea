/* SPDX-License-Identifier: MIT */
/* Byte streams over wasi:io/streams under jco: stdout as a wasync stream,
 * written in pieces larger than the host takes at once (backpressure), by
 * several tasks in turn through a mutex, with the pollable subscribed once
 * per stream, not once per wait. The output is checked by CTest. */
#include <string.h>

#include "../futures.h"
#include "wasync/wasi.h"

#define LINE 64
/* 19,200 bytes per writer: more than one check-write allows (16 KiB), and
 * all three fit in a pipe (64 KiB). jco's stdout takes everything without
 * backpressure and loses what the pipe could not take when it exits. */
#define LINES 300

typedef struct writer {
    WA_CORO;
    wa_stream *out;
    wa_mutex *lock;
    wa_acquire acq;
    wa_write w;
    char *buf;
    size_t len;
} writer;

static int writer_poll(wa_future *f, wa_cx *cx)
{
    writer *t = (writer *)f;
    WA_BEGIN(t, cx);
    WA_AWAIT(wa_lock_init(&t->acq, t->lock));
    WA_AWAIT(wa_write_init(&t->w, t->out, t->buf, t->len));
    wa_mutex_unlock(t->lock);
    if (WA_STATUS < 0)
        WA_RETURN(WA_STATUS);
    if (t->w.done != t->len)
        WA_RETURN(WA_EIO);
    WA_END();
}
static const wa_future_vt writer_vt = {writer_poll, wa_coro_drop, "writer"};

static char bufs[3][LINE * LINES];

static void test_writers(void)
{
    wa_rt *rt;
    REQUIRE(wa_rt_new(&rt) == 0);
    wa_stream *out;
    REQUIRE_OR(wa_stdio_open(rt, 1, &out) == 0, wa_rt_free(rt));
    wa_mutex lock;
    wa_mutex_init(&lock);
    wa_join j[3] = {0};
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < LINES; i++) {
            char *l = bufs[k] + i * LINE;
            memset(l, 'a' + k, LINE - 1);
            l[LINE - 1] = '\n';
        }
        writer w = {.out = out, .lock = &lock, .buf = bufs[k], .len = sizeof bufs[k]};
        wa_coro_init(&w.wa, &writer_vt);
        REQUIRE_OR(check_spawn_of(rt, &w, &j[k]) == 0,
                   (check_joins_drop(j, 3), wa_rt_free(rt), wa_stream_close(&out)));
    }
    CHECK_EQ(wa_rt_run(rt), 0);
    for (int k = 0; k < 3; k++) {
        CHECK_EQ(wa_join_status(&j[k]), 0);
        wa_join_drop(&j[k]);
    }
    wa_wasip2_stats st;
    wa_wasip2_stats_get(rt, &st);
    wa_stream_close(&out);
    CHECK_RT_EMPTY_FREE(rt);
    /* the summary goes to stderr: stdout is the data CTest checks */
    fprintf(stderr, "pollable drops %llu\n", (unsigned long long)st.drops);
}

int main(void)
{
    RUN(test_writers);
    fprintf(stderr, "%d passed, %d failed\n", check_passed, check_failed);
    return check_failed != 0;
}
