/* SPDX-License-Identifier: MIT */
/* wasync streams over the ends of a Component Model stream<u8>
 * (component.h), and stdio on WASI 0.3.
 *
 * The stream vtable is non-blocking: try, else await readiness and try
 * again. A copy of this host is a completion instead: stream.read/write
 * hands the caller's buffer to the host, and BLOCKED keeps it there until
 * the end's event gives the count. So try_read/try_write start a copy and
 * say WA_EAGAIN while it is BLOCKED; readiness is the end's event; the
 * retry (the stream layer retries with the same buffer) takes the count.
 * A read or write dropped while its copy is BLOCKED drops its readiness
 * first, and that drop cancels the copy, so the buffer is the caller's
 * again before the operation is gone; bytes a cancelled read got are kept
 * for the next read. Each end is registered at its first BLOCKED copy, for
 * the stream's life, and joined to the set only while waited on.
 *
 * A direction may come with the future of the host's result (TCP: receive's
 * and send's result<_, error-code>). Given a decoder, the result is read
 * from the first BLOCKED copy on, alongside it: an error ends the direction
 * with that error even if the host never ends the stream (preview3-shim
 * does not end receive's stream on a reset), and a stream the host ended
 * waits for its result, so a reset is not taken for the end of the
 * stream. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../../io/stream_handle.h"
#include "builtins.h"
#include "reactor.h"
#include "stream.h"
#include "wasync/component.h"
#include "wasync/stream.h"

/* A direction's copy: none; one the host holds; one whose result came and
 * is not yet taken; or none ever again (the other end is gone). */
enum { WA__WASIP3_STREAM_IDLE, WA__WASIP3_STREAM_BLOCKED, WA__WASIP3_STREAM_DONE, WA__WASIP3_STREAM_ENDED };

typedef struct wa__wasip3_stream_dir {
    uint32_t end;        /* 0: the direction is absent */
    int copy;            /* WA__WASIP3_STREAM_* */
    uint32_t result;     /* a DONE copy's */
    unsigned char *buf;  /* a BLOCKED copy's (the operation's) */
    wa_waitable_key key; /* 0 until the first BLOCKED copy */
    /* The future of the host's result, until read (0: none), its read
     * (IDLE, or BLOCKED into value), its registration and wait, and what
     * it said: 0, or the host's error, which ends the direction. */
    uint32_t res;
    int res_copy;
    wa_waitable_key res_key;
    wa_waitable_wait res_wait;
    int err;
    char why[WA_REASON_MAX]; /* err in the host's words (result_error's) */
    _Alignas(8) unsigned char value[40]; /* (the largest: wasi:http's trailers, http.h) */
} wa__wasip3_stream_dir;

typedef struct wa__wasip3_stream {
    wa_stream base;
    wa_rt *rt;
    const wa_wasip3_stream_type *t;
    wa__wasip3_stream_dir dir[2]; /* [0] the readable end, [1] the writable one */
    const wa_wasip3_future_type *result_t;
    int (*result_error)(const unsigned char *value, int dir, char *why); /* NULL: read at close only */
    uint32_t owner;      /* what the ends come from (a TCP socket), or 0 */
    void (*drop_owner)(uint32_t);
    unsigned char *kept; /* what a cancelled read got, for the next read */
    size_t kept_len, kept_off;
    int write_ended;     /* wa__wasip3_stream_end_write dropped the writable end */
} wa__wasip3_stream;

/* Readiness: the end's event for a BLOCKED copy. */
typedef struct wa__wasip3_stream_wait {
    wa_future fut;
    wa__wasip3_stream *s;
    wa_waitable_wait wait;
    unsigned char i;
    unsigned char armed;   /* wait is live */
    unsigned char rarmed;  /* the direction's res_wait is live */
    unsigned char yielded; /* no copy to wait for: one yield, then ready */
} wa__wasip3_stream_wait;

_Static_assert(sizeof(wa__wasip3_stream_wait) <= WA_STREAM_WAIT_SIZE, "readiness storage too small");

