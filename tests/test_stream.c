/* SPDX-License-Identifier: MIT */
/* Byte streams: the read/write futures over an in-process pipe, with
 * backpressure, close from either side, and cancellation; the byte ring
 * under the pipe and the native HTTP client's bodies. */
#include <stdlib.h>

#include "../src/io/fifo.h"
#include "futures.h"

#define TOTAL (1 << 20)

#define CHECK_STR(a, b) CHECK(strcmp((a), (b)) == 0)

/* Closes *s unless it is closed already. */
static void close_held(wa_stream **s)
{
    if (*s)
        wa_stream_close(s);
}

/* Writes data to out; with close set it owns out, and closes it at the end
 * (or when dropped before). */
typedef struct producer {
    WA_CORO;
    wa_stream *out;
    wa_write w;
    unsigned char *data;
    size_t len;
    int close;
} producer;

static int producer_poll(wa_future *f, wa_cx *cx)
{
    producer *t = (producer *)f;
    WA_BEGIN(t, cx);
    WA_AWAIT(wa_write_init(&t->w, t->out, t->data, t->len));
    if (t->close)
        wa_stream_close(&t->out);
    WA_RETURN(WA_STATUS);
    WA_END();
}
static void producer_drop(wa_future *f)
{
    producer *t = (producer *)f;
    wa_coro_drop(f);
    if (t->close)
        close_held(&t->out);
}
static const wa_future_vt producer_vt = {producer_poll, producer_drop, "producer"};

/* Reads in to its end, chunk bytes at a time; owns in. */
typedef struct consumer {
    WA_CORO;
    wa_stream *in;
    wa_read r;
    unsigned char *into;
    size_t got, chunk;
    int reads;
} consumer;

static int consumer_poll(wa_future *f, wa_cx *cx)
{
    consumer *t = (consumer *)f;
    WA_BEGIN(t, cx);
    for (;;) {
        WA_AWAIT(wa_read_init(&t->r, t->in, t->into + t->got, t->chunk));
        if (WA_STATUS == WA_ECLOSED)
            break;
        if (WA_STATUS < 0)
            WA_RETURN(WA_STATUS);
        t->got += t->r.n;
        t->reads++;
    }
    wa_stream_close(&t->in);
    WA_END();
}
static void consumer_drop(wa_future *f)
{
    wa_coro_drop(f);
    close_held(&((consumer *)f)->in);
}
static const wa_future_vt consumer_vt = {consumer_poll, consumer_drop, "consumer"};

/* 1 MiB through a 4 KiB pipe, read 1000 bytes at a time: all of it, in
 * order; the writer waited (the pipe was full) and the end was seen. */
static void test_pipe_backpressure(void)
{
    unsigned char *data = malloc(TOTAL), *into = malloc(TOTAL);
    wa_rt *rt = check_sim_rt(0);
    wa_stream *rd, *wr;
    REQUIRE_OR(data && into && rt, (free(data), free(into), wa_rt_free(rt)));
    REQUIRE_OR(wa_pipe_new(4096, &rd, &wr) == 0, (free(data), free(into), wa_rt_free(rt)));
    for (size_t i = 0; i < TOTAL; i++)
        data[i] = (unsigned char)(i * 7 + (i >> 9));
    producer p = {.out = wr, .data = data, .len = TOTAL, .close = 1};
    consumer c = {.in = rd, .into = into, .chunk = 1000};
    wa_coro_init(&p.wa, &producer_vt);
    wa_coro_init(&c.wa, &consumer_vt);
    wa_join jp, jc;
    REQUIRE_OR(check_spawn_of(rt, &p, &jp) == 0, (wa_drop(&c.wa.fut), wa_rt_free(rt), free(data), free(into)));
    REQUIRE_OR(check_spawn_of(rt, &c, &jc) == 0, (wa_join_drop(&jp), wa_rt_free(rt), free(data), free(into)));
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK_EQ(wa_join_status(&jp), 0);
    CHECK_EQ(wa_join_status(&jc), 0);
    consumer *co = (consumer *)wa_join_output(&jc);
    CHECK_EQ(co->got, TOTAL);
    CHECK(memcmp(data, into, TOTAL) == 0);
    CHECK(co->reads >= TOTAL / 1000); /* never more than was asked */
    wa_rt_stats st;
    wa_rt_stats_get(rt, &st);
    CHECK(st.polls >= TOTAL / 4096); /* the writer waited: 4 KiB at most per poll */
    wa_join_drop(&jp);
    wa_join_drop(&jc);
    free(data);
    free(into);
    CHECK_RT_EMPTY_FREE(rt);
}

/* The reader goes away: a writer blocked on the full pipe gets WA_ECLOSED. */
static void test_pipe_reader_closes(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_stream *rd, *wr;
    REQUIRE_OR(wa_pipe_new(16, &rd, &wr) == 0, wa_rt_free(rt));
    static unsigned char data[100];
    producer p = {.out = wr, .data = data, .len = sizeof data};
    wa_coro_init(&p.wa, &producer_vt);
    wa_join jp;
    REQUIRE_OR(check_spawn_of(rt, &p, &jp) == 0, (wa_stream_close(&rd), wa_stream_close(&wr), wa_rt_free(rt)));
    wa_rt_tick(rt, NULL);
    CHECK(!wa_join_done(&jp)); /* 16 bytes in, waiting for room */
    wa_stream_close(&rd);
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK_EQ(wa_join_status(&jp), WA_ECLOSED);
    CHECK_EQ(((producer *)wa_join_output(&jp))->w.done, 16);
    wa_join_drop(&jp);
    wa_stream_close(&wr);
    CHECK_RT_EMPTY_FREE(rt);
}

