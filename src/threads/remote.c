/* SPDX-License-Identifier: MIT */
/* Other threads and a runtime (native): the cross-thread state that a
 * remote is a handle on, the local runtime's inbox (spawns and wakes that
 * other threads post, run by the runtime's thread after its waits),
 * and remote spawns with their foreign join (waited on, cancelled). A
 * many-threads runtime takes spawns and wakes at once: its spawn and wakers
 * are thread-safe already. One lock guards it all; events (event.c) and
 * the blocking pool (blocking.c) share it.
 *
 * What a holder gets (a remote, a remote join, an event) is a handle of
 * its own, a key of the handle table (handles.h), not the address of the
 * counted object: its drop releases the key, so that a copy of it used
 * after the drop is found out (misuse) without reading the object, which
 * other holders may have freed meanwhile. */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/handles.h"
#include "../core/sched.h"
#include "remote.h"
#include "../core/task.h"
#include "../core/why.h"

void *wa__remote_handle(void *obj, unsigned kind)
{
    uintptr_t h;
    return wa__handle_new(obj, kind, &h) < 0 ? NULL : (void *)h;
}

/* The state's life. */

static void wa__remote_free(wa_remote *h)
{
    pthread_cond_destroy(&h->pool.work);
    pthread_cond_destroy(&h->pool.gone);
    pthread_mutex_destroy(&h->lock);
    free(h);
}

void wa__remote_unref(wa_remote *h)
{
    pthread_mutex_lock(&h->lock);
    uint32_t left = __atomic_sub_fetch(&h->refs, 1, __ATOMIC_ACQ_REL);
    if (left == 1) /* maybe the last hold: the runtime looks again */
        wa__remote_kick(h);
    pthread_mutex_unlock(&h->lock);
    if (left == 0)
        wa__remote_free(h);
}

