/* SPDX-License-Identifier: MIT */
/* Notify: wake one waiter or all of them. */
#include "waitq.h"

void wa_notify_init(wa_notify *n)
{
    wa__list_init(&n->q);
    n->permit = 0;
    n->lock = WA__LOCK_NONE;
}

void wa_notify_init_shared(wa_notify *n)
{
    wa_notify_init(n);
    n->lock = WA__LOCK_FREE;
}

/* Under n's lock: grants the first waiter (shared, its waker into *wake),
 * or leaves the permit. */
static void wa__notify_one_locked(wa_notify *n, wa_waker *wake)
{
    if (!wa__list_empty(&n->q))
        wa__waitq_grant_head(&n->q, wa__sync_shared(&n->lock), wake);
    else
        n->permit = 1;
}

void wa_notify_one(wa_notify *n)
{
    wa_waker wake = {NULL, NULL};
    wa__sync_take(&n->lock);
    wa__notify_one_locked(n, &wake);
    wa__sync_give(&n->lock);
    wa_waker_wake(&wake);
}

/* One waiter at a time, each woken after unlocking; as many as waited at
 * the call (on a shared notify, one that came meanwhile may be among them).
 * Those woken own nothing to pass on: n is 0. */
void wa_notify_all(wa_notify *n)
{
    wa__sync_take(&n->lock);
    size_t k = 0;
    for (wa__list_node *w = wa__list_first(&n->q); w; w = wa__list_next(w))
        k++;
    while (k-- && !wa__list_empty(&n->q)) {
        wa_waker wake = {NULL, NULL};
        wa__waitq_head(&n->q)->n = 0;
        wa__waitq_grant_head(&n->q, wa__sync_shared(&n->lock), &wake);
        wa__sync_give(&n->lock);
        wa_waker_wake(&wake);
        wa__sync_take(&n->lock);
    }
    wa__sync_give(&n->lock);
}

static int wa__notified_poll(wa_future *f, wa_cx *cx)
{
    wa_notified *nf = (wa_notified *)f;
    wa_notify *n = nf->n;
    int rc = WA_PENDING;
    wa__sync_take(&n->lock);
    switch (nf->w.state) {
    case WA__W_IDLE:
        if (n->permit) {
            n->permit = 0;
            nf->w.state = WA__W_DONE;
            rc = WA_READY;
        } else if (wa__sync_refused(&n->lock, cx)) {
            nf->w.state = WA__W_DONE;
            rc = WA_EMISUSE;
        } else {
            wa__waitq_push(&n->q, &nf->w, cx);
        }
        break;
    case WA__W_QUEUED:
        wa_waker_store(&nf->w.waker, cx);
        break;
    case WA__W_GRANTED:
        nf->w.state = WA__W_DONE;
        rc = WA_READY;
        break;
    default:
        wa__sync_give(&n->lock);
        return wa__misuse_done(NULL, "notified future");
    }
    wa__sync_give(&n->lock);
    return rc == WA_EMISUSE ? wa__sync_refuse("wa_notified") : rc;
}

static void wa__notified_drop(wa_future *f)
{
    wa_notified *nf = (wa_notified *)f;
    wa_notify *n = nf->n;
    wa_waker wake = {NULL, NULL};
    wa__sync_take(&n->lock);
    if (wa__waiter_cancel(&n->q, &nf->w) == WA__W_GRANTED && nf->w.n)
        wa__notify_one_locked(n, &wake); /* a notify_one we did not consume goes on */
    wa__sync_give(&n->lock);
    wa_waker_wake(&wake);
}

static const wa_future_vt wa__notified_vt = {wa__notified_poll, wa__notified_drop, "notified"};

wa_future *wa_notified_init(wa_notified *f, wa_notify *n)
{
    f->fut.vt = &wa__notified_vt;
    f->n = n;
    wa__waiter_init(&f->w, 1);
    return &f->fut;
}
