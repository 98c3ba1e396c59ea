/* SPDX-License-Identifier: MIT */
/* Read and write futures over any stream (stream.h): try, and when the
 * stream says not now, await its readiness and try again.
 *
 * An operation holds its stream from its first poll until it finishes or is
 * dropped (the stream's busy bit of its direction), so that a close while
 * it waits can neither free the stream under it nor leave it waiting: the
 * close wakes it, it ends with WA_ECLOSED, and the last one out releases
 * the host resources. */
#include <stdlib.h>

#include "../core/grow.h"
#include "../core/rt.h"
#include "stream_handle.h"

int wa__stream_handle(int rc, wa_stream **s)
{
    uintptr_t h;
    if (rc < 0)
        return rc;
    if (wa__handle_new(*s, WA__HANDLE_STREAM, &h) < 0) {
        (*s)->vt->close(*s); /* (no reason yet) */
        *s = NULL;
        return WA_ENOMEM;
    }
    *s = (wa_stream *)h;
    return 0;
}

static inline int wa__dir_index(int dir) { return dir == WA_STREAM_WRITE; }

/* Releases s: its reasons, then its host resources. */
static void wa__stream_release(wa_stream *s)
{
    free(s->reason);
    s->reason = NULL;
    s->vt->close(s);
}

wa_stream *wa_stream_head(wa_stream *h)
{
    wa_stream *s = h ? wa__stream_at(h) : NULL;
    if (!s)
        wa_misuse(WA_EMISUSE, "wa_stream_head: no stream (NULL, or closed through a copy of the handle)");
    return s;
}

/* The calls of an operation, by direction (wa__dir_index), which its
 * misuse reports name. */
static const char *const wa__op_call[2] = {"wa_read", "wa_write"};

/* (the words of a NULL handle, for wa_read, wa_write and wa_stream_close) */
static const char wa__no_stream[] = "no stream (closed already?)";

/* Takes the stream of handle *sp for one operation in direction dir, at
 * the operation's first poll, and puts the stream itself in *sp. Returns 0
 * or the status the operation ends with. */
static int wa__stream_take(wa_stream **sp, int dir)
{
    const char *call = wa__op_call[wa__dir_index(dir)];
    if (!*sp)
        return wa__misuse_in(WA_EMISUSE, call, wa__no_stream);
    wa_stream *s = wa__stream_at(*sp);
    if (!s)
        return wa__misuse_in(WA_EMISUSE, call, "the stream was closed (through a copy of the handle)");
    *sp = s;
    if (s->closed)
        return WA_ECLOSED;
    if (s->busy & dir)
        return wa__misuse_in(WA_EBUSY, call, dir == WA_STREAM_READ ? "a second read in flight on one stream"
                                                                   : "a second write in flight on one stream");
    s->busy |= (unsigned char)dir;
    if (s->reason)
        s->reason[wa__dir_index(dir) * WA_REASON_MAX] = 0;
    return 0;
}

const char *wa_stream_reason(wa_stream *h, int dir)
{
    wa_stream *s = h ? wa__stream_at(h) : NULL;
    if (!s || (dir != WA_STREAM_READ && dir != WA_STREAM_WRITE)) {
        wa_misuse(WA_EMISUSE, "wa_stream_reason: no stream (NULL, or closed through a copy of the handle), or a dir not WA_STREAM_READ or WA_STREAM_WRITE");
        return NULL;
    }
    return s->reason ? s->reason + wa__dir_index(dir) * WA_REASON_MAX : "";
}

/* Ends an operation's hold on s; the last one out of a closed stream
 * releases it. */
static void wa__stream_let_go(wa_stream *s, int dir)
{
    s->busy &= (unsigned char)~dir;
    wa_waker_drop(&s->waiter[wa__dir_index(dir)]);
    if (s->closed && !s->busy)
        wa__stream_release(s);
}

