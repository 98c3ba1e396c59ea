/* SPDX-License-Identifier: MIT */
/* Internal: the FIFO of waiters of every sync primitive, a list
 * (core/list.h) whose "linked" is a waiter's state WA_W_QUEUED. A shared
 * primitive calls these under its lock (lock.h). */
#ifndef WASYNC_SYNC_WAITQ_H
#define WASYNC_SYNC_WAITQ_H

#include "../core/list.h"
#include "lock.h"
#include "wasync/sync.h"

enum {
    WA_W_IDLE = 0,    /* not queued, nothing handed over */
    WA_W_QUEUED,      /* waiting in a queue */
    WA_W_GRANTED,     /* dequeued and woken: owns a turn (or permits) */
    WA_W_DONE,        /* completed; nothing left to release */
    WA_W_HELD,        /* an acquire that completed: holds its permits */
};

static inline void wa_waiter_init(wa_waiter *w, size_t n)
{
    w->waker = (wa_waker){NULL, NULL};
    w->n = n;
    w->state = WA_W_IDLE;
}

/* w's state, read before taking the lock (to see that the future is
 * finished and its primitive perhaps freed): another thread only writes it
 * when it grants w, atomically. */
static inline int wa_waiter_state_(const wa_waiter *w) { return __atomic_load_n(&w->state, __ATOMIC_RELAXED); }

/* The first waiter of q, or NULL (a waiter starts with its node). */
static inline wa_waiter *wa_waitq_head(const wa_waitq *q)
{
    _Static_assert(offsetof(wa_waiter, node) == 0, "wa_waiter: node first");
    return (wa_waiter *)(void *)wa_list_first(q);
}

/* Queues w at the tail with a clone of cx's waker. */
static inline void wa_waitq_push(wa_waitq *q, wa_waiter *w, const wa_cx *cx)
{
    wa_waker_store(&w->waker, cx);
    w->state = WA_W_QUEUED;
    wa_list_push(q, &w->node);
}

/* Dequeues the head: it now owns a turn. Unshared (sh false), wakes it at
 * once; shared, moves its waker into *wake (none before) for the caller to
 * wake once the lock is released. The hot paths pass a constant sh, so
 * that an unshared primitive's move no waker around. */
static inline void wa_waitq_grant_head(wa_waitq *q, bool sh, wa_waker *wake)
{
    wa_waiter *w = wa_waitq_head(q);
    wa_list_remove(q, &w->node);
    __atomic_store_n(&w->state, WA_W_GRANTED, __ATOMIC_RELAXED);
    if (!sh) {
        wa_waker_wake(&w->waker);
        return;
    }
    *wake = w->waker;
    w->waker = (wa_waker){NULL, NULL};
}

/* Takes w out of its queue if it is waiting; drops its waker. Returns the
 * state it had, so the caller can pass on a turn it owned. */
static inline int wa_waiter_cancel(wa_waitq *q, wa_waiter *w)
{
    int st = w->state;
    if (st == WA_W_QUEUED)
        wa_list_remove(q, &w->node);
    wa_waker_drop(&w->waker);
    w->state = WA_W_DONE;
    return st;
}

#endif