/* A write waiting for room is cancelled by a timeout: it releases its
 * readiness wait, and what it had written stays written. */
typedef struct slow_writer {
    WA_CORO;
    wa_timeout to;
    wa_write w;
    wa_stream *out;
    unsigned char data[64];
} slow_writer;

static int slow_writer_poll(wa_future *f, wa_cx *cx)
{
    slow_writer *t = (slow_writer *)f;
    WA_BEGIN(t, cx);
    WA_AWAIT(wa_timeout_init(&t->to, wa_write_init(&t->w, t->out, t->data, sizeof t->data), WA_MS(10)));
    WA_RETURN(WA_STATUS);
    WA_END();
}
static const wa_future_vt slow_writer_vt = {slow_writer_poll, wa_coro_drop, "slow_writer"};

static void test_write_timeout(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_stream *rd, *wr;
    REQUIRE_OR(wa_pipe_new(16, &rd, &wr) == 0, wa_rt_free(rt));
    slow_writer s = {.out = wr};
    wa_coro_init(&s.wa, &slow_writer_vt);
    CHECK_EQ(wa_block_on(rt, &s.wa.fut), WA_ETIMEDOUT);
    CHECK_EQ(s.w.done, 16);
    CHECK_EQ(wa_now(rt), WA_MS(10));
    unsigned char buf[32];
    size_t n = 0;
    wa_stream *head = wa_stream_head(rd);
    REQUIRE_OR(head, (wa_stream_close(&wr), wa_stream_close(&rd), wa_rt_free(rt)));
    CHECK_EQ(head->vt->try_read(head, buf, sizeof buf, &n), 0);
    CHECK_EQ(n, 16);
    CHECK_EQ(head->vt->try_read(head, buf, sizeof buf, &n), WA_EAGAIN);
    wa_stream_close(&wr);
    CHECK_EQ(head->vt->try_read(head, buf, sizeof buf, &n), WA_ECLOSED);
    wa_stream_close(&rd);
    CHECK_RT_EMPTY_FREE(rt);
}

/* copy moves 1 MiB from one pipe into another (both 4 KiB: both sides
 * wait on the way), to the end, and a consumer reads it all. */
typedef struct copier {
    WA_CORO;
    wa_copy c;
    wa_stream *in, *out;
} copier;

static int copier_poll(wa_future *f, wa_cx *cx)
{
    copier *t = (copier *)f;
    WA_BEGIN(t, cx);
    WA_AWAIT(wa_copy_init(&t->c, t->in, t->out));
    wa_stream_close(&t->in);
    wa_stream_close(&t->out); /* the consumer then sees the end */
    WA_RETURN(WA_STATUS);
    WA_END();
}
static void copier_drop(wa_future *f)
{
    copier *t = (copier *)f;
    wa_coro_drop(f);
    close_held(&t->in);
    close_held(&t->out);
}
static const wa_future_vt copier_vt = {copier_poll, copier_drop, "copier"};

/* A stream that passes everything on to another (the head behind its
 * handle), counting flushes. */
typedef struct counted {
    wa_stream base;
    wa_stream *inner;
    int flushes;
} counted;

static int counted_read(wa_stream *s, void *buf, size_t cap, size_t *n)
{
    wa_stream *in = wa_stream_head(((counted *)s)->inner);
    return in->vt->try_read(in, buf, cap, n);
}
static int counted_write(wa_stream *s, const void *buf, size_t len, size_t *n)
{
    wa_stream *in = wa_stream_head(((counted *)s)->inner);
    return in->vt->try_write(in, buf, len, n);
}
static int counted_flush(wa_stream *s)
{
    wa_stream *in = wa_stream_head(((counted *)s)->inner);
    ((counted *)s)->flushes++;
    return in->vt->try_flush(in);
}
static wa_future *counted_ready(wa_stream *s, int dir, void *storage)
{
    wa_stream *in = wa_stream_head(((counted *)s)->inner);
    return in->vt->ready(in, dir, storage);
}
static void counted_close(wa_stream *s) { wa_stream_close(&((counted *)s)->inner); }
static const wa_stream_vt counted_vt = {counted_read, counted_write, counted_flush, counted_ready, counted_close};

/* 1 MiB copied between two 4 KiB pipes: all of it, in order, and flushed
 * once at the end (not once per buffer). */