static wa_wasip3_stats *wa__wasip3_stream_stats(wa__wasip3_stream *s)
{
    static wa_wasip3_stats nowhere; /* (another backend: counted nowhere) */
    wa_wasip3_stats *st = wa__wasip3_stats_of(s->rt);
    return st ? st : &nowhere;
}

/* Takes a finished copy's result: 0 with *n > 0, WA_ECLOSED once the
 * other end is gone, WA_EAGAIN for a copy that moved nothing. */
static int wa__wasip3_stream_take(wa__wasip3_stream_dir *d, size_t *n)
{
    *n = wa__wasip3_copy_count(d->result);
    d->copy = wa__wasip3_copy_status(d->result) == WA__WASIP3_COPY_DROPPED ? WA__WASIP3_STREAM_ENDED : WA__WASIP3_STREAM_IDLE;
    if (*n)
        return 0;
    return d->copy == WA__WASIP3_STREAM_ENDED ? WA_ECLOSED : WA_EAGAIN;
}

/* Lets d's result future go (its read not in flight): out of the set,
 * dropped. */
static void wa__wasip3_stream_result_release(wa__wasip3_stream *s, wa__wasip3_stream_dir *d)
{
    if (d->res_key)
        wa_waitable_deregister(s->rt, d->res_key);
    d->res_key = 0;
    wa__wasip3_stream_stats(s)->end_drops++;
    wa__wasip3_live_ends--;
    s->result_t->drop_readable(d->res);
    d->res = 0;
}

/* Whether a read's result r says a rehome cancelled it (reactor.h). */
static bool wa__wasip3_stream_moved(uint32_t r) { return wa__wasip3_copy_status(r) == WA__WASIP3_COPY_CANCELLED; }

/* d's result read finished with r: what it said (decoded, which frees
 * what the host lowered) is d->err, and the future goes; a read a rehome
 * cancelled is to start again. */
static void wa__wasip3_stream_result_came(wa__wasip3_stream *s, wa__wasip3_stream_dir *d, uint32_t r)
{
    if (wa__wasip3_stream_moved(r)) {
        d->res_copy = WA__WASIP3_STREAM_IDLE;
        return;
    }
    if (wa__wasip3_copy_status(r) == WA__WASIP3_COPY_COMPLETED && s->result_error)
        d->err = s->result_error(d->value, (int)(d - s->dir), d->why);
    wa__wasip3_stream_result_release(s, d);
}

/* Starts the read of d's result unless it is under way: whether it is
 * (BLOCKED: registered and bound, reactor.h). Without a registration the
 * read is cancelled, for the close to read. */
static bool wa__wasip3_stream_result_pending(wa__wasip3_stream *s, wa__wasip3_stream_dir *d)
{
    if (!s->result_error || !d->res)
        return false;
    if (d->res_copy == WA__WASIP3_STREAM_IDLE) {
        wa_wasip3_stats *st = wa__wasip3_stream_stats(s);
        st->copies++;
        uint32_t r = s->result_t->read(d->res, d->value);
        if (r == WA__WASIP3_BLOCKED) {
            st->copies_blocked++;
            if (d->res_key || wa_waitable_register(s->rt, d->res, &d->res_key) == 0) {
                d->res_copy = WA__WASIP3_STREAM_BLOCKED;
                wa__wasip3_bind(s->rt, d->res_key, s->result_t->cancel_read);
                return true;
            }
            st->copy_cancels++;
            r = s->result_t->cancel_read(d->res);
        }
        wa__wasip3_stream_result_came(s, d, r);
        return false;
    }
    return true;
}

/* d's error (its result's), its words the stream's reason in d's
 * direction: each operation that meets it says why. */
static int wa__wasip3_stream_failed(wa__wasip3_stream *s, wa__wasip3_stream_dir *d)
{
    wa_stream_set_reason(&s->base, d == &s->dir[1] ? WA_STREAM_WRITE : WA_STREAM_READ, NULL, d->why);
    return d->err;
}

