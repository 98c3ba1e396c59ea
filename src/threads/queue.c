/* SPDX-License-Identifier: MIT */
/* The many-threads executor's queuing: the injector (the global queue,
 * for tasks spawned or woken from other threads and a ring's overflow),
 * the push of a task onto a ring or the injector, and the waker, which
 * puts the task it wakes in its worker's LIFO slot. Apart from the worker
 * loop (worker.c), which takes from these queues, and from parking
 * (park.c), which a push calls to wake a worker: every wake from a poll,
 * a remote or a scope comes through here. */
#define _GNU_SOURCE
#include "mt.h"

/* The injector. */

void wa__inject(wa__mt *mt, wa_task *first, wa_task *last, size_t n)
{
    last->next = NULL;
    pthread_mutex_lock(&mt->lock);
    if (mt->inj_tail)
        mt->inj_tail->next = first;
    else
        mt->inj_head = first;
    mt->inj_tail = last;
    __atomic_store_n(&mt->inj_len, mt->inj_len + n, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&mt->lock);
}

/* Takes a task from the injector for worker w, and its share of those
 * behind it (up to half a ring) into w's ring, so that they take turns
 * with its own tasks instead of waiting for the injector's next look. The
 * list is walked outside the lock (each task a cache miss, the pusher's
 * lines): it takes the whole list, then gives back what it leaves, at the
 * tail. A worker is awake while it holds them, and runs the injector
 * before it parks. */
wa_task *wa__inject_pop(wa__mt *mt, wa__worker *w)
{
    if (!__atomic_load_n(&mt->inj_len, __ATOMIC_RELAXED))
        return NULL;
    pthread_mutex_lock(&mt->lock);
    wa_task *first = mt->inj_head, *last = mt->inj_tail;
    size_t len = mt->inj_len;
    mt->inj_head = mt->inj_tail = NULL;
    __atomic_store_n(&mt->inj_len, 0, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&mt->lock);
    if (!first)
        return NULL;
    size_t n = len / mt->n + 1;
    if (n > len)
        n = len;
    if (n > WA__RING / 2)
        n = WA__RING / 2;
    /* (a task pushed may be stolen and freed at once: its next is read before) */
    wa_task *rest = first->next;
    size_t i = 1;
    for (; i < n; i++) {
        wa_task *after = rest->next;
        if (!wa__ring_push(&w->ring, rest))
            break;
        rest = after;
    }
    if (i < len)
        wa__inject(mt, rest, last, len - i);
    return first;
}

/* Queues t (its queue reference taken) on the ring of w, this thread's
 * worker, the overflow half going to the injector; or on the injector when
 * w is NULL (another thread), and notifies. A worker runs its own ring and
 * the injector before it parks, so what it queues needs no notify to run:
 * its notify is for parallelism only, and first looks at the state without
 * the fence (seldom changed, so its line stays in every cache; a worker
 * parking meanwhile is missed, and its next push or search makes up). A
 * yield is a push per poll: the fence was half of its cost. */
void wa__mt_push(wa__mt *mt, wa__worker *w, wa_task *t)
{
    if (!w) {
        wa__inject(mt, t, t, 1);
        wa__mt_notify(mt);
        return;
    }
    if (!wa__ring_push(&w->ring, t)) {
        wa_task *batch[WA__RING / 2];
        unsigned n = wa__ring_take(&w->ring, batch, WA__RING / 2, false);
        for (unsigned i = 0; i + 1 < n; i++)
            batch[i]->next = batch[i + 1];
        if (n)
            batch[n - 1]->next = t;
        wa__inject(mt, n ? batch[0] : t, t, n + 1);
    }
    if (wa__mt_wants_worker(mt, __atomic_load_n(&mt->state, __ATOMIC_RELAXED)))
        wa__mt_notify(mt);
}

/* Queues t, woken: in the LIFO slot of this thread's worker (its previous
 * occupant to the ring), else on the injector. The driver's wakes from its
 * wait go to its ring: it is counted parked until it returns, and
 * wa__mt_idle must see them (the wake's source may be closed meanwhile). */
static void wa__mt_wake_push(wa__mt *mt, wa_task *t)
{
    wa__worker *w = wa__mt_here(mt);
    if (!w || w->waiting) {
        wa__mt_push(mt, w, t);
        return;
    }
    wa_task *prev = w->lifo;
    w->lifo = t;
    if (prev)
        wa__mt_push(mt, w, prev);
}

/* The waker: "not done, not queued: set queued and take a reference" is
 * one compare-and-swap. A task woken while it runs is only marked: its
 * worker queues it again when the poll returns. */
static void wa__mt_schedule(wa_task *t)
{
    uint32_t w = wa__word_load(t), nw;
    do {
        if (w & (WA__T_QUEUED | WA__T_DONE))
            return;
        nw = w & WA__T_RUNNING ? w | WA__T_QUEUED : w + WA__T_QUEUED + WA__REF_ONE;
    } while (!__atomic_compare_exchange_n(&t->word, &w, nw, true, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
    if (!(w & WA__T_RUNNING))
        wa__mt_wake_push(t->rt->mt, t);
}

static void wa__mt_task_ref(wa_task *t)
{
    if (wa__word_add(t, WA__REF_ONE) < WA__REF_ONE) {
        wa__log("wasync: task reference count overflow");
        abort();
    }
}

static wa_waker wa__mt_waker_clone(void *p)
{
    wa__mt_task_ref(p);
    return (wa_waker){p, &wa__mt_waker_vt};
}
static void wa__mt_waker_wake(void *p)
{
    wa__mt_schedule(p);
    wa__mt_unref(p, 1);
}
static void wa__mt_waker_wake_by_ref(void *p) { wa__mt_schedule(p); }
static void wa__mt_waker_drop(void *p) { wa__mt_unref(p, 1); }
const wa_waker_vt wa__mt_waker_vt = {wa__mt_waker_clone, wa__mt_waker_wake, wa__mt_waker_wake_by_ref,
                                     wa__mt_waker_drop};

/* Cancel and abort only mark the task and wake it: the worker that runs it
 * next drops it (from another thread, its future may be in a poll). */
void wa__mt_signal_task(wa_task *t, uint32_t bit)
{
    if (wa__word_load(t) & (WA__T_DONE | bit))
        return;
    wa__word_or(t, bit);
    wa__mt_schedule(t);
}