static void test_copy(void)
{
    unsigned char *data = malloc(TOTAL), *into = malloc(TOTAL);
    wa_rt *rt = check_sim_rt(0);
    wa_stream *r1, *w1, *r2, *w2;
    REQUIRE_OR(data && into && rt, (free(data), free(into), wa_rt_free(rt)));
    REQUIRE_OR(wa_pipe_new(4096, &r1, &w1) == 0, (free(data), free(into), wa_rt_free(rt)));
    REQUIRE_OR(wa_pipe_new(4096, &r2, &w2) == 0,
               (wa_stream_close(&r1), wa_stream_close(&w1), free(data), free(into), wa_rt_free(rt)));
    for (size_t i = 0; i < TOTAL; i++)
        data[i] = (unsigned char)(i * 13 + 5);
    producer p = {.out = w1, .data = data, .len = TOTAL, .close = 1};
    counted out = {WA_STREAM_INIT(&counted_vt), w2, 0};
    copier c = {.in = r1, .out = &out.base};
    consumer k = {.in = r2, .into = into, .chunk = 3000};
    wa_coro_init(&p.wa, &producer_vt);
    wa_coro_init(&c.wa, &copier_vt);
    wa_coro_init(&k.wa, &consumer_vt);
    /* Each is spawned or dropped, with the streams it owns; then the
     * handles and the runtime are all that is left to release. */
    wa_join j[2] = {0}; /* c's, k's */
    int spawned = check_spawn_of(rt, &p, NULL) == 0;
    spawned &= check_spawn_of(rt, &c, &j[0]) == 0;
    spawned &= check_spawn_of(rt, &k, &j[1]) == 0;
    REQUIRE_OR(spawned, (check_joins_drop(j, 2), wa_rt_free(rt), free(data), free(into)));
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK_EQ(wa_join_status(&j[0]), 0);
    CHECK_EQ(((copier *)wa_join_output(&j[0]))->c.copied, TOTAL);
    CHECK_EQ(((consumer *)wa_join_output(&j[1]))->got, TOTAL);
    CHECK(memcmp(data, into, TOTAL) == 0);
    CHECK_EQ(out.flushes, 1);
    wa_join_drop(&j[0]);
    wa_join_drop(&j[1]);
    free(data);
    free(into);
    CHECK_RT_EMPTY_FREE(rt);
}

/* read_all of a pipe that carries len bytes, then closes (or not). */
static int read_all_of(size_t len, size_t max, int close, wa_read_all *ra, const unsigned char *data)
{
    ra->data = NULL; /* (read by the caller even if the setup fails) */
    ra->len = 0;
    wa_rt *rt = check_sim_rt(0);
    wa_stream *r, *w;
    if (!rt || wa_pipe_new(4096, &r, &w) < 0) {
        wa_rt_free(rt);
        return WA_ENOMEM;
    }
    producer p = {.out = w, .data = (unsigned char *)data, .len = len, .close = close};
    wa_coro_init(&p.wa, &producer_vt);
    int rc = check_spawn_of(rt, &p, NULL);
    if (rc == 0) {
        wa_timeout to;
        rc = wa_block_on(rt, wa_timeout_init(&to, wa_read_all_init(ra, r, max), WA_MS(100)));
    }
    wa_stream_close(&r);
    if (!close)
        wa_stream_close(&w);
    wa_rt_free(rt); /* (a producer left waiting goes with it) */
    return rc;
}

/* Whole, within and past a limit, empty, and dropped halfway (ASan sees
 * that nothing leaks). */
static void test_read_all(void)
{
    unsigned char *data = malloc(TOTAL);
    REQUIRE(data);
    for (size_t i = 0; i < TOTAL; i++)
        data[i] = (unsigned char)(i * 31 + 7);
    wa_read_all ra;
    CHECK_EQ(read_all_of(TOTAL, 0, 1, &ra, data), 0);
    CHECK_EQ(ra.len, TOTAL);
    CHECK(ra.data && memcmp(ra.data, data, TOTAL) == 0 && ra.data[TOTAL] == 0);
    free(ra.data);
    CHECK_EQ(read_all_of(TOTAL, TOTAL, 1, &ra, data), 0);
    CHECK_EQ(ra.len, TOTAL);
    free(ra.data);
    CHECK_EQ(read_all_of(TOTAL, TOTAL - 1, 1, &ra, data), WA_E2BIG);
    CHECK(ra.data == NULL && ra.len == 0);
    CHECK_EQ(read_all_of(0, 0, 1, &ra, data), 0);
    CHECK(ra.data && ra.len == 0 && ra.data[0] == 0);
    free(ra.data);
    CHECK_EQ(read_all_of(TOTAL, 0, 0, &ra, data), WA_ETIMEDOUT); /* never ends: dropped */
    CHECK(ra.data == NULL);
    free(data);
}

/* A stream with nothing to read whose readiness cannot be set up: a read
 * finishes with that error instead of waiting for ever. */
static int nothing_read(wa_stream *s, void *buf, size_t cap, size_t *n)
{
    (void)s, (void)buf, (void)cap, (void)n;
    return WA_EAGAIN;
}
static wa_future *nothing_ready(wa_stream *s, int dir, void *storage)
{
    (void)s, (void)dir;
    return wa_stream_error_init(storage, WA_ENOMEM);
}
static const wa_stream_vt nothing_vt = {nothing_read, NULL, NULL, nothing_ready, NULL};