/* The end of a direction the host ended: its result's error, else
 * WA_ECLOSED; WA_EAGAIN while the result is to come. */
static int wa__wasip3_stream_ended(wa__wasip3_stream *s, wa__wasip3_stream_dir *d)
{
    if (wa__wasip3_stream_result_pending(s, d))
        return WA_EAGAIN;
    return d->err < 0 ? wa__wasip3_stream_failed(s, d) : WA_ECLOSED;
}

/* Starts a copy of direction i over buf (borrowed: the host's while
 * BLOCKED) unless one is under way, and takes its result when it came. */
static int wa__wasip3_stream_copy(wa__wasip3_stream *s, int i, const void *buf, size_t len, size_t *n)
{
    wa__wasip3_stream_dir *d = &s->dir[i];
    if (!d->end)
        return i && s->write_ended ? WA_ECLOSED : WA_EINVAL;
    if (d->err < 0) /* (a copy it cut short was cancelled) */
        return wa__wasip3_stream_failed(s, d);
    if (d->copy == WA__WASIP3_STREAM_ENDED)
        return wa__wasip3_stream_ended(s, d);
    if (d->copy == WA__WASIP3_STREAM_IDLE) {
        wa_wasip3_stats *st = wa__wasip3_stream_stats(s);
        uint32_t k = len > UINT32_MAX ? UINT32_MAX : (uint32_t)len;
        st->copies++;
        uint32_t r = i ? s->t->write(d->end, buf, k) : s->t->read(d->end, (void *)buf, k);
        if (r == WA__WASIP3_BLOCKED) {
            st->copies_blocked++;
            d->copy = WA__WASIP3_STREAM_BLOCKED;
            d->buf = (unsigned char *)buf;
            return WA_EAGAIN;
        }
        d->result = r;
        d->copy = WA__WASIP3_STREAM_DONE;
    }
    if (d->copy == WA__WASIP3_STREAM_BLOCKED)
        return WA_EAGAIN;
    int rc = wa__wasip3_stream_take(d, n);
    return rc == WA_ECLOSED ? wa__wasip3_stream_ended(s, d) : rc;
}

static int wa__wasip3_stream_try_read(wa_stream *st, void *buf, size_t cap, size_t *n)
{
    wa__wasip3_stream *s = (wa__wasip3_stream *)st;
    if (s->kept) {
        size_t k = s->kept_len - s->kept_off;
        *n = k < cap ? k : cap;
        memcpy(buf, s->kept + s->kept_off, *n);
        if ((s->kept_off += *n) == s->kept_len) {
            free(s->kept);
            s->kept = NULL;
        }
        return 0;
    }
    return wa__wasip3_stream_copy(s, 0, buf, cap, n);
}

static int wa__wasip3_stream_try_write(wa_stream *st, const void *buf, size_t len, size_t *n)
{
    return wa__wasip3_stream_copy((wa__wasip3_stream *)st, 1, buf, len, n);
}

/* A COMPLETED write was taken by the reader: nothing is left to flush. */
static int wa__wasip3_stream_try_flush(wa_stream *st)
{
    wa__wasip3_stream *s = (wa__wasip3_stream *)st;
    return s->dir[1].end ? 0 : s->write_ended ? WA_ECLOSED : WA_EINVAL;
}

/* Cancels direction i's BLOCKED copy (its end out of the set: the cancel
 * is synchronous) and keeps what it did, its operation being gone: the
 * bytes a read got are kept for the next read (lost if out of memory). */
static void wa__wasip3_stream_cancel(wa__wasip3_stream *s, int i, bool came)
{
    wa__wasip3_stream_dir *d = &s->dir[i];
    if (came) { /* the event was handed over, not yet taken */
        wa_waitable_payload(s->rt, d->key, &d->result);
    } else {
        wa__wasip3_stream_stats(s)->copy_cancels++;
        d->result = i ? s->t->cancel_write(d->end) : s->t->cancel_read(d->end);
    }
    size_t n;
    wa__wasip3_stream_take(d, &n);
    if (i == 0 && n && (s->kept = malloc(n))) {
        memcpy(s->kept, d->buf, n);
        s->kept_len = n;
        s->kept_off = 0;
    }
}

