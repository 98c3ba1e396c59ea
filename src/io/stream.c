/* Read and write futures over any stream (stream.h): try, and when the
 * stream says not now, await its readiness and try again. */
#include "wasync/stream.h"

/* Polls a started readiness wait: 0 still pending, 1 finished (try again),
 * < 0 it failed. */
static int wa_stream_wait_step(int *waiting, wa_stream_wait *wait, wa_cx *cx)
{
    int rc = wa_poll(&wait->fut, cx);
    if (rc == WA_PENDING)
        return 0;
    wa_drop(&wait->fut);
    *waiting = 0;
    return rc < 0 ? rc : 1;
}

static void wa_stream_unwait(int *waiting, wa_stream_wait *wait)
{
    if (*waiting) {
        wa_drop(&wait->fut);
        *waiting = 0;
    }
}

static int wa_read_poll(wa_future *f, wa_cx *cx)
{
    wa_read *r = (wa_read *)f;
    for (;;) {
        if (r->waiting) {
            int rc = wa_stream_wait_step(&r->waiting, &r->wait, cx);
            if (rc <= 0)
                return rc == 0 ? WA_PENDING : rc;
        }
        int rc = r->s->vt->try_read(r->s, r->buf, r->cap, &r->n);
        if (rc != WA_EAGAIN)
            return rc;
        r->s->vt->ready(r->s, WA_STREAM_READ, &r->wait);
        r->waiting = 1;
    }
}

static void wa_read_drop(wa_future *f)
{
    wa_read *r = (wa_read *)f;
    wa_stream_unwait(&r->waiting, &r->wait);
}

static const wa_future_vt wa_read_vt = {wa_read_poll, wa_read_drop, "read"};

wa_future *wa_read_init(wa_read *r, wa_stream *s, void *buf, size_t cap)
{
    r->fut.vt = &wa_read_vt;
    r->s = s;
    r->buf = buf;
    r->cap = cap;
    r->n = 0;
    r->waiting = 0;
    return &r->fut;
}

static int wa_write_poll(wa_future *f, wa_cx *cx)
{
    wa_write *w = (wa_write *)f;
    for (;;) {
        if (w->waiting) {
            int rc = wa_stream_wait_step(&w->waiting, &w->wait, cx);
            if (rc <= 0)
                return rc == 0 ? WA_PENDING : rc;
        }
        int rc;
        if (w->done < w->len) {
            size_t n = 0;
            rc = w->s->vt->try_write(w->s, w->buf + w->done, w->len - w->done, &n);
            if (rc == 0) {
                w->done += n;
                if (!wa_coop_proceed(cx)) /* a fast stream must not hog the thread */
                    return WA_PENDING;
                continue;
            }
        } else if ((rc = w->s->vt->try_flush(w->s)) == 0) {
            return 0;
        }
        if (rc != WA_EAGAIN)
            return rc;
        w->s->vt->ready(w->s, WA_STREAM_WRITE, &w->wait);
        w->waiting = 1;
    }
}

static void wa_write_drop(wa_future *f)
{
    wa_write *w = (wa_write *)f;
    wa_stream_unwait(&w->waiting, &w->wait);
}

static const wa_future_vt wa_write_vt = {wa_write_poll, wa_write_drop, "write"};

wa_future *wa_write_init(wa_write *w, wa_stream *s, const void *buf, size_t len)
{
    w->fut.vt = &wa_write_vt;
    w->s = s;
    w->buf = buf;
    w->len = len;
    w->done = 0;
    w->waiting = 0;
    return &w->fut;
}
