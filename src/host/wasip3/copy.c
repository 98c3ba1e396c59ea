/* SPDX-License-Identifier: MIT */
/* A copy between a Component Model end and memory as a wasync future
 * (component.h): a future<T>'s value, or elements of a stream<T>. The
 * async read or write either finishes at once or says BLOCKED, and then
 * finishes with the end's event, waited for through a waitable
 * registration. Dropped before that, it takes the end out of the set and
 * cancels the copy (synchronously), so the memory is the caller's again.
 * A future's end is taken and dropped when done; a stream's is borrowed,
 * to copy on. */
#include <stdbool.h>

#include "builtins.h"
#include "reactor.h"
#include "wasync/component.h"

static const wa_wasip3_stream_type *wa__copy_stream(const wa_wasip3_copy *f) { return f->t; }
static const wa_wasip3_future_type *wa__copy_future(const wa_wasip3_copy *f) { return f->t; }

/* The end's cancel of the copy in flight, and its drop. */
static uint32_t wa__copy_cancel(wa_wasip3_copy *f)
{
    if (f->n)
        return (f->writing ? wa__copy_stream(f)->cancel_write : wa__copy_stream(f)->cancel_read)(f->end);
    return (f->writing ? wa__copy_future(f)->cancel_write : wa__copy_future(f)->cancel_read)(f->end);
}

static void wa__copy_drop_end(wa_wasip3_copy *f)
{
    if (f->n)
        (f->writing ? wa__copy_stream(f)->drop_writable : wa__copy_stream(f)->drop_readable)(f->end);
    else
        (f->writing ? wa__copy_future(f)->drop_writable : wa__copy_future(f)->drop_readable)(f->end);
}

/* The host's copy call. */
static uint32_t wa__copy_start(wa_wasip3_copy *f)
{
    if (f->n)
        return f->writing ? wa__copy_stream(f)->write(f->end, f->value, f->n)
                          : wa__copy_stream(f)->read(f->end, f->value, f->n);
    return f->writing ? wa__copy_future(f)->write(f->end, f->value) : wa__copy_future(f)->read(f->end, f->value);
}

/* The copy's result: 0 when something moved (a future's value, a
 * stream's elements), WA_ECLOSED when the other end went first. */
static int wa__copy_status(wa_wasip3_copy *f, uint32_t r)
{
    f->count = wa__wasip3_copy_count(r);
    if (f->n)
        return f->count ? 0 : WA_ECLOSED;
    return wa__wasip3_copy_status(r) == WA__WASIP3_COPY_COMPLETED ? 0 : WA_ECLOSED;
}

/* Ends f's hold on its end (which is out of the set): a future's end is
 * dropped. */
static void wa__copy_release(wa_wasip3_copy *f)
{
    if (f->wait.key)
        wa_waitable_deregister(f->rt, f->wait.key);
    f->wait.key = 0;
    if (!f->borrowed) {
        wa_wasip3_stats *st = f->rt ? wa__wasip3_stats_of(f->rt) : NULL;
        if (st)
            st->end_drops++;
        wa__wasip3_live_ends--;
        wa__copy_drop_end(f);
    }
    f->end = 0;
}

/* Starts f's copy (again, after a rehome) from the calling export call: 1
 * while it is in flight, its wait initialised, else its result. A read is
 * bound to that call until its event (reactor.h). */
static int wa__copy_begin(wa_wasip3_copy *f)
{
    wa_wasip3_stats *st = wa__wasip3_stats_of(f->rt);
    if (st)
        st->copies++;
    uint32_t r = wa__copy_start(f);
    if (r != WA__WASIP3_BLOCKED) {
        wa__copy_release(f);
        return wa__copy_status(f, r);
    }
    if (st)
        st->copies_blocked++;
    if (!f->wait.key) {
        int rc = wa_waitable_register(f->rt, f->end, &f->wait.key);
        if (rc < 0) /* (key stays 0; the caller's drop cancels the copy) */
            return rc;
    }
    if (!f->writing)
        wa__wasip3_bind(f->rt, f->wait.key, f->n ? wa__copy_stream(f)->cancel_read : wa__copy_future(f)->cancel_read);
    wa_waitable_wait_init(&f->wait, f->wait.key);
    return 1;
}

/* A read's result that says a rehome cancelled it before it got anything. */
static bool wa__copy_moved(const wa_wasip3_copy *f, uint32_t r)
{
    return !f->writing && wa__wasip3_copy_status(r) == WA__WASIP3_COPY_CANCELLED && !wa__wasip3_copy_count(r);
}