static int wa__wasip3_stream_ready_poll(wa_future *f, wa_cx *cx)
{
    wa__wasip3_stream_wait *r = (wa__wasip3_stream_wait *)f;
    wa__wasip3_stream_dir *d = &r->s->dir[r->i];
    int rc;
    if (!r->armed && !r->rarmed) { /* a copy that moved nothing: try again, but yield first */
        if (r->yielded)
            return WA_READY;
        r->yielded = 1;
        wa_waker_wake_by_ref(&cx->waker);
        return WA_PENDING;
    }
    while (r->rarmed) { /* an ok result lets the copy go on */
        if ((rc = wa_poll(&d->res_wait.fut, cx)) < 0)
            return rc;
        if (rc != WA_READY)
            break;
        uint32_t p;
        r->rarmed = 0;
        wa_waitable_payload(r->s->rt, d->res_key, &p);
        wa__wasip3_stream_result_came(r->s, d, p);
        if (d->err < 0)
            return WA_READY;
        if (wa__wasip3_stream_result_pending(r->s, d)) { /* (moved: read again, from here) */
            wa_waitable_wait_init(&d->res_wait, d->res_key);
            r->rarmed = 1;
        } else if (!r->armed) {
            return WA_READY;
        }
    }
    if (!r->armed)
        return WA_PENDING;
    rc = wa_poll(&r->wait.fut, cx);
    if (rc != WA_READY)
        return rc; /* (an error: the drop cancels the copy) */
    wa_waitable_payload(r->s->rt, d->key, &d->result);
    d->copy = WA__WASIP3_STREAM_DONE;
    return WA_READY;
}

/* A result read whose event did not come stays in flight, out of the set,
 * for the next wait or the close. */
static void wa__wasip3_stream_ready_drop(wa_future *f)
{
    wa__wasip3_stream_wait *r = (wa__wasip3_stream_wait *)f;
    wa__wasip3_stream_dir *d = &r->s->dir[r->i];
    if (r->rarmed) {
        r->rarmed = 0;
        bool came = d->res_wait.ready != 0;
        wa_drop(&d->res_wait.fut);
        if (came) {
            uint32_t p;
            wa_waitable_payload(r->s->rt, d->res_key, &p);
            wa__wasip3_stream_result_came(r->s, d, p);
        }
    }
    if (!r->armed)
        return;
    r->armed = 0;
    bool came = r->wait.ready != 0;
    wa_drop(&r->wait.fut); /* out of the set before a cancel */
    if (r->s->dir[r->i].copy == WA__WASIP3_STREAM_BLOCKED)
        wa__wasip3_stream_cancel(r->s, r->i, came);
}

static const wa_future_vt wa__wasip3_stream_ready_vt = {wa__wasip3_stream_ready_poll, wa__wasip3_stream_ready_drop, "stream_ready"};

static wa_future *wa__wasip3_stream_ready(wa_stream *st, int dir, void *storage)
{
    wa__wasip3_stream *s = (wa__wasip3_stream *)st;
    int i = dir == WA_STREAM_WRITE;
    wa__wasip3_stream_dir *d = &s->dir[i];
    bool watch = (d->copy == WA__WASIP3_STREAM_BLOCKED || d->copy == WA__WASIP3_STREAM_ENDED) && wa__wasip3_stream_result_pending(s, d);
    int rc = 0;
    if (d->copy == WA__WASIP3_STREAM_BLOCKED && !d->key)
        rc = wa_waitable_register(s->rt, d->end, &d->key);
    if (rc < 0) { /* no wait: the buffer comes back now (the result read waits for the close) */
        if (d->copy == WA__WASIP3_STREAM_BLOCKED)
            wa__wasip3_stream_cancel(s, i, false);
        return wa_stream_error_init(storage, rc);
    }
    wa__wasip3_stream_wait *r = storage;
    *r = (wa__wasip3_stream_wait){.fut = {&wa__wasip3_stream_ready_vt}, .s = s, .i = i, .armed = d->copy == WA__WASIP3_STREAM_BLOCKED, .rarmed = watch};
    if (r->armed)
        wa_waitable_wait_init(&r->wait, d->key);
    if (watch)
        wa_waitable_wait_init(&d->res_wait, d->res_key);
    return &r->fut;
}

