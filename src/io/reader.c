/* SPDX-License-Identifier: MIT */
/* The buffered reader (stream.h): whole units read from any stream, a
 * number of bytes or a line, through a buffer the caller gives, which
 * keeps what the stream gave past the unit for the next one (a stream has
 * no unread).
 *
 * Bytes move from the stream into the buffer by one wa_read at a time,
 * which delivers all it read in the poll it finishes, so a unit dropped
 * half-way (a timeout, a lost race) leaves every byte it had read in the
 * buffer: the next unit starts with them. Only an exact read longer than
 * the buffer reads past it, into the caller's memory, and counts there. */
#include <string.h>

#include "../core/rt.h"
#include "wasync/stream.h"

void wa_reader_init(wa_reader *rd, wa_stream *s, void *buf, size_t cap)
{
    *rd = (wa_reader){.s = s, .buf = buf, .cap = buf ? cap : 0};
}

/* A unit's states: not yet polled, holding its reader, finished. */
enum { WA__READER_NEW, WA__READER_HOLDING, WA__READER_DONE };

/* The start of every poll of a unit named call: takes the reader at the
 * first poll. Returns 0 to go on, or the status to end with. */
static int wa__reader_enter(wa_reader *rd, int *state, const char *call)
{
    if (*state == WA__READER_HOLDING)
        return 0;
    if (*state == WA__READER_DONE)
        return wa__misuse_in(WA_EMISUSE, call, "polled after its end");
    *state = WA__READER_DONE;
    if (!rd)
        return wa__misuse_in(WA_EINVAL, call, "no reader (NULL)");
    if (!rd->cap)
        return wa__misuse_in(WA_EINVAL, call, "a reader without a buffer (wa_reader_init's buf NULL or cap 0)");
    if (rd->busy)
        return wa__misuse_in(WA_EBUSY, call, "a second read in flight on one reader");
    rd->busy = 1;
    *state = WA__READER_HOLDING;
    return 0;
}

/* Ends a unit with status rc: drops its read of the stream, if any (which
 * had given nothing yet), and lets go of the reader. */
static int wa__reader_end(wa_reader *rd, int *state, wa_read *r, int *reading, int rc)
{
    wa_drop_held(&r->fut, reading);
    if (*state == WA__READER_HOLDING)
        rd->busy = 0;
    *state = WA__READER_DONE;
    return rc;
}

/* Takes n buffered bytes; an empty buffer starts again at its front. */
static void wa__reader_take(wa_reader *rd, size_t n)
{
    rd->start += n;
    if (rd->start == rd->end)
        rd->start = rd->end = 0;
}

/* Reads more of the stream behind the bytes buffered, with room for need
 * of them in one piece (need <= cap: what is buffered moves to the front
 * when the rest would not fit). WA_PENDING, 0 when bytes came, WA_ECLOSED
 * at the end, or the read's error. */
static int wa__reader_fill(wa_reader *rd, wa_read *r, int *reading, size_t need, wa_cx *cx)
{
    if (!*reading) {
        if (rd->start + need > rd->cap) {
            memmove(rd->buf, rd->buf + rd->start, rd->end - rd->start);
            rd->end -= rd->start;
            rd->start = 0;
        }
        wa_read_init(r, rd->s, rd->buf + rd->end, rd->cap - rd->end);
        *reading = 1;
    }
    int rc = wa_poll_held(&r->fut, reading, cx);
    if (rc == 0)
        rd->end += r->n;
    return rc;
}

/* read_exact: len bytes to dst. Up to the buffer's size they gather in the
 * buffer and are copied out at once; a longer one copies out what is
 * buffered and reads the rest straight into dst. */
static int wa__read_exact_end(wa_read_exact *x, int rc)
{
    return wa__reader_end(x->rd, &x->state, &x->r, &x->reading, rc);
}

/* Copies n buffered bytes out, after those dst has. */
static void wa__read_exact_out(wa_read_exact *x, size_t n)
{
    memcpy(x->dst + x->n, x->rd->buf + x->rd->start, n);
    wa__reader_take(x->rd, n);
    x->n += n;
}

