/* SPDX-License-Identifier: MIT */
/* Internal: the FIFO of waiters of every sync primitive, a list
 * (core/list.h) whose "linked" is a waiter's state WA__W_QUEUED. A shared
 * primitive calls these under its lock (lock.h). */
#ifndef WASYNC_SYNC_WAITQ_H
#define WASYNC_SYNC_WAITQ_H

#include "../core/list.h"
#include "lock.h"
#include "wasync/sync.h"

enum {
    WA__W_IDLE = 0,    /* not queued, nothing handed over */
    WA__W_QUEUED,      /* waiting in a queue */
    WA__W_GRANTED,     /* dequeued and woken: owns a turn (or permits) */
    WA__W_DONE,        /* completed; nothing left to release */
    WA__W_HELD,        /* an acquire that completed: holds its permits */
};

static inline void wa__waiter_init(wa__waiter *w, size_t n)
{
    w->waker = (wa_waker){NULL, NULL};
    w->n = n;
    w->state = WA__W_IDLE;
}

/* w's state, read before taking the lock (to see that the future is
 * finished and its primitive perhaps freed): another thread only writes it
 * when it grants w, atomically. */
static inline int wa__waiter_state(const wa__waiter *w) { return __atomic_load_n(&w->state, __ATOMIC_RELAXED); }

/* The first waiter of q, or NULL (a waiter starts with its node). */
static inline wa__waiter *wa__waitq_head(const wa__waitq *q)
{
    _Static_assert(offsetof(wa__waiter, node) == 0, "wa__waiter: node first");
    return (wa__waiter *)(void *)wa__list_first(q);
}

/* Queues w at the tail with a clone of cx's waker. */
static inline void wa__waitq_push(wa__waitq *q, wa__waiter *w, const wa_cx *cx)
{
    wa_waker_store(&w->waker, cx);
    w->state = WA__W_QUEUED;
    wa__list_push(q, &w->node);
}

/* Dequeues the head: it now owns a turn. Unshared (sh false), wakes it at
 * once; shared, moves its waker into *wake (none before) for the caller to
 * wake once the lock is released. The hot paths pass a constant sh, so
 * that an unshared primitive's move no waker around. */
static inline void wa__waitq_grant_head(wa__waitq *q, bool sh, wa_waker *wake)
{
    wa__waiter *w = wa__waitq_head(q);
    wa__list_remove(q, &w->node);
    __atomic_store_n(&w->state, WA__W_GRANTED, __ATOMIC_RELAXED);
    if (!sh) {
        wa_waker_wake(&w->waker);
        return;
    }
    *wake = w->waker;
    w->waker = (wa_waker){NULL, NULL};
}

/* Grants the waiters of q, with *l held (sh: a primitive made for
 * threads): without sh, all of them, each woken in place; with it, those
 * queued at the call, one at a time, each woken after releasing *l, which
 * is then taken again (one that queues meanwhile may be among them).
 * Returns with *l held. */
static inline void wa__waitq_grant_all(wa__waitq *q, unsigned *l, bool sh)
{
    size_t k = 0;
    for (wa__list_node *n = sh ? wa__list_first(q) : NULL; n; n = wa__list_next(n))
        k++;
    while (!wa__list_empty(q) && (!sh || k--)) {
        wa_waker wake = {NULL, NULL};
        wa__waitq_grant_head(q, sh, &wake);
        if (sh) {
            wa__sync_unlock(l, sh);
            wa_waker_wake(&wake);
            wa__sync_lock(l, sh);
        }
    }
}

/* Takes w out of its queue if it is waiting; drops its waker. Returns the
 * state it had, so the caller can pass on a turn it owned. */
static inline int wa__waiter_cancel(wa__waitq *q, wa__waiter *w)
{
    int st = w->state;
    if (st == WA__W_QUEUED)
        wa__list_remove(q, &w->node);
    wa_waker_drop(&w->waker);
    w->state = WA__W_DONE;
    return st;
}

#endif
