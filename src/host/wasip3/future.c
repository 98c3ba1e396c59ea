/* SPDX-License-Identifier: MIT */
/* A Component Model future<T> read or written as a wasync future
 * (component.h): an async future.read into the caller's storage, or
 * future.write from it; BLOCKED waits for the end's FUTURE_READ or
 * FUTURE_WRITE event through a waitable registration. Dropped before that,
 * it takes the end out of the set and cancels the copy (synchronously), so
 * the storage is the caller's again. The end is dropped when done. */
#include <stdbool.h>

#include "builtins.h"
#include "reactor.h"
#include "wasync/component.h"

/* The copy's result: the value came (or was taken), or the other end went
 * without it. */
static int wa__future_read_status(uint32_t r)
{
    return wa__wasip3_copy_status(r) == WA__WASIP3_COPY_COMPLETED ? 0 : WA_ECLOSED;
}

/* Ends f's hold on its end (which is out of the set). */
static void wa__future_read_release(wa_wasip3_future_read *f)
{
    if (f->wait.key)
        wa_waitable_deregister(f->rt, f->wait.key);
    wa_wasip3_stats *st = f->rt ? wa__wasip3_stats_of(f->rt) : NULL;
    if (st)
        st->end_drops++;
    wa__wasip3_live_ends--;
    (f->writing ? f->t->drop_writable : f->t->drop_readable)(f->end);
    f->end = 0;
}

static int wa__future_read_poll(wa_future *fu, wa_cx *cx)
{
    wa_wasip3_future_read *f = (wa_wasip3_future_read *)fu;
    if (!f->end)
        return wa_misuse(WA_EMISUSE, "poll of a finished wa_wasip3_future_read");
    if (!f->rt) {
        f->rt = cx->rt;
        wa_wasip3_stats *st = wa__wasip3_stats_of(cx->rt);
        if (st)
            st->copies++;
        uint32_t r = f->writing ? f->t->write(f->end, f->value) : f->t->read(f->end, f->value);
        if (r != WA__WASIP3_BLOCKED) {
            wa__future_read_release(f);
            return wa__future_read_status(r);
        }
        if (st)
            st->copies_blocked++;
        int rc = wa_waitable_register(cx->rt, f->end, &f->wait.key);
        if (rc < 0) /* (key stays 0; the caller's drop cancels the read) */
            return rc;
        wa_waitable_wait_init(&f->wait, f->wait.key);
    }
    int rc = wa_poll(&f->wait.fut, cx);
    if (rc == WA_PENDING)
        return rc;
    uint32_t r = 0;
    if (rc == 0)
        wa_waitable_payload(f->rt, f->wait.key, &r);
    wa__future_read_release(f);
    return rc < 0 ? rc : wa__future_read_status(r);
}

static void wa__future_read_drop(wa_future *fu)
{
    wa_wasip3_future_read *f = (wa_wasip3_future_read *)fu;
    if (!f->end)
        return;
    if (f->rt) { /* a read is in flight, unless its event came */
        bool came = f->wait.key && f->wait.ready;
        if (f->wait.key)
            wa_drop(&f->wait.fut); /* out of the set before the cancel */
        if (!came) {
            wa_wasip3_stats *st = wa__wasip3_stats_of(f->rt);
            if (st)
                st->copy_cancels++;
            if (f->writing && wa__wasip3_copy_status(f->t->cancel_write(f->end)) == WA__WASIP3_COPY_CANCELLED)
                return; /* not done: a writable end the spec does not let go (a trap) */
            if (!f->writing)
                f->t->cancel_read(f->end);
        }
    }
    wa__future_read_release(f);
}

static const wa_future_vt wa__future_read_vt = {wa__future_read_poll, wa__future_read_drop, "wasip3_future_read"};

static wa_future *wa__future_copy_init(wa_wasip3_future_read *f, const wa_wasip3_future_type *t, uint32_t end,
                                      void *value, int writing)
{
    f->fut.vt = &wa__future_read_vt;
    f->t = t;
    f->end = end;
    f->value = value;
    f->writing = writing;
    f->rt = NULL;
    f->wait.key = 0; /* (keys are never 0) */
    f->wait.ready = 0;
    wa__wasip3_live_ends++; /* taken */
    return &f->fut;
}

wa_future *wa_wasip3_future_read_init(wa_wasip3_future_read *f, const wa_wasip3_future_type *t, uint32_t readable,
                                      void *value)
{
    return wa__future_copy_init(f, t, readable, value, 0);
}

wa_future *wa_wasip3_future_write_init(wa_wasip3_future_write *f, const wa_wasip3_future_type *t, uint32_t writable,
                                       const void *value)
{
    return wa__future_copy_init(f, t, writable, (void *)value, 1);
}