static void test_ready_error(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_stream s = WA_STREAM_INIT(&nothing_vt);
    wa_read r;
    char buf[8];
    CHECK_EQ(wa_block_on(rt, wa_read_init(&r, &s, buf, sizeof buf)), WA_ENOMEM);
    CHECK_RT_EMPTY_FREE(rt);
}

/* Closing both ends of a pipe while a write waits on it, then freeing the
 * runtime: the write lets go of its end last and the pipe goes with it
 * (ASan: this was a use after free). */
static void test_close_while_writing(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_stream *rd, *wr;
    REQUIRE_OR(wa_pipe_new(16, &rd, &wr) == 0, wa_rt_free(rt));
    static unsigned char data[64];
    producer p = {.out = wr, .data = data, .len = sizeof data};
    wa_coro_init(&p.wa, &producer_vt);
    wa_join jp;
    REQUIRE_OR(check_spawn_of(rt, &p, &jp) == 0, (wa_stream_close(&rd), wa_stream_close(&wr), wa_rt_free(rt)));
    wa_rt_tick(rt, NULL);
    CHECK(!wa_join_done(&jp)); /* 16 bytes in, waiting for room */
    CHECK_EQ(wa_stream_close(&rd), 0);
    CHECK_EQ(wa_stream_close(&wr), 0); /* the write in flight holds it */
    CHECK(rd == NULL && wr == NULL);
    wa_join_drop(&jp);
    wa_rt_free(rt);
}

/* A close while a read waits wakes the read, which ends with WA_ECLOSED;
 * the stream goes when the read lets go. */
typedef struct read_once {
    WA_CORO;
    wa_stream *in;
    wa_read r;
    char buf[8];
} read_once;

static int read_once_poll(wa_future *f, wa_cx *cx)
{
    read_once *t = (read_once *)f;
    WA_BEGIN(t, cx);
    WA_AWAIT(wa_read_init(&t->r, t->in, t->buf, sizeof t->buf));
    WA_RETURN(WA_STATUS);
    WA_END();
}
static const wa_future_vt read_once_vt = {read_once_poll, wa_coro_drop, "read_once"};

static void test_close_wakes_reader(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_stream *rd, *wr;
    REQUIRE_OR(wa_pipe_new(16, &rd, &wr) == 0, wa_rt_free(rt));
    read_once t = {.in = rd};
    wa_coro_init(&t.wa, &read_once_vt);
    wa_join j;
    REQUIRE_OR(check_spawn_of(rt, &t, &j) == 0, (wa_stream_close(&rd), wa_stream_close(&wr), wa_rt_free(rt)));
    wa_rt_tick(rt, NULL);
    CHECK(!wa_join_done(&j));
    CHECK_EQ(wa_stream_close(&rd), 0);
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK_EQ(wa_join_status(&j), WA_ECLOSED);
    wa_join_drop(&j);
    CHECK_EQ(wa_stream_close(&wr), 0);
    CHECK_RT_EMPTY_FREE(rt);
}

/* Misuse of a stream handle is reported, never a crash: a double close, a
 * NULL handle, a second read in flight, NULL buffers; each report in the
 * same words on every host. */
static void test_handle_misuse(void)
{
    check_catch_misuse();
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_stream *rd, *wr;
    REQUIRE_OR(wa_pipe_new(16, &rd, &wr) == 0, wa_rt_free(rt));
    int before = check_misuses;
    CHECK_EQ(wa_stream_close(NULL), WA_EMISUSE);
    CHECK_HAS(check_misuse_text, "wa_stream_close: no stream (closed already?)");
    CHECK_EQ(wa_stream_close(&wr), 0);
    CHECK_EQ(wa_stream_close(&wr), WA_EMISUSE);
    char buf[4];
    wa_read r1, r2;
    wa_write w;
    /* (each report cleared before the call: one that fails first, as
     * under allocation failures, leaves it empty) */
    check_misuse_text[0] = 0;
    CHECK_EQ(wa_block_on(rt, wa_write_init(&w, wr, "x", 1)), WA_EMISUSE);
    CHECK_HAS(check_misuse_text, "wa_write: no stream (closed already?) [in task ");
    check_misuse_text[0] = 0;
    CHECK_EQ(wa_block_on(rt, wa_write_init(&w, rd, NULL, 1)), WA_EINVAL);
    CHECK_HAS(check_misuse_text, "wa_write: NULL buffer [in task ");
    check_misuse_text[0] = 0;
    CHECK_EQ(wa_block_on(rt, wa_read_init(&r1, rd, NULL, 1)), WA_EINVAL);
    CHECK_HAS(check_misuse_text, "wa_read: NULL buffer [in task ");
    CHECK_EQ(check_misuses - before, 5);
    CHECK_EQ(wa_stream_close(&rd), 0);
    wa_stream *w2;
    REQUIRE_OR(wa_pipe_new(16, &rd, &w2) == 0, wa_rt_free(rt));
    wa_cx cx = {WA_NOOP_WAKER, rt, NULL, 0, NULL};
    CHECK_EQ(wa_poll(wa_read_init(&r1, rd, buf, sizeof buf), &cx), WA_PENDING);
    check_misuse_text[0] = 0;
    CHECK_EQ(wa_poll(wa_read_init(&r2, rd, buf, sizeof buf), &cx), WA_EBUSY);
    CHECK_HAS(check_misuse_text, "wa_read: a second read in flight on one stream");
    CHECK_EQ(check_misuses - before, 6);
    wa_drop(&r2.fut);
    wa_drop(&r1.fut);
    CHECK_EQ(wa_stream_close(&rd), 0);
    CHECK_EQ(wa_stream_close(&w2), 0);
    CHECK_RT_EMPTY_FREE(rt);
}

