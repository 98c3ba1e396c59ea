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
 * (an eventfd). The task word is atomic here (WA_TASK_ATOMIC). */
#define _GNU_SOURCE
#define WA_TASK_ATOMIC 1
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../core/dump.h"
#include "../core/sched.h"
#include "../core/task.h"
#include "../core/timer.h"

#define WA_RING 256u           /* tasks in a worker's ring (a power of two) */
#define WA_LIFO_MAX 3          /* polls in a row from the LIFO slot */
#define WA_INJECT_EVERY 61     /* a worker looks at the injector first every this many polls */
#define WA_SEARCH_PASSES 16    /* looks over the queues before a searcher parks */
#define WA_SHARDS 16           /* lists of live tasks, each with its lock */
#define WA_UNPARKED_ONE 0x10000u /* state: unparked workers (high half), searching (low) */

/* A worker's ring: the owner pushes at bottom; everyone, the owner
 * included, takes from top with a compare-and-swap, one task or a batch. */
typedef struct wa_ring {
    uint64_t top;
    char pad_[56]; /* top is the thieves' line, bottom the owner's */
    uint64_t bottom;
    wa_task *slot[WA_RING];
} wa_ring;

typedef struct wa_worker {
    wa_rt view;          /* cx->rt of the polls it runs */
    wa_ring ring;
    wa_task *lifo;       /* the task it woke last, run next (its own) */
    struct wa_mt *mt;
    unsigned index, lifo_run;
    int searching;
    int waiting;         /* in the backend's wait as the driver, counted parked (its own) */
    uint32_t parked;     /* futex word: 1 while parked, 0 once notified */
    uint64_t seed;       /* victim choice */
    pthread_t thread;
} wa_worker;

/* Live tasks, for shutdown: the list's lock, a spin lock (held for a few
 * instructions), on a line of its own. */
typedef struct wa_shard {
    _Alignas(64) uint32_t lock; /* atomic */
    wa_list tasks;
} wa_shard;

typedef struct wa_mt {
    wa_rt *rt;
    unsigned n;
    wa_worker *workers;
    pthread_mutex_t lock; /* the injector and the idle list */
    wa_task *inj_head, *inj_tail;
    size_t inj_len;       /* atomic: read without the lock to skip an empty injector */
    unsigned *idle, idle_len;
    uint32_t state;       /* atomic: unparked workers << 16 | searching workers */
    uint32_t shutdown;    /* atomic */
    uint32_t signal;      /* futex word of the thread in block_on or run */
    uint32_t idle_seen;   /* the signal when that thread last found the workers idle (its own) */
    uint32_t driving;     /* atomic: the driver token, held while a worker waits on or polls the backend */
    wa_worker *driver;    /* atomic (changed under the lock): the worker parked in the backend's wait, or NULL */
    /* Scopes: each one's count, status, flags and waker, its children's
     * t->scope, and the list of live scopes (by prev, next). */
    pthread_mutex_t scope_lock;
    wa_scope *scopes;
    /* Written at each spawn and finish, so each on a line of its own: the
     * state above is read at each push. */
    _Alignas(64) size_t live; /* atomic; the program's tasks only (not internal ones: rt.h) */
    wa_shard shard[WA_SHARDS];
} wa_mt;

static _Thread_local wa_worker *wa_self;

static long wa_futex(uint32_t *w, int op, uint32_t v, const struct timespec *ts)
{
    return syscall(SYS_futex, w, op | FUTEX_PRIVATE_FLAG, v, ts, NULL, 0);
}

/* The ring. */

static bool wa_ring_push(wa_ring *r, wa_task *t)
{
    uint64_t b = __atomic_load_n(&r->bottom, __ATOMIC_RELAXED);
    if (b - __atomic_load_n(&r->top, __ATOMIC_ACQUIRE) >= WA_RING)
        return false;
    __atomic_store_n(&r->slot[b % WA_RING], t, __ATOMIC_RELAXED);
    __atomic_store_n(&r->bottom, b + 1, __ATOMIC_RELEASE);
    return true;
}

/* Takes up to max tasks from top into out (half of those queued, rounded
 * up, when half): returns how many. A slot read before a failed swap may
 * have been overwritten since, and is discarded with it; one read before a
 * successful swap was not, since the owner never writes past top + WA_RING. */
