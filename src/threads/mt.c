/* SPDX-License-Identifier: MIT */
/* The many-threads executor (native Linux): worker threads that steal work
 * from each other. Each worker has a fixed ring of tasks (a Chase-Lev deque
 * whose owner takes from the same end as thieves, so that a task that
 * yields goes behind the others), a LIFO slot for the task it woke last,
 * and its view of the runtime (cx->rt in its polls: its clock cache, coop
 * budget, running task and timers). Tasks spawned or woken from other
 * threads go through a global injector. Idle workers park on futexes; at
 * most half of them search for work at once, each a few times before it
 * parks, and the last searcher looks again after saying it parks. One
 * parking worker at a time, the driver, waits in the backend (epoll)
 * instead of on its futex, and is notified through the backend's notify
 * (an eventfd). The task word is atomic here (WA__TASK_ATOMIC).
 *
 * This file is the runtime: its making and freeing (wa_rt_new_mt), the
 * scheduler's table (rt->sched) with its spawn and join handles, and the
 * wait of the thread in block_on or run with its deadlock test. It starts
 * the workers and calls the files below it, which never call it back
 * (mt.h has what they share): worker.c (the loop, the run of a task),
 * scope.c (scopes), queue.c (the injector, queuing, the waker), park.c
 * (parking, the driver, notifies). */
#define _GNU_SOURCE
#include <string.h>

#include "../host/posix/sigmask.h"
#include "mt.h"
#include "../core/dump.h"
#include "../core/sched.h"

/* Spawning. */

static int wa__mt_join_poll(wa_future *f, wa_cx *cx);
static void wa__mt_join_drop(wa_join *j)
{
    wa_task *t = j->task;
    j->task = NULL;
    bool locked = wa__mt_lock_unless_done(t);
    if (locked && t->joiner == j)
        t->joiner = NULL;
    wa_waker jw = j->waker;
    j->waker = (wa_waker){NULL, NULL};
    if (locked)
        wa__mt_unlock(t);
    wa_waker_drop(&jw);
    wa__mt_unref(t, 1);
}

static void wa__mt_join_drop_vt(wa_future *f);
static const wa_future_vt wa__mt_join_vt = {wa__mt_join_poll, wa__mt_join_drop_vt, "join", NULL, wa__join_describe};

static int wa__mt_spawn(wa_rt *rt, const wa_future *fut, size_t size, wa_join *join, wa_scope *scope)
{
    wa__mt *mt = rt->mt;
    if (__atomic_load_n(&mt->shutdown, __ATOMIC_ACQUIRE))
        return WA_ECANCELED;
    size_t total = sizeof(wa_task) + size;
    wa_task *t = malloc(total); /* freed on whatever thread drops the last reference */
    if (!t)
        return WA_ENOMEM;
    if (scope) { /* counted in before it can finish */
        pthread_mutex_lock(&mt->scope_lock);
        bool closed = (scope->flags & (WA__SCOPE_CANCELLING | WA__SCOPE_RETURNED));
        if (!closed)
            scope->live++;
        pthread_mutex_unlock(&mt->scope_lock);
        if (closed) {
            free(t);
            return WA_ECANCELED;
        }
    }
    memcpy(wa__task_future(t), fut, size);
    t->rt = mt->rt;
    t->scope = scope;
    t->joiner = NULL;
    t->status = 0;
    t->locals = NULL;
    t->id = (uint32_t)__atomic_add_fetch(&mt->rt->spawned, 1, __ATOMIC_RELAXED);
    /* alive, the queue's, the handle's */
    wa__word_store(t, WA__T_QUEUED + (join ? 3 : 2) * WA__REF_ONE);
    if (join) {
        join->fut.vt = &wa__mt_join_vt;
        join->task = t;
        join->waker = (wa_waker){NULL, NULL};
    }
    if (fut->vt != &wa__internal_vt) /* the library's own tasks are not waited for (rt.h) */
        __atomic_add_fetch(&mt->live, 1, __ATOMIC_RELAXED);
    wa__shard *s = wa__shard_of(mt, t);
    wa__shard_lock(s);
    wa__list_push(&s->tasks, &t->link);
    wa__shard_unlock(s);
    wa__mt_push(mt, wa__mt_here(mt), t);
    return 0;
}

