/* SPDX-License-Identifier: MIT */
/* stream<u8> and future<T> behind stream.h on WASI 0.3 (jco +
 * preview3-shim): a stream pair inside the component (u8 allows copies
 * within one instance) carries 1 MiB through wa_write, wa_copy and
 * wa_read_all; DROPPED is seen from either side; a close or a drop with a
 * copy in flight cancels it and keeps what it moved; a future's value is
 * read, and a pending read cancelled. Nothing is left held: no
 * registration, no stream or future end. */
#include <stdlib.h>

#include "../futures.h"
#include "../../src/host/wasip3/builtins.h"
#include "../../src/host/wasip3/reactor.h"

#define TOTAL (1 << 20)

static wa_rt *p3_rt(void)
{
    wa_rt *rt;
    return wa_rt_new(&rt) == 0 ? rt : NULL;
}

static void close_held(wa_stream **s)
{
    if (*s)
        wa_stream_close(s);
}

/* Writes data to out, then closes it. */
typedef struct producer {
    WA_CORO;
    wa_stream *out;
    wa_write w;
    const unsigned char *data;
    size_t len;
} producer;

static int producer_poll(wa_future *f, wa_cx *cx)
{
    producer *t = (producer *)f;
    WA_BEGIN(t, cx);
    WA_AWAIT(wa_write_init(&t->w, t->out, t->data, t->len));
    wa_stream_close(&t->out);
    WA_RETURN(WA_STATUS);
    WA_END();
}
static void producer_drop(wa_future *f)
{
    wa_coro_drop(f);
    close_held(&((producer *)f)->out);
}
static const wa_future_vt producer_vt = {producer_poll, producer_drop, "producer"};

/* Copies in to out, then closes both. */
typedef struct copier {
    WA_CORO;
    wa_stream *in, *out;
    wa_copy c;
    uint64_t *copied;
} copier;