static unsigned wa_ring_take(wa_ring *r, wa_task **out, unsigned max, bool half)
{
    uint64_t top = __atomic_load_n(&r->top, __ATOMIC_ACQUIRE);
    for (;;) {
        uint64_t n = __atomic_load_n(&r->bottom, __ATOMIC_ACQUIRE) - top;
        if (n == 0)
            return 0;
        if (half)
            n -= n / 2;
        if (n > max)
            n = max;
        for (uint64_t i = 0; i < n; i++)
            out[i] = __atomic_load_n(&r->slot[(top + i) % WA_RING], __ATOMIC_RELAXED);
        if (__atomic_compare_exchange_n(&r->top, &top, top + n, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            return (unsigned)n;
    }
}

/* The injector. */

/* Appends the list first..last of n tasks (linked by next). */
static void wa_inject(wa_mt *mt, wa_task *first, wa_task *last, size_t n)
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
static wa_task *wa_inject_pop(wa_mt *mt, wa_worker *w)
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
    if (n > WA_RING / 2)
        n = WA_RING / 2;
    /* (a task pushed may be stolen and freed at once: its next is read before) */
    wa_task *rest = first->next;
    size_t i = 1;
    for (; i < n; i++) {
        wa_task *after = rest->next;
        if (!wa_ring_push(&w->ring, rest))
            break;
        rest = after;
    }
    if (i < len)
        wa_inject(mt, rest, last, len - i);
    return first;
}

/* Parking. */

static void wa_mt_signal(void *p);

/* Whether state s calls for a wake: nobody searching, somebody parked (the
 * driver too). */
static inline bool wa_mt_wants_worker(wa_mt *mt, uint32_t s) { return !(s & 0xffff) && s >> 16 < mt->n; }

/* Work was queued: wakes a parked worker to look for it, unless a worker
 * is searching already (it will find it, or look again before it parks). */
static void wa_mt_notify(wa_mt *mt)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    uint32_t s = __atomic_load_n(&mt->state, __ATOMIC_SEQ_CST);
    if (!wa_mt_wants_worker(mt, s))
        return;
    pthread_mutex_lock(&mt->lock);
    s = __atomic_load_n(&mt->state, __ATOMIC_SEQ_CST);
    wa_worker *d = __atomic_load_n(&mt->driver, __ATOMIC_RELAXED);
    if ((s & 0xffff) || (mt->idle_len == 0 && !d)) {
        pthread_mutex_unlock(&mt->lock);
        return;
    }
    if (mt->idle_len == 0) { /* the driver, last: a futex wake is cheaper than leaving epoll */
        __atomic_store_n(&mt->driver, NULL, __ATOMIC_RELAXED);
        if (d == wa_self) { /* the driver's own wakes, from its wait: it is up already */
            __atomic_add_fetch(&mt->state, WA_UNPARKED_ONE, __ATOMIC_SEQ_CST);
            pthread_mutex_unlock(&mt->lock);
            return;
        }
        __atomic_add_fetch(&mt->state, WA_UNPARKED_ONE + 1, __ATOMIC_SEQ_CST);
        d->searching = 1;
        pthread_mutex_unlock(&mt->lock);
        /* the eventfd stays readable: a driver not yet in epoll_wait sees it there */
        mt->rt->backend->vt->notify(mt->rt->backend);
        return;
    }
    wa_worker *w = &mt->workers[mt->idle[--mt->idle_len]];
    __atomic_add_fetch(&mt->state, WA_UNPARKED_ONE + 1, __ATOMIC_SEQ_CST);
    w->searching = 1; /* it wakes up searching */
    __atomic_store_n(&w->parked, 0, __ATOMIC_RELEASE); /* under the lock: see wa_worker_park */
    pthread_mutex_unlock(&mt->lock);
    wa_futex(&w->parked, FUTEX_WAKE, 1, NULL);
}

/* Work anywhere but in LIFO slots (which their owners fill only while
 * unparked, and run before parking). */
static bool wa_mt_has_work(wa_mt *mt)
{
    if (__atomic_load_n(&mt->inj_len, __ATOMIC_SEQ_CST))
        return true;
    for (unsigned i = 0; i < mt->n; i++) {
        wa_ring *r = &mt->workers[i].ring;
        if (__atomic_load_n(&r->bottom, __ATOMIC_SEQ_CST) != __atomic_load_n(&r->top, __ATOMIC_SEQ_CST))
            return true;
    }
    return false;
}

static uint64_t wa_worker_timers_next(wa_worker *w)
{
    wa_timers_lock_(&w->view);
    uint64_t d = wa_timers_next_(&w->view);
    wa_timers_unlock_(&w->view);
    return d;
}

/* Fires w's timers that are due. */
static void wa_worker_fire(wa_worker *w)
{
    uint64_t next = wa_worker_timers_next(w);
    if (next != WA_NEVER && next <= wa_now_fresh_(&w->view))
        wa_timers_fire_(&w->view, w->view.now);
}

/* Whether an fd is registered: without one there is nothing to wait for
 * in the backend (a wait starts in a poll, after its registration, and
 * its worker parks after the poll). */
static bool wa_mt_has_io(wa_mt *mt) { return __atomic_load_n(&mt->rt->backend->sources, __ATOMIC_RELAXED) != 0; }

/* Polls the backend without blocking, if an fd is registered and no other
 * worker is at it: I/O readiness is not starved by busy workers. */
static void wa_worker_poll_io(wa_worker *w)
{
    wa_mt *mt = w->mt;
    if (!wa_mt_has_io(mt) || __atomic_load_n(&mt->driving, __ATOMIC_RELAXED) ||
        __atomic_exchange_n(&mt->driving, 1, __ATOMIC_ACQUIRE))
        return;
    wa_rt_wait_(&w->view, 0);
    __atomic_store_n(&mt->driving, 0, __ATOMIC_RELEASE);
}

