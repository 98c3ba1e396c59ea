/* SPDX-License-Identifier: MIT */
/* Internal: a runtime's cross-thread state (native only), which the public
 * wa_remote is a counted handle on: one lock, the local runtime's inbox
 * (spawns and wakes posted by other threads, run on the runtime's thread),
 * and the blocking pool. remote.c, event.c and blocking.c share it. */
#ifndef WASYNC_CORE_REMOTE_H
#define WASYNC_CORE_REMOTE_H

#include <pthread.h>

#include "../core/rt.h"
#include "wasync/thread.h"

/* A waker that another thread fires: on a local runtime the wake is posted
 * to the inbox (the runtime's thread wakes it), on a many-threads runtime
 * it is woken at once. Guarded by the hub's lock. */
typedef struct wa__xwake {
    struct wa__xwake *next, *prev; /* the inbox's list while listed */
    int listed;
    wa_waker waker;
} wa__xwake;

/* The blocking pool (blocking.c), guarded by the hub's lock; made and
 * freed with it, by default with this bound and keep-alive. */
#define WA__POOL_MAX 16
#define WA__POOL_KEEP_ALIVE WA_SEC(10)
typedef struct wa__pool {
    struct wa_job *head, *tail;    /* queued jobs */
    struct wa__pool_thread *exited; /* threads that exited, to join */
    size_t queued;
    unsigned threads, idle, max;
    uint64_t keep_alive;
    size_t jobs;                   /* atomic: queued or running for a future */
    pthread_cond_t work;           /* a job was queued, or the pool stops */
    pthread_cond_t gone;           /* a thread exited */
    int stopping;
} wa__pool;

struct wa_remote {
    pthread_mutex_t lock;
    uint32_t refs;          /* atomic: the runtime's, each remote's and event's */
    wa_rt *rt;              /* NULL once closed */
    wa_backend *backend;    /* a local runtime's, notified when the inbox fills; NULL: many threads */
    uintptr_t owner;        /* a local runtime's thread */
    int refusing;           /* shutting down: no more spawns or jobs */
    uint32_t posted;        /* atomic: the inbox has something (read without the lock) */
    wa__xwake *fired;        /* the inbox: wakes... */
    struct wa__remote_spawn *spawns, *spawns_tail; /* ...and spawns */
    wa__pool pool;
};

/* The cross-thread state of rt (a worker's view: of its runtime), made at
 * the first call; NULL with *err set (call names a misuse). Borrowed. The
 * caller that keeps it takes a reference (h->refs) and drops it with
 * wa__remote_unref, which frees h with the last. */
wa_remote *wa__remote_get(wa_rt *rt, const char *call, int *err);

/* Drops a reference to h, under its lock: whoever takes the last one frees
 * h once no other thread is left inside the lock. */
void wa__remote_unref(wa_remote *h);

/* A new handle of kind to obj for a holder (a key of the handle table),
 * or NULL without memory. */
void *wa__remote_handle(void *obj, unsigned kind);

/* Under h's lock: x fires: its waker is woken at once (many threads), or
 * posted to the local inbox. Under the lock, so that a drop of x's future
 * (which takes it) leaves no wake in flight after the runtime is gone. */
void wa__remote_fire(wa_remote *h, wa__xwake *x);

/* Under h's lock: x leaves the inbox and drops its waker. */
void wa__remote_forget(wa_remote *h, wa__xwake *x);

/* Under h's lock: wakes a local runtime's wait (or, many threads, the
 * wait of block_on or run) so that it looks again whether another thread
 * may still wake it (wa__remote_busy). */
void wa__remote_kick(wa_remote *h);


#endif
