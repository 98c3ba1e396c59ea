/* SPDX-License-Identifier: MIT */
/* Scopes on the many-threads executor (the scheduler's scope entries,
 * sched.h) and a finished task's leaving of its scope. Apart from the
 * worker loop, which calls it when a task ends, and below it: it calls
 * only the queues (a child's cancel or abort is a wake). */
#define _GNU_SOURCE
#include "mt.h"

/* Scopes. A child stays on its shard's list like any task (shutdown and
 * free find it there), and names its scope in t->scope; cancelling or
 * dropping a scope walks the shards for its children (rare: the hot paths
 * are a spawn and a finish, one lock each). Waking the scope's awaiter
 * happens after the lock is released, with a clone of its waker. */

/* Under the scope lock: requests bit (WA__T_CANCEL, WA__T_ABORT) of each
 * child of sc; detach: the children no longer name it (it goes). */
static void wa__mt_scope_signal(wa__mt *mt, wa_scope *sc, uint32_t bit, bool detach)
{
    for (unsigned s = 0; s < WA__SHARDS; s++) {
        wa__shard_lock(&mt->shard[s]);
        for (wa_task *t = wa__task_first(&mt->shard[s].tasks); t; t = wa__task_next(t))
            if (t->scope == sc) {
                if (detach)
                    __atomic_store_n(&t->scope, NULL, __ATOMIC_RELAXED);
                wa__mt_signal_task(t, bit);
            }
        wa__shard_unlock(&mt->shard[s]);
    }
}

/* Takes a clone of sc's waker (the lock held): woken after the unlock. */
static wa_waker wa__mt_scope_waker(wa_scope *sc)
{
    return sc->waker.vt ? wa_waker_clone(&sc->waker) : (wa_waker){NULL, NULL};
}

/* t finished: counts it out of its scope, if any (the scope's first
 * error, fail-fast, its awaiter's wake), as wa__task_leave_scope does. */
void wa__mt_leave_scope(wa__mt *mt, wa_task *t)
{
    if (!__atomic_load_n(&t->scope, __ATOMIC_ACQUIRE))
        return; /* no scope's (or no longer: written under the lock) */
    wa_waker w = {NULL, NULL};
    pthread_mutex_lock(&mt->scope_lock);
    wa_scope *sc = t->scope;
    if (sc) {
        __atomic_store_n(&t->scope, NULL, __ATOMIC_RELAXED);
        sc->live--;
        int rc = t->status;
        bool first_error = rc < 0 && rc != WA_ECANCELED && sc->status == 0;
        if (first_error) {
            sc->status = rc;
            if (sc->flags & WA_SCOPE_FAIL_FAST) {
                sc->flags |= WA__SCOPE_CANCELLING;
                wa__mt_scope_signal(mt, sc, WA__T_CANCEL, false);
            }
        }
        if (sc->live == 0 || first_error)
            w = wa__mt_scope_waker(sc);
    }
    pthread_mutex_unlock(&mt->scope_lock);
    wa_waker_wake(&w);
}

/* t ended with scopes it created still live: drops them (reported as
 * misuse when t returned normally). */
void wa__mt_drop_scopes(wa__mt *mt, wa_task *t, bool report)
{
    for (;;) {
        pthread_mutex_lock(&mt->scope_lock);
        wa_scope *sc = mt->scopes;
        while (sc && sc->owner != t)
            sc = sc->next;
        pthread_mutex_unlock(&mt->scope_lock);
        if (!sc)
            return;
        if (report)
            wa_misuse(WA_EMISUSE, "a task ended without dropping the scope it created");
        wa_drop(&sc->fut);
    }
}

void wa__mt_scope_init(wa_scope *sc, wa_rt *rt, unsigned flags)
{
    wa__mt *mt = rt->mt;
    sc->rt = mt->rt;
    sc->owner = wa__rt_current(rt); /* (a worker's view: its running task) */
    if (sc->owner && (wa__word_load(sc->owner) & WA__SCOPE_MASK) != WA__SCOPE_MASK)
        wa__word_add(sc->owner, WA__SCOPE_ONE); /* (only its own poll changes these bits) */
    wa__list_init(&sc->children); /* (they stay on the shards) */
    sc->live = 0;
    sc->status = 0;
    sc->flags = flags & WA_SCOPE_FAIL_FAST;
    sc->waker = (wa_waker){NULL, NULL};
    sc->prev = NULL;
    pthread_mutex_lock(&mt->scope_lock);
    sc->next = mt->scopes;
    if (mt->scopes)
        mt->scopes->prev = sc;
    mt->scopes = sc;
    pthread_mutex_unlock(&mt->scope_lock);
}

int wa__mt_scope_poll(wa_scope *sc, bool outer, wa_cx *cx)
{
    wa__mt *mt = sc->rt->mt;
    pthread_mutex_lock(&mt->scope_lock);
    if (sc->flags & WA__SCOPE_RETURNED) {
        pthread_mutex_unlock(&mt->scope_lock);
        return wa__misuse_done(NULL, "scope");
    }
    if (outer && !(sc->flags & WA__SCOPE_CANCELLING)) {
        if (sc->status == 0)
            sc->status = WA_ECANCELED;
        sc->flags |= WA__SCOPE_CANCELLING;
        wa__mt_scope_signal(mt, sc, WA__T_CANCEL, false);
    }
    int rc = WA_PENDING;
    wa_waker gone = {NULL, NULL};
    if (sc->live == 0) {
        sc->flags |= WA__SCOPE_RETURNED;
        gone = sc->waker;
        sc->waker = (wa_waker){NULL, NULL};
        rc = sc->status;
    } else {
        wa_waker_store(&sc->waker, cx);
    }
    pthread_mutex_unlock(&mt->scope_lock);
    wa_waker_drop(&gone);
    return rc;
}

void wa__mt_scope_cancel(wa_scope *sc)
{
    wa__mt *mt = sc->rt->mt;
    pthread_mutex_lock(&mt->scope_lock);
    if (sc->status == 0)
        sc->status = WA_ECANCELED;
    sc->flags |= WA__SCOPE_CANCELLING;
    wa__mt_scope_signal(mt, sc, WA__T_CANCEL, false);
    pthread_mutex_unlock(&mt->scope_lock);
}

void wa__mt_scope_drop(wa_scope *sc)
{
    wa__mt *mt = sc->rt->mt;
    if (sc->owner && (wa__word_load(sc->owner) & WA__SCOPE_MASK) != WA__SCOPE_MASK)
        wa__word_sub(sc->owner, WA__SCOPE_ONE); /* saturated counts stay */
    pthread_mutex_lock(&mt->scope_lock);
    if (sc->live && sc->status == 0)
        sc->status = WA_ECANCELED;
    wa_waker w = sc->waker;
    sc->waker = (wa_waker){NULL, NULL};
    sc->flags |= WA__SCOPE_CANCELLING;
    /* Children left: aborted, each by the worker that runs it next (one
     * may be in a poll on another worker now), and no longer its. */
    wa__mt_scope_signal(mt, sc, WA__T_ABORT, true);
    sc->live = 0;
    if (sc->prev)
        sc->prev->next = sc->next;
    else
        mt->scopes = sc->next;
    if (sc->next)
        sc->next->prev = sc->prev;
    sc->rt = NULL;
    pthread_mutex_unlock(&mt->scope_lock);
    wa_waker_wake(&w);
}