/* A host's result future at the close (its stream's end dropped): read
 * if it is there, else its read cancelled, since a close cannot wait (and
 * the bytes the host took are out already); a value that came is decoded
 * for what the host lowered in it. */
static void wa__wasip3_stream_drop_result(wa__wasip3_stream *s, wa__wasip3_stream_dir *d)
{
    wa_wasip3_stats *st = wa__wasip3_stream_stats(s);
    uint32_t r = WA__WASIP3_BLOCKED;
    if (d->res_copy == WA__WASIP3_STREAM_IDLE) {
        st->copies++;
        if ((r = s->result_t->read(d->res, d->value)) == WA__WASIP3_BLOCKED)
            st->copies_blocked++;
    } else if (d->res_key) { /* (out of the set: no wait is left) */
        if (!wa__wasip3_bound(s->rt, d->res_key)) /* a rehome's event, not taken */
            wa_waitable_payload(s->rt, d->res_key, &r);
        wa_waitable_deregister(s->rt, d->res_key);
        d->res_key = 0;
    }
    if (r == WA__WASIP3_BLOCKED) {
        st->copy_cancels++;
        r = s->result_t->cancel_read(d->res);
    }
    if (wa__wasip3_stream_moved(r))
        wa__wasip3_stream_result_release(s, d);
    else
        wa__wasip3_stream_result_came(s, d, r);
}

/* No copy is in flight: the stream layer let every operation go, and a
 * dropped one cancelled its copy. */
static void wa__wasip3_stream_close(wa_stream *st)
{
    wa__wasip3_stream *s = (wa__wasip3_stream *)st;
    for (int i = 0; i < 2; i++) {
        wa__wasip3_stream_dir *d = &s->dir[i];
        if (d->key) /* (out of the set: no wait is left) */
            wa_waitable_deregister(s->rt, d->key);
        if (!d->end)
            continue;
        wa__wasip3_stream_stats(s)->end_drops++;
        wa__wasip3_live_ends--;
        (i ? s->t->drop_writable : s->t->drop_readable)(d->end);
    }
    for (int i = 0; i < 2; i++)
        if (s->dir[i].res)
            wa__wasip3_stream_drop_result(s, &s->dir[i]);
    if (s->owner) /* last: its ends are gone */
        s->drop_owner(s->owner);
    free(s->kept);
    free(s);
}

static const wa_stream_vt wa__wasip3_stream_vt = {wa__wasip3_stream_try_read, wa__wasip3_stream_try_write, wa__wasip3_stream_try_flush, wa__wasip3_stream_ready,
                                       wa__wasip3_stream_close};

uint32_t wa__wasip3_stream_owner(wa_stream *st, void (*drop_owner)(uint32_t))
{
    wa__wasip3_stream *s = (wa__wasip3_stream *)st;
    return st->vt == &wa__wasip3_stream_vt && s->drop_owner == drop_owner ? s->owner : 0;
}

void wa__wasip3_stream_end_write(wa_stream *st)
{
    wa__wasip3_stream *s = (wa__wasip3_stream *)st;
    wa__wasip3_stream_dir *d = &s->dir[1];
    if (!d->end)
        return;
    if (d->key) /* (no write in flight: no wait is left) */
        wa_waitable_deregister(s->rt, d->key);
    d->key = 0;
    wa__wasip3_stream_stats(s)->end_drops++;
    wa__wasip3_live_ends--;
    s->t->drop_writable(d->end);
    d->end = 0;
    s->write_ended = 1;
}