/* A copy of a stream handle used after the stream was closed through
 * another copy is misuse, reported by the call, and never touches the
 * freed stream: a pipe end closed twice, a read and a write through a
 * closed end's copy, both ends' copies after the pipe is gone, and a copy
 * kept while a new pipe is made (its memory may be the old one's). */
static void test_handle_copies(void)
{
    check_catch_misuse();
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_stream *rd, *wr;
    REQUIRE_OR(wa_pipe_new(16, &rd, &wr) == 0, wa_rt_free(rt));
    wa_stream *rd_copy = rd, *wr_copy = wr, *again = rd;
    char buf[4];
    wa_read r;
    wa_write w;
    CHECK_EQ(wa_stream_close(&rd), 0);
    CHECK(rd == NULL);
    CHECK_MISUSE(wa_stream_close(&rd_copy), WA_EMISUSE, "wa_stream_close");
    CHECK_HAS(check_misuse_text, "wa_stream_close: the stream was closed already (through a copy of the handle)");
    CHECK(rd_copy == NULL);
    CHECK_MISUSE(wa_block_on(rt, wa_read_init(&r, again, buf, sizeof buf)), WA_EMISUSE, "wa_read");
    CHECK_HAS(check_misuse_text, "wa_read: the stream was closed (through a copy of the handle) [in ");
    CHECK_MISUSE(wa_stream_head(again) == NULL, 1, "wa_stream_head");
    CHECK_EQ(wa_block_on(rt, wa_write_init(&w, wr, "x", 1)), WA_ECLOSED); /* the live end sees the close */
    CHECK_EQ(wa_stream_close(&wr), 0);                                    /* the pipe goes */
    CHECK_MISUSE(wa_block_on(rt, wa_write_init(&w, wr_copy, "x", 1)), WA_EMISUSE, "wa_write");
    CHECK_MISUSE(wa_stream_close(&wr_copy), WA_EMISUSE, "wa_stream_close");
    /* a new pipe does not bring the old handles back */
    wa_stream *rd2, *wr2;
    REQUIRE_OR(wa_pipe_new(16, &rd2, &wr2) == 0, wa_rt_free(rt));
    rd_copy = again;
    CHECK_MISUSE(wa_stream_close(&rd_copy), WA_EMISUSE, "wa_stream_close");
    CHECK_EQ(wa_block_on(rt, wa_write_init(&w, wr2, "y", 1)), 0);
    CHECK_EQ(wa_block_on(rt, wa_read_init(&r, rd2, buf, sizeof buf)), 0);
    CHECK_EQ(r.n, 1);
    CHECK_EQ(wa_stream_close(&rd2), 0);
    CHECK_EQ(wa_stream_close(&wr2), 0);
    CHECK_RT_EMPTY_FREE(rt);
}

/* A read of capacity 0 finishes at once with n = 0, data or not. */
static void test_zero_read(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_stream *rd, *wr;
    REQUIRE_OR(wa_pipe_new(16, &rd, &wr) == 0, wa_rt_free(rt));
    wa_read r;
    char buf[1];
    CHECK_EQ(wa_block_on(rt, wa_read_init(&r, rd, buf, 0)), 0);
    CHECK_EQ(r.n, 0);
    CHECK_EQ(wa_block_on(rt, wa_read_init(&r, rd, NULL, 0)), 0);
    wa_stream_close(&wr);
    CHECK_EQ(wa_block_on(rt, wa_read_init(&r, rd, buf, 0)), 0); /* even at the end */
    CHECK_EQ(wa_block_on(rt, wa_read_init(&r, rd, buf, 1)), WA_ECLOSED);
    wa_stream_close(&rd);
    CHECK_RT_EMPTY_FREE(rt);
}

/* Writes each of pieces (NULL-ended) to out, 1 ms apart, then closes out
 * (also when dropped before). */
typedef struct feeder {
    WA_CORO;
    wa_stream *out;
    const char *const *pieces;
    int i;
    wa_sleep nap;
    wa_write w;
} feeder;

static int feeder_poll(wa_future *f, wa_cx *cx)
{
    feeder *t = (feeder *)f;
    WA_BEGIN(t, cx);
    for (t->i = 0; t->pieces[t->i]; t->i++) {
        WA_AWAIT(wa_sleep_init(&t->nap, WA_MS(1)));
        WA_AWAIT(wa_write_init(&t->w, t->out, t->pieces[t->i], strlen(t->pieces[t->i])));
        if (WA_STATUS < 0)
            break;
    }
    wa_stream_close(&t->out);
    WA_END();
}
static void feeder_drop(wa_future *f)
{
    wa_coro_drop(f);
    close_held(&((feeder *)f)->out);
}
static const wa_future_vt feeder_vt = {feeder_poll, feeder_drop, "feeder"};

