/* SPDX-License-Identifier: MIT */
/* Semaphore (and so mutex): FIFO permits handed straight to waiters. */
#include <stdint.h>

#include "waitq.h"

void wa_sem_init_max(wa_sem *s, size_t permits, size_t max)
{
    wa_list_init(&s->q);
    s->permits = permits;
    s->max = max;
    s->lock = WA_LOCK_NONE;
}

void wa_sem_init(wa_sem *s, size_t permits) { wa_sem_init_max(s, permits, SIZE_MAX); }

void wa_sem_init_shared(wa_sem *s, size_t permits, size_t max)
{
    wa_sem_init_max(s, permits, max);
    s->lock = WA_LOCK_FREE;
}

size_t wa_sem_available(const wa_sem *s)
{
    wa_sem *m = (wa_sem *)s; /* the lock word changes, not the semaphore */
    wa_sync_take_(&m->lock);
    size_t n = m->permits;
    wa_sync_give_(&m->lock);
    return n;
}

int wa_sem_try_acquire(wa_sem *s, size_t n)
{
    int rc = WA_EAGAIN;
    wa_sync_take_(&s->lock);
    if (wa_list_empty(&s->q) && s->permits >= n) {
        s->permits -= n;
        rc = 0;
    }
    wa_sync_give_(&s->lock);
    return rc;
}

/* Hands free permits to waiters in order, as far as they go, waking each
 * after unlocking. Called with s locked; returns with it unlocked. */
static void wa_sem_grant_unlock(wa_sem *s)
{
    wa_waiter *w;
    while ((w = wa_waitq_head(&s->q)) && w->n <= s->permits) {
        wa_waker wake = {NULL, NULL};
        s->permits -= w->n;
        wa_waitq_grant_head(&s->q, wa_sync_shared_(&s->lock), &wake);
        wa_sync_give_(&s->lock);
        wa_waker_wake(&wake);
        wa_sync_take_(&s->lock);
    }
    wa_sync_give_(&s->lock);
}

int wa_sem_release(wa_sem *s, size_t n)
{
    wa_sync_take_(&s->lock);
    if (n > s->max - s->permits) {
        wa_sync_give_(&s->lock);
        return wa_misuse(WA_EMISUSE, s->max == 1 ? "wa_mutex_unlock: the mutex is not locked"
                                                 : "wa_sem_release: more permits than the maximum");
    }
    s->permits += n;
    wa_sem_grant_unlock(s);
    return 0;
}

static int wa_acquire_poll(wa_future *f, wa_cx *cx)
{
    wa_acquire *a = (wa_acquire *)f;
    wa_sem *s = a->sem;
    int rc = WA_PENDING;
    wa_sync_take_(&s->lock);
    switch (a->w.state) {
    case WA_W_IDLE:
        if (wa_list_empty(&s->q) && s->permits >= a->w.n) {
            if (!wa_coop_proceed(cx))
                break;
            s->permits -= a->w.n;
            a->w.state = WA_W_HELD;
            rc = WA_READY;
        } else if (a->w.n > s->max) {
            a->w.state = WA_W_DONE;
            rc = WA_EINVAL; /* could never be satisfied */
        } else if (wa_sync_refused_(&s->lock, cx)) {
            a->w.state = WA_W_DONE;
            rc = WA_EMISUSE;
        } else {
            wa_waitq_push(&s->q, &a->w, cx);
        }
        break;
    case WA_W_QUEUED:
        wa_waker_store(&a->w.waker, cx);
        break;
    case WA_W_GRANTED:
        a->w.state = WA_W_HELD;
        rc = WA_READY;
        break;
    default:
        wa_sync_give_(&s->lock);
        return wa_misuse(WA_EMISUSE, "poll of a finished or freed acquire");
    }
    wa_sync_give_(&s->lock);
    return rc == WA_EMISUSE ? wa_sync_refuse_("wa_acquire") : rc;
}

static void wa_acquire_drop(wa_future *f)
{
    wa_acquire *a = (wa_acquire *)f;
    wa_sem *s = a->sem;
    if (wa_waiter_state_(&a->w) == WA_W_HELD)
        return; /* the permits stay with the guard */
    wa_sync_take_(&s->lock);
    bool head = wa_waitq_head(&s->q) == &a->w;
    int st = wa_waiter_cancel(&s->q, &a->w);
    if (st == WA_W_GRANTED)
        s->permits += a->w.n; /* handed to us, never taken: within the maximum */
    if (st == WA_W_GRANTED || (st == WA_W_QUEUED && head))
        wa_sem_grant_unlock(s); /* to the next, or smaller requests behind us may fit */
    else
        wa_sync_give_(&s->lock);
}

static const wa_future_vt wa_acquire_vt = {wa_acquire_poll, wa_acquire_drop, "acquire"};

wa_future *wa_acquire_init(wa_acquire *a, wa_sem *s, size_t n)
{
    a->fut.vt = &wa_acquire_vt;
    a->sem = s;
    wa_waiter_init(&a->w, n);
    return &a->fut;
}

int wa_acquire_release(wa_acquire *a)
{
    if (!a)
        return wa_misuse(WA_EINVAL, "wa_acquire_release: a is NULL");
    if (wa_waiter_state_(&a->w) != WA_W_HELD)
        return 0;
    a->w.state = WA_W_DONE;
    return wa_sem_release(a->sem, a->w.n);
}