/* Join handles. */

static int wa__mt_join_poll(wa_future *f, wa_cx *cx)
{
    wa_join *j = (wa_join *)f;
    wa_task *t = j->task;
    if (!t)
        return wa__misuse_in(WA_EMISUSE, "await of a join handle", "the handle was dropped");
    if (!wa__mt_lock_unless_done(t))
        return t->status;
    wa_waker_store(&j->waker, cx);
    t->joiner = j;
    wa__mt_unlock(t);
    return WA_PENDING;
}

static void wa__mt_join_drop_vt(wa_future *f)
{
    wa_join *j = (wa_join *)f;
    if (j->task)
        wa__mt_join_drop(j);
}

/* Life. */

/* Nothing inside the runtime can wake a task: every worker parked, no
 * task queued, no timer armed, no source registered. Under the lock, so
 * that no worker unparks meanwhile (one woken by its timer unparks under
 * it; the driver's wakes need a source). */
static bool wa__mt_idle(wa__mt *mt)
{
    pthread_mutex_lock(&mt->lock);
    bool idle = __atomic_load_n(&mt->state, __ATOMIC_SEQ_CST) >> 16 == 0 && !wa__mt_has_work(mt) &&
                __atomic_load_n(&mt->rt->backend->sources, __ATOMIC_RELAXED) == 0;
    for (unsigned i = 0; idle && i < mt->n; i++) {
        wa_rt *v = &mt->workers[i].view;
        wa__timers_lock(v);
        idle = v->heap_len == 0 && v->arming_len == 0;
        wa__timers_unlock(v);
    }
    pthread_mutex_unlock(&mt->lock);
    return idle;
}

/* Whether what block_on (root) or run (NULL) waits for has ended. */
static bool wa__mt_ended(wa__mt *mt, wa_join *root)
{
    return root ? wa__word_load(root->task) & WA__T_DONE : __atomic_load_n(&mt->live, __ATOMIC_ACQUIRE) == 0;
}

static int wa__mt_wait(wa_rt *rt, wa_join *root, bool again)
{
    wa__mt *mt = rt->mt;
    if (root && wa__mt_lock_unless_done(root->task)) { /* the handle, never awaited, wakes this thread */
        root->waker = (wa_waker){mt, &wa__mt_signal_vt};
        root->task->joiner = root;
        wa__mt_unlock(root->task);
    }
    for (;;) {
        uint32_t seq = __atomic_load_n(&mt->signal, __ATOMIC_ACQUIRE);
        if (wa__mt_ended(mt, root))
            return 0;
        if ((!again || seq != mt->idle_seen) && wa__mt_idle(mt)) {
            if (wa__mt_ended(mt, root)) /* (it ended, and its worker parked, since the look above) */
                return 0;
            mt->idle_seen = seq;
            return WA_EDEADLK;
        }
        wa__futex(&mt->signal, FUTEX_WAIT, seq, NULL);
    }
}

static void wa__mt_kick(wa_rt *rt) { wa__mt_signal(rt->mt); }

static size_t wa__mt_live(const wa_rt *rt) { return __atomic_load_n(&rt->mt->live, __ATOMIC_ACQUIRE); }

/* Holds t, waiting (neither queued, running nor done), as a poll does,
 * so that no worker polls it while a dump reads its future: a wake
 * meanwhile only marks it. Returns whether it did. */
static bool wa__mt_hold(wa_task *t)
{
    uint32_t w = wa__word_load(t);
    do {
        if (w & (WA__T_QUEUED | WA__T_RUNNING | WA__T_DONE))
            return false;
    } while (!__atomic_compare_exchange_n(&t->word, &w, (w | WA__T_RUNNING) + WA__REF_ONE, true, __ATOMIC_ACQ_REL,
                                          __ATOMIC_ACQUIRE));
    return true;
}

/* Lets go of t, held: queues it if it was woken meanwhile (the hold's
 * reference becomes the queue's), as the end of a poll does. */