/* A sim runtime whose task feeds pieces into a pipe of 4 bytes, whose
 * reading end is *rd; NULL without memory (nothing left). */
static wa_rt *feed(const char *const *pieces, wa_stream **rd)
{
    wa_rt *rt = check_sim_rt(0);
    wa_stream *wr;
    if (!rt || wa_pipe_new(4, rd, &wr) < 0) {
        wa_rt_free(rt);
        return NULL;
    }
    feeder t = {.out = wr, .pieces = pieces};
    wa_coro_init(&t.wa, &feeder_vt);
    if (check_spawn_of(rt, &t, NULL) < 0) { /* (t dropped: wr closed) */
        wa_stream_close(rd);
        wa_rt_free(rt);
        return NULL;
    }
    return rt;
}

/* Reads up to '\n' (at most max bytes) into out, NUL-ended; the status. */
static int line_of(wa_rt *rt, wa_reader *rd, size_t max, char *out)
{
    wa_read_until u;
    int rc = wa_block_on(rt, wa_read_until_init(&u, rd, '\n', max));
    memcpy(out, u.line ? (const char *)u.line : "", u.len);
    out[u.len] = 0;
    return rc;
}

/* Lines split across writes and reads (a pipe of 4 bytes): each with its
 * delimiter, an empty one, the last without one at the end, then the end. */
static void test_reader_lines(void)
{
    static const char *const pieces[] = {"on", "e\ntw", "o\n\nthr", "ee", NULL};
    wa_stream *rd;
    wa_rt *rt = feed(pieces, &rd);
    REQUIRE(rt);
    unsigned char buf[16];
    char line[17];
    wa_reader r;
    wa_reader_init(&r, rd, buf, sizeof buf);
    CHECK_EQ(line_of(rt, &r, 0, line), 0);
    CHECK_STR(line, "one\n");
    CHECK_EQ(line_of(rt, &r, 0, line), 0);
    CHECK_STR(line, "two\n");
    CHECK_EQ(line_of(rt, &r, 0, line), 0);
    CHECK_STR(line, "\n");
    CHECK_EQ(line_of(rt, &r, 0, line), WA_ECLOSED);
    CHECK_STR(line, "three");
    CHECK_EQ(line_of(rt, &r, 0, line), WA_ECLOSED);
    CHECK_STR(line, "");
    wa_stream_close(&rd);
    CHECK_RT_EMPTY_FREE(rt);
}

/* A line longer than the limit comes in pieces of the limit, each
 * WA_E2BIG, then its end; the limit is the buffer's size at most. */
static void test_reader_line_limit(void)
{
    static const char *const pieces[] = {"abcdefghij\nxy", "\nklmnopqrstu\n", NULL};
    wa_stream *rd;
    wa_rt *rt = feed(pieces, &rd);
    REQUIRE(rt);
    unsigned char buf[8];
    char line[9];
    wa_reader r;
    wa_reader_init(&r, rd, buf, sizeof buf);
    CHECK_EQ(line_of(rt, &r, 4, line), WA_E2BIG);
    CHECK_STR(line, "abcd");
    CHECK_EQ(line_of(rt, &r, 4, line), WA_E2BIG);
    CHECK_STR(line, "efgh");
    CHECK_EQ(line_of(rt, &r, 4, line), 0);
    CHECK_STR(line, "ij\n");
    CHECK_EQ(line_of(rt, &r, 4, line), 0);
    CHECK_STR(line, "xy\n");
    CHECK_EQ(line_of(rt, &r, 100, line), WA_E2BIG); /* (the buffer's 8) */
    CHECK_STR(line, "klmnopqr");
    CHECK_EQ(line_of(rt, &r, 0, line), 0);
    CHECK_STR(line, "stu\n");
    CHECK_EQ(line_of(rt, &r, 0, line), WA_ECLOSED);
    wa_stream_close(&rd);
    CHECK_RT_EMPTY_FREE(rt);
}

/* Exact reads after a line (the bytes read past it are the next unit's),
 * one longer than the buffer, one cut short by the end, one at the end. */
static void test_read_exact(void)
{
    static const char *const pieces[] = {"HEAD\n01", "23", "456789ta", "il", NULL};
    wa_stream *rd;
    wa_rt *rt = feed(pieces, &rd);
    REQUIRE(rt);
    unsigned char buf[8];
    char line[9], got[16] = {0};
    wa_reader r;
    wa_read_exact x;
    wa_reader_init(&r, rd, buf, sizeof buf);
    CHECK_EQ(line_of(rt, &r, 0, line), 0);
    CHECK_STR(line, "HEAD\n");
    CHECK_EQ(wa_block_on(rt, wa_read_exact_init(&x, &r, got, 10)), 0);
    CHECK_EQ(x.n, 10);
    CHECK(memcmp(got, "0123456789", 10) == 0);
    memset(got, 0, sizeof got);
    CHECK_EQ(wa_block_on(rt, wa_read_exact_init(&x, &r, got, 6)), WA_ECLOSED);
    CHECK_EQ(x.n, 4);
    CHECK_STR(got, "tail");
    CHECK_EQ(wa_block_on(rt, wa_read_exact_init(&x, &r, got, 1)), WA_ECLOSED);
    CHECK_EQ(x.n, 0);
    CHECK_EQ(wa_block_on(rt, wa_read_exact_init(&x, &r, got, 0)), 0);
    wa_stream_close(&rd);
    CHECK_RT_EMPTY_FREE(rt);
}

