/* SPDX-License-Identifier: MIT */
/* Semaphore (and so mutex): FIFO permits handed straight to waiters. */
#include <stdint.h>

#include "waitq.h"

void wa_sem_init_max(wa_sem *s, size_t permits, size_t max)
{
    s->q.head = s->q.tail = NULL;
    s->permits = permits;
    s->max = max;
}

void wa_sem_init(wa_sem *s, size_t permits) { wa_sem_init_max(s, permits, SIZE_MAX); }

size_t wa_sem_available(const wa_sem *s) { return s->permits; }

int wa_sem_try_acquire(wa_sem *s, size_t n)
{
    if (s->q.head || s->permits < n)
        return WA_EAGAIN;
    s->permits -= n;
    return 0;
}

/* Hands free permits to waiters in order, as far as they go. */
static void wa_sem_grant(wa_sem *s)
{
    while (s->q.head && s->q.head->n <= s->permits) {
        s->permits -= s->q.head->n;
        wa_waitq_grant_head(&s->q);
    }
}

int wa_sem_release(wa_sem *s, size_t n)
{
    if (n > s->max - s->permits)
        return wa_misuse(WA_EMISUSE, s->max == 1 ? "wa_mutex_unlock: the mutex is not locked"
                                                 : "wa_sem_release: more permits than the maximum");
    s->permits += n;
    wa_sem_grant(s);
    return 0;
}

static int wa_acquire_poll(wa_future *f, wa_cx *cx)
{
    wa_acquire *a = (wa_acquire *)f;
    wa_sem *s = a->sem;
    switch (a->w.state) {
    case WA_W_IDLE:
        if (!s->q.head && s->permits >= a->w.n) {
            if (!wa_coop_proceed(cx))
                return WA_PENDING;
            s->permits -= a->w.n;
            a->w.state = WA_W_HELD;
            return WA_READY;
        }
        if (a->w.n > s->max) {
            a->w.state = WA_W_DONE;
            return WA_EINVAL; /* could never be satisfied */
        }
        wa_waitq_push(&s->q, &a->w, cx);
        return WA_PENDING;
    case WA_W_QUEUED:
        wa_waker_store(&a->w.waker, cx);
        return WA_PENDING;
    case WA_W_GRANTED:
        a->w.state = WA_W_HELD;
        return WA_READY;
    default:
        return wa_misuse(WA_EMISUSE, "poll of a finished or freed acquire");
    }
}

static void wa_acquire_drop(wa_future *f)
{
    wa_acquire *a = (wa_acquire *)f;
    if (a->w.state == WA_W_HELD)
        return; /* the permits stay with the guard */
    bool head = a->sem->q.head == &a->w;
    int st = wa_waiter_cancel(&a->sem->q, &a->w);
    if (st == WA_W_GRANTED)
        wa_sem_release(a->sem, a->w.n); /* permits handed to us, never taken */
    else if (st == WA_W_QUEUED && head)
        wa_sem_grant(a->sem);           /* smaller requests behind us may fit */
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
    if (a->w.state != WA_W_HELD)
        return 0;
    a->w.state = WA_W_DONE;
    return wa_sem_release(a->sem, a->w.n);
}
