/* SPDX-License-Identifier: MIT */
/* Semaphore (and so mutex): FIFO permits handed straight to waiters. */
#include <stdint.h>

#include "sem.h"
#include "waitq.h"

void wa_sem_init_max(wa_sem *s, size_t permits, size_t max)
{
    wa__list_init(&s->q);
    s->permits = permits;
    s->max = max;
    s->lock = WA__LOCK_NONE;
}

void wa_sem_init(wa_sem *s, size_t permits) { wa_sem_init_max(s, permits, SIZE_MAX); }

void wa_sem_init_max_shared(wa_sem *s, size_t permits, size_t max)
{
    wa_sem_init_max(s, permits, max);
    s->lock = WA__LOCK_FREE;
}

void wa_sem_init_shared(wa_sem *s, size_t permits) { wa_sem_init_max_shared(s, permits, SIZE_MAX); }

size_t wa_sem_available(const wa_sem *s)
{
    wa_sem *m = (wa_sem *)s; /* the lock word changes, not the semaphore */
    wa__sync_take(&m->lock);
    size_t n = m->permits;
    wa__sync_give(&m->lock);
    return n;
}

int wa_sem_try_acquire(wa_sem *s, size_t n)
{
    int rc = WA_EAGAIN;
    wa__sync_take(&s->lock);
    if (wa__list_empty(&s->q) && s->permits >= n) {
        s->permits -= n;
        rc = 0;
    }
    wa__sync_give(&s->lock);
    return rc;
}

/* Hands free permits to waiters in order, as far as they go, waking each
 * after unlocking. Called with s locked; returns with it unlocked. */
static void wa__sem_grant_unlock(wa_sem *s)
{
    wa__waiter *w;
    while ((w = wa__waitq_head(&s->q)) && w->n <= s->permits) {
        wa_waker wake = {NULL, NULL};
        s->permits -= w->n;
        wa__waitq_grant_head(&s->q, wa__sync_shared(&s->lock), &wake);
        wa__sync_give(&s->lock);
        wa_waker_wake(&wake);
        wa__sync_take(&s->lock);
    }
    wa__sync_give(&s->lock);
}

int wa__sem_release_if(wa_sem *s, size_t n, size_t least, const char *misuse)
{
    wa__sync_take(&s->lock);
    if (n > s->max - s->permits || s->permits < least) {
        wa__sync_give(&s->lock);
        return wa_misuse(WA_EMISUSE, misuse);
    }
    s->permits += n;
    wa__sem_grant_unlock(s);
    return 0;
}

int wa_sem_release(wa_sem *s, size_t n)
{
    return wa__sem_release_if(s, n, 0, s->max == 1 ? "wa_mutex_unlock: the mutex is not locked"
                                                   : "wa_sem_release: more permits than the maximum");
}

int wa__acquire_poll_in(wa_future *f, wa_cx *cx, const char *call)
{
    wa_acquire *a = (wa_acquire *)f;
    wa_sem *s = a->sem;
    int rc = WA_PENDING;
    if (!s) {
        a->w.state = WA__W_DONE;
        return wa__misuse_in(WA_EINVAL, call, "its lock or semaphore is NULL");
    }
    wa__sync_take(&s->lock);
    switch (a->w.state) {
    case WA__W_IDLE:
        if (wa__list_empty(&s->q) && s->permits >= a->w.n) {
            if (!wa_coop_proceed(cx))
                break;
            s->permits -= a->w.n;
            a->w.state = WA__W_HELD;
            rc = WA_READY;
        } else if (a->w.n > s->max) {
            a->w.state = WA__W_DONE;
            rc = WA_EINVAL; /* could never be satisfied */
        } else if (wa__sync_refused(&s->lock, cx)) {
            a->w.state = WA__W_DONE;
            rc = WA_EMISUSE;
        } else {
            wa__waitq_push(&s->q, &a->w, cx);
        }
        break;
    case WA__W_QUEUED:
        wa_waker_store(&a->w.waker, cx);
        break;
    case WA__W_GRANTED:
        a->w.state = WA__W_HELD;
        rc = WA_READY;
        break;
    default:
        wa__sync_give(&s->lock);
        return wa__misuse_in(WA_EMISUSE, call, "polled after it finished, or freed");
    }
    wa__sync_give(&s->lock);
    return rc == WA_EMISUSE ? wa__sync_refuse(call) : rc;
}

static int wa__acquire_poll(wa_future *f, wa_cx *cx) { return wa__acquire_poll_in(f, cx, "wa_acquire"); }

void wa__acquire_drop(wa_future *f)
{
    wa_acquire *a = (wa_acquire *)f;
    wa_sem *s = a->sem;
    int st = wa__waiter_state(&a->w);
    if (st != WA__W_QUEUED && st != WA__W_GRANTED)
        return; /* held (the permits stay with the guard), unpolled or finished: nothing to undo */
    wa__sync_take(&s->lock);
    bool head = wa__waitq_head(&s->q) == &a->w;
    st = wa__waiter_cancel(&s->q, &a->w);
    if (st == WA__W_GRANTED)
        s->permits += a->w.n; /* handed to us, never taken: within the maximum */
    if (st == WA__W_GRANTED || (st == WA__W_QUEUED && head))
        wa__sem_grant_unlock(s); /* to the next, or smaller requests behind us may fit */
    else
        wa__sync_give(&s->lock);
}

static const wa_future_vt wa__acquire_vt = {wa__acquire_poll, wa__acquire_drop, "acquire"};

wa_future *wa_acquire_init(wa_acquire *a, wa_sem *s, size_t n)
{
    a->fut.vt = &wa__acquire_vt;
    a->sem = s;
    wa__waiter_init(&a->w, n);
    return &a->fut;
}

int wa_acquire_release(wa_acquire *a)
{
    if (!a)
        return wa_misuse(WA_EINVAL, "wa_acquire_release: a is NULL");
    if (wa__waiter_state(&a->w) != WA__W_HELD)
        return 0;
    a->w.state = WA__W_DONE;
    return wa_sem_release(a->sem, a->w.n);
}
