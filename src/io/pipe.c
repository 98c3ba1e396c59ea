/* SPDX-License-Identifier: MIT */
/* An in-process byte pipe: a bounded ring buffer with a stream at each end
 * (stream.h), for tasks of one runtime. A full pipe makes writers wait; an
 * empty one, readers; closing either end is seen by the other. It has no
 * lock: a task of a many-threads runtime that reads or writes it is
 * refused (its two ends would be used on two workers), and is pointed to
 * an OS pipe, whose fd streams are. */
#include <stdlib.h>

#include "../core/rt.h"
#include "fifo.h"
#include "stream_handle.h"

/* A read or write of the pipe on a worker of a many-threads runtime:
 * reports it and returns WA_EMISUSE; else 0. */
static int wa__pipe_refused(void)
{
#if WA__MT
    if (wa__ticking && wa__ticking->mt)
        return wa__misuse_in(WA_EMISUSE, "wa_pipe_new",
                             "its pipe used by a task of a many-threads runtime, whose workers would use its two "
                             "ends at once with no lock: use an OS pipe (wa_fd_stream_open)");
#endif
    return 0;
}

typedef struct wa__pipe wa__pipe;

typedef struct wa__pipe_end {
    wa_stream base;
    wa__pipe *p;
} wa__pipe_end;

struct wa__pipe {
    wa__pipe_end r, w;
    wa__fifo ring;
    int open[2];         /* [0] the reading end, [1] the writing end */
    wa_waker waiter[2];  /* who waits to read, to write */
};

static bool wa__pipe_can(const wa__pipe *p, int dir)
{
    return dir == WA_STREAM_READ ? p->ring.len > 0 || !p->open[1] : p->ring.len < p->ring.cap || !p->open[0];
}

/* Wakes whoever waits for dir, if it now can. */
static void wa__pipe_kick(wa__pipe *p, int dir)
{
    if (wa__pipe_can(p, dir))
        wa_waker_wake(&p->waiter[dir == WA_STREAM_WRITE]);
}

static int wa__pipe_try_read(wa_stream *s, void *buf, size_t cap, size_t *n)
{
    wa__pipe *p = ((wa__pipe_end *)s)->p;
    if (s != &p->r.base)
        return WA_EINVAL; /* the writing end has nothing to read */
    int rc = wa__pipe_refused();
    if (rc < 0)
        return rc;
    if (!p->ring.len)
        return p->open[1] ? WA_EAGAIN : WA_ECLOSED;
    *n = wa__fifo_take(&p->ring, buf, cap);
    wa__pipe_kick(p, WA_STREAM_WRITE);
    return 0;
}

static int wa__pipe_try_write(wa_stream *s, const void *buf, size_t len, size_t *n)
{
    wa__pipe *p = ((wa__pipe_end *)s)->p;
    if (s != &p->w.base)
        return WA_EINVAL;
    int rc = wa__pipe_refused();
    if (rc < 0)
        return rc;
    if (!p->open[0])
        return WA_ECLOSED;
    size_t room = p->ring.cap - p->ring.len, k = len < room ? len : room;
    if (!k)
        return WA_EAGAIN;
    wa__fifo_put(&p->ring, buf, k);
    *n = k;
    wa__pipe_kick(p, WA_STREAM_READ);
    return 0;
}

/* The bytes are the reader's as soon as they are written. */
/* Readiness: a future that stores its waker in the pipe until it can. */
typedef struct wa__pipe_wait {
    wa_future fut;
    wa__pipe *p;
    int dir;
} wa__pipe_wait;

static int wa__pipe_wait_poll(wa_future *f, wa_cx *cx)
{
    wa__pipe_wait *w = (wa__pipe_wait *)f;
    if (wa__pipe_can(w->p, w->dir))
        return WA_READY;
    wa_waker_store(&w->p->waiter[w->dir == WA_STREAM_WRITE], cx);
    return WA_PENDING;
}

static void wa__pipe_wait_drop(wa_future *f)
{
    wa__pipe_wait *w = (wa__pipe_wait *)f;
    wa_waker_drop(&w->p->waiter[w->dir == WA_STREAM_WRITE]);
}

static const wa_future_vt wa__pipe_wait_vt = {wa__pipe_wait_poll, wa__pipe_wait_drop, "pipe_wait"};

_Static_assert(sizeof(wa__pipe_wait) <= WA_STREAM_WAIT_SIZE, "readiness storage too small");

static wa_future *wa__pipe_ready(wa_stream *s, int dir, void *storage)
{
    wa__pipe_wait *w = storage;
    w->fut.vt = &wa__pipe_wait_vt;
    w->p = ((wa__pipe_end *)s)->p;
    w->dir = dir;
    return &w->fut;
}

static void wa__pipe_close(wa_stream *s)
{
    wa__pipe_end *e = (wa__pipe_end *)s;
    wa__pipe *p = e->p;
    p->open[e == &p->w] = 0;
    wa__pipe_kick(p, WA_STREAM_READ);
    wa__pipe_kick(p, WA_STREAM_WRITE);
    if (!p->open[0] && !p->open[1]) {
        wa_waker_drop(&p->waiter[0]);
        wa_waker_drop(&p->waiter[1]);
        free(p->ring.buf);
        free(p);
    }
}

static const wa_stream_vt wa__pipe_vt = {wa__pipe_try_read, wa__pipe_try_write, wa__stream_flush_none, wa__pipe_ready,
                                        wa__pipe_close};

int wa_pipe_new(size_t cap, wa_stream **reader, wa_stream **writer)
{
    if (!cap)
        return WA_EINVAL;
    wa__pipe *p = calloc(1, sizeof *p);
    if (!p || !(p->ring.buf = malloc(cap))) {
        free(p);
        return WA_ENOMEM;
    }
    p->ring.cap = cap;
    p->open[0] = p->open[1] = 1;
    p->r = (wa__pipe_end){WA_STREAM_INIT(&wa__pipe_vt), p};
    p->w = (wa__pipe_end){WA_STREAM_INIT(&wa__pipe_vt), p};
    *reader = &p->r.base;
    *writer = &p->w.base;
    int rc = wa__stream_handle(0, reader); /* (closes the reading end if not) */
    if (rc < 0) {
        wa__pipe_close(&p->w.base);
        return rc;
    }
    if ((rc = wa__stream_handle(0, writer)) < 0)
        wa_stream_close(reader);
    return rc;
}
