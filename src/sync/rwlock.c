/* SPDX-License-Identifier: MIT */
/* Read-write lock: a semaphore of WA__RWLOCK_ALL permits, one per reader
 * and all of them per writer. The semaphore gives the rest: FIFO grants
 * that stop at a head that does not fit (a waiting writer holds back the
 * readers behind it), try-locks that never jump the queue, and the drop of
 * a queued or granted lock that leaves or passes its permits on. */
#include "sem.h"

void wa_rwlock_init(wa_rwlock *l) { wa_sem_init_max(&l->sem, WA__RWLOCK_ALL, WA__RWLOCK_ALL); }

void wa_rwlock_init_shared(wa_rwlock *l) { wa_sem_init_max_shared(&l->sem, WA__RWLOCK_ALL, WA__RWLOCK_ALL); }

static int wa__rwlock_read_poll(wa_future *f, wa_cx *cx) { return wa__acquire_poll_in(f, cx, "wa_read_lock_init"); }
static int wa__rwlock_write_poll(wa_future *f, wa_cx *cx) { return wa__acquire_poll_in(f, cx, "wa_write_lock_init"); }

static const wa_future_vt wa__rwlock_read_vt = {wa__rwlock_read_poll, wa__acquire_drop, "read_lock"};
static const wa_future_vt wa__rwlock_write_vt = {wa__rwlock_write_poll, wa__acquire_drop, "write_lock"};

/* An acquire of n permits of l, polled by vt (a NULL l is reported by its
 * first poll, naming the call). */
static wa_future *wa__rwlock_acquire(wa_acquire *a, wa_rwlock *l, size_t n, const wa_future_vt *vt)
{
    wa_acquire_init(a, l ? &l->sem : NULL, n);
    a->fut.vt = vt;
    return &a->fut;
}

wa_future *wa_read_lock_init(wa_acquire *a, wa_rwlock *l)
{
    return wa__rwlock_acquire(a, l, 1, &wa__rwlock_read_vt);
}

wa_future *wa_write_lock_init(wa_acquire *a, wa_rwlock *l)
{
    return wa__rwlock_acquire(a, l, WA__RWLOCK_ALL, &wa__rwlock_write_vt);
}

int wa_rwlock_try_read(wa_rwlock *l)
{
    if (!l)
        return wa_misuse(WA_EINVAL, "wa_rwlock_try_read: l is NULL");
    return wa_sem_try_acquire(&l->sem, 1);
}

int wa_rwlock_try_write(wa_rwlock *l)
{
    if (!l)
        return wa_misuse(WA_EINVAL, "wa_rwlock_try_write: l is NULL");
    return wa_sem_try_acquire(&l->sem, WA__RWLOCK_ALL);
}

/* Read-locked: some permits taken, not all (all is a writer's). */
int wa_rwlock_read_unlock(wa_rwlock *l)
{
    if (!l)
        return wa_misuse(WA_EINVAL, "wa_rwlock_read_unlock: l is NULL");
    return wa__sem_release_if(&l->sem, 1, 1, "wa_rwlock_read_unlock: the lock is not read-locked");
}

/* Write-locked: every permit taken. */
int wa_rwlock_write_unlock(wa_rwlock *l)
{
    if (!l)
        return wa_misuse(WA_EINVAL, "wa_rwlock_write_unlock: l is NULL");
    return wa__sem_release_if(&l->sem, WA__RWLOCK_ALL, 0, "wa_rwlock_write_unlock: the lock is not write-locked");
}
