/* SPDX-License-Identifier: MIT */
/* Internal: the lock of a sync primitive shared by threads.
 *
 * A primitive made by a _shared variant has a lock word (free or held)
 * taken around every look at its queue and state; one made for one
 * thread's tasks has 0 there, and pays one test per lock and unlock. Wakes
 * are issued after unlocking: a granted waiter may be dropped (and freed)
 * by its own thread as soon as the lock is released, so its waker is moved
 * out first, and a wake never runs a scheduler under the lock (an unshared
 * primitive wakes in place: wa__waitq_grant_head). */
#ifndef WASYNC_SYNC_LOCK_H
#define WASYNC_SYNC_LOCK_H

#include "../core/rt.h"

enum { WA__LOCK_NONE = 0, WA__LOCK_FREE, WA__LOCK_HELD };

#if WA__MT
/* lock.c: waits until *l is free and takes it. */
void wa__sync_spin(unsigned *l);

/* Whether the primitive of lock word *l is shared (constant after init). */
static inline bool wa__sync_shared(const unsigned *l) { return __atomic_load_n(l, __ATOMIC_RELAXED); }

/* Takes *l when shared. The hot paths pass a constant shared, so that
 * those of unshared primitives hold no trace of the lock. */
static inline void wa__sync_lock(unsigned *l, bool shared)
{
    if (shared && __atomic_exchange_n(l, WA__LOCK_HELD, __ATOMIC_ACQUIRE) == WA__LOCK_HELD)
        wa__sync_spin(l);
}

static inline void wa__sync_unlock(unsigned *l, bool shared)
{
    if (shared)
        __atomic_store_n(l, WA__LOCK_FREE, __ATOMIC_RELEASE);
}

/* A primitive of one thread's tasks must not be waited on by a task of a
 * many-threads runtime (other workers would wake it with no lock): true
 * then, for the caller to finish with wa__sync_refuse once unlocked. */
static inline bool wa__sync_refused(const unsigned *l, const wa_cx *cx) { return !wa__sync_shared(l) && cx->rt->mt; }
#else
static inline bool wa__sync_shared(const unsigned *l) { return *l; }
static inline void wa__sync_lock(unsigned *l, bool shared) { (void)l, (void)shared; }
static inline void wa__sync_unlock(unsigned *l, bool shared) { (void)l, (void)shared; }
static inline bool wa__sync_refused(const unsigned *l, const wa_cx *cx)
{
    (void)l, (void)cx;
    return false;
}
#endif

/* Take and release for paths that are not hot: whether shared is read. */
static inline void wa__sync_take(unsigned *l) { wa__sync_lock(l, wa__sync_shared(l)); }
static inline void wa__sync_give(unsigned *l) { wa__sync_unlock(l, wa__sync_shared(l)); }

/* Reports the refusal of wa__sync_refused for call; returns WA_EMISUSE. */
static inline int wa__sync_refuse(const char *call)
{
    return wa__misuse_in(WA_EMISUSE, call, "a primitive of one runtime awaited on a many-threads one: make it with its _shared variant");
}

#endif