static int wa__copy_poll(wa_future *fu, wa_cx *cx)
{
    wa_wasip3_copy *f = (wa_wasip3_copy *)fu;
    int rc;
    if (!f->t)
        return WA_EINVAL; /* (refused at init, and reported there) */
    if (!f->end)
        return wa_misuse(WA_EMISUSE, "poll of a finished wasip3 copy");
    if (!f->rt) {
        f->rt = cx->rt;
        if ((rc = wa__copy_begin(f)) != 1)
            return rc;
    }
    for (;;) {
        rc = wa_poll(&f->wait.fut, cx);
        if (rc == WA_PENDING)
            return rc;
        uint32_t r = 0;
        if (rc == 0)
            wa_waitable_payload(f->rt, f->wait.key, &r);
        if (rc == 0 && wa__copy_moved(f, r)) {
            if ((rc = wa__copy_begin(f)) == 1)
                continue;
            return rc;
        }
        wa__copy_release(f);
        return rc < 0 ? rc : wa__copy_status(f, r);
    }
}

static void wa__copy_drop(wa_future *fu)
{
    wa_wasip3_copy *f = (wa_wasip3_copy *)fu;
    if (!f->end)
        return;
    if (f->rt) { /* a copy is in flight, unless its event came */
        uint32_t r = 0;
        bool came = f->wait.key && f->wait.ready;
        if (came)
            wa_waitable_payload(f->rt, f->wait.key, &r);
        if (f->wait.key)
            wa_drop(&f->wait.fut); /* out of the set before the cancel */
        if (!came) {
            wa_wasip3_stats *st = wa__wasip3_stats_of(f->rt);
            if (st)
                st->copy_cancels++;
            r = wa__copy_cancel(f);
            /* a future's writable end that wrote nothing is not let go:
             * the spec traps on its drop */
            if (f->writing && !f->n && wa__wasip3_copy_status(r) == WA__WASIP3_COPY_CANCELLED)
                return;
        }
        f->count = wa__wasip3_copy_count(r);
    }
    wa__copy_release(f);
}

static const wa_future_vt wa__copy_vt = {wa__copy_poll, wa__copy_drop, "wasip3 copy"};

static wa_future *wa__copy_init(wa_wasip3_copy *f, const void *t, uint32_t end, void *value, uint32_t n, int writing)
{
    f->fut.vt = &wa__copy_vt;
    f->t = t;
    f->end = end;
    f->value = value;
    f->n = n;
    f->count = 0;
    f->writing = writing;
    f->borrowed = n != 0;
    f->rt = NULL;
    f->wait.key = 0; /* (keys are never 0) */
    f->wait.ready = 0;
    if (!f->borrowed)
        wa__wasip3_live_ends++; /* taken */
    return &f->fut;
}

wa_future *wa_wasip3_future_read_init(wa_wasip3_future_read *f, const wa_wasip3_future_type *t, uint32_t readable,
                                      void *value)
{
    return wa__copy_init(f, t, readable, value, 0, 0);
}

wa_future *wa_wasip3_future_write_init(wa_wasip3_future_write *f, const wa_wasip3_future_type *t, uint32_t writable,
                                       const void *value)
{
    return wa__copy_init(f, t, writable, (void *)value, 0, 1);
}

/* A stream copy of no element would finish at once without moving
 * anything, and look like the other end's drop: refused. */
static wa_future *wa__copy_stream_init(wa_wasip3_copy *f, const wa_wasip3_stream_type *t, uint32_t end, void *buf,
                                       uint32_t n, int writing)
{
    if (!t || !n || !buf || !end) {
        f->fut.vt = &wa__copy_vt;
        f->t = NULL;
        f->end = 0;
        wa_misuse(WA_EINVAL, writing ? "wa_wasip3_stream_write_init: no type, end, buffer or element"
                                     : "wa_wasip3_stream_read_init: no type, end, buffer or element");
        return &f->fut;
    }
    return wa__copy_init(f, t, end, buf, n, writing);
}

wa_future *wa_wasip3_stream_read_init(wa_wasip3_copy *f, const wa_wasip3_stream_type *t, uint32_t readable, void *buf,
                                      uint32_t n)
{
    return wa__copy_stream_init(f, t, readable, buf, n, 0);
}

wa_future *wa_wasip3_stream_write_init(wa_wasip3_copy *f, const wa_wasip3_stream_type *t, uint32_t writable,
                                       const void *buf, uint32_t n)
{
    return wa__copy_stream_init(f, t, writable, (void *)buf, n, 1);
}