int wa__wasip3_stream_open_owned(wa_rt *rt, const wa_wasip3_stream_type *t, uint32_t readable, uint32_t writable,
                                const wa_wasip3_future_type *result_t, const uint32_t result[2],
                                int (*result_error)(const unsigned char *value, int dir, char *why), uint32_t owner,
                                void (*drop_owner)(uint32_t), wa_stream **out)
{
    wa__wasip3_stream *s = calloc(1, sizeof *s);
    if (!s) {
        wa__wasip3_live_ends -= !!readable + !!writable + !!result[0] + !!result[1];
        if (readable)
            t->drop_readable(readable);
        if (writable)
            t->drop_writable(writable);
        for (int i = 0; i < 2; i++)
            if (result[i])
                result_t->drop_readable(result[i]);
        if (owner)
            drop_owner(owner);
        return WA_ENOMEM;
    }
    s->base.vt = &wa__wasip3_stream_vt;
    s->rt = rt;
    s->t = t;
    s->dir[0].end = readable;
    s->dir[1].end = writable;
    s->result_t = result_t;
    s->result_error = result_error;
    s->dir[0].res = result[0];
    s->dir[1].res = result[1];
    s->owner = owner;
    s->drop_owner = drop_owner;
    *out = &s->base;
    return 0;
}

int wa__wasip3_stream_open(wa_rt *rt, const wa_wasip3_stream_type *t, uint32_t readable, uint32_t writable, wa_stream **s)
{
    wa__wasip3_live_ends += !!readable + !!writable; /* taken */
    return wa__wasip3_stream_open_owned(rt, t, readable, writable, NULL, (uint32_t[2]){0}, NULL, 0, NULL, s);
}

int wa_wasip3_stream_open(wa_rt *rt, const wa_wasip3_stream_type *t, uint32_t readable, uint32_t writable,
                          wa_stream **s)
{
    return wa__stream_handle(wa__wasip3_stream_open(rt, t, readable, writable, s), s);
}

int wa_wasip3_stream_new(wa_rt *rt, const wa_wasip3_stream_type *t, wa_stream **reader, wa_stream **writer)
{
    uint64_t ends = t->new_();
    wa__wasip3_live_ends += 2;
    int rc = wa__stream_handle(
        wa__wasip3_stream_open_owned(rt, t, (uint32_t)ends, 0, NULL, (uint32_t[2]){0}, NULL, 0, NULL, reader), reader);
    if (rc < 0) {
        wa__wasip3_live_ends--;
        t->drop_writable((uint32_t)(ends >> 32));
        return rc;
    }
    if ((rc = wa__stream_handle(wa__wasip3_stream_open_owned(rt, t, 0, (uint32_t)(ends >> 32), NULL, (uint32_t[2]){0},
                                                             NULL, 0, NULL, writer),
                                 writer)) < 0)
        wa_stream_close(reader);
    return rc;
}

int wa_stdio_open(wa_rt *rt, int fd, wa_stream **s)
{
    uint32_t r, w, result;
    switch (fd) {
    case 0:
        wa__wasip3_stdin_read_via_stream(&r, &result);
        return wa__stream_handle(wa__wasip3_stream_open_owned(rt, &wa_wasip3_cli_bytes, r, 0, &wa_wasip3_cli_result,
                                                             (uint32_t[2]){result, 0}, NULL, 0, NULL, s),
                                 s);
    case 1:
    case 2: {
        uint64_t ends = wa_wasip3_cli_bytes.new_();
        wa__wasip3_live_ends += 2;
        r = (uint32_t)ends;
        w = (uint32_t)(ends >> 32);
        result = wa__wasip3_std_write_via_stream(fd, r);
        return wa__stream_handle(wa__wasip3_stream_open_owned(rt, &wa_wasip3_cli_bytes, 0, w, &wa_wasip3_cli_result,
                                                             (uint32_t[2]){0, result}, NULL, 0, NULL, s),
                                 s);
    }
    default:
        return WA_EINVAL;
    }
}