/* w, parked as the driver (it holds the token): waits in the backend until
 * I/O, its next timer or a notify (the eventfd), then unparks itself unless
 * a notify did. The wait's wakes queue tasks on w's ring (wa_mt_wake_push). */
static void wa_worker_drive(wa_worker *w)
{
    wa_mt *mt = w->mt;
    uint64_t deadline = wa_worker_timers_next(w);
    /* (shutdown, set under the lock before its notify: seen here, or the
     * eventfd ends the wait) */
    if (!__atomic_load_n(&mt->shutdown, __ATOMIC_ACQUIRE) && __atomic_load_n(&mt->driver, __ATOMIC_RELAXED) == w) {
        w->waiting = 1;
        wa_rt_wait_(&w->view, deadline);
        w->waiting = 0;
    }
    pthread_mutex_lock(&mt->lock);
    if (__atomic_load_n(&mt->driver, __ATOMIC_RELAXED) == w) {
        __atomic_store_n(&mt->driver, NULL, __ATOMIC_RELAXED);
        __atomic_add_fetch(&mt->state, WA_UNPARKED_ONE, __ATOMIC_SEQ_CST);
    }
    pthread_mutex_unlock(&mt->lock);
    __atomic_store_n(&mt->driving, 0, __ATOMIC_RELEASE);
}

/* Parks w until notified (or its next timer is due, or shutdown): as the
 * driver if an fd is registered and the token is free, else on its futex
 * (cheaper to wake). The last searcher to
 * park looks for work once more after saying it parks, so that work queued
 * by someone who saw it searching is not left behind. */