wa_remote *wa__remote_get(wa_rt *rt, const char *call, int *err)
{
    if (!rt) {
        *err = wa__misuse_in(WA_EINVAL, call, "no runtime (NULL)");
        return NULL;
    }
    if (rt->mt) {
        rt = wa__rt_home(rt); /* a worker's view: its runtime */
    } else if (rt->owner != wa__thread_self()) {
        *err = wa__misuse_in(WA_EMISUSE, call, "called from a thread that is not the runtime's");
        return NULL;
    }
    wa_remote *h = __atomic_load_n(&rt->xt, __ATOMIC_ACQUIRE);
    if (h)
        return h;
    if (!rt->mt && !rt->backend->vt->notify) {
        *err = WA_ENOSYS; /* nothing could wake its waits */
        return NULL;
    }
    if (!(h = calloc(1, sizeof *h))) {
        *err = WA_ENOMEM;
        return NULL;
    }
    pthread_mutex_init(&h->lock, NULL);
    pthread_condattr_t a; /* idle pool threads time out on the monotonic clock */
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(&h->pool.work, &a);
    pthread_condattr_destroy(&a);
    pthread_cond_init(&h->pool.gone, NULL);
    h->pool.max = WA__POOL_MAX;
    h->pool.keep_alive = WA__POOL_KEEP_ALIVE;
    h->refs = 1; /* the runtime's */
    h->rt = rt;
    h->backend = rt->mt ? NULL : rt->backend;
    h->owner = rt->owner;
    wa_remote *none = NULL; /* workers may race to make it */
    if (!__atomic_compare_exchange_n(&rt->xt, &none, h, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        wa__remote_unref(h);
        return none;
    }
    return h;
}

bool wa__remote_busy(wa_rt *rt)
{
    wa_remote *h = rt->xt;
    return h && (__atomic_load_n(&h->refs, __ATOMIC_ACQUIRE) > 1 || __atomic_load_n(&h->pool.jobs, __ATOMIC_ACQUIRE) ||
                 __atomic_load_n(&h->posted, __ATOMIC_ACQUIRE));
}

void wa__remote_refuse(wa_rt *rt)
{
    wa_remote *h = __atomic_load_n(&rt->xt, __ATOMIC_ACQUIRE); /* (workers may be making it) */
    if (!h)
        return;
    pthread_mutex_lock(&h->lock);
    h->refusing = 1;
    pthread_mutex_unlock(&h->lock);
}

/* The inbox. */

/* Under the lock: something was posted; the runtime's wait is woken once
 * until its thread drains the inbox. */
static void wa__remote_post(wa_remote *h)
{
    if (!__atomic_exchange_n(&h->posted, 1, __ATOMIC_ACQ_REL))
        h->backend->vt->notify(h->backend);
}

void wa__remote_kick(wa_remote *h)
{
    if (h->backend && h->rt)
        h->backend->vt->notify(h->backend);
    else if (h->rt && !h->refusing) /* many threads (alive until refusing: it is set before they stop) */
        h->rt->sched->kick(h->rt);
}

void wa__remote_fire(wa_remote *h, wa__xwake *x)
{
    if (!h->backend) { /* many threads: its wakers are thread-safe */
        if (h->rt && __atomic_load_n(&h->rt->why, __ATOMIC_RELAXED))
            wa__why_thread(&x->waker);
        else
            wa_waker_wake(&x->waker);
        return;
    }
    if (x->waker.vt && !x->listed) { /* (no waker: the next poll sees the state) */
        x->prev = NULL;
        x->next = h->fired;
        if (h->fired)
            h->fired->prev = x;
        h->fired = x;
        x->listed = 1;
        wa__remote_post(h);
    }
}

void wa__remote_forget(wa_remote *h, wa__xwake *x)
{
    if (x->listed) {
        if (x->prev)
            x->prev->next = x->next;
        else
            h->fired = x->next;
        if (x->next)
            x->next->prev = x->prev;
        x->listed = 0;
    }
    wa_waker_drop(&x->waker);
}

/* What a foreign thread asked of a remote task (wa_remote_join_cancel,
 * _abort), and, task-side, that its waker was stored. */
enum { WA__RJ_CANCEL = 1, WA__RJ_ABORT = 2, WA__RJ_ARMED = 4 };

/* A remote spawn's task: the caller's future after a header naming its
 * foreign join, settled when the task finishes or is dropped. */
typedef struct wa__remote_task {
    wa_future fut;
    wa_remote_join *join;
    unsigned seen;   /* the join's signals acted on, | WA__RJ_ARMED */
    int started;     /* the caller's future was polled */
    max_align_t inner[];
} wa__remote_task;

/* A spawn waiting in the inbox: the task's future, to copy into a task. */
typedef struct wa__remote_spawn {
    struct wa__remote_spawn *next;
    size_t size;
    max_align_t task[]; /* a wa__remote_task */
} wa__remote_spawn;

struct wa_remote_join {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    uint32_t refs;   /* atomic: the task's and the holder's */
    int status;      /* WA_PENDING until settled (under the lock) */
    uintptr_t owner; /* a local runtime's thread, where waiting never ends */
    wa_remote *hub;  /* borrowed: alive while status is WA_PENDING */
    unsigned signal; /* atomic, set under the hub's lock: WA__RJ_CANCEL, _ABORT */
    wa__xwake wake;   /* the task's waker, under the hub's lock */
};

static void wa__remote_join_unref(wa_remote_join *j)
{
    if (__atomic_sub_fetch(&j->refs, 1, __ATOMIC_ACQ_REL) == 0) {
        pthread_cond_destroy(&j->cond);
        pthread_mutex_destroy(&j->lock);
        free(j);
    }
}

/* The task's status is rc, unless it was settled already. */
static void wa__remote_join_settle(wa_remote_join *j, int rc)
{
    pthread_mutex_lock(&j->lock);
    if (j->status == WA_PENDING) {
        __atomic_store_n(&j->status, rc, __ATOMIC_RELEASE); /* (wa_remote_join_status reads it unlocked) */
        pthread_cond_broadcast(&j->cond);
    }
    pthread_mutex_unlock(&j->lock);
}

/* The join's signals changed since t last looked (or t was never polled):
 * stores the task's waker again (a signal's wake consumed it) and acts on
 * them. Returns WA_ECANCELED to end the task, else WA_PENDING. */
static int wa__remote_task_signaled(wa__remote_task *t, wa_cx *cx)
{
    wa_remote_join *j = t->join;
    pthread_mutex_lock(&j->hub->lock);
    unsigned sig = j->signal;
    if (!(sig & WA__RJ_ABORT))
        wa_waker_store(&j->wake.waker, cx);
    pthread_mutex_unlock(&j->hub->lock);
    unsigned fresh = sig & ~t->seen;
    t->seen = sig | WA__RJ_ARMED;
    /* a hard drop, or a cancel before the future ran: nothing to clean up */
    if ((sig & WA__RJ_ABORT) || ((sig & WA__RJ_CANCEL) && !t->started))
        return WA_ECANCELED;
    if ((fresh & WA__RJ_CANCEL) && cx->task) {
        /* the request as wa_join_cancel makes it, seen by the future's
         * awaits from this poll on; a many-threads executor takes a request
         * from the next poll on, which the wake makes sure of */
        wa__word_set(cx->task, WA__T_CANCEL);
        if (cx->rt->mt)
            wa_waker_wake_by_ref(&cx->waker);
    }
    return WA_PENDING;
}

static int wa__remote_task_poll(wa_future *f, wa_cx *cx)
{
    wa__remote_task *t = (wa__remote_task *)f;
    wa_remote_join *j = t->join;
    int rc = WA_PENDING;
    if (j && (__atomic_load_n(&j->signal, __ATOMIC_ACQUIRE) | WA__RJ_ARMED) != t->seen)
        rc = wa__remote_task_signaled(t, cx);
    if (rc == WA_PENDING) {
        t->started = 1;
        rc = wa_poll((wa_future *)t->inner, cx);
    }
    if (rc != WA_PENDING && j)
        wa__remote_join_settle(j, rc);
    return rc;
}

static void wa__remote_task_drop(wa_future *f)
{
    wa__remote_task *t = (wa__remote_task *)f;
    wa_drop((wa_future *)t->inner);
    wa_remote_join *j = t->join;
    if (j) {
        wa__remote_join_settle(j, WA_ECANCELED); /* (dropped unfinished) */
        if (t->seen) { /* after the settle: no signal fires the waker now */
            pthread_mutex_lock(&j->hub->lock);
            wa__remote_forget(j->hub, &j->wake);
            pthread_mutex_unlock(&j->hub->lock);
        }
        wa__remote_join_unref(j);
        t->join = NULL;
    }
}

static const wa_future_vt wa__remote_task_vt = {wa__remote_task_poll, wa__remote_task_drop, "remote"};

/* Spawns s's task on rt (its thread), or settles its join with the error;
 * frees s. */
static void wa__remote_spawn_run(wa_rt *rt, wa__remote_spawn *s)
{
    wa__remote_task *t = (wa__remote_task *)s->task;
    int rc = wa_spawn(rt, &t->fut, s->size, NULL);
    if (rc < 0) {
        if (t->join)
            wa__remote_join_settle(t->join, rc);
        wa__remote_task_drop(&t->fut);
    }
    free(s);
}

/* Drops the spawns s never run (the runtime closed). */
static void wa__remote_spawn_drop_all(wa__remote_spawn *s)
{
    while (s) {
        wa__remote_spawn *next = s->next;
        wa__remote_task_drop((wa_future *)s->task);
        free(s);
        s = next;
    }
}

void wa__remote_drain(wa_rt *rt)
{
    wa_remote *h = rt->xt;
    if (!__atomic_load_n(&h->posted, __ATOMIC_ACQUIRE))
        return;
    pthread_mutex_lock(&h->lock);
    __atomic_store_n(&h->posted, 0, __ATOMIC_RELAXED);
    /* (a task's wake only queues it: nothing runs under the lock) */
    for (wa__xwake *x = h->fired, *next; x; x = next) {
        next = x->next;
        x->listed = 0;
        if (__atomic_load_n(&rt->why, __ATOMIC_RELAXED)) /* (posted by another thread) */
            wa__why_thread(&x->waker);
        else
            wa_waker_wake(&x->waker);
    }
    h->fired = NULL;
    wa__remote_spawn *s = h->spawns;
    h->spawns = h->spawns_tail = NULL;
    pthread_mutex_unlock(&h->lock);
    while (s) {
        wa__remote_spawn *next = s->next;
        wa__remote_spawn_run(rt, s);
        s = next;
    }
}

void wa__remote_close(wa_rt *rt)
{
    wa_remote *h = rt->xt;
    if (!h)
        return;
    pthread_mutex_lock(&h->lock);
    h->rt = NULL;
    wa__remote_spawn *s = h->spawns;
    h->spawns = h->spawns_tail = NULL;
    pthread_mutex_unlock(&h->lock);
    wa__remote_spawn_drop_all(s);
    rt->xt = NULL;
    wa__remote_unref(h);
}

/* Remotes. */

/* A new holder's handle to h, taking a reference; NULL without memory. */
static wa_remote *wa__remote_hold(wa_remote *h)
{
    wa_remote *r = wa__remote_handle(h, WA__HANDLE_REMOTE);
    if (r)
        __atomic_add_fetch(&h->refs, 1, __ATOMIC_ACQ_REL);
    return r;
}

int wa_remote_new(wa_rt *rt, wa_remote **out)
{
    if (!out)
        return wa__misuse_in(WA_EINVAL, "wa_remote_new", "no out (NULL)");
    int err = WA_ENOMEM;
    wa_remote *h = wa__remote_get(rt, "wa_remote_new", &err);
    *out = h ? wa__remote_hold(h) : NULL;
    return *out ? 0 : err;
}

wa_remote *wa_remote_clone(wa_remote *r)
{
    wa_remote *h = r ? wa__handle_at(r, WA__HANDLE_REMOTE, "wa_remote_clone") : NULL;
    return h ? wa__remote_hold(h) : NULL;
}

void wa_remote_drop(wa_remote *r)
{
    wa_remote *h = r ? wa__handle_at(r, WA__HANDLE_REMOTE, "wa_remote_drop") : NULL;
    if (h) {
        wa__handle_release((uintptr_t)r);
        wa__remote_unref(h);
    }
}

/* The largest future a remote spawn takes (a task's size is 32 bits). */
#define WA__REMOTE_TASK_MAX (UINT32_MAX / 4)

int wa_remote_spawn(wa_remote *hr, const wa_future *fut, size_t size, wa_remote_join **join)
{
    if (join)
        *join = NULL;
    if (!hr || !fut || size < sizeof(wa_future) || !fut->vt || !fut->vt->poll)
        return wa__misuse_in(WA_EINVAL, "wa_remote_spawn", !hr ? "no remote (NULL)" : "no future, or too small");
    wa_remote *r = wa__handle_at(hr, WA__HANDLE_REMOTE, "wa_remote_spawn");
    if (!r)
        return WA_EMISUSE;
    if (size > WA__REMOTE_TASK_MAX)
        return WA_E2BIG;
    size_t tsize = offsetof(wa__remote_task, inner) + size;
    wa__remote_spawn *s = malloc(offsetof(wa__remote_spawn, task) + tsize);
    wa_remote_join *j = join && s ? malloc(sizeof *j) : NULL;
    wa_remote_join *jh = j ? wa__remote_handle(j, WA__HANDLE_REMOTE_JOIN) : NULL;
    if (!s || (join && !jh)) {
        free(j);
        free(s);
        return WA_ENOMEM;
    }
    if (j) {
        pthread_mutex_init(&j->lock, NULL);
        pthread_cond_init(&j->cond, NULL);
        j->refs = 2;
        j->status = WA_PENDING;
        j->owner = r->backend ? r->owner : 0;
        j->hub = r;
        j->signal = 0;
        j->wake = (wa__xwake){0};
    }
    wa__remote_task *t = (wa__remote_task *)s->task;
    t->fut.vt = &wa__remote_task_vt;
    t->join = j;
    t->seen = 0;
    t->started = 0;
    memcpy(t->inner, fut, size);
    s->size = tsize;
    s->next = NULL;
    pthread_mutex_lock(&r->lock); /* held: the runtime cannot close meanwhile */
    int rc = r->rt && !r->refusing ? 0 : WA_ECLOSED;
    if (rc == 0 && r->backend) {
        if (r->spawns_tail)
            r->spawns_tail->next = s;
        else
            r->spawns = s;
        r->spawns_tail = s;
        s = NULL;
        wa__remote_post(r);
    } else if (rc == 0) {
        rc = wa_spawn(r->rt, &t->fut, tsize, NULL); /* many threads: at once */
    }
    pthread_mutex_unlock(&r->lock);
    if (rc < 0 && j) {
        wa__handle_release((uintptr_t)jh);
        j->refs = 1;
        wa__remote_join_unref(j);
    } else if (join) {
        *join = jh;
    }
    free(s);
    return rc;
}

int wa_remote_join_wait(wa_remote_join *hj)
{
    if (!hj)
        return wa__misuse_in(WA_EINVAL, "wa_remote_join_wait", "no handle (NULL)");
    wa_remote_join *j = wa__handle_at(hj, WA__HANDLE_REMOTE_JOIN, "wa_remote_join_wait");
    if (!j)
        return WA_EMISUSE;
    pthread_mutex_lock(&j->lock);
    if (j->status == WA_PENDING && (wa__ticking || j->owner == wa__thread_self())) {
        pthread_mutex_unlock(&j->lock);
        return wa__misuse_in(WA_EMISUSE, "wa_remote_join_wait",
                             wa__ticking ? "called inside a task's poll, which must not block"
                                         : "called on the thread of the task's runtime, which would never run it");
    }
    while (j->status == WA_PENDING)
        pthread_cond_wait(&j->cond, &j->lock);
    int rc = j->status;
    pthread_mutex_unlock(&j->lock);
    return rc;
}

int wa_remote_join_status(const wa_remote_join *hj)
{
    if (!hj)
        return wa__misuse_in(WA_EINVAL, "wa_remote_join_status", "no handle (NULL)");
    const wa_remote_join *j = wa__handle_at(hj, WA__HANDLE_REMOTE_JOIN, "wa_remote_join_status");
    return j ? __atomic_load_n(&j->status, __ATOMIC_ACQUIRE) : WA_EMISUSE;
}

/* Signals j's task (sig: WA__RJ_CANCEL or _ABORT) and wakes it, unless it
 * finished: then there is nothing to ask, and the runtime may be gone. */
static int wa__remote_join_signal(wa_remote_join *hj, unsigned sig, const char *call)
{
    if (!hj)
        return wa__misuse_in(WA_EINVAL, call, "no handle (NULL)");
    wa_remote_join *j = wa__handle_at(hj, WA__HANDLE_REMOTE_JOIN, call);
    if (!j)
        return WA_EMISUSE;
    pthread_mutex_lock(&j->lock); /* held: the task cannot settle meanwhile */
    if (j->status == WA_PENDING) {
        wa_remote *h = j->hub;
        pthread_mutex_lock(&h->lock);
        __atomic_or_fetch(&j->signal, sig, __ATOMIC_RELEASE);
        if (h->rt)
            wa__remote_fire(h, &j->wake); /* (not polled yet: its first poll looks) */
        pthread_mutex_unlock(&h->lock);
    }
    pthread_mutex_unlock(&j->lock);
    return 0;
}

int wa_remote_join_cancel(wa_remote_join *j) { return wa__remote_join_signal(j, WA__RJ_CANCEL, "wa_remote_join_cancel"); }

int wa_remote_join_abort(wa_remote_join *j) { return wa__remote_join_signal(j, WA__RJ_ABORT, "wa_remote_join_abort"); }

void wa_remote_join_drop(wa_remote_join *hj)
{
    wa_remote_join *j = hj ? wa__handle_at(hj, WA__HANDLE_REMOTE_JOIN, "wa_remote_join_drop") : NULL;
    if (j) {
        wa__handle_release((uintptr_t)hj);
        wa__remote_join_unref(j);
    }
}
