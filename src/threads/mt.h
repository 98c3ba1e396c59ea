/* SPDX-License-Identifier: MIT */
/* Internal: what the many-threads executor's files share (src/threads/:
 * mt.c, worker.c, scope.c, queue.c, park.c). The runtime's and a worker's
 * state; the ring, the live tasks' shards, the task lock and the futex,
 * inline, so that the run loop's queue operations and locks stay without
 * a call, as they were in one file; and each file's calls. Included first:
 * it makes the task word atomic (WA__TASK_ATOMIC) before the task header. */
#ifndef WASYNC_THREADS_MT_H
#define WASYNC_THREADS_MT_H

#define WA__TASK_ATOMIC 1
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../core/task.h"

#define WA__RING 256u           /* tasks in a worker's ring (a power of two) */
#define WA__LIFO_MAX 3          /* polls in a row from the LIFO slot */
#define WA__INJECT_EVERY 61     /* a worker looks at the injector first every this many polls */
#define WA__SEARCH_PASSES 16    /* looks over the queues before a searcher parks */
#define WA__SHARDS 16           /* lists of live tasks, each with its lock */
#define WA__UNPARKED_ONE 0x10000u /* state: unparked workers (high half), searching (low) */

/* A worker's ring: the owner pushes at bottom; everyone, the owner
 * included, takes from top with a compare-and-swap, one task or a batch. */
typedef struct wa__ring {
    uint64_t top;
    char pad_[56]; /* top is the thieves' line, bottom the owner's */
    uint64_t bottom;
    wa_task *slot[WA__RING];
} wa__ring;

typedef struct wa__worker {
    wa_rt view;          /* cx->rt of the polls it runs */
    wa__ring ring;
    wa_task *lifo;       /* the task it woke last, run next (its own) */
    struct wa__mt *mt;
    unsigned index, lifo_run;
    int searching;
    int waiting;         /* in the backend's wait as the driver, counted parked (its own) */
    uint32_t parked;     /* futex word: 1 while parked, 0 once notified */
    uint64_t seed;       /* victim choice */
    pthread_t thread;
} wa__worker;

/* Live tasks, for shutdown: the list's lock, a spin lock (held for a few
 * instructions), on a line of its own. */
typedef struct wa__shard {
    _Alignas(64) uint32_t lock; /* atomic */
    wa__list tasks;
} wa__shard;

typedef struct wa__mt {
    wa_rt *rt;
    unsigned n;
    wa__worker *workers;
    pthread_mutex_t lock; /* the injector and the idle list */
    wa_task *inj_head, *inj_tail;
    size_t inj_len;       /* atomic: read without the lock to skip an empty injector */
    unsigned *idle, idle_len;
    uint32_t state;       /* atomic: unparked workers << 16 | searching workers */
    uint32_t shutdown;    /* atomic */
    uint32_t signal;      /* futex word of the thread in block_on or run */
    uint32_t idle_seen;   /* the signal when that thread last found the workers idle (its own) */
    uint32_t driving;     /* atomic: the driver token, held while a worker waits on or polls the backend */
    wa__worker *driver;    /* atomic (changed under the lock): the worker parked in the backend's wait, or NULL */
    /* Scopes: each one's count, status, flags and waker, its children's
     * t->scope, and the list of live scopes (by prev, next). */
    pthread_mutex_t scope_lock;
    wa_scope *scopes;
    /* Written at each spawn and finish, so each on a line of its own: the
     * state above is read at each push. */
    _Alignas(64) size_t live; /* atomic; the program's tasks only (not internal ones: rt.h) */
    wa__shard shard[WA__SHARDS];
} wa__mt;

/* The worker running on this thread, or NULL (park.c's). */
extern _Thread_local wa__worker *wa__co_self;

static inline long wa__futex(uint32_t *w, int op, uint32_t v, const struct timespec *ts)
{
    return syscall(SYS_futex, w, op | FUTEX_PRIVATE_FLAG, v, ts, NULL, 0);
}

/* The ring. */

static inline bool wa__ring_push(wa__ring *r, wa_task *t)
{
    uint64_t b = __atomic_load_n(&r->bottom, __ATOMIC_RELAXED);
    if (b - __atomic_load_n(&r->top, __ATOMIC_ACQUIRE) >= WA__RING)
        return false;
    __atomic_store_n(&r->slot[b % WA__RING], t, __ATOMIC_RELAXED);
    __atomic_store_n(&r->bottom, b + 1, __ATOMIC_RELEASE);
    return true;
}

/* Takes up to max tasks from top into out (half of those queued, rounded
 * up, when half): returns how many. A slot read before a failed swap may
 * have been overwritten since, and is discarded with it; one read before a
 * successful swap was not, since the owner never writes past top + WA__RING. */
static inline unsigned wa__ring_take(wa__ring *r, wa_task **out, unsigned max, bool half)
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
            out[i] = __atomic_load_n(&r->slot[(top + i) % WA__RING], __ATOMIC_RELAXED);
        if (__atomic_compare_exchange_n(&r->top, &top, top + n, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            return (unsigned)n;
    }
}

/* Whether state s calls for a wake: nobody searching, somebody parked (the
 * driver too). */