static void wa_worker_park(wa_worker *w)
{
    wa_mt *mt = w->mt;
    pthread_mutex_lock(&mt->lock);
    uint32_t was = __atomic_fetch_sub(&mt->state, WA_UNPARKED_ONE + (w->searching ? 1u : 0u), __ATOMIC_SEQ_CST);
    bool last = w->searching && (was & 0xffff) == 1;
    w->searching = 0;
    bool io = wa_mt_has_io(mt);
    bool drive = io && !__atomic_exchange_n(&mt->driving, 1, __ATOMIC_ACQUIRE);
    if (drive) {
        __atomic_store_n(&mt->driver, w, __ATOMIC_RELAXED);
    } else {
        mt->idle[mt->idle_len++] = w->index;
        __atomic_store_n(&w->parked, 1, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&mt->lock);
    if (was >> 16 == 1 && !io) /* the last to park: the thread in block_on looks (deadlock) */
        wa_mt_signal(mt);
    if (last && wa_mt_has_work(mt))
        wa_mt_notify(mt);
    if (drive) {
        wa_worker_drive(w);
        return;
    }
    uint64_t deadline = wa_worker_timers_next(w);
    while (__atomic_load_n(&w->parked, __ATOMIC_ACQUIRE) && !__atomic_load_n(&mt->shutdown, __ATOMIC_ACQUIRE)) {
        struct timespec ts, *tsp = NULL;
        if (deadline != WA_NEVER) {
            uint64_t now = wa_now_fresh_(&w->view);
            if (deadline <= now)
                break;
            ts.tv_sec = (time_t)((deadline - now) / 1000000000u);
            ts.tv_nsec = (long)((deadline - now) % 1000000000u);
            tsp = &ts;
        }
        wa_futex(&w->parked, FUTEX_WAIT, 1, tsp);
    }
    if (__atomic_load_n(&w->parked, __ATOMIC_ACQUIRE)) { /* a timer, or shutdown: unpark itself */
        pthread_mutex_lock(&mt->lock);
        if (__atomic_load_n(&w->parked, __ATOMIC_RELAXED)) {
            for (unsigned i = 0; i < mt->idle_len; i++)
                if (mt->idle[i] == w->index) {
                    mt->idle[i] = mt->idle[--mt->idle_len];
                    break;
                }
            __atomic_add_fetch(&mt->state, WA_UNPARKED_ONE, __ATOMIC_SEQ_CST);
            __atomic_store_n(&w->parked, 0, __ATOMIC_RELAXED);
        }
        pthread_mutex_unlock(&mt->lock);
    }
}

/* Queuing. */

/* Queues t (its queue reference taken) on the ring of w, this thread's
 * worker, the overflow half going to the injector; or on the injector when
 * w is NULL (another thread), and notifies. A worker runs its own ring and
 * the injector before it parks, so what it queues needs no notify to run:
 * its notify is for parallelism only, and first looks at the state without
 * the fence (seldom changed, so its line stays in every cache; a worker
 * parking meanwhile is missed, and its next push or search makes up). A
 * yield is a push per poll: the fence was half of its cost. */
static void wa_mt_push(wa_mt *mt, wa_worker *w, wa_task *t)
{
    if (!w) {
        wa_inject(mt, t, t, 1);
        wa_mt_notify(mt);
        return;
    }
    if (!wa_ring_push(&w->ring, t)) {
        wa_task *batch[WA_RING / 2];
        unsigned n = wa_ring_take(&w->ring, batch, WA_RING / 2, false);
        for (unsigned i = 0; i + 1 < n; i++)
            batch[i]->next = batch[i + 1];
        if (n)
            batch[n - 1]->next = t;
        wa_inject(mt, n ? batch[0] : t, t, n + 1);
    }
    if (wa_mt_wants_worker(mt, __atomic_load_n(&mt->state, __ATOMIC_RELAXED)))
        wa_mt_notify(mt);
}

/* The worker of mt running on this thread, or NULL. */
static inline wa_worker *wa_mt_here(wa_mt *mt) { return wa_self && wa_self->mt == mt ? wa_self : NULL; }

/* Queues t, woken: in the LIFO slot of this thread's worker (its previous
 * occupant to the ring), else on the injector. The driver's wakes from its
 * wait go to its ring: it is counted parked until it returns, and
 * wa_mt_idle must see them (the wake's source may be closed meanwhile). */
static void wa_mt_wake_push(wa_mt *mt, wa_task *t)
{
    wa_worker *w = wa_mt_here(mt);
    if (!w || w->waiting) {
        wa_mt_push(mt, w, t);
        return;
    }
    wa_task *prev = w->lifo;
    w->lifo = t;
    if (prev)
        wa_mt_push(mt, w, prev);
}

/* The waker: "not done, not queued: set queued and take a reference" is
 * one compare-and-swap. A task woken while it runs is only marked: its
 * worker queues it again when the poll returns. */
static void wa_mt_schedule(wa_task *t)
{
    uint32_t w = wa_word_load(t), nw;
    do {
        if (w & (WA_T_QUEUED | WA_T_DONE))
            return;
        nw = w & WA_T_RUNNING ? w | WA_T_QUEUED : w + WA_T_QUEUED + WA_REF_ONE;
    } while (!__atomic_compare_exchange_n(&t->word, &w, nw, true, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
    if (!(w & WA_T_RUNNING))
        wa_mt_wake_push(t->rt->mt, t);
}

static void wa_mt_task_ref(wa_task *t)
{
    if (wa_word_add(t, WA_REF_ONE) < WA_REF_ONE) {
        wa_log_("wasync: task reference count overflow");
        abort();
    }
}

static void wa_mt_unref(wa_task *t, uint32_t n)
{
    if (wa_word_sub(t, n * WA_REF_ONE) < WA_REF_ONE)
        free(t);
}

static const wa_waker_vt wa_mt_waker_vt;
static wa_waker wa_mt_waker_clone(void *p)
{
    wa_mt_task_ref(p);
    return (wa_waker){p, &wa_mt_waker_vt};
}
static void wa_mt_waker_wake(void *p)
{
    wa_mt_schedule(p);
    wa_mt_unref(p, 1);
}
static void wa_mt_waker_wake_by_ref(void *p) { wa_mt_schedule(p); }
static void wa_mt_waker_drop(void *p) { wa_mt_unref(p, 1); }
static const wa_waker_vt wa_mt_waker_vt = {wa_mt_waker_clone, wa_mt_waker_wake, wa_mt_waker_wake_by_ref,
                                     wa_mt_waker_drop};

/* The thread in block_on or run waits on mt->signal; this waker bumps it. */
static void wa_mt_signal(void *p)
{
    wa_mt *mt = p;
    __atomic_add_fetch(&mt->signal, 1, __ATOMIC_RELEASE);
    wa_futex(&mt->signal, FUTEX_WAKE, INT_MAX, NULL);
}
static const wa_waker_vt wa_mt_signal_vt;
static wa_waker wa_mt_signal_clone(void *p) { return (wa_waker){p, &wa_mt_signal_vt}; }
static void wa_mt_signal_drop(void *p) { (void)p; }
static const wa_waker_vt wa_mt_signal_vt = {wa_mt_signal_clone, wa_mt_signal, wa_mt_signal, wa_mt_signal_drop};

/* Tasks. */

static inline wa_shard *wa_shard_of(wa_mt *mt, const wa_task *t) { return &mt->shard[t->id % WA_SHARDS]; }

/* A spin lock's wait, at its spins-th look: the holder keeps it for a few
 * instructions, so look again at once; yield the core now and then, for a
 * holder that was descheduled. */
static void wa_spin_wait(unsigned spins)
{
    if (spins % 128 == 0)
        sched_yield();
}

static void wa_shard_lock(wa_shard *s)
{
    for (unsigned spins = 1; __atomic_exchange_n(&s->lock, 1, __ATOMIC_ACQUIRE); spins++)
        while (__atomic_load_n(&s->lock, __ATOMIC_RELAXED))
            wa_spin_wait(spins++);
}

static void wa_shard_unlock(wa_shard *s) { __atomic_store_n(&s->lock, 0, __ATOMIC_RELEASE); }

/* Locks t's joiner (t->joiner and that join's waker) with a bit of its word,
 * unless t is done: returns whether it did. Done is said under this lock,
 * after which nothing but the join reads them: a join that sees done needs
 * no lock. Held as the shard's lock is. */
static bool wa_mt_lock_unless_done(wa_task *t)
{
    uint32_t w = wa_word_load(t);
    for (unsigned spins = 1;; spins++) {
        if (w & WA_T_DONE)
            return false;
        if (w & WA_T_LOCKED) {
            wa_spin_wait(spins);
            w = wa_word_load(t);
        } else if (__atomic_compare_exchange_n(&t->word, &w, w | WA_T_LOCKED, true, __ATOMIC_ACQUIRE,
                                               __ATOMIC_ACQUIRE)) {
            return true;
        }
    }
}

static void wa_mt_unlock(wa_task *t) { __atomic_fetch_and(&t->word, ~(uint32_t)WA_T_LOCKED, __ATOMIC_RELEASE); }

static void wa_mt_leave_scope(wa_mt *mt, wa_task *t);
static void wa_mt_drop_scopes(wa_mt *mt, wa_task *t, bool report);

/* The task finished with rc (or was dropped: WA_ECANCELED): drops its
 * future and the scopes it left live, counts it out of its scope, then
 * says done (so that a join never reads a future being dropped) and wakes
 * its joiner. The caller drops the alive reference. */
static void wa_mt_finish(wa_mt *mt, wa_task *t, int rc)
{
    bool live = wa_task_future(t)->vt != &wa_internal_vt_; /* counted in mt->live */
    t->status = rc;
    wa_drop(wa_task_future(t));
    if (wa_word_load(t) & WA_SCOPE_MASK)
        wa_mt_drop_scopes(mt, t, rc != WA_ECANCELED);
    wa_mt_leave_scope(mt, t);
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
        wa_mt_signal(mt);
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
        wa_mt_finish(mt, t, rc);
        wa_mt_unref(t, 2); /* alive, queue */
        return;
    }
    if (wa_word_and(t, ~(uint32_t)WA_T_RUNNING) & WA_T_QUEUED)
        wa_mt_push(mt, w, t); /* woken while it ran: behind the others, with the queue's reference */
    else
        wa_mt_unref(t, 1);
}

/* Looks for work in the injector, then in the ring of each other worker
 * from a random one, taking half. Returns a task, or NULL still searching
 * (wa_worker_park ends the search); NULL at once when half the workers
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
    wa_task *t = wa_inject_pop(mt, w);
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
                    wa_inject(mt, batch[k], batch[k], 1);
        }
    }
    if (t) {
        w->searching = 0;
        if ((__atomic_fetch_sub(&mt->state, 1, __ATOMIC_SEQ_CST) & 0xffff) == 1)
            wa_mt_notify(mt); /* the last searcher found work: there may be more */
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
        wa_mt_push(w->mt, w, t);
    }
    if (w->view.polls % WA_INJECT_EVERY == 0 && (t = wa_inject_pop(w->mt, w)))
        return t;
    if (wa_ring_take(&w->ring, &t, 1, false) || (t = wa_inject_pop(w->mt, w)))
        return t;
    t = wa_worker_search(w);
    for (unsigned i = 1; !t && w->searching && i < WA_SEARCH_PASSES; i++) {
        sched_yield();
        t = wa_worker_search(w);
    }
    return t;
}

