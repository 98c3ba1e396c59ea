/* SPDX-License-Identifier: MIT */
/* Notify: wake one waiter or all of them. */
#include "waitq.h"

void wa_notify_init(wa_notify *n)
{
    wa_list_init(&n->q);
    n->permit = 0;
    n->lock = WA_LOCK_NONE;
}

void wa_notify_init_shared(wa_notify *n)
{
    wa_notify_init(n);
    n->lock = WA_LOCK_FREE;
}

/* Under n's lock: grants the first waiter (shared, its waker into *wake),
 * or leaves the permit. */
static void wa_notify_one_locked(wa_notify *n, wa_waker *wake)
{
    if (!wa_list_empty(&n->q))
        wa_waitq_grant_head(&n->q, wa_sync_shared_(&n->lock), wake);
    else
        n->permit = 1;
}

void wa_notify_one(wa_notify *n)
{
    wa_waker wake = {NULL, NULL};
    wa_sync_take_(&n->lock);
    wa_notify_one_locked(n, &wake);
    wa_sync_give_(&n->lock);
    wa_waker_wake(&wake);
}

/* One waiter at a time, each woken after unlocking; as many as waited at
 * the call (on a shared notify, one that came meanwhile may be among them).
 * Those woken own nothing to pass on: n is 0. */
void wa_notify_all(wa_notify *n)
{
    wa_sync_take_(&n->lock);
    size_t k = 0;
    for (wa_list_node *w = wa_list_first(&n->q); w; w = wa_list_next(w))
        k++;
    while (k-- && !wa_list_empty(&n->q)) {
        wa_waker wake = {NULL, NULL};
        wa_waitq_head(&n->q)->n = 0;
        wa_waitq_grant_head(&n->q, wa_sync_shared_(&n->lock), &wake);
        wa_sync_give_(&n->lock);
        wa_waker_wake(&wake);
        wa_sync_take_(&n->lock);
    }
    wa_sync_give_(&n->lock);
}

static int wa_notified_poll(wa_future *f, wa_cx *cx)
{
    wa_notified *nf = (wa_notified *)f;
    wa_notify *n = nf->n;
    int rc = WA_PENDING;
    wa_sync_take_(&n->lock);
    switch (nf->w.state) {
    case WA_W_IDLE:
        if (n->permit) {
            n->permit = 0;
            nf->w.state = WA_W_DONE;
            rc = WA_READY;
        } else if (wa_sync_refused_(&n->lock, cx)) {
            nf->w.state = WA_W_DONE;
            rc = WA_EMISUSE;
        } else {
            wa_waitq_push(&n->q, &nf->w, cx);
        }
        break;
    case WA_W_QUEUED:
        wa_waker_store(&nf->w.waker, cx);
        break;
    case WA_W_GRANTED:
        nf->w.state = WA_W_DONE;
        rc = WA_READY;
        break;
    default:
        wa_sync_give_(&n->lock);
        return wa_misuse(WA_EMISUSE, "poll of a finished or freed notified future");
    }
    wa_sync_give_(&n->lock);
    return rc == WA_EMISUSE ? wa_sync_refuse_("wa_notified") : rc;
}

static void wa_notified_drop(wa_future *f)
{
    wa_notified *nf = (wa_notified *)f;
    wa_notify *n = nf->n;
    wa_waker wake = {NULL, NULL};
    wa_sync_take_(&n->lock);
    if (wa_waiter_cancel(&n->q, &nf->w) == WA_W_GRANTED && nf->w.n)
        wa_notify_one_locked(n, &wake); /* a notify_one we did not consume goes on */
    wa_sync_give_(&n->lock);
    wa_waker_wake(&wake);
}

static const wa_future_vt wa_notified_vt = {wa_notified_poll, wa_notified_drop, "notified"};

wa_future *wa_notified_init(wa_notified *f, wa_notify *n)
{
    f->fut.vt = &wa_notified_vt;
    f->n = n;
    wa_waiter_init(&f->w, 1);
    return &f->fut;
}
