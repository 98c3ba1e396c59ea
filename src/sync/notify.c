/* SPDX-License-Identifier: MIT */
/* Notify: wake one waiter or all of them. */
#include "waitq.h"

void wa_notify_init(wa_notify *n)
{
    n->q.head = n->q.tail = NULL;
    n->permit = 0;
}

void wa_notify_one(wa_notify *n)
{
    if (n->q.head)
        wa_waitq_grant_head(&n->q);
    else
        n->permit = 1;
}

/* Waiters woken by notify_all own nothing to pass on: n is 0. */
void wa_notify_all(wa_notify *n)
{
    for (wa_waiter *w = n->q.head; w; w = w->next)
        w->n = 0;
    wa_waitq_grant_all(&n->q);
}

static int wa_notified_poll(wa_future *f, wa_cx *cx)
{
    wa_notified *nf = (wa_notified *)f;
    switch (nf->w.state) {
    case WA_W_IDLE:
        if (nf->n->permit) {
            nf->n->permit = 0;
            nf->w.state = WA_W_DONE;
            return WA_READY;
        }
        wa_waitq_push(&nf->n->q, &nf->w, cx);
        return WA_PENDING;
    case WA_W_QUEUED:
        wa_waker_store(&nf->w.waker, cx);
        return WA_PENDING;
    case WA_W_GRANTED:
        nf->w.state = WA_W_DONE;
        return WA_READY;
    default:
        return wa_misuse(WA_EMISUSE, "poll of a finished or freed notified future");
    }
}

static void wa_notified_drop(wa_future *f)
{
    wa_notified *nf = (wa_notified *)f;
    if (wa_waiter_cancel(&nf->n->q, &nf->w) == WA_W_GRANTED && nf->w.n)
        wa_notify_one(nf->n); /* a notify_one we did not consume goes on */
}

static const wa_future_vt wa_notified_vt = {wa_notified_poll, wa_notified_drop, "notified"};

wa_future *wa_notified_init(wa_notified *f, wa_notify *n)
{
    f->fut.vt = &wa_notified_vt;
    f->n = n;
    wa_waiter_init(&f->w, 1);
    return &f->fut;
}