static void *wa_worker_main(void *arg)
{
    wa_worker *w = arg;
    wa_mt *mt = w->mt;
    wa_self = w;
    w->view.owner = wa_thread_self_();
    wa_ticking_ = &w->view; /* polls must not block on or tick a runtime */
    w->view.poll_top = __builtin_frame_address(0);
    while (!__atomic_load_n(&mt->shutdown, __ATOMIC_ACQUIRE)) {
        if (w->view.polls % WA_INJECT_EVERY == 0) {
            wa_worker_fire(w);
            wa_worker_poll_io(w);
        }
        wa_task *t = wa_worker_next(w);
        if (t) {
            wa_mt_run(w, t);
            continue;
        }
        wa_worker_park(w);
        wa_worker_fire(w);
    }
    wa_ticking_ = NULL;
    return NULL;
}

/* Spawning. */

static int wa_mt_join_poll(wa_future *f, wa_cx *cx);
static void wa_mt_join_drop(wa_join *j)
{
    wa_task *t = j->task;
    j->task = NULL;
    bool locked = wa_mt_lock_unless_done(t);
    if (locked && t->joiner == j)
        t->joiner = NULL;
    wa_waker jw = j->waker;
    j->waker = (wa_waker){NULL, NULL};
    if (locked)
        wa_mt_unlock(t);
    wa_waker_drop(&jw);
    wa_mt_unref(t, 1);
}

static void wa_mt_join_drop_vt(wa_future *f);
static const wa_future_vt wa_mt_join_vt = {wa_mt_join_poll, wa_mt_join_drop_vt, "join"};

