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
void wa_mt_finish_(wa_mt *mt, wa_task *t, int rc)
{
    bool live = wa_task_future(t)->vt != &wa_internal_vt_; /* counted in mt->live */
    t->status = rc;
    wa_drop(wa_task_future(t));
    if (wa_word_load(t) & WA_SCOPE_MASK)
        wa_mt_drop_scopes_(mt, t, rc != WA_ECANCELED);
    wa_mt_leave_scope_(mt, t);
    wa_shard *s = wa_shard_of(mt, t);
    wa_shard_lock(s);
    wa_list_remove(&s->tasks, &t->link);
    wa_shard_unlock(s);
    wa_mt_lock_unless_done(t); /* (it is not) */
    wa_join *j = t->joiner;
    t->joiner = NULL;
    wa_waker jw = j ? j->waker : (wa_waker){NULL, NULL};
    if (j)
        j->waker = (wa_waker){NULL, NULL};
    __atomic_fetch_xor(&t->word, WA_T_LOCKED | WA_T_DONE, __ATOMIC_RELEASE); /* unlocked and done at once */
    if (jw.vt)
        wa_waker_wake(&jw);
    if (live && __atomic_sub_fetch(&mt->live, 1, __ATOMIC_ACQ_REL) == 0)
        wa_mt_signal_(mt);
}

/* Polls t, taken from a queue with the queue's reference, once. */
static void wa_mt_run(wa_worker *w, wa_task *t)
{
    wa_mt *mt = w->mt;
    uint32_t st = wa_word_load(t), nw, start;
    do {
        if (st & WA_T_DONE) {
            wa_mt_unref(t, 1);
            return;
        }
        nw = (st & ~(uint32_t)(WA_T_QUEUED | WA_T_CLAIMED)) | WA_T_RUNNING | WA_T_STARTED;
    } while (!__atomic_compare_exchange_n(&t->word, &st, nw, true, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
    start = st;
    int rc = WA_ECANCELED;
    if (!(st & WA_T_ABORT) && (st & (WA_T_CANCEL | WA_T_STARTED)) != WA_T_CANCEL) {
        wa_rt *v = &w->view;
        v->budget = 128;
        v->polls++;
        v->now_fresh = 0;
        v->cx.waker.data = v->cx.task = t;
        wa_future *f = wa_task_future(t);
        rc = f->vt->poll(f, &v->cx);
        v->cx.task = NULL;
        if (v->arming_len) /* sleeps armed by this poll count from now */
            wa_timers_commit_(v, wa_now_fresh_(v));
        /* Aborted, or nobody took a request this poll saw: hard drop. A
         * request that came during the poll is seen by the next one. */
        st = wa_word_load(t);
        if (rc == WA_PENDING && ((st & WA_T_ABORT) || ((start & WA_T_CANCEL) && !(st & WA_T_CLAIMED))))
            rc = WA_ECANCELED;
    }
    if (rc != WA_PENDING) { /* still running: a wake meanwhile only marks it */
        wa_mt_finish_(mt, t, rc);
        wa_mt_unref(t, 2); /* alive, queue */
        return;
    }
    if (wa_word_and(t, ~(uint32_t)WA_T_RUNNING) & WA_T_QUEUED)
        wa_mt_push_(mt, w, t); /* woken while it ran: behind the others, with the queue's reference */
    else
        wa_mt_unref(t, 1);
}

/* Looks for work in the injector, then in the ring of each other worker
 * from a random one, taking half. Returns a task, or NULL still searching
 * (wa_worker_park_ ends the search); NULL at once when half the workers
 * search already. */
static wa_task *wa_worker_search(wa_worker *w)
{
    wa_mt *mt = w->mt;
    if (!w->searching) {
        if (2 * (__atomic_load_n(&mt->state, __ATOMIC_SEQ_CST) & 0xffff) >= mt->n)
            return NULL;
        __atomic_add_fetch(&mt->state, 1, __ATOMIC_SEQ_CST);
        w->searching = 1;
    }
    wa_task *t = wa_inject_pop_(mt, w);
    w->seed = w->seed * 6364136223846793005u + 1442695040888963407u;
    unsigned start = (unsigned)(w->seed >> 33) % mt->n;
    for (unsigned i = 0; !t && i < mt->n; i++) {
        wa_worker *v = &mt->workers[(start + i) % mt->n];
        wa_task *batch[WA_RING / 2];
        unsigned n = v == w ? 0 : wa_ring_take(&v->ring, batch, WA_RING / 2, true);
        if (n) {
            t = batch[--n];
            for (unsigned k = 0; k < n; k++)
                if (!wa_ring_push(&w->ring, batch[k])) /* (it was empty: cannot fail) */
                    wa_inject_(mt, batch[k], batch[k], 1);
        }
    }
    if (t) {
        w->searching = 0;
        if ((__atomic_fetch_sub(&mt->state, 1, __ATOMIC_SEQ_CST) & 0xffff) == 1)
            wa_mt_notify_(mt); /* the last searcher found work: there may be more */
    }
    return t;
}

/* The next task for w: the LIFO slot (a few times in a row at most), now
 * and then the injector first (so that tasks from outside are not starved
 * by local ones), its ring, the injector, then other workers'. */
static wa_task *wa_worker_next(wa_worker *w)
{
    wa_task *t = w->lifo;
    if (t && w->lifo_run < WA_LIFO_MAX) {
        w->lifo = NULL;
        w->lifo_run++;
        return t;
    }
    w->lifo_run = 0;
    if (t) { /* its turn is over: behind the others */
        w->lifo = NULL;
        wa_mt_push_(w->mt, w, t);
    }
    if (w->view.polls % WA_INJECT_EVERY == 0 && (t = wa_inject_pop_(w->mt, w)))
        return t;
    if (wa_ring_take(&w->ring, &t, 1, false) || (t = wa_inject_pop_(w->mt, w)))
        return t;
    t = wa_worker_search(w);
    for (unsigned i = 1; !t && w->searching && i < WA_SEARCH_PASSES; i++) {
        sched_yield();
        t = wa_worker_search(w);
    }
    return t;
}

void *wa_worker_main_(void *arg)
{
    wa_worker *w = arg;
    wa_mt *mt = w->mt;
    wa_self_ = w;
    w->view.owner = wa_thread_self_();
    wa_ticking_ = &w->view; /* polls must not block on or tick a runtime */
    w->view.poll_top = __builtin_frame_address(0);
    while (!__atomic_load_n(&mt->shutdown, __ATOMIC_ACQUIRE)) {
        if (w->view.polls % WA_INJECT_EVERY == 0) {
            wa_worker_fire_(w);
            wa_worker_poll_io_(w);
        }
        wa_task *t = wa_worker_next(w);
        if (t) {
            wa_mt_run(w, t);
            continue;
        }
        wa_worker_park_(w);
        wa_worker_fire_(w);
    }
    wa_ticking_ = NULL;
    return NULL;
}