/* Records (a length byte, then that many bytes) read with exact reads of
 * both sizes through a 48-byte reader, from 64 KiB written at once
 * through a 4 KiB pipe: every record whole and in order. */
typedef struct records {
    WA_CORO;
    wa_reader r;
    wa_read_exact x;
    unsigned char buf[48], rec[256];
    const unsigned char *data;
    size_t at, len;
} records;

static int records_poll(wa_future *f, wa_cx *cx)
{
    records *t = (records *)f;
    WA_BEGIN(t, cx);
    for (;;) {
        WA_AWAIT(wa_read_exact_init(&t->x, &t->r, t->rec, 1));
        if (WA_STATUS == WA_ECLOSED && t->x.n == 0 && t->at == t->len)
            break;
        if (WA_STATUS < 0)
            WA_RETURN(WA_STATUS);
        WA_AWAIT(wa_read_exact_init(&t->x, &t->r, t->rec + 1, t->rec[0]));
        if (WA_STATUS < 0)
            WA_RETURN(WA_STATUS);
        if (t->at + 1 + t->rec[0] > t->len || memcmp(t->rec, t->data + t->at, 1 + (size_t)t->rec[0]) != 0)
            WA_RETURN(WA_EPROTO);
        t->at += 1 + (size_t)t->rec[0];
    }
    WA_END();
}
static const wa_future_vt records_vt = {records_poll, wa_coro_drop, "records"};

static void test_read_exact_records(void)
{
    enum { LEN = 64 * 1024 };
    unsigned char *data = malloc(LEN);
    records *t = malloc(sizeof *t);
    wa_rt *rt = check_sim_rt(0);
    wa_stream *rd, *wr;
    REQUIRE_OR(data && t && rt, (free(data), free(t), wa_rt_free(rt)));
    REQUIRE_OR(wa_pipe_new(4096, &rd, &wr) == 0, (free(data), free(t), wa_rt_free(rt)));
    size_t len = 0;
    for (unsigned i = 0; len + 1 + 255 <= LEN; i++) { /* lengths 0 to 200, most over 48 */
        unsigned n = (i * 37) % 201;
        data[len++] = (unsigned char)n;
        for (unsigned k = 0; k < n; k++)
            data[len++] = (unsigned char)(i + k);
    }
    producer p = {.out = wr, .data = data, .len = len, .close = 1};
    wa_coro_init(&p.wa, &producer_vt);
    *t = (records){.data = data, .len = len};
    wa_coro_init(&t->wa, &records_vt);
    wa_reader_init(&t->r, rd, t->buf, sizeof t->buf);
    REQUIRE_OR(check_spawn_of(rt, &p, NULL) == 0, (wa_stream_close(&rd), wa_rt_free(rt), free(t), free(data)));
    CHECK_EQ(wa_block_on(rt, &t->wa.fut), 0);
    CHECK_EQ(t->at, len);
    wa_stream_close(&rd);
    wa_rt_free(rt);
    free(t);
    free(data);
}

/* A unit dropped half-way (its timeout, at 1.5 ms, between the feeder's
 * "hel" at 1 ms and "lo\n" at 2 ms) loses nothing: the next one gets the
 * whole. A line; an exact read within the buffer; and one longer than the
 * buffer, whose n says what reached the caller's memory. */
static void test_reader_cancel(void)
{
    static const char *const pieces[] = {"hel", "lo\n", NULL};
    unsigned char buf[8];
    char got[9] = {0};
    wa_reader r;
    wa_timeout to;
    for (int kind = 0; kind < 3; kind++) {
        wa_stream *rd;
        wa_rt *rt = feed(pieces, &rd);
        REQUIRE(rt);
        wa_reader_init(&r, rd, buf, kind == 2 ? 4 : sizeof buf);
        wa_read_until u;
        wa_read_exact x;
        wa_future *unit = kind == 0 ? wa_read_until_init(&u, &r, '\n', 0) : wa_read_exact_init(&x, &r, got, 6);
        CHECK_EQ(wa_block_on(rt, wa_timeout_init(&to, unit, WA_US(1500))), WA_ETIMEDOUT);
        if (kind == 0) {
            CHECK_EQ(line_of(rt, &r, 0, got), 0);
            CHECK_STR(got, "hello\n");
        } else if (kind == 1) {
            CHECK_EQ(x.n, 0); /* (in the reader) */
            CHECK_EQ(wa_block_on(rt, wa_read_exact_init(&x, &r, got, 6)), 0);
            CHECK(memcmp(got, "hello\n", 6) == 0);
        } else {
            CHECK_EQ(x.n, 3); /* (in got) */
            CHECK(memcmp(got, "hel", 3) == 0);
            CHECK_EQ(wa_block_on(rt, wa_read_exact_init(&x, &r, got + 3, 3)), 0);
            CHECK(memcmp(got, "hello\n", 6) == 0);
        }
        CHECK_EQ(line_of(rt, &r, 0, got), WA_ECLOSED);
        CHECK_EQ(wa_now(rt), WA_MS(2));
        wa_stream_close(&rd);
        CHECK_RT_EMPTY_FREE(rt);
    }
}