static int wa_mt_spawn(wa_rt *rt, const wa_future *fut, size_t size, wa_join *join, wa_scope *scope)
{
    wa_mt *mt = rt->mt;
    if (__atomic_load_n(&mt->shutdown, __ATOMIC_ACQUIRE))
        return WA_ECANCELED;
    size_t total = sizeof(wa_task) + size;
    wa_task *t = malloc(total); /* freed on whatever thread drops the last reference */
    if (!t)
        return WA_ENOMEM;
    if (scope) { /* counted in before it can finish */
        pthread_mutex_lock(&mt->scope_lock);
        bool closed = (scope->flags & (WA_SCOPE_CANCELLING | WA_SCOPE_RETURNED));
        if (!closed)
            scope->live++;
        pthread_mutex_unlock(&mt->scope_lock);
        if (closed) {
            free(t);
            return WA_ECANCELED;
        }
    }
    memcpy(wa_task_future(t), fut, size);
    t->rt = mt->rt;
    t->scope = scope;
    t->joiner = NULL;
    t->status = 0;
    t->id = (uint32_t)__atomic_add_fetch(&mt->rt->spawned, 1, __ATOMIC_RELAXED);
    /* alive, the queue's, the handle's */
    wa_word_store(t, WA_T_QUEUED + (join ? 3 : 2) * WA_REF_ONE);
    if (join) {
        join->fut.vt = &wa_mt_join_vt;
        join->task = t;
        join->waker = (wa_waker){NULL, NULL};
    }
    if (fut->vt != &wa_internal_vt_) /* the library's own tasks are not waited for (rt.h) */
        __atomic_add_fetch(&mt->live, 1, __ATOMIC_RELAXED);
    wa_shard *s = wa_shard_of(mt, t);
    wa_shard_lock(s);
    wa_list_push(&s->tasks, &t->link);
    wa_shard_unlock(s);
    wa_mt_push(mt, wa_mt_here(mt), t);
    return 0;
}

/* Join handles, cancel and abort. */

static int wa_mt_join_poll(wa_future *f, wa_cx *cx)
{
    wa_join *j = (wa_join *)f;
    wa_task *t = j->task;
    if (!t)
        return wa_misuse_in_(WA_EMISUSE, "await of a join handle", "the handle was dropped");
    if (!wa_mt_lock_unless_done(t))
        return t->status;
    wa_waker_store(&j->waker, cx);
    t->joiner = j;
    wa_mt_unlock(t);
    return WA_PENDING;
}

static void wa_mt_join_drop_vt(wa_future *f)
{
    wa_join *j = (wa_join *)f;
    if (j->task)
        wa_mt_join_drop(j);
}

/* Cancel and abort only mark the task and wake it: the worker that runs it
 * next drops it (from another thread, its future may be in a poll). */
static void wa_mt_signal_task(wa_task *t, uint32_t bit)
{
    if (wa_word_load(t) & (WA_T_DONE | bit))
        return;
    wa_word_or(t, bit);
    wa_mt_schedule(t);
}

/* Scopes. A child stays on its shard's list like any task (shutdown and
 * free find it there), and names its scope in t->scope; cancelling or
 * dropping a scope walks the shards for its children (rare: the hot paths
 * are a spawn and a finish, one lock each). Waking the scope's awaiter
 * happens after the lock is released, with a clone of its waker. */

/* Under the scope lock: requests bit (WA_T_CANCEL, WA_T_ABORT) of each
 * child of sc; detach: the children no longer name it (it goes). */
static void wa_mt_scope_signal(wa_mt *mt, wa_scope *sc, uint32_t bit, bool detach)
{
    for (unsigned s = 0; s < WA_SHARDS; s++) {
        wa_shard_lock(&mt->shard[s]);
        for (wa_task *t = wa_task_first_(&mt->shard[s].tasks); t; t = wa_task_next_(t))
            if (t->scope == sc) {
                if (detach)
                    __atomic_store_n(&t->scope, NULL, __ATOMIC_RELAXED);
                wa_mt_signal_task(t, bit);
            }
        wa_shard_unlock(&mt->shard[s]);
    }
}

/* Takes a clone of sc's waker (the lock held): woken after the unlock. */
static wa_waker wa_mt_scope_waker(wa_scope *sc)
{
    return sc->waker.vt ? wa_waker_clone(&sc->waker) : (wa_waker){NULL, NULL};
}

/* t finished: counts it out of its scope, if any (the scope's first
 * error, fail-fast, its awaiter's wake), as wa_task_leave_scope_ does. */
static void wa_mt_leave_scope(wa_mt *mt, wa_task *t)
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
                sc->flags |= WA_SCOPE_CANCELLING;
                wa_mt_scope_signal(mt, sc, WA_T_CANCEL, false);
            }
        }
        if (sc->live == 0 || first_error)
            w = wa_mt_scope_waker(sc);
    }
    pthread_mutex_unlock(&mt->scope_lock);
    wa_waker_wake(&w);
}

/* t ended with scopes it created still live: drops them (reported as
 * misuse when t returned normally). */
static void wa_mt_drop_scopes(wa_mt *mt, wa_task *t, bool report)
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

