/* SPDX-License-Identifier: MIT */
/* wasync/sync.h - notify, semaphore, mutex, read-write lock and barrier.
 *
 * All waits are fair (FIFO) and cancellation-safe: a waiter dropped after it
 * was handed a permit or a notification passes it on, so nothing leaks and
 * no wakeup is lost.
 *
 * Each is made for the tasks of one local runtime (wa_notify_init, ...), or
 * shared by threads with a _shared variant (wa_notify_init_shared, ...): a
 * short lock then guards it, and its operations may be called from any
 * thread, its futures awaited by tasks of a many-threads runtime
 * (wa_rt_new_mt). Waiting on one that is not shared from such a task is
 * misuse (WA_EMISUSE).
 */
#ifndef WASYNC_SYNC_H
#define WASYNC_SYNC_H

#include "future.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An intrusive FIFO of waiting futures, the building block of this header
 * and of channels. Private fields. */
typedef struct wa__waiter {
    wa__list_node node; /* first: src/sync/waitq.h */
    wa_waker waker;
    size_t n;       /* what the waiter asks for (permits) */
    int state;      /* idle, queued, granted */
} wa__waiter;

typedef wa__list wa__waitq;

/* Notify: wake one waiter (or leave one permit if none waits), or all. */
typedef struct wa_notify {
    wa__waitq q;
    int permit;
    unsigned lock;
} wa_notify;

/* Initialises n: no waiter, no permit. */
void wa_notify_init(wa_notify *n);
/* The same, shared by threads. */
void wa_notify_init_shared(wa_notify *n);
/* Wakes the first waiter of n, or leaves one permit for the next wait. */
void wa_notify_one(wa_notify *n);
/* Wakes every waiter of n (no permit is left). */
void wa_notify_all(wa_notify *n);

typedef struct wa_notified {
    wa_future fut;
    wa__waiter w;
    wa_notify *n;
} wa_notified;

/* A future ready (status 0) at the next notification of n (borrowed). */
wa_future *wa_notified_init(wa_notified *f, wa_notify *n);

/* Semaphore: counted permits, handed out in FIFO order. */
typedef struct wa_sem {
    wa__waitq q;
    size_t permits;
    size_t max; /* releases beyond it are misuse */
    unsigned lock;
} wa_sem;

/* A semaphore of permits free now, released without limit (a gate that
 * starts closed is wa_sem_init(s, 0), opened by a release). */
void wa_sem_init(wa_sem *s, size_t permits);
/* The same with at most max permits: a release past it is misuse. */
void wa_sem_init_max(wa_sem *s, size_t permits, size_t max);
/* wa_sem_init shared by threads. */
void wa_sem_init_shared(wa_sem *s, size_t permits);
/* wa_sem_init_max shared by threads. */
void wa_sem_init_max_shared(wa_sem *s, size_t permits, size_t max);
/* Takes n permits now if no one waits and enough are free: 0 or WA_EAGAIN. */
int wa_sem_try_acquire(wa_sem *s, size_t n);
/* Returns n permits. WA_EMISUSE if that would exceed the maximum. */
int wa_sem_release(wa_sem *s, size_t n);
/* The permits of s free now. */
size_t wa_sem_available(const wa_sem *s);

typedef struct wa_acquire {
    wa_future fut;
    wa__waiter w;
    wa_sem *sem;
} wa_acquire;

/* A future that acquires n permits of s (borrowed). Once it is ready, a
 * holds them (it is their guard) until wa_acquire_release. */
wa_future *wa_acquire_init(wa_acquire *a, wa_sem *s, size_t n);

/* Releases the permits a holds, if it holds any, and returns 0. Calling it
 * again, or on an acquire that failed, was dropped unfinished or was never
 * initialised (zeroed), does nothing: a coroutine's cleanup can call it on
 * every path. */
int wa_acquire_release(wa_acquire *a);

/* Async mutex: a semaphore of one permit. */
typedef struct wa_mutex {
    wa_sem sem;
} wa_mutex;

