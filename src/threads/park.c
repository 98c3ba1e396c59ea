/* SPDX-License-Identifier: MIT */
/* Idle workers of the many-threads executor: the state word (unparked and
 * searching workers), parking on a futex or as the driver in the
 * backend's wait, the notify that unparks one when work is queued, the
 * timers and I/O a worker looks at, and the signal of the thread in
 * block_on or run. Apart from the queues and the worker loop, which call
 * it: it calls none of them (it reads the queues' lengths only). */
#define _GNU_SOURCE
#include <limits.h>

#include "mt.h"
#include "../core/timer.h"

_Thread_local wa__worker *wa__co_self;

/* The thread in block_on or run waits on mt->signal; this waker bumps it. */
void wa__mt_signal(void *p)
{
    wa__mt *mt = p;
    __atomic_add_fetch(&mt->signal, 1, __ATOMIC_RELEASE);
    wa__futex(&mt->signal, FUTEX_WAKE, INT_MAX, NULL);
}
static wa_waker wa__mt_signal_clone(void *p) { return (wa_waker){p, &wa__mt_signal_vt}; }
static void wa__mt_signal_drop(void *p) { (void)p; }
const wa_waker_vt wa__mt_signal_vt = {wa__mt_signal_clone, wa__mt_signal, wa__mt_signal, wa__mt_signal_drop};

/* Work was queued: wakes a parked worker to look for it, unless a worker
 * is searching already (it will find it, or look again before it parks). */
void wa__mt_notify(wa__mt *mt)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    uint32_t s = __atomic_load_n(&mt->state, __ATOMIC_SEQ_CST);
    if (!wa__mt_wants_worker(mt, s))
        return;
    pthread_mutex_lock(&mt->lock);
    s = __atomic_load_n(&mt->state, __ATOMIC_SEQ_CST);
    wa__worker *d = __atomic_load_n(&mt->driver, __ATOMIC_RELAXED);
    if ((s & 0xffff) || (mt->idle_len == 0 && !d)) {
        pthread_mutex_unlock(&mt->lock);
        return;
    }
    if (mt->idle_len == 0) { /* the driver, last: a futex wake is cheaper than leaving epoll */
        __atomic_store_n(&mt->driver, NULL, __ATOMIC_RELAXED);
        if (d == wa__co_self) { /* the driver's own wakes, from its wait: it is up already */
            __atomic_add_fetch(&mt->state, WA__UNPARKED_ONE, __ATOMIC_SEQ_CST);
            pthread_mutex_unlock(&mt->lock);
            return;
        }
        __atomic_add_fetch(&mt->state, WA__UNPARKED_ONE + 1, __ATOMIC_SEQ_CST);
        d->searching = 1;
        pthread_mutex_unlock(&mt->lock);
        /* the eventfd stays readable: a driver not yet in epoll_wait sees it there */
        mt->rt->backend->vt->notify(mt->rt->backend);
        return;
    }
    wa__worker *w = &mt->workers[mt->idle[--mt->idle_len]];
    __atomic_add_fetch(&mt->state, WA__UNPARKED_ONE + 1, __ATOMIC_SEQ_CST);
    w->searching = 1; /* it wakes up searching */
    __atomic_store_n(&w->parked, 0, __ATOMIC_RELEASE); /* under the lock: see wa__worker_park */
    pthread_mutex_unlock(&mt->lock);
    wa__futex(&w->parked, FUTEX_WAKE, 1, NULL);
}

/* Work anywhere but in LIFO slots (which their owners fill only while
 * unparked, and run before parking). */
bool wa__mt_has_work(wa__mt *mt)
{
    if (__atomic_load_n(&mt->inj_len, __ATOMIC_SEQ_CST))
        return true;
    for (unsigned i = 0; i < mt->n; i++) {
        wa__ring *r = &mt->workers[i].ring;
        if (__atomic_load_n(&r->bottom, __ATOMIC_SEQ_CST) != __atomic_load_n(&r->top, __ATOMIC_SEQ_CST))
            return true;
    }
    return false;
}

static uint64_t wa__worker_timers_next(wa__worker *w)
{
    wa__timers_lock(&w->view);
    uint64_t d = wa__timers_next(&w->view);
    wa__timers_unlock(&w->view);
    return d;
}

/* Fires w's timers that are due. */
void wa__worker_fire(wa__worker *w)
{
    uint64_t next = wa__worker_timers_next(w);
    if (next != WA_NEVER && next <= wa__now_fresh(&w->view))
        wa__timers_fire(&w->view, w->view.now);
}

/* Whether an fd is registered: without one there is nothing to wait for
 * in the backend (a wait starts in a poll, after its registration, and
 * its worker parks after the poll). */
static bool wa__mt_has_io(wa__mt *mt) { return __atomic_load_n(&mt->rt->backend->sources, __ATOMIC_RELAXED) != 0; }