/* One unit at a time on a reader; a reader needs a buffer; a unit polled
 * after its end. Each is misuse, reported with the call's name. */
static void test_reader_misuse(void)
{
    check_catch_misuse();
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_stream *rd, *wr;
    REQUIRE_OR(wa_pipe_new(16, &rd, &wr) == 0, wa_rt_free(rt));
    unsigned char buf[8];
    wa_reader r, none;
    wa_read_until u;
    wa_read_exact x;
    wa_reader_init(&r, rd, buf, sizeof buf);
    wa_reader_init(&none, rd, NULL, 8);
    wa_cx cx = {WA_NOOP_WAKER, rt, NULL, 0, NULL};
    CHECK_EQ(wa_poll(wa_read_until_init(&u, &r, '\n', 0), &cx), WA_PENDING);
    CHECK_MISUSE(wa_poll(wa_read_exact_init(&x, &r, buf, 1), &cx), WA_EBUSY, "wa_read_exact");
    CHECK_MISUSE(wa_poll(&x.fut, &cx), WA_EMISUSE, "wa_read_exact");
    wa_drop(&x.fut);
    wa_drop(&u.fut); /* the reader is free again */
    CHECK_MISUSE(wa_poll(wa_read_until_init(&u, &none, '\n', 0), &cx), WA_EINVAL, "wa_read_until");
    wa_drop(&u.fut);
    CHECK_MISUSE(wa_poll(wa_read_until_init(&u, NULL, '\n', 0), &cx), WA_EINVAL, "wa_read_until");
    wa_drop(&u.fut);
    CHECK_MISUSE(wa_poll(wa_read_exact_init(&x, &r, NULL, 1), &cx), WA_EINVAL, "wa_read_exact");
    wa_drop(&x.fut);
    CHECK_EQ(wa_block_on(rt, wa_write_init(&(wa_write){0}, wr, "ok\n", 3)), 0);
    char line[9];
    CHECK_EQ(line_of(rt, &r, 0, line), 0);
    CHECK_STR(line, "ok\n");
    wa_stream_close(&wr);
    wa_stream_close(&rd);
    CHECK_RT_EMPTY_FREE(rt);
}

/* The byte ring against a plain array, over random steps on a ring of an
 * odd size: puts, takes, a take put back in front, and writes into the
 * free span (wrapped or not), every piece size from 0 to the room. */
static void test_fifo(void)
{
    enum { CAP = 13 };
    unsigned char ring[CAP], model[CAP], piece[CAP], out[CAP];
    wa__fifo f = {.buf = ring, .cap = CAP};
    size_t len = 0, bad = 0, wrapped = 0;
    unsigned char next = 0;
    uint32_t x = 12345;
    for (int step = 0; step < 20000; step++) {
        x = x * 1103515245u + 12345u;
        size_t free_ = CAP - len, n = (x >> 16) % (CAP + 1);
        switch ((x >> 8) % 4) {
        case 0: /* put */
            n = n > free_ ? free_ : n;
            for (size_t i = 0; i < n; i++)
                piece[i] = next++;
            wa__fifo_put(&f, piece, n);
            memcpy(model + len, piece, n);
            len += n;
            break;
        case 1: /* take */
        case 2: /* take, then put some back */
            n = wa__fifo_take(&f, out, n);
            bad += n > len || memcmp(out, model, n) != 0;
            memmove(model, model + n, len - n);
            len -= n;
            if ((x >> 8) % 4 == 2) {
                size_t back = n / 2;
                wa__fifo_unget(&f, out + n - back, back);
                memmove(model + back, model, len);
                memcpy(model, out + n - back, back);
                len += back;
            }
            break;
        default: { /* write into the free span */
            size_t room;
            unsigned char *at = wa__fifo_space(&f, &room);
            bad += room > free_ || (free_ && !room);
            wrapped += at < f.buf + f.head;
            n = room ? n % (room + 1) : 0;
            for (size_t i = 0; i < n; i++)
                at[i] = model[len + i] = next++;
            f.len += n;
            len += n;
        }
        }
        bad += f.len != len;
    }
    CHECK_EQ(bad, 0);
    CHECK(wrapped > 0);
    CHECK_EQ(wa__fifo_take(&f, out, CAP), len);
    CHECK(memcmp(out, model, len) == 0);
}

int main(void)
{
    RUN(test_fifo);
    RUN(test_pipe_backpressure);
    RUN(test_pipe_reader_closes);
    RUN(test_write_timeout);
    RUN(test_copy);
    RUN(test_read_all);
    RUN(test_ready_error);
    RUN(test_close_while_writing);
    RUN(test_close_wakes_reader);
    RUN(test_handle_misuse);
    RUN(test_handle_copies);
    RUN(test_zero_read);
    RUN(test_reader_lines);
    RUN(test_reader_line_limit);
    RUN(test_read_exact);
    RUN(test_read_exact_records);
    RUN(test_reader_cancel);
    RUN(test_reader_misuse);
    return check_finish();
}
