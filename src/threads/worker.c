/* SPDX-License-Identifier: MIT */
/* A worker of the many-threads executor: its loop (the next task: the
 * LIFO slot, its ring, the injector, then stealing from the others), the
 * run of one task and its finish. Apart from the runtime (mt.c), which
 * starts the workers and stops them, and above the queues, parking and
 * scopes, which it calls. */
#define _GNU_SOURCE
#include "mt.h"
#include "../core/timer.h"

/* The task finished with rc (or was dropped: WA_ECANCELED): drops its
 * future and the scopes it left live, counts it out of its scope, then
 * says done (so that a join never reads a future being dropped) and wakes
 * its joiner. The caller drops the alive reference. */
void wa__mt_finish(wa__mt *mt, wa_task *t, int rc)
{
    bool live = wa__task_future(t)->vt != &wa__internal_vt; /* counted in mt->live */
    t->status = rc;
    wa_drop(wa__task_future(t));
    if (t->locals)
        t->locals->release(t);
    if (wa__word_load(t) & WA__SCOPE_MASK)
        wa__mt_drop_scopes(mt, t, rc != WA_ECANCELED);
    wa__mt_leave_scope(mt, t);
    wa__shard *s = wa__shard_of(mt, t);
    wa__shard_lock(s);
    wa__list_remove(&s->tasks, &t->link);
    wa__shard_unlock(s);
    wa__mt_lock_unless_done(t); /* (it is not) */
    wa_join *j = t->joiner;
    t->joiner = NULL;
    wa_waker jw = j ? j->waker : (wa_waker){NULL, NULL};
    if (j)
        j->waker = (wa_waker){NULL, NULL};
    __atomic_fetch_xor(&t->word, WA__T_LOCKED | WA__T_DONE, __ATOMIC_RELEASE); /* unlocked and done at once */
    if (jw.vt)
        wa_waker_wake(&jw);
    if (live && __atomic_sub_fetch(&mt->live, 1, __ATOMIC_ACQ_REL) == 0)
        wa__mt_signal(mt);
}

/* Polls t, taken from a queue with the queue's reference, once. */
static void wa__mt_run(wa__worker *w, wa_task *t)
{
    wa__mt *mt = w->mt;
    uint32_t st = wa__word_load(t), nw, start;
    do {
        if (st & WA__T_DONE) {
            wa__mt_unref(t, 1);
            return;
        }
        nw = (st & ~(uint32_t)(WA__T_QUEUED | WA__T_CLAIMED)) | WA__T_RUNNING | WA__T_STARTED;
    } while (!__atomic_compare_exchange_n(&t->word, &st, nw, true, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
    start = st;
    int rc = WA_ECANCELED;
    if (!(st & WA__T_ABORT) && (st & (WA__T_CANCEL | WA__T_STARTED)) != WA__T_CANCEL) {
        wa_rt *v = &w->view;
        v->budget = 128;
        v->polls++;
        v->now_fresh = 0;
        v->cx.waker.data = v->cx.task = t;
        wa_future *f = wa__task_future(t);
        rc = f->vt->poll(f, &v->cx);
        v->cx.task = NULL;
        if (v->arming_len) /* sleeps armed by this poll count from now */
            wa__timers_commit(v, wa__now_fresh(v));
        /* Aborted, or nobody took a request this poll saw: hard drop. A
         * request that came during the poll is seen by the next one. */
        st = wa__word_load(t);
        if (rc == WA_PENDING && ((st & WA__T_ABORT) || ((start & WA__T_CANCEL) && !(st & WA__T_CLAIMED))))
            rc = WA_ECANCELED;
    }
    if (rc != WA_PENDING) { /* still running: a wake meanwhile only marks it */
        wa__mt_finish(mt, t, rc);
        wa__mt_unref(t, 2); /* alive, queue */
        return;
    }
    if (wa__word_and(t, ~(uint32_t)WA__T_RUNNING) & WA__T_QUEUED)
        wa__mt_push(mt, w, t); /* woken while it ran: behind the others, with the queue's reference */
    else
        wa__mt_unref(t, 1);
}

/* Looks for work in the injector, then in the ring of each other worker
 * from a random one, taking half. Returns a task, or NULL still searching
 * (wa__worker_park ends the search); NULL at once when half the workers
 * search already. */
static wa_task *wa__worker_search(wa__worker *w)
{
    wa__mt *mt = w->mt;
    if (!w->searching) {
        if (2 * (__atomic_load_n(&mt->state, __ATOMIC_SEQ_CST) & 0xffff) >= mt->n)
            return NULL;
        __atomic_add_fetch(&mt->state, 1, __ATOMIC_SEQ_CST);
        w->searching = 1;
    }
    wa_task *t = wa__inject_pop(mt, w);
    w->seed = w->seed * 6364136223846793005u + 1442695040888963407u;
    unsigned start = (unsigned)(w->seed >> 33) % mt->n;
    for (unsigned i = 0; !t && i < mt->n; i++) {
        wa__worker *v = &mt->workers[(start + i) % mt->n];
        wa_task *batch[WA__RING / 2];
        unsigned n = v == w ? 0 : wa__ring_take(&v->ring, batch, WA__RING / 2, true);
        if (n) {
            t = batch[--n];
            for (unsigned k = 0; k < n; k++)
                if (!wa__ring_push(&w->ring, batch[k])) /* (it was empty: cannot fail) */
                    wa__inject(mt, batch[k], batch[k], 1);
        }
    }
    if (t) {
        w->searching = 0;
        if ((__atomic_fetch_sub(&mt->state, 1, __ATOMIC_SEQ_CST) & 0xffff) == 1)
            wa__mt_notify(mt); /* the last searcher found work: there may be more */
    }
    return t;
}

/* The next task for w: the LIFO slot (a few times in a row at most), now
 * and then the injector first (so that tasks from outside are not starved
 * by local ones), its ring, the injector, then other workers'. */
static wa_task *wa__worker_next(wa__worker *w)
{
    wa_task *t = w->lifo;
    if (t && w->lifo_run < WA__LIFO_MAX) {
        w->lifo = NULL;
        w->lifo_run++;
        return t;
    }
    w->lifo_run = 0;
    if (t) { /* its turn is over: behind the others */
        w->lifo = NULL;
        wa__mt_push(w->mt, w, t);
    }
    if (w->view.polls % WA__INJECT_EVERY == 0 && (t = wa__inject_pop(w->mt, w)))
        return t;
    if (wa__ring_take(&w->ring, &t, 1, false) || (t = wa__inject_pop(w->mt, w)))
        return t;
    t = wa__worker_search(w);
    for (unsigned i = 1; !t && w->searching && i < WA__SEARCH_PASSES; i++) {
        sched_yield();
        t = wa__worker_search(w);
    }
    return t;
}

void *wa__worker_main(void *arg)
{
    wa__worker *w = arg;
    wa__mt *mt = w->mt;
    wa__worker_self = w;
    w->view.owner = wa__thread_self();
    wa__ticking = &w->view; /* polls must not block on or tick a runtime */
    w->view.poll_top = __builtin_frame_address(0);
    while (!__atomic_load_n(&mt->shutdown, __ATOMIC_ACQUIRE)) {
        if (w->view.polls % WA__INJECT_EVERY == 0) {
            wa__worker_fire(w);
            wa__worker_poll_io(w);
        }
        wa_task *t = wa__worker_next(w);
        if (t) {
            wa__mt_run(w, t);
            continue;
        }
        wa__worker_park(w);
        wa__worker_fire(w);
    }
    wa__ticking = NULL;
    return NULL;
}