int wa_stream_close(wa_stream **sp)
{
    wa_stream *h = sp ? *sp : NULL;
    if (!h)
        return wa__misuse_in(WA_EMISUSE, "wa_stream_close", wa__no_stream);
    *sp = NULL;
    wa_stream *s = wa__stream_at(h);
    if (!s)
        return wa__misuse_in(WA_EMISUSE, "wa_stream_close", "the stream was closed already (through a copy of the handle)");
    if (s != h)
        wa__handle_release((uintptr_t)h); /* every copy of it goes stale */
    else if (s->closed)
        return wa__misuse_in(WA_EMISUSE, "wa_stream_close", "the stream was closed already");
    if (!s->busy) {
        wa__stream_release(s);
        return 0;
    }
    s->closed = 1; /* the operations in flight see it and let go */
    wa_waker_wake(&s->waiter[0]);
    wa_waker_wake(&s->waiter[1]);
    return 0;
}

/* Polls a started readiness wait: 0 still pending, 1 finished (try again),
 * < 0 it failed. */
static int wa__stream_wait_step(int *waiting, wa_stream_wait *wait, wa_cx *cx)
{
    int rc = wa_poll_held(&wait->fut, waiting, cx);
    return rc == WA_PENDING ? 0 : rc < 0 ? rc : 1;
}

typedef struct wa__ready_error {
    wa_future fut;
    int err;
} wa__ready_error;

static int wa__ready_error_poll(wa_future *f, wa_cx *cx)
{
    (void)cx;
    return ((wa__ready_error *)f)->err;
}

static const wa_future_vt wa__ready_error_vt = {wa__ready_error_poll, NULL, "ready_error"};

wa_future *wa_stream_error_init(void *storage, int err)
{
    _Static_assert(sizeof(wa__ready_error) <= WA_STREAM_WAIT_SIZE, "readiness storage too small");
    wa__ready_error *r = storage;
    *r = (wa__ready_error){{&wa__ready_error_vt}, err};
    return &r->fut;
}

/* An operation's states: not yet polled, holding its stream, finished. */
enum { WA__OP_NEW, WA__OP_HOLDING, WA__OP_DONE };

/* Ends an operation that holds s with status rc (its wait dropped). */
static int wa__op_end(int *state, wa_stream *s, int dir, int *waiting, wa_stream_wait *wait, int rc)
{
    wa_drop_held(&wait->fut, waiting);
    if (*state == WA__OP_HOLDING)
        wa__stream_let_go(s, dir);
    *state = WA__OP_DONE;
    return rc;
}

/* The start of every poll of an operation in direction dir: takes the
 * stream at the first poll, and notices a close. Returns 0 to go on, or the
 * status to end with. */
static int wa__op_enter(int *state, wa_stream **sp, int dir, int *waiting, wa_stream_wait *wait)
{
    if (*state == WA__OP_HOLDING)
        return (*sp)->closed ? wa__op_end(state, *sp, dir, waiting, wait, WA_ECLOSED) : 0;
    if (*state == WA__OP_DONE)
        return wa__misuse_done(NULL, dir == WA_STREAM_READ ? "read" : "write");
    int rc = wa__stream_take(sp, dir);
    if (rc < 0) {
        *state = WA__OP_DONE;
        return rc;
    }
    *state = WA__OP_HOLDING;
    return 0;
}

/* Pending on the stream's readiness: the close can find us. */
static int wa__op_pending(wa_stream *s, int dir, const wa_cx *cx)
{
    wa_waker_store(&s->waiter[wa__dir_index(dir)], cx);
    return WA_PENDING;
}

static int wa__read_end(wa_read *r, int rc)
{
    return wa__op_end(&r->state, r->s, WA_STREAM_READ, &r->waiting, &r->wait, rc);
}

static int wa__read_poll(wa_future *f, wa_cx *cx)
{
    wa_read *r = (wa_read *)f;
    int rc = wa__op_enter(&r->state, &r->s, WA_STREAM_READ, &r->waiting, &r->wait);
    if (rc != 0)
        return rc;
    if (!r->buf && r->cap)
        return wa__read_end(r, wa__misuse_in(WA_EINVAL, "wa_read", "NULL buffer"));
    if (!r->cap) /* the same answer on every host, without asking it */
        return wa__read_end(r, 0);
    for (;;) {
        if (r->waiting) {
            rc = wa__stream_wait_step(&r->waiting, &r->wait, cx);
            if (rc <= 0)
                return rc == 0 ? wa__op_pending(r->s, WA_STREAM_READ, cx) : wa__read_end(r, rc);
        }
        rc = r->s->vt->try_read(r->s, r->buf, r->cap, &r->n);
        if (rc != WA_EAGAIN)
            return wa__read_end(r, rc);
        r->s->vt->ready(r->s, WA_STREAM_READ, &r->wait);
        r->waiting = 1;
    }
}