static inline bool wa__mt_wants_worker(wa__mt *mt, uint32_t s) { return !(s & 0xffff) && s >> 16 < mt->n; }

/* The worker of mt running on this thread, or NULL. */
static inline wa__worker *wa__mt_here(wa__mt *mt) { return wa__co_self && wa__co_self->mt == mt ? wa__co_self : NULL; }

/* Drops n references to t, freeing it with the last (on whichever thread
 * that is). */
static inline void wa__mt_unref(wa_task *t, uint32_t n)
{
    if (wa__word_sub(t, n * WA__REF_ONE) < WA__REF_ONE)
        free(t);
}

/* The live tasks' shards and the task lock. */

static inline wa__shard *wa__shard_of(wa__mt *mt, const wa_task *t) { return &mt->shard[t->id % WA__SHARDS]; }

/* A spin lock's wait, at its spins-th look: the holder keeps it for a few
 * instructions, so look again at once; yield the core now and then, for a
 * holder that was descheduled. */
static inline void wa__spin_wait(unsigned spins)
{
    if (spins % 128 == 0)
        sched_yield();
}

static inline void wa__shard_lock(wa__shard *s)
{
    for (unsigned spins = 1; __atomic_exchange_n(&s->lock, 1, __ATOMIC_ACQUIRE); spins++)
        while (__atomic_load_n(&s->lock, __ATOMIC_RELAXED))
            wa__spin_wait(spins++);
}

static inline void wa__shard_unlock(wa__shard *s) { __atomic_store_n(&s->lock, 0, __ATOMIC_RELEASE); }

/* Locks t's joiner (t->joiner and that join's waker) with a bit of its word,
 * unless t is done: returns whether it did. Done is said under this lock,
 * after which nothing but the join reads them: a join that sees done needs
 * no lock. Held as the shard's lock is. */
static inline bool wa__mt_lock_unless_done(wa_task *t)
{
    uint32_t w = wa__word_load(t);
    for (unsigned spins = 1;; spins++) {
        if (w & WA__T_DONE)
            return false;
        if (w & WA__T_LOCKED) {
            wa__spin_wait(spins);
            w = wa__word_load(t);
        } else if (__atomic_compare_exchange_n(&t->word, &w, w | WA__T_LOCKED, true, __ATOMIC_ACQUIRE,
                                               __ATOMIC_ACQUIRE)) {
            return true;
        }
    }
}

static inline void wa__mt_unlock(wa_task *t)
{
    __atomic_fetch_and(&t->word, ~(uint32_t)WA__T_LOCKED, __ATOMIC_RELEASE);
}

/* queue.c */
/* Appends the list first..last of n tasks (linked by next) to the injector. */
void wa__inject(wa__mt *mt, wa_task *first, wa_task *last, size_t n);
/* A task from the injector for worker w, and its share of those behind it
 * into w's ring; NULL if it is empty. */
wa_task *wa__inject_pop(wa__mt *mt, wa__worker *w);
/* Queues t (its queue reference taken) on w's ring, or on the injector
 * when w is NULL (another thread), and notifies. */
void wa__mt_push(wa__mt *mt, wa__worker *w, wa_task *t);
/* Marks t cancelled or aborted (bit) and wakes it (sched.h's signal). */
void wa__mt_signal_task(wa_task *t, uint32_t bit);
/* The task waker: each clone holds a reference. */
extern const wa_waker_vt wa__mt_waker_vt;

/* park.c */
/* Bumps mt->signal (p), which the thread in block_on or run waits on; and
 * the waker that calls it (its data mt, its clones hold nothing). */
void wa__mt_signal(void *p);
extern const wa_waker_vt wa__mt_signal_vt;
/* Work was queued: wakes a parked worker, unless one is searching. */
void wa__mt_notify(wa__mt *mt);
/* Work anywhere but in LIFO slots. */
bool wa__mt_has_work(wa__mt *mt);
/* Fires w's timers that are due. */
void wa__worker_fire(wa__worker *w);
/* Polls the backend without blocking, if no other worker is at it. */
void wa__worker_poll_io(wa__worker *w);
/* Parks w until notified, its next timer is due, or shutdown. */
void wa__worker_park(wa__worker *w);

/* scope.c: the scheduler's scope entries (sched.h), and a task's end */
void wa__mt_scope_init(wa_scope *sc, wa_rt *rt, unsigned flags);
int wa__mt_scope_poll(wa_scope *sc, bool outer, wa_cx *cx);
void wa__mt_scope_cancel(wa_scope *sc);
void wa__mt_scope_drop(wa_scope *sc);
/* t finished: counts it out of its scope, if any. */
void wa__mt_leave_scope(wa__mt *mt, wa_task *t);
/* t ended with scopes it created still live: drops them (reported as
 * misuse when report). */
void wa__mt_drop_scopes(wa__mt *mt, wa_task *t, bool report);

/* worker.c */
/* t finished with rc (or was dropped): drops its future, leaves its scope
 * and shard, says done and wakes its joiner. The caller drops the alive
 * reference. */
void wa__mt_finish(wa__mt *mt, wa_task *t, int rc);
/* A worker thread's body (pthread_create's start routine). */
void *wa__worker_main(void *arg);

#endif