static int copier_poll(wa_future *f, wa_cx *cx)
{
    copier *t = (copier *)f;
    WA_BEGIN(t, cx);
    WA_AWAIT(wa_copy_init(&t->c, t->in, t->out));
    *t->copied = t->c.copied;
    wa_stream_close(&t->in);
    wa_stream_close(&t->out);
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

/* One read of up to 8 bytes into buf. */
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

/* A new stream pair (r, w) on rt and a task (j) whose read of r is
 * BLOCKED after one tick: nobody writes. Returns 0, or < 0 with nothing
 * left made. */
static int start_read(wa_rt *rt, wa_stream **r, wa_stream **w, wa_join *j)
{
    int rc = wa_wasip3_stream_new(rt, &wa_wasip3_cli_bytes, r, w);
    if (rc < 0)
        return rc;
    read_once t = {.in = *r};
    wa_coro_init(&t.wa, &read_once_vt);
    if ((rc = check_spawn_of(rt, &t, j)) < 0) {
        wa_stream_close(r);
        wa_stream_close(w);
        return rc;
    }
    wa_rt_tick(rt, NULL);
    return 0;
}

static uint64_t host_calls(const wa_wasip3_stats *st)
{
    return st->waits + st->polls + st->joins + st->copies + st->copy_cancels + st->end_drops;
}

/* 1 MiB: wa_write into one stream<u8>, wa_copy from its readable end into
 * a second one, wa_read_all from that: every byte, in order. */
static void test_write_copy_read_all(void)
{
    long ends0 = wa_wasip3_live_ends();
    wa_rt *rt = p3_rt();
    REQUIRE(rt);
    unsigned char *data = malloc(TOTAL);
    REQUIRE_OR(data, wa_rt_free(rt));
    for (size_t i = 0; i < TOTAL; i++)
        data[i] = (unsigned char)(i * 7 + (i >> 12));
    wa_stream *ar, *aw, *br, *bw;
    REQUIRE_OR(wa_wasip3_stream_new(rt, &wa_wasip3_cli_bytes, &ar, &aw) == 0, (free(data), wa_rt_free(rt)));
    REQUIRE_OR(wa_wasip3_stream_new(rt, &wa_wasip3_cli_bytes, &br, &bw) == 0, (free(data), wa_rt_free(rt)));
    CHECK_EQ(wa_wasip3_live_ends(), ends0 + 4);
    uint64_t copied = 0;
    producer p = {.out = aw, .data = data, .len = TOTAL};
    wa_coro_init(&p.wa, &producer_vt);
    copier c = {.in = ar, .out = bw, .copied = &copied};
    wa_coro_init(&c.wa, &copier_vt);
    wa_join jp, jc;
    REQUIRE(check_spawn_of(rt, &p, &jp) == 0);
    REQUIRE(check_spawn_of(rt, &c, &jc) == 0);
    uint64_t t0 = wa_now(rt);
    wa_read_all ra;
    CHECK_EQ(wa_block_on(rt, wa_read_all_init(&ra, br, 0)), 0);
    uint64_t took = wa_now(rt) - t0;
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK_EQ(wa_join_status(&jp), 0);
    CHECK_EQ(wa_join_status(&jc), 0);
    wa_join_drop(&jp);
    wa_join_drop(&jc);
    CHECK_EQ(ra.len, TOTAL);
    CHECK(ra.data && memcmp(ra.data, data, TOTAL) == 0);
    CHECK_EQ(copied, TOTAL);
    wa_stream_close(&br);
    wa_wasip3_stats st;
    CHECK_EQ(wa_wasip3_stats_get(rt, &st), 0);
    printf("1 MiB written, copied and read_all'd: %.1f ms; %llu copies (%llu BLOCKED), %llu waits, %llu joins, "
           "%llu events: %.2f host calls per copy\n",
           took / 1e6, (unsigned long long)st.copies, (unsigned long long)st.copies_blocked,
           (unsigned long long)st.waits, (unsigned long long)st.joins, (unsigned long long)st.events,
           host_calls(&st) / (double)st.copies);
    /* A copy that meets the other side's pending one completes at once;
     * one that has to wait costs 3 more calls (its join in, the event's
     * wait or poll, its join out). */
    CHECK(st.copies >= 2 * TOTAL / 8192 && st.copies_blocked <= st.copies);
    CHECK(host_calls(&st) <= 5 * st.copies);
    CHECK_EQ(st.copy_cancels, 0);
    CHECK_EQ(st.stale, 0);
    CHECK_EQ(wa_wasip3_live_ends(), ends0);
    free(ra.data);
    free(data);
    CHECK_RT_EMPTY_FREE(rt);
}

/* The reader goes: a write waiting on it ends with WA_ECLOSED (its
 * STREAM_WRITE event says DROPPED), and so does the next one. */
static void test_reader_drops(void)
{
    long ends0 = wa_wasip3_live_ends();
    wa_rt *rt = p3_rt();
    REQUIRE(rt);
    wa_stream *r, *w;
    REQUIRE_OR(wa_wasip3_stream_new(rt, &wa_wasip3_cli_bytes, &r, &w) == 0, wa_rt_free(rt));
    static const unsigned char data[100];
    producer p = {.out = w, .data = data, .len = sizeof data};
    wa_coro_init(&p.wa, &producer_vt);
    wa_join j;
    REQUIRE(check_spawn_of(rt, &p, &j) == 0);
    wa_rt_tick(rt, NULL); /* the write is BLOCKED: nobody reads */
    CHECK(!wa_join_done(&j));
    CHECK_EQ(wa_stream_close(&r), 0);
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK_EQ(wa_join_status(&j), WA_ECLOSED);
    wa_join_drop(&j);
    CHECK_EQ(wa_wasip3_live_ends(), ends0);
    CHECK_RT_EMPTY_FREE(rt);
}

/* The writer goes: a read waiting on it ends with WA_ECLOSED, the end of
 * the stream. */
static void test_writer_drops(void)
{
    long ends0 = wa_wasip3_live_ends();
    wa_rt *rt = p3_rt();
    REQUIRE(rt);
    wa_stream *r, *w;
    wa_join j;
    REQUIRE_OR(start_read(rt, &r, &w, &j) == 0, wa_rt_free(rt));
    CHECK(!wa_join_done(&j));
    CHECK_EQ(wa_stream_close(&w), 0);
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK_EQ(wa_join_status(&j), WA_ECLOSED);
    wa_join_drop(&j);
    CHECK_EQ(wa_stream_close(&r), 0);
    CHECK_EQ(wa_wasip3_live_ends(), ends0);
    CHECK_RT_EMPTY_FREE(rt);
}

/* A close with a read in flight: the read ends with WA_ECLOSED, its copy
 * is cancelled, and nothing is left: no registration, no end. */
static void test_close_with_read_in_flight(void)
{
    long ends0 = wa_wasip3_live_ends();
    wa_rt *rt = p3_rt();
    REQUIRE(rt);
    wa_stream *r, *w;
    wa_join j;
    REQUIRE_OR(start_read(rt, &r, &w, &j) == 0, wa_rt_free(rt));
    wa_rt_stats rs;
    wa_rt_stats_get(rt, &rs);
    CHECK_EQ(rs.sources, 1); /* the readable end, registered */
    CHECK_EQ(wa_stream_close(&r), 0);
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK_EQ(wa_join_status(&j), WA_ECLOSED);
    wa_join_drop(&j);
    wa_wasip3_stats st;
    wa_wasip3_stats_get(rt, &st);
    CHECK_EQ(st.copy_cancels, 1);
    CHECK_EQ(wa_wasip3_live_ends(), ends0 + 1); /* the writer's */
    CHECK_EQ(wa_stream_close(&w), 0);
    CHECK_EQ(wa_wasip3_live_ends(), ends0);
    CHECK_RT_EMPTY_FREE(rt);
}

/* A read dropped after its copy completed but before its event was taken:
 * the cancel says what it moved, and the next read gets those bytes. */
static void test_dropped_read_keeps_bytes(void)
{
    wa_rt *rt = p3_rt();
    REQUIRE(rt);
    wa_stream *r, *w;
    wa_join j;
    REQUIRE_OR(start_read(rt, &r, &w, &j) == 0, wa_rt_free(rt));
    static const unsigned char data[5] = "hello";
    producer p = {.out = w, .data = data, .len = sizeof data};
    wa_coro_init(&p.wa, &producer_vt);
    wa_join jp;
    REQUIRE(check_spawn_of(rt, &p, &jp) == 0);
    wa_rt_tick(rt, NULL); /* the write meets the read: COMPLETED at once */
    CHECK(wa_join_done(&jp));
    CHECK_EQ(wa_join_cancel(&j), 0); /* before the reader's event is taken */
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK(wa_join_status(&j) != 0);
    wa_join_drop(&j);
    wa_join_drop(&jp);
    char buf[8] = {0};
    wa_read rd;
    CHECK_EQ(wa_block_on(rt, wa_read_init(&rd, r, buf, sizeof buf)), 0);
    CHECK_EQ(rd.n, 5);
    CHECK(memcmp(buf, "hello", 5) == 0);
    CHECK_EQ(wa_block_on(rt, wa_read_init(&rd, r, buf, sizeof buf)), WA_ECLOSED);
    wa_wasip3_stats st;
    wa_wasip3_stats_get(rt, &st);
    CHECK_EQ(st.copy_cancels, 1);
    wa_stream_close(&r);
    CHECK_RT_EMPTY_FREE(rt);
}

/* future<result<_, error-code>>, the host's result of stderr's
 * write-via-stream (a future of a non-number type cannot be read in the
 * instance that writes it): pending while the stream's writable end
 * lives, so a read dropped by a timeout is cancelled; once the end is
 * dropped, ok is read into the caller's storage. */
static void test_future(void)
{
    long ends0 = wa_wasip3_live_ends();
    wa_rt *rt = p3_rt();
    REQUIRE(rt);
    const wa_wasip3_stream_type *bytes = &wa_wasip3_cli_bytes;
    uint64_t ends = bytes->new_();
    uint32_t w = (uint32_t)(ends >> 32);
    uint32_t result = wa__wasip3_std_write_via_stream(2, (uint32_t)ends);
    _Alignas(8) unsigned char got[2] = {9, 9};
    wa_wasip3_future_read f;
    wa_timeout to;
    CHECK_EQ(wa_block_on(rt, wa_timeout_init(&to, wa_wasip3_future_read_init(&f, &wa_wasip3_cli_result, result, got),
                                             WA_MS(20))),
             WA_ETIMEDOUT);
    wa_wasip3_stats st;
    wa_wasip3_stats_get(rt, &st);
    CHECK_EQ(st.copy_cancels, 1);
    CHECK_EQ(wa_wasip3_live_ends(), ends0);
    bytes->drop_writable(w);

    ends = bytes->new_();
    result = wa__wasip3_std_write_via_stream(2, (uint32_t)ends);
    bytes->drop_writable((uint32_t)(ends >> 32));
    CHECK_EQ(wa_block_on(rt, wa_wasip3_future_read_init(&f, &wa_wasip3_cli_result, result, got)), 0);
    CHECK_EQ(got[0], 0); /* ok */
    CHECK_EQ(wa_wasip3_live_ends(), ends0);
    CHECK_RT_EMPTY_FREE(rt);
}

/* Spawns the copy f (as *j) and drives it through a rehome: it starts
 * (BLOCKED), wa__wasip3_rehome cancels it (a second finds nothing bound),
 * and its next poll starts it again. Returns 0, or -1 (not spawned). */
static int rehomed_copy(wa_rt *rt, wa_wasip3_copy *f, wa_join *j)
{
    if (wa_spawn_of(rt, f, j) < 0)
        return -1;
    uint64_t deadline;
    wa_wasip3_stats st;
    wa_rt_tick(rt, &deadline);
    wa__wasip3_rehome(rt);
    wa__wasip3_rehome(rt);
    wa_wasip3_stats_get(rt, &st);
    CHECK_EQ(st.copies_blocked, 1);
    CHECK_EQ(st.copy_cancels, 1);
    wa_rt_tick(rt, &deadline);
    wa_wasip3_stats_get(rt, &st);
    CHECK_EQ(st.copies_blocked, 2); /* started again */
    CHECK(!wa_join_done(j));
    return 0;
}

/* Reads in flight when the export call that started them leaves
 * (wa__wasip3_rehome, reactor.h): each is cancelled, its task woken, and
 * its next poll starts it again, which then gets what comes: a
 * stream<u8>'s bytes, on every host; the host's future's value under
 * wasmtime only, since jco (1.x) fails a host's future read made again
 * after a cancelled one (the first read's write still runs), which is why
 * the export driver rehomes only when calls overlap. */
static void test_reads_rehomed(void)
{
    long ends0 = wa_wasip3_live_ends();
    const wa_wasip3_stream_type *bytes = &wa_wasip3_cli_bytes;
    wa_rt *rt = p3_rt();
    REQUIRE(rt);
    uint64_t ends = bytes->new_();
    uint32_t r = (uint32_t)ends, w = (uint32_t)(ends >> 32);
    unsigned char got[3] = {0};
    wa_wasip3_copy rd;
    wa_join j;
    wa_wasip3_stream_read_init(&rd, bytes, r, got, 3);
    if (rehomed_copy(rt, &rd, &j) == 0) {
        CHECK_EQ(wa__wasip3_copy_count(bytes->write(w, "abc", 3)), 3);
        CHECK_EQ(wa_block_on(rt, &j.fut), 0);
        CHECK(!memcmp(got, "abc", 3));
    }
    bytes->drop_readable(r);
    bytes->drop_writable(w);
    CHECK_RT_EMPTY_FREE(rt);
    if (!check_on_wasmtime())
        return;

    REQUIRE(rt = p3_rt());
    ends = bytes->new_();
    w = (uint32_t)(ends >> 32);
    uint32_t result = wa__wasip3_std_write_via_stream(2, (uint32_t)ends);
    _Alignas(8) unsigned char value[2] = {9, 9};
    wa_wasip3_future_read f;
    wa_wasip3_future_read_init(&f, &wa_wasip3_cli_result, result, value);
    if (rehomed_copy(rt, &f, &j) == 0) {
        bytes->drop_writable(w);
        CHECK_EQ(wa_block_on(rt, &j.fut), 0);
        CHECK_EQ(value[0], 0); /* ok */
    } else {
        bytes->drop_writable(w);
        wa_drop(&f.fut);
    }
    CHECK_EQ(wa_wasip3_live_ends(), ends0);
    CHECK_RT_EMPTY_FREE(rt);
}

/* The ends of a stream<u8> closed through one copy of their handles: a
 * close or a write through another copy is reported by the call, and the
 * ends are dropped once (none left over). */
static void test_handle_copies(void)
{
    long ends0 = wa_wasip3_live_ends();
    check_catch_misuse();
    wa_rt *rt = p3_rt();
    REQUIRE(rt);
    wa_stream *r, *w;
    REQUIRE_OR(wa_wasip3_stream_new(rt, &wa_wasip3_cli_bytes, &r, &w) == 0, wa_rt_free(rt));
    wa_stream *r_copy = r, *w_copy = w;
    wa_write wr;
    CHECK_EQ(wa_stream_close(&r), 0);
    CHECK_EQ(wa_stream_close(&w), 0);
    CHECK_MISUSE(wa_stream_close(&r_copy), WA_EMISUSE, "wa_stream_close");
    CHECK_MISUSE(wa_block_on(rt, wa_write_init(&wr, w_copy, "x", 1)), WA_EMISUSE, "wa_write");
    CHECK_MISUSE(wa_stream_close(&w_copy), WA_EMISUSE, "wa_stream_close");
    CHECK_EQ(wa_wasip3_live_ends(), ends0);
    CHECK_RT_EMPTY_FREE(rt);
}

/* Typed copies of a stream's elements (wa_wasip3_stream_read_init and
 * _write_init) on a stream<u8> within the instance (u8 allows it): a read
 * of 3 from a write of 5 takes 3, then the rest; a read pending when
 * dropped is cancelled, nothing moved; after the writer's drop a read is
 * WA_ECLOSED. The ends stay the caller's. A copy of no element, or with no
 * buffer, is misuse (WA_EINVAL). */
static void test_typed_copies(void)
{
    check_catch_misuse();
    wa_rt *rt = p3_rt();
    REQUIRE(rt);
    const wa_wasip3_stream_type *t = &wa_wasip3_cli_bytes;
    uint64_t ends = t->new_();
    uint32_t r = (uint32_t)ends, w = (uint32_t)(ends >> 32);
    wa_wasip3_copy wr, rd;
    unsigned char got[8] = {0};
    wa_timeout to;
    CHECK_EQ(wa_block_on(rt, wa_timeout_init(&to, wa_wasip3_stream_read_init(&rd, t, r, got, 3), WA_MS(10))),
             WA_ETIMEDOUT);
    CHECK_EQ(rd.count, 0);
    WA_COMBO(2) both;
    CHECK_EQ(wa_block_on(rt, wa_all_init(&both, wa_wasip3_stream_write_init(&wr, t, w, "hello", 5),
                                         wa_wasip3_stream_read_init(&rd, t, r, got, 3))),
             0);
    CHECK_EQ(rd.count, 3);
    CHECK_EQ(wr.count, 3);
    CHECK(!memcmp(got, "hel", 3));
    CHECK_EQ(wa_block_on(rt, wa_all_init(&both, wa_wasip3_stream_write_init(&wr, t, w, "lo", 2),
                                         wa_wasip3_stream_read_init(&rd, t, r, got, 8))),
             0);
    CHECK_EQ(rd.count, 2);
    CHECK(!memcmp(got, "lo", 2));
    t->drop_writable(w);
    CHECK_EQ(wa_block_on(rt, wa_wasip3_stream_read_init(&rd, t, r, got, 8)), WA_ECLOSED);
    CHECK_MISUSE(wa_block_on(rt, wa_wasip3_stream_read_init(&rd, t, r, got, 0)), WA_EINVAL,
                 "wa_wasip3_stream_read_init");
    CHECK_MISUSE(wa_block_on(rt, wa_wasip3_stream_write_init(&wr, t, r, NULL, 1)), WA_EINVAL,
                 "wa_wasip3_stream_write_init");
    t->drop_readable(r);
    CHECK_RT_EMPTY_FREE(rt);
}

int main(void)
{
    RUN(test_write_copy_read_all);
    RUN(test_reader_drops);
    RUN(test_writer_drops);
    RUN(test_close_with_read_in_flight);
    RUN(test_dropped_read_keeps_bytes);
    RUN(test_future);
    RUN(test_reads_rehomed);
    RUN(test_handle_copies);
    RUN(test_typed_copies);
    return check_finish();
}