static void wa__read_drop(wa_future *f)
{
    wa_read *r = (wa_read *)f;
    if (r->state == WA__OP_HOLDING)
        wa__read_end(r, 0);
}

static const wa_future_vt wa__read_vt = {wa__read_poll, wa__read_drop, "read"};

wa_future *wa_read_init(wa_read *r, wa_stream *s, void *buf, size_t cap)
{
    r->fut.vt = &wa__read_vt;
    r->s = s;
    r->buf = buf;
    r->cap = cap;
    r->n = 0;
    r->waiting = 0;
    r->state = WA__OP_NEW;
    return &r->fut;
}

static int wa__write_end(wa_write *w, int rc)
{
    return wa__op_end(&w->state, w->s, WA_STREAM_WRITE, &w->waiting, &w->wait, rc);
}

static int wa__write_poll(wa_future *f, wa_cx *cx)
{
    wa_write *w = (wa_write *)f;
    int rc = wa__op_enter(&w->state, &w->s, WA_STREAM_WRITE, &w->waiting, &w->wait);
    if (rc != 0)
        return rc;
    if (!w->buf && w->len)
        return wa__write_end(w, wa__misuse_in(WA_EINVAL, "wa_write", "NULL buffer"));
    for (;;) {
        if (w->waiting) {
            rc = wa__stream_wait_step(&w->waiting, &w->wait, cx);
            if (rc <= 0)
                return rc == 0 ? wa__op_pending(w->s, WA_STREAM_WRITE, cx) : wa__write_end(w, rc);
        }
        if (w->done < w->len) {
            size_t n = 0;
            rc = w->s->vt->try_write(w->s, w->buf + w->done, w->len - w->done, &n);
            if (rc == 0) {
                w->done += n;
                if (!wa_coop_proceed(cx)) /* a fast stream must not hog the thread */
                    return WA_PENDING;
                continue;
            }
        } else if (!w->flush || (rc = w->s->vt->try_flush(w->s)) == 0) {
            return wa__write_end(w, 0);
        }
        if (rc != WA_EAGAIN)
            return wa__write_end(w, rc);
        w->s->vt->ready(w->s, WA_STREAM_WRITE, &w->wait);
        w->waiting = 1;
    }
}

static void wa__write_drop(wa_future *f)
{
    wa_write *w = (wa_write *)f;
    if (w->state == WA__OP_HOLDING)
        wa__write_end(w, 0);
}

static const wa_future_vt wa__write_vt = {wa__write_poll, wa__write_drop, "write"};

static wa_future *wa__write_start(wa_write *w, wa_stream *s, const void *buf, size_t len, int flush)
{
    w->fut.vt = &wa__write_vt;
    w->s = s;
    w->buf = buf;
    w->len = len;
    w->done = 0;
    w->waiting = 0;
    w->flush = flush;
    w->state = WA__OP_NEW;
    return &w->fut;
}

wa_future *wa_write_init(wa_write *w, wa_stream *s, const void *buf, size_t len)
{
    return wa__write_start(w, s, buf, len, 1);
}

/* read_all: read into the free end of a buffer doubled as it fills */
static int wa__read_all_fail(wa_read_all *r, int rc)
{
    free(r->data);
    r->data = NULL;
    r->len = 0;
    return rc;
}

