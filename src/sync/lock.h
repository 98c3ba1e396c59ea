/* SPDX-License-Identifier: MIT */
/* Internal: the lock of a sync primitive shared by threads.
 *
 * A primitive made by a _shared variant has a lock word (free or held)
 * taken around every look at its queue and state; one made for one
 * thread's tasks has 0 there, and pays one test per lock and unlock. Wakes
 * are issued after unlocking: a granted waiter may be dropped (and freed)
 * by its own thread as soon as the lock is released, so its waker is moved
 * out first, and a wake never runs a scheduler under the lock (an unshared
 * primitive wakes in place: wa_waitq_grant_head). */
#ifndef WASYNC_SYNC_LOCK_H
#define WASYNC_SYNC_LOCK_H

#include "../core/rt.h"

enum { WA_LOCK_NONE = 0, WA_LOCK_FREE, WA_LOCK_HELD };

#if WA_MT
/* lock.c: waits until *l is free and takes it. */
void wa_sync_spin_(unsigned *l);

/* Whether the primitive of lock word *l is shared (constant after init). */
static inline bool wa_sync_shared_(const unsigned *l) { return __atomic_load_n(l, __ATOMIC_RELAXED); }

/* Takes *l when shared. The hot paths pass a constant shared, so that
 * those of unshared primitives hold no trace of the lock. */
static inline void wa_sync_lock_(unsigned *l, bool shared)
{
    if (shared && __atomic_exchange_n(l, WA_LOCK_HELD, __ATOMIC_ACQUIRE) == WA_LOCK_HELD)
        wa_sync_spin_(l);
}

static inline void wa_sync_unlock_(unsigned *l, bool shared)
{
    if (shared)
        __atomic_store_n(l, WA_LOCK_FREE, __ATOMIC_RELEASE);
}

/* A primitive of one thread's tasks must not be waited on by a task of a
 * many-threads runtime (other workers would wake it with no lock): true
 * then, for the caller to finish with wa_sync_refuse_ once unlocked. */
static inline bool wa_sync_refused_(const unsigned *l, const wa_cx *cx) { return !wa_sync_shared_(l) && cx->rt->mt; }
#else
static inline bool wa_sync_shared_(const unsigned *l) { return *l; }
static inline void wa_sync_lock_(unsigned *l, bool shared) { (void)l, (void)shared; }
static inline void wa_sync_unlock_(unsigned *l, bool shared) { (void)l, (void)shared; }
static inline bool wa_sync_refused_(const unsigned *l, const wa_cx *cx)
{
    (void)l, (void)cx;
    return false;
}
#endif

/* Take and release for paths that are not hot: whether shared is read. */
static inline void wa_sync_take_(unsigned *l) { wa_sync_lock_(l, wa_sync_shared_(l)); }
static inline void wa_sync_give_(unsigned *l) { wa_sync_unlock_(l, wa_sync_shared_(l)); }

/* Reports the refusal of wa_sync_refused_ for call; returns WA_EMISUSE. */
static inline int wa_sync_refuse_(const char *call)
{
    return wa_misuse_in_(WA_EMISUSE, call, "a primitive of one runtime awaited on a many-threads one: make it with its _shared variant");
}

#endif