static void wa__mt_let_go(wa__mt *mt, wa_task *t)
{
    if (wa__word_and(t, ~(uint32_t)WA__T_RUNNING) & WA__T_QUEUED)
        wa__mt_push(mt, wa__mt_here(mt), t);
    else
        wa__mt_unref(t, 1);
}

/* wa_rt_dump: the live tasks of every shard; what a waiting one awaits is
 * read while it is held (a running or queued one says so). Internal tasks
 * are left out, as locally. */
static size_t wa__mt_dump(const wa_rt *rt, char *buf, size_t len)
{
    wa__mt *mt = rt->mt;
    wa__text d = {buf, len, 0};
    if (len)
        buf[0] = 0;
    uint64_t now = rt->backend->vt->now(rt->backend);
    for (unsigned s = 0; s < WA__SHARDS; s++) {
        wa__shard_lock(&mt->shard[s]);
        for (wa_task *t = wa__task_first(&mt->shard[s].tasks); t; t = wa__task_next(t)) {
            bool held = wa__mt_hold(t);
            wa__dump_task(&d, t, "  ", held, now);
            if (held)
                wa__mt_let_go(mt, t);
        }
        wa__shard_unlock(&mt->shard[s]);
    }
    return d.need;
}

static int wa__mt_drain(wa_rt *rt, uint64_t stop)
{
    wa__mt *mt = rt->mt;
    for (;;) {
        uint32_t seq = __atomic_load_n(&mt->signal, __ATOMIC_ACQUIRE);
        if (__atomic_load_n(&mt->live, __ATOMIC_ACQUIRE) == 0)
            return 0;
        for (unsigned s = 0; s < WA__SHARDS; s++) {
            wa__shard_lock(&mt->shard[s]);
            for (wa_task *t = wa__task_first(&mt->shard[s].tasks); t; t = wa__task_next(t))
                wa__mt_signal_task(t, WA__T_CANCEL);
            wa__shard_unlock(&mt->shard[s]);
        }
        uint64_t now = wa__now_fresh(rt);
        if (now >= stop)
            return WA_ETIMEDOUT;
        /* the last finish signals; a task spawned meanwhile is cancelled on
         * the next look, 10 ms at most from now */
        uint64_t ns = stop - now < WA_MS(10) ? stop - now : WA_MS(10);
        struct timespec ts = {0, (long)ns};
        wa__futex(&mt->signal, FUTEX_WAIT, seq, &ts);
    }
}

static void wa__mt_destroy(wa__mt *mt)
{
    pthread_mutex_destroy(&mt->lock);
    pthread_mutex_destroy(&mt->scope_lock);
    free(mt->idle);
    free(mt->workers);
    free(mt);
}

/* Stops the workers, then drops every task still alive on this thread. */
static void wa__mt_free(wa_rt *rt)
{
    wa__mt *mt = rt->mt;
    /* Under the lock, as a park is said: a worker that parks after this sees
     * shutdown, and one about to wait on its word finds it 0 (the futex
     * compares it: no wake lost between its check of shutdown and its wait). */
    pthread_mutex_lock(&mt->lock);
    __atomic_store_n(&mt->shutdown, 1, __ATOMIC_RELEASE);
    for (unsigned i = 0; i < mt->n; i++)
        __atomic_store_n(&mt->workers[i].parked, 0, __ATOMIC_RELEASE);
    if (__atomic_load_n(&mt->driver, __ATOMIC_RELAXED))
        rt->backend->vt->notify(rt->backend);
    pthread_mutex_unlock(&mt->lock);
    for (unsigned i = 0; i < mt->n; i++)
        wa__futex(&mt->workers[i].parked, FUTEX_WAKE, 1, NULL);
    for (unsigned i = 0; i < mt->n; i++)
        pthread_join(mt->workers[i].thread, NULL);
    for (unsigned s = 0; s < WA__SHARDS; s++)
        while (!wa__list_empty(&mt->shard[s].tasks)) {
            wa_task *t = wa__task_first(&mt->shard[s].tasks);
            wa__mt_finish(mt, t, WA_ECANCELED);
            wa__mt_unref(t, 1); /* alive */
        }
    /* the queues' references: the finishes above may have queued more */
    for (unsigned i = 0; i < mt->n; i++) {
        wa__worker *w = &mt->workers[i];
        wa_task *t;
        while (wa__ring_take(&w->ring, &t, 1, false))
            wa__mt_unref(t, 1);
        if (w->lifo)
            wa__mt_unref(w->lifo, 1);
        free(w->view.heap);
        free(w->view.arming);
    }
    for (wa_task *t = mt->inj_head, *next; t; t = next) {
        next = t->next;
        wa__mt_unref(t, 1);
    }
    wa__mt_destroy(mt);
}