static void wa_mt_scope_init(wa_scope *sc, wa_rt *rt, unsigned flags)
{
    wa_mt *mt = rt->mt;
    sc->rt = mt->rt;
    sc->owner = wa_rt_current_(rt); /* (a worker's view: its running task) */
    if (sc->owner && (wa_word_load(sc->owner) & WA_SCOPE_MASK) != WA_SCOPE_MASK)
        wa_word_add(sc->owner, WA_SCOPE_ONE); /* (only its own poll changes these bits) */
    wa_list_init(&sc->children); /* (they stay on the shards) */
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

static int wa_mt_scope_poll(wa_scope *sc, bool outer, wa_cx *cx)
{
    wa_mt *mt = sc->rt->mt;
    pthread_mutex_lock(&mt->scope_lock);
    if (sc->flags & WA_SCOPE_RETURNED) {
        pthread_mutex_unlock(&mt->scope_lock);
        return wa_misuse(WA_EMISUSE, "poll of a finished or freed scope");
    }
    if (outer && !(sc->flags & WA_SCOPE_CANCELLING)) {
        if (sc->status == 0)
            sc->status = WA_ECANCELED;
        sc->flags |= WA_SCOPE_CANCELLING;
        wa_mt_scope_signal(mt, sc, WA_T_CANCEL, false);
    }
    int rc = WA_PENDING;
    wa_waker gone = {NULL, NULL};
    if (sc->live == 0) {
        sc->flags |= WA_SCOPE_RETURNED;
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

static void wa_mt_scope_cancel(wa_scope *sc)
{
    wa_mt *mt = sc->rt->mt;
    pthread_mutex_lock(&mt->scope_lock);
    if (sc->status == 0)
        sc->status = WA_ECANCELED;
    sc->flags |= WA_SCOPE_CANCELLING;
    wa_mt_scope_signal(mt, sc, WA_T_CANCEL, false);
    pthread_mutex_unlock(&mt->scope_lock);
}

static void wa_mt_scope_drop(wa_scope *sc)
{
    wa_mt *mt = sc->rt->mt;
    if (sc->owner && (wa_word_load(sc->owner) & WA_SCOPE_MASK) != WA_SCOPE_MASK)
        wa_word_sub(sc->owner, WA_SCOPE_ONE); /* saturated counts stay */
    pthread_mutex_lock(&mt->scope_lock);
    if (sc->live && sc->status == 0)
        sc->status = WA_ECANCELED;
    wa_waker w = sc->waker;
    sc->waker = (wa_waker){NULL, NULL};
    sc->flags |= WA_SCOPE_CANCELLING;
    /* Children left: aborted, each by the worker that runs it next (one
     * may be in a poll on another worker now), and no longer its. */
    wa_mt_scope_signal(mt, sc, WA_T_ABORT, true);
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

/* Life. */

/* Nothing inside the runtime can wake a task: every worker parked, no
 * task queued, no timer armed, no source registered. Under the lock, so
 * that no worker unparks meanwhile (one woken by its timer unparks under
 * it; the driver's wakes need a source). */
static bool wa_mt_idle(wa_mt *mt)
{
    pthread_mutex_lock(&mt->lock);
    bool idle = __atomic_load_n(&mt->state, __ATOMIC_SEQ_CST) >> 16 == 0 && !wa_mt_has_work(mt) &&
                __atomic_load_n(&mt->rt->backend->sources, __ATOMIC_RELAXED) == 0;
    for (unsigned i = 0; idle && i < mt->n; i++) {
        wa_rt *v = &mt->workers[i].view;
        wa_timers_lock_(v);
        idle = v->heap_len == 0 && v->arming_len == 0;
        wa_timers_unlock_(v);
    }
    pthread_mutex_unlock(&mt->lock);
    return idle;
}

static int wa_mt_wait(wa_rt *rt, wa_join *root, bool again)
{
    wa_mt *mt = rt->mt;
    if (root && wa_mt_lock_unless_done(root->task)) { /* the handle, never awaited, wakes this thread */
        root->waker = (wa_waker){mt, &wa_mt_signal_vt};
        root->task->joiner = root;
        wa_mt_unlock(root->task);
    }
    for (;;) {
        uint32_t seq = __atomic_load_n(&mt->signal, __ATOMIC_ACQUIRE);
        if (root ? (wa_word_load(root->task) & WA_T_DONE) : __atomic_load_n(&mt->live, __ATOMIC_ACQUIRE) == 0)
            return 0;
        if ((!again || seq != mt->idle_seen) && wa_mt_idle(mt)) {
            mt->idle_seen = seq;
            return WA_EDEADLK;
        }
        wa_futex(&mt->signal, FUTEX_WAIT, seq, NULL);
    }
}

static void wa_mt_kick(wa_rt *rt) { wa_mt_signal(rt->mt); }

static size_t wa_mt_live(const wa_rt *rt) { return __atomic_load_n(&rt->mt->live, __ATOMIC_ACQUIRE); }

static size_t wa_mt_dump(const wa_rt *rt, char *buf, size_t len)
{
    wa_mt *mt = rt->mt;
    wa_text d = {buf, len, 0};
    if (len)
        buf[0] = 0;
    for (unsigned s = 0; s < WA_SHARDS; s++) {
        wa_shard_lock(&mt->shard[s]);
        wa_dump_tasks_(&d, &mt->shard[s].tasks, "  ");
        wa_shard_unlock(&mt->shard[s]);
    }
    return d.need;
}

static int wa_mt_drain(wa_rt *rt, uint64_t stop)
{
    wa_mt *mt = rt->mt;
    for (;;) {
        uint32_t seq = __atomic_load_n(&mt->signal, __ATOMIC_ACQUIRE);
        if (__atomic_load_n(&mt->live, __ATOMIC_ACQUIRE) == 0)
            return 0;
        for (unsigned s = 0; s < WA_SHARDS; s++) {
            wa_shard_lock(&mt->shard[s]);
            for (wa_task *t = wa_task_first_(&mt->shard[s].tasks); t; t = wa_task_next_(t))
                wa_mt_signal_task(t, WA_T_CANCEL);
            wa_shard_unlock(&mt->shard[s]);
        }
        uint64_t now = wa_now_fresh_(rt);
        if (now >= stop)
            return WA_ETIMEDOUT;
        /* the last finish signals; a task spawned meanwhile is cancelled on
         * the next look, 10 ms at most from now */
        uint64_t ns = stop - now < WA_MS(10) ? stop - now : WA_MS(10);
        struct timespec ts = {0, (long)ns};
        wa_futex(&mt->signal, FUTEX_WAIT, seq, &ts);
    }
}

static void wa_mt_destroy(wa_mt *mt)
{
    pthread_mutex_destroy(&mt->lock);
    pthread_mutex_destroy(&mt->scope_lock);
    free(mt->idle);
    free(mt->workers);
    free(mt);
}

/* Stops the workers, then drops every task still alive on this thread. */
static void wa_mt_free(wa_rt *rt)
{
    wa_mt *mt = rt->mt;
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
        wa_futex(&mt->workers[i].parked, FUTEX_WAKE, 1, NULL);
    for (unsigned i = 0; i < mt->n; i++)
        pthread_join(mt->workers[i].thread, NULL);
    for (unsigned s = 0; s < WA_SHARDS; s++)
        while (!wa_list_empty(&mt->shard[s].tasks)) {
            wa_task *t = wa_task_first_(&mt->shard[s].tasks);
            wa_mt_finish(mt, t, WA_ECANCELED);
            wa_mt_unref(t, 1); /* alive */
        }
    /* the queues' references: the finishes above may have queued more */
    for (unsigned i = 0; i < mt->n; i++) {
        wa_worker *w = &mt->workers[i];
        wa_task *t;
        while (wa_ring_take(&w->ring, &t, 1, false))
            wa_mt_unref(t, 1);
        if (w->lifo)
            wa_mt_unref(w->lifo, 1);
        free(w->view.heap);
        free(w->view.arming);
    }
    for (wa_task *t = mt->inj_head, *next; t; t = next) {
        next = t->next;
        wa_mt_unref(t, 1);
    }
    wa_mt_destroy(mt);
}

/* The scheduler's drive (sched.h): this thread waits while the workers
 * run, until root is done (NULL: every task); when they are idle and no
 * other thread may wake a task either (a remote or an event held, a
 * blocking job), it reports the deadlock: WA_EDEADLK. */
static int wa_mt_drive(wa_rt *rt, wa_join *root)
{
    int rc = wa_mt_wait(rt, root, false);
    while (rc == WA_EDEADLK && wa_xt_busy_(rt)) /* its letting go kicks the wait */
        rc = wa_mt_wait(rt, root, true);
    if (rc == WA_EDEADLK)
        wa_report_deadlock_(rt, wa_mt_dump);
    return rc;
}

static void wa_mt_finish_root(wa_rt *rt, wa_join *root) { wa_mt_wait(rt, root, true); }

static const wa_sched wa_mt_sched = {wa_mt_spawn, wa_mt_signal_task, wa_mt_join_drop, wa_mt_scope_init,
                                     wa_mt_scope_poll, wa_mt_scope_cancel, wa_mt_scope_drop, wa_mt_drive,
                                     wa_mt_finish_root, wa_mt_drain, wa_mt_live, wa_mt_kick, wa_mt_free};

static int wa_mt_new(wa_rt *rt, unsigned n)
{
    wa_mt *mt = aligned_alloc(_Alignof(wa_mt), sizeof *mt);
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
        wa_mt_destroy(mt);
        return WA_ENOMEM;
    }
    memset(mt->workers, 0, n * sizeof *mt->workers);
    mt->state = n * WA_UNPARKED_ONE;
    rt->mt = mt;
    rt->sched = &wa_mt_sched;
    for (unsigned i = 0; i < n; i++) {
        wa_worker *w = &mt->workers[i];
        w->mt = mt;
        w->index = i;
        w->seed = i + 1;
        w->view.mt = mt;
        w->view.sched = &wa_mt_sched;
        w->view.home = rt;
        w->view.cx = (wa_cx){{NULL, &wa_mt_waker_vt}, &w->view, NULL, 0, &w->view.budget};
        w->view.backend = rt->backend;
        w->view.report = rt->report;
        w->view.report_arg = rt->report_arg;
    }
    if (rt->backend->vt->share) /* the workers use it together */
        rt->backend->vt->share(rt->backend);
    for (unsigned i = 0; i < n; i++) {
        if (pthread_create(&mt->workers[i].thread, NULL, wa_worker_main, &mt->workers[i]) != 0) {
            mt->n = i; /* stop those that started */
            wa_mt_free(rt);
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
    if (rc == 0 && (rc = wa_mt_new(*out, workers)) < 0) {
        wa_rt_free(*out);
        *out = NULL;
    }
    return rc;
}