/* Initialises m, unlocked. */
static inline void wa_mutex_init(wa_mutex *m) { wa_sem_init_max(&m->sem, 1, 1); }
/* The same, shared by threads. */
static inline void wa_mutex_init_shared(wa_mutex *m) { wa_sem_init_max_shared(&m->sem, 1, 1); }
/* Locks m (borrowed): a future whose storage a is the guard, released by
 * wa_acquire_release(a). */
static inline wa_future *wa_lock_init(wa_acquire *a, wa_mutex *m)
{
    return wa_acquire_init(a, &m->sem, 1);
}
/* Locks m now if it is free: 0 or WA_EAGAIN. */
static inline int wa_mutex_try_lock(wa_mutex *m) { return wa_sem_try_acquire(&m->sem, 1); }
/* WA_EMISUSE when the mutex is not locked. */
static inline int wa_mutex_unlock(wa_mutex *m) { return wa_sem_release(&m->sem, 1); }

/* Read-write lock: a semaphore of WA__RWLOCK_ALL permits, of which a reader
 * takes one and a writer all of them (tokio's way), so it is as fair as
 * the semaphore: FIFO, and a waiting writer queues the readers that come
 * after it, so that no stream of readers starves it. At most
 * WA__RWLOCK_ALL - 1 readers hold it at once (2^29 on wasm32). */
#define WA__RWLOCK_ALL ((size_t)-1 >> 3)

typedef struct wa_rwlock {
    wa_sem sem;
} wa_rwlock;

/* Initialises l, unlocked. */
void wa_rwlock_init(wa_rwlock *l);
/* The same, for the tasks of many threads. */
void wa_rwlock_init_shared(wa_rwlock *l);
/* Read-locks l (borrowed): a future whose storage a is the guard, released
 * by wa_acquire_release(a). Readers share l. */
wa_future *wa_read_lock_init(wa_acquire *a, wa_rwlock *l);
/* Write-locks l (borrowed): a future whose storage a is the guard, released
 * by wa_acquire_release(a). A writer holds l alone. */
wa_future *wa_write_lock_init(wa_acquire *a, wa_rwlock *l);
/* Read-locks l now if no one waits and no writer holds it: 0 or WA_EAGAIN. */
int wa_rwlock_try_read(wa_rwlock *l);
/* Write-locks l now if no one holds it or waits: 0 or WA_EAGAIN. */
int wa_rwlock_try_write(wa_rwlock *l);
/* Ends one read lock of l taken by wa_rwlock_try_read: WA_EMISUSE when l
 * is not read-locked. */
int wa_rwlock_read_unlock(wa_rwlock *l);
/* Ends the write lock of l taken by wa_rwlock_try_write: WA_EMISUSE when l
 * is not write-locked. */
int wa_rwlock_write_unlock(wa_rwlock *l);

/* Barrier: its waits complete together when n of them arrived, and it
 * starts again for the next n (a generation). */
typedef struct wa_barrier {
    wa__waitq q;
    size_t n;          /* waits per generation */
    size_t arrived;    /* waits of this generation queued */
    size_t generation; /* how many tripped */
    unsigned lock;
} wa_barrier;

/* Initialises b for generations of n waits (0 is taken as 1, as tokio
 * does). */
void wa_barrier_init(wa_barrier *b, size_t n);
/* The same, for the tasks of many threads. */
void wa_barrier_init_shared(wa_barrier *b, size_t n);

typedef struct wa_barrier_wait {
    wa_future fut;
    wa__waiter w; /* w.n: the generation it waits in */
    wa_barrier *b;
    bool leader;
} wa_barrier_wait;

/* A future that arrives at b (borrowed) and is ready (status 0) once n
 * waits of its generation have arrived. Dropped before, it un-counts
 * itself. */
wa_future *wa_barrier_wait_init(wa_barrier_wait *w, wa_barrier *b);
/* Whether w, ready, was the wait that tripped its generation: one per
 * generation is (tokio's is_leader). */
bool wa_barrier_wait_is_leader(const wa_barrier_wait *w);

#ifdef __cplusplus
}
#endif
#endif