static int wa__read_all_poll(wa_future *f, wa_cx *cx)
{
    wa_read_all *r = (wa_read_all *)f;
    for (;;) {
        if (!r->reading) {
            /* room for a useful read, and the NUL */
            if (wa__grow(&r->data, 1, &r->cap, r->len + 4096, 16384, SIZE_MAX) < 0)
                return wa__read_all_fail(r, WA_ENOMEM);
            size_t room = r->cap - r->len - 1;
            if (r->max && room > r->max - r->len + 1) /* one past max shows the excess */
                room = r->max - r->len + 1;
            wa_read_init(&r->r, r->s, r->data + r->len, room);
            r->reading = 1;
        }
        int rc = wa_poll_held(&r->r.fut, &r->reading, cx);
        if (rc == WA_PENDING)
            return WA_PENDING;
        if (rc == WA_ECLOSED) {
            if (!r->data && !(r->data = malloc(1)))
                return WA_ENOMEM;
            r->data[r->len] = 0;
            return 0;
        }
        if (rc < 0)
            return wa__read_all_fail(r, rc);
        r->len += r->r.n;
        if (r->max && r->len > r->max)
            return wa__read_all_fail(r, WA_E2BIG);
    }
}

static void wa__read_all_drop(wa_future *f)
{
    wa_read_all *r = (wa_read_all *)f;
    if (r->reading) { /* unfinished: what was read goes too */
        wa_drop_held(&r->r.fut, &r->reading);
        wa__read_all_fail(r, 0);
    }
}

static const wa_future_vt wa__read_all_vt = {wa__read_all_poll, wa__read_all_drop, "read_all"};

wa_future *wa_read_all_init(wa_read_all *r, wa_stream *s, size_t max)
{
    *r = (wa_read_all){.fut = {&wa__read_all_vt}, .s = s, .max = max};
    return &r->fut;
}

/* copy: read a buffer, write it all, again; at the end, flush (once: a
 * flush per buffer would cost host calls, and on jco a flush of a socket
 * blocks the whole component until the peer has read) */
enum { WA__COPY_READ, WA__COPY_WRITE, WA__COPY_FLUSH, WA__COPY_DONE };

static int wa__copy_poll(wa_future *f, wa_cx *cx)
{
    wa_copy *c = (wa_copy *)f;
    for (;;) {
        int rc;
        switch (c->state) {
        case WA__COPY_READ:
            if ((rc = wa_poll(&c->r.fut, cx)) == WA_PENDING)
                return WA_PENDING;
            wa_drop(&c->r.fut);
            if (rc == WA_ECLOSED) { /* the end of the input: flush */
                wa__write_start(&c->w, c->out, c->buf, 0, 1);
                c->state = WA__COPY_FLUSH;
                continue;
            }
            if (rc < 0)
                return c->state = WA__COPY_DONE, rc;
            wa__write_start(&c->w, c->out, c->buf, c->r.n, 0);
            c->state = WA__COPY_WRITE;
            continue;
        case WA__COPY_WRITE:
        case WA__COPY_FLUSH:
            if ((rc = wa_poll(&c->w.fut, cx)) == WA_PENDING)
                return WA_PENDING;
            wa_drop(&c->w.fut);
            c->copied += c->w.done;
            if (rc < 0 || c->state == WA__COPY_FLUSH)
                return c->state = WA__COPY_DONE, rc;
            wa_read_init(&c->r, c->in, c->buf, sizeof c->buf);
            c->state = WA__COPY_READ;
            continue;
        default:
            return wa__misuse_done(NULL, "copy");
        }
    }
}

static void wa__copy_drop(wa_future *f)
{
    wa_copy *c = (wa_copy *)f;
    if (c->state == WA__COPY_READ)
        wa_drop(&c->r.fut);
    else if (c->state != WA__COPY_DONE)
        wa_drop(&c->w.fut);
    c->state = WA__COPY_DONE;
}

static const wa_future_vt wa__copy_vt = {wa__copy_poll, wa__copy_drop, "copy"};

wa_future *wa_copy_init(wa_copy *c, wa_stream *in, wa_stream *out)
{
    c->fut.vt = &wa__copy_vt;
    c->in = in;
    c->out = out;
    c->copied = 0;
    c->state = WA__COPY_READ;
    wa_read_init(&c->r, in, c->buf, sizeof c->buf);
    return &c->fut;
}

int wa__stream_write_refused(wa_stream *s, const void *buf, size_t len, size_t *n)
{
    (void)s, (void)buf, (void)len, (void)n;
    return WA_EINVAL;
}

int wa__stream_flush_none(wa_stream *s)
{
    (void)s;
    return 0;
}