/* The scheduler's drive (sched.h): this thread waits while the workers
 * run, until root is done (NULL: every task); when they are idle and no
 * other thread may wake a task either (a remote or an event held, a
 * blocking job), it reports the deadlock: WA_EDEADLK. */
static int wa__mt_drive(wa_rt *rt, wa_join *root)
{
    int rc = wa__mt_wait(rt, root, false);
    while (rc == WA_EDEADLK && wa__remote_busy(rt)) /* its letting go kicks the wait */
        rc = wa__mt_wait(rt, root, true);
    if (rc == WA_EDEADLK)
        wa__report_deadlock(rt, wa__mt_dump);
    return rc;
}

static void wa__mt_finish_root(wa_rt *rt, wa_join *root) { wa__mt_wait(rt, root, true); }

static const wa__sched wa__mt_sched = {wa__mt_spawn,      wa__mt_signal_task, wa__mt_join_drop, wa__mt_scope_init,
                                     wa__mt_scope_poll, wa__mt_scope_cancel, wa__mt_scope_drop, wa__mt_drive,
                                     wa__mt_finish_root, wa__mt_drain, wa__mt_dump, wa__mt_live, wa__mt_kick,
                                     wa__mt_free};

static int wa__mt_new(wa_rt *rt, unsigned n)
{
    wa__mt *mt = aligned_alloc(_Alignof(wa__mt), sizeof *mt);
    if (!mt)
        return WA_ENOMEM;
    memset(mt, 0, sizeof *mt);
    mt->rt = rt;
    mt->n = n;
    pthread_mutex_init(&mt->lock, NULL);
    pthread_mutex_init(&mt->scope_lock, NULL);
    mt->workers = aligned_alloc(64, (n * sizeof *mt->workers + 63) / 64 * 64);
    mt->idle = calloc(n, sizeof *mt->idle);
    if (!mt->workers || !mt->idle) {
        wa__mt_destroy(mt);
        return WA_ENOMEM;
    }
    memset(mt->workers, 0, n * sizeof *mt->workers);
    mt->state = n * WA__UNPARKED_ONE;
    rt->mt = mt;
    rt->sched = &wa__mt_sched;
    for (unsigned i = 0; i < n; i++) {
        wa__worker *w = &mt->workers[i];
        w->mt = mt;
        w->index = i;
        w->seed = i + 1;
        w->view.mt = mt;
        w->view.sched = &wa__mt_sched;
        w->view.home = rt;
        w->view.cx = (wa_cx){{NULL, &wa__mt_waker_vt}, &w->view, NULL, 0, &w->view.budget};
        w->view.backend = rt->backend;
        w->view.report = rt->report;
        w->view.report_arg = rt->report_arg;
    }
    if (rt->backend->vt->share) /* the workers use it together */
        rt->backend->vt->share(rt->backend);
    for (unsigned i = 0; i < n; i++) {
        if (wa__sigmask_thread(&mt->workers[i].thread, wa__worker_main, &mt->workers[i]) != 0) {
            mt->n = i; /* stop those that started */
            wa__mt_free(rt);
            rt->mt = NULL;
            rt->sched = NULL;
            return WA_ENOMEM;
        }
    }
    return 0;
}

int wa_rt_new_mt(wa_rt **out, unsigned workers)
{
    if (workers == 0 || workers > 0xfff) {
        if (out)
            *out = NULL;
        return wa_misuse(WA_EINVAL, "wa_rt_new_mt: workers must be 1 to 4095");
    }
    int rc = wa_rt_new(out);
    if (rc == 0 && (rc = wa__mt_new(*out, workers)) < 0) {
        wa_rt_free(*out);
        *out = NULL;
    }
    return rc;
}