/* Polls the backend without blocking, if an fd is registered and no other
 * worker is at it: I/O readiness is not starved by busy workers. */
void wa__worker_poll_io(wa__worker *w)
{
    wa__mt *mt = w->mt;
    if (!wa__mt_has_io(mt) || __atomic_load_n(&mt->driving, __ATOMIC_RELAXED) ||
        __atomic_exchange_n(&mt->driving, 1, __ATOMIC_ACQUIRE))
        return;
    wa__rt_wait(&w->view, 0);
    __atomic_store_n(&mt->driving, 0, __ATOMIC_RELEASE);
}

/* w, parked as the driver (it holds the token): waits in the backend until
 * I/O, its next timer or a notify (the eventfd), then unparks itself unless
 * a notify did. The wait's wakes queue tasks on w's ring (wa__mt_wake_push). */
static void wa__worker_drive(wa__worker *w)
{
    wa__mt *mt = w->mt;
    uint64_t deadline = wa__worker_timers_next(w);
    /* (shutdown, set under the lock before its notify: seen here, or the
     * eventfd ends the wait) */
    if (!__atomic_load_n(&mt->shutdown, __ATOMIC_ACQUIRE) && __atomic_load_n(&mt->driver, __ATOMIC_RELAXED) == w) {
        w->waiting = 1;
        wa__rt_wait(&w->view, deadline);
        w->waiting = 0;
    }
    pthread_mutex_lock(&mt->lock);
    if (__atomic_load_n(&mt->driver, __ATOMIC_RELAXED) == w) {
        __atomic_store_n(&mt->driver, NULL, __ATOMIC_RELAXED);
        __atomic_add_fetch(&mt->state, WA__UNPARKED_ONE, __ATOMIC_SEQ_CST);
    }
    pthread_mutex_unlock(&mt->lock);
    __atomic_store_n(&mt->driving, 0, __ATOMIC_RELEASE);
}

/* Parks w until notified (or its next timer is due, or shutdown): as the
 * driver if an fd is registered and the token is free, else on its futex
 * (cheaper to wake). The last searcher to
 * park looks for work once more after saying it parks, so that work queued
 * by someone who saw it searching is not left behind. */
void wa__worker_park(wa__worker *w)
{
    wa__mt *mt = w->mt;
    pthread_mutex_lock(&mt->lock);
    uint32_t was = __atomic_fetch_sub(&mt->state, WA__UNPARKED_ONE + (w->searching ? 1u : 0u), __ATOMIC_SEQ_CST);
    bool last = w->searching && (was & 0xffff) == 1;
    w->searching = 0;
    bool io = wa__mt_has_io(mt);
    bool drive = io && !__atomic_exchange_n(&mt->driving, 1, __ATOMIC_ACQUIRE);
    if (drive) {
        __atomic_store_n(&mt->driver, w, __ATOMIC_RELAXED);
    } else {
        mt->idle[mt->idle_len++] = w->index;
        __atomic_store_n(&w->parked, 1, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&mt->lock);
    if (was >> 16 == 1 && !io) /* the last to park: the thread in block_on looks (deadlock) */
        wa__mt_signal(mt);
    if (last && wa__mt_has_work(mt))
        wa__mt_notify(mt);
    if (drive) {
        wa__worker_drive(w);
        return;
    }
    uint64_t deadline = wa__worker_timers_next(w);
    while (__atomic_load_n(&w->parked, __ATOMIC_ACQUIRE) && !__atomic_load_n(&mt->shutdown, __ATOMIC_ACQUIRE)) {
        struct timespec ts, *tsp = NULL;
        if (deadline != WA_NEVER) {
            uint64_t now = wa__now_fresh(&w->view);
            if (deadline <= now)
                break;
            ts.tv_sec = (time_t)((deadline - now) / 1000000000u);
            ts.tv_nsec = (long)((deadline - now) % 1000000000u);
            tsp = &ts;
        }
        wa__futex(&w->parked, FUTEX_WAIT, 1, tsp);
    }
    if (__atomic_load_n(&w->parked, __ATOMIC_ACQUIRE)) { /* a timer, or shutdown: unpark itself */
        pthread_mutex_lock(&mt->lock);
        if (__atomic_load_n(&w->parked, __ATOMIC_RELAXED)) {
            for (unsigned i = 0; i < mt->idle_len; i++)
                if (mt->idle[i] == w->index) {
                    mt->idle[i] = mt->idle[--mt->idle_len];
                    break;
                }
            __atomic_add_fetch(&mt->state, WA__UNPARKED_ONE, __ATOMIC_SEQ_CST);
            __atomic_store_n(&w->parked, 0, __ATOMIC_RELAXED);
        }
        pthread_mutex_unlock(&mt->lock);
    }
}