static int wa__read_exact_poll(wa_future *f, wa_cx *cx)
{
    wa_read_exact *x = (wa_read_exact *)f;
    wa_reader *rd = x->rd;
    int rc = wa__reader_enter(rd, &x->state, "wa_read_exact");
    if (rc != 0)
        return rc;
    if (!x->dst && x->len)
        return wa__read_exact_end(x, wa__misuse_in(WA_EINVAL, "wa_read_exact", "NULL buffer"));
    for (;;) {
        size_t have = rd->end - rd->start;
        if (x->len <= rd->cap) {
            if (have >= x->len) {
                wa__read_exact_out(x, x->len);
                return wa__read_exact_end(x, 0);
            }
            rc = wa__reader_fill(rd, &x->r, &x->reading, x->len, cx);
            if (rc == WA_ECLOSED) /* what came is the caller's, and n says how much */
                wa__read_exact_out(x, have);
        } else {
            wa__read_exact_out(x, x->len - x->n < have ? x->len - x->n : have);
            if (x->n == x->len)
                return wa__read_exact_end(x, 0);
            if (!x->reading) {
                wa_read_init(&x->r, rd->s, x->dst + x->n, x->len - x->n);
                x->reading = 1;
            }
            if ((rc = wa_poll_held(&x->r.fut, &x->reading, cx)) == 0)
                x->n += x->r.n;
        }
        if (rc == WA_PENDING)
            return rc;
        if (rc < 0)
            return wa__read_exact_end(x, rc);
        if (!wa_coop_proceed(cx)) /* a fast stream must not hog the thread */
            return WA_PENDING;
    }
}

static void wa__read_exact_drop(wa_future *f)
{
    wa_read_exact *x = (wa_read_exact *)f;
    wa__read_exact_end(x, 0);
}

static const wa_future_vt wa__read_exact_vt = {wa__read_exact_poll, wa__read_exact_drop, "read_exact"};

wa_future *wa_read_exact_init(wa_read_exact *x, wa_reader *rd, void *dst, size_t len)
{
    *x = (wa_read_exact){.fut = {&wa__read_exact_vt}, .rd = rd, .dst = dst, .len = len};
    return &x->fut;
}

/* read_until: the buffer is searched from where the last search stopped,
 * and filled until the delimiter comes within the limit. */
static int wa__read_until_end(wa_read_until *u, int rc, size_t len)
{
    if (len) { /* a unit: the caller's until the next one */
        u->line = u->rd->buf + u->rd->start;
        u->len = len;
        wa__reader_take(u->rd, len);
    }
    return wa__reader_end(u->rd, &u->state, &u->r, &u->reading, rc);
}

static int wa__read_until_poll(wa_future *f, wa_cx *cx)
{
    wa_read_until *u = (wa_read_until *)f;
    wa_reader *rd = u->rd;
    int rc = wa__reader_enter(rd, &u->state, "wa_read_until");
    if (rc != 0)
        return rc;
    size_t limit = u->max && u->max < rd->cap ? u->max : rd->cap;
    for (;;) {
        size_t have = rd->end - rd->start, upto = have < limit ? have : limit;
        const unsigned char *at = rd->buf + rd->start;
        const unsigned char *p = memchr(at + u->scanned, u->delim, upto - u->scanned);
        if (p)
            return wa__read_until_end(u, 0, (size_t)(p - at) + 1);
        if (have >= limit)
            return wa__read_until_end(u, WA_E2BIG, limit);
        u->scanned = upto;
        rc = wa__reader_fill(rd, &u->r, &u->reading, limit, cx);
        if (rc == WA_PENDING)
            return rc;
        if (rc < 0) /* at the end, the last bytes without their delimiter */
            return wa__read_until_end(u, rc, rc == WA_ECLOSED ? have : 0);
        if (!wa_coop_proceed(cx))
            return WA_PENDING;
    }
}

static void wa__read_until_drop(wa_future *f)
{
    wa_read_until *u = (wa_read_until *)f;
    wa__reader_end(u->rd, &u->state, &u->r, &u->reading, 0);
}

static const wa_future_vt wa__read_until_vt = {wa__read_until_poll, wa__read_until_drop, "read_until"};

wa_future *wa_read_until_init(wa_read_until *u, wa_reader *rd, int delim, size_t max)
{
    *u = (wa_read_until){.fut = {&wa__read_until_vt}, .rd = rd, .delim = (unsigned char)delim, .max = max};
    return &u->fut;
}
