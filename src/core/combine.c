/* SPDX-License-Identifier: MIT */
/* join / race over N children, each with its own waker.
 *
 * A child's waker pushes its branch on the combinator's woken list and wakes
 * the parent; a poll takes the list as it stands and polls only those
 * children, so a wake costs O(1) whatever N is. Children woken during the
 * poll (a child that yields wakes itself) wait for the next poll, which the
 * parent's waker has already scheduled: no child can spin the poll forever.
 *
 * On many threads a child's waker may be called from any thread (a channel
 * granted on another worker, an event, the blocking pool) while the
 * combinator is polled on one worker: the combinator switches at its first
 * poll to a second set of functions, where the push is lock-free (the
 * branch's flag and the list head swapped atomically), the parent's waker
 * is read under a small lock, and each clone of a branch's waker is
 * counted, so that the combinator's end waits for the wakes that were
 * moved out of a primitive's lock and are still on their way. The local
 * executor's path is unchanged.
 */
#include <stdlib.h>

#include "dump.h"

#include "task.h"
#include "wasync/combine.h"

enum { WA__COMBO_OWNS_BR = 1, WA__COMBO_RETURNED = 2, WA__COMBO_CANCELLING = 4 };

static const wa_waker_vt wa__branch_waker_vt;

/* Puts b on its combinator's list of children to poll; false if it was
 * already there or is finished. */
static bool wa__branch_push(wa__branch *b)
{
    if (b->woken || !b->f)
        return false;
    wa_combo *c = b->owner;
    b->woken = 1;
    b->next = c->woken;
    c->woken = b;
    return true;
}

static void wa__branch_wake(void *p)
{
    wa__branch *b = p;
    if (wa__branch_push(b))
        wa_waker_wake_by_ref(&b->owner->waker);
}

/* Branch wakers hold no reference: a combinator outlives its children, and
 * a dropped child has released every waker it held. */
static wa_waker wa__branch_clone(void *p) { return (wa_waker){p, &wa__branch_waker_vt}; }
static void wa__branch_nop(void *p) { (void)p; }

static const wa_waker_vt wa__branch_waker_vt = {wa__branch_clone, wa__branch_wake, wa__branch_wake,
                                               wa__branch_nop};

#if WA__MT
#include <sched.h>

static const wa_waker_vt wa__branch_mt_vt;

/* c->waker's lock: held by the poll that changes it and by a wake that
 * clones it (a few instructions, by a thread that may be descheduled). */
static void wa__combo_lock(wa_combo *c)
{
    while (__atomic_exchange_n(&c->lock, 1, __ATOMIC_ACQUIRE))
        sched_yield();
}

static void wa__combo_unlock(wa_combo *c) { __atomic_store_n(&c->lock, 0, __ATOMIC_RELEASE); }

/* wa__branch_push from any thread. A finished branch may be pushed (its
 * f is the poll's to read): the poll skips it. */
static bool wa__branch_push_mt(wa__branch *b)
{
    if (__atomic_exchange_n(&b->woken, 1, __ATOMIC_ACQ_REL))
        return false;
    wa_combo *c = b->owner;
    wa__branch *head = __atomic_load_n(&c->woken, __ATOMIC_RELAXED);
    do
        b->next = head;
    while (!__atomic_compare_exchange_n(&c->woken, &head, b, true, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED));
    return true;
}

/* Pushes b, then wakes a clone of the parent's waker, taken under the
 * lock: a poll that stored a new waker before taking the list sees b, or
 * this wake reaches the new waker. */
static void wa__branch_wake_by_ref_mt(void *p)
{
    wa__branch *b = p;
    if (!wa__branch_push_mt(b))
        return;
    wa_combo *c = b->owner;
    wa__combo_lock(c);
    wa_waker w = wa_waker_clone(&c->waker);
    wa__combo_unlock(c);
    wa_waker_wake(&w);
}

/* Each clone is counted until it is dropped or woken: the last touch of c. */
static void wa__branch_drop_mt(void *p)
{
    wa__branch *b = p;
    __atomic_sub_fetch(&b->owner->wakers, 1, __ATOMIC_RELEASE);
}

static void wa__branch_wake_mt(void *p)
{
    wa__branch_wake_by_ref_mt(p);
    wa__branch_drop_mt(p);
}

static wa_waker wa__branch_clone_mt(void *p)
{
    wa__branch *b = p;
    __atomic_add_fetch(&b->owner->wakers, 1, __ATOMIC_RELAXED);
    return (wa_waker){p, &wa__branch_mt_vt};
}

static const wa_waker_vt wa__branch_mt_vt = {wa__branch_clone_mt, wa__branch_wake_mt, wa__branch_wake_by_ref_mt,
                                            wa__branch_drop_mt};

/* Makes c->waker a reference to w (the poll's: no other thread writes it). */
static void wa__combo_store_mt(wa_combo *c, const wa_waker *w)
{
    wa_waker nw = wa_waker_clone(w), old;
    wa__combo_lock(c);
    old = c->waker;
    c->waker = nw;
    wa__combo_unlock(c);
    wa_waker_drop(&old);
}

/* The children dropped, waits for the wakes still on their way: a
 * primitive moves a waiter's waker out under its lock and wakes it after
 * the unlock, by which time the child may be dropped. */
static __attribute__((noinline)) void wa__combo_quiesce(wa_combo *c)
{
    while (__atomic_load_n(&c->wakers, __ATOMIC_ACQUIRE))
        sched_yield();
}
#endif

/* The steps of a poll that differ on many threads (mt: a constant). */
#if WA__MT
static __attribute__((noinline, cold)) int wa__combo_poll_first_mt(wa_combo *c, wa_cx *cx);
#endif

static inline void wa__branch_push_in(wa__branch *b, bool mt)
{
    (void)mt;
#if WA__MT
    if (mt) {
        wa__branch_push_mt(b);
        return;
    }
#endif
    wa__branch_push(b);
}

/* Takes the list of woken children as it stands. */
static inline wa__branch *wa__combo_take_in(wa_combo *c, bool mt)
{
    (void)mt;
#if WA__MT
    if (mt)
        return __atomic_exchange_n(&c->woken, NULL, __ATOMIC_ACQUIRE);
#endif
    wa__branch *b = c->woken;
    c->woken = NULL;
    return b;
}

static inline void wa__branch_clear_in(wa__branch *b, bool mt)
{
    (void)mt;
#if WA__MT
    if (mt) {
        __atomic_store_n(&b->woken, 0, __ATOMIC_RELEASE);
        return;
    }
#endif
    b->woken = 0;
}

static inline const wa_waker_vt *wa__branch_vt_in(bool mt)
{
    (void)mt;
#if WA__MT
    if (mt)
        return &wa__branch_mt_vt;
#endif
    return &wa__branch_waker_vt;
}

static inline void wa__combo_drop_children(wa_combo *c, bool mt)
{
    (void)mt;
    for (size_t i = 0; i < c->n; i++) {
        wa_future *f = c->br[i].f;
        c->br[i].f = NULL;
        wa_drop(f);
    }
#if WA__MT
    if (mt)
        wa__combo_quiesce(c);
#endif
    c->woken = NULL;
}

static inline int wa__combo_finish(wa_combo *c, int rc, bool mt)
{
    c->status = rc;
    c->flags |= WA__COMBO_RETURNED;
    wa__combo_drop_children(c, mt);
    wa_waker_drop(&c->waker); /* (no wake reads it now) */
    return rc;
}

/* The poll; mt, a constant in each of the two polls below: the branches'
 * wakers may be called from other threads. */
static inline __attribute__((always_inline)) int wa__combo_poll_in(wa_combo *c, wa_cx *cx, bool mt)
{
    if (c->flags & WA__COMBO_RETURNED)
        return wa__misuse_done(NULL, "join/race");
    if (c->status != WA_PENDING || (c->n == 0 && c->mode == WA_RACE))
        return wa__combo_finish(c, c->status != WA_PENDING ? c->status : WA_EINVAL, mt);
    if (!wa_waker_will_wake(&c->waker, &cx->waker)) {
#if WA__MT
        if (mt)
            wa__combo_store_mt(c, &cx->waker);
        else if (cx->rt->mt) /* the first poll, on many threads */
            return wa__combo_poll_first_mt(c, cx);
        else
#endif
        {
            wa_waker_drop(&c->waker);
            c->waker = wa_waker_clone(&cx->waker);
        }
    }
    if (!(c->flags & WA__COMBO_CANCELLING) && wa__cx_cancelling(cx)) {
        /* Poll every child once: coroutines among them reach their
         * cancellation point and start their cleanup. */
        c->flags |= WA__COMBO_CANCELLING;
        for (size_t i = 0; i < c->n; i++)
            wa__branch_push_in(&c->br[i], mt);
    }
    wa_cx sub = *cx;
    wa__branch *b = wa__combo_take_in(c, mt);
    /* Each child takes the task's cancellation for itself: a sibling's
     * claim must not stop it. A child that claimed is cleaning up until it
     * finishes, and holds the parent back meanwhile, polled or not. */
    bool claimed = cx->task && (wa__word_peek(cx->task) & WA__T_CLAIMED);
    while (b) {
        wa__branch *next = b->next;
        wa__branch_clear_in(b, mt); /* (after next is read: a wake may push b again now) */
        if (b->f) {
            sub.waker = (wa_waker){b, wa__branch_vt_in(mt)};
            if (claimed)
                wa__word_clear(cx->task, WA__T_CLAIMED);
            int rc = wa_poll(b->f, &sub);
            if (cx->task && (wa__word_peek(cx->task) & WA__T_CLAIMED)) {
                claimed = true;
                c->unwinding += !b->unwinding;
                b->unwinding = 1;
            }
            if (rc != WA_PENDING) {
                c->unwinding -= b->unwinding;
                wa_future *done = b->f;
                b->f = NULL;
                b->status = rc;
                wa_drop(done);
                c->left--;
                bool cancelling = c->flags & WA__COMBO_CANCELLING;
                /* A child that completed wins its race even while the task
                 * is cancelled: its output (a message received, say) is the
                 * parent's, never dropped unseen; the parent meets the
                 * cancellation at its next await. */
                if (c->mode == WA_RACE && (!cancelling || rc != WA_ECANCELED)) {
                    c->winner = (int)(b - c->br);
                    return wa__combo_finish(c, rc, mt);
                }
                if (!cancelling && rc < 0 && c->mode == WA_ALL)
                    return wa__combo_finish(c, rc, mt);
                /* (cancelling: wait for every child's cleanup) */
            }
        }
        b = next;
    }
    if (claimed || c->unwinding)
        wa__word_set(cx->task, WA__T_CLAIMED);
    if (c->left)
        return WA_PENDING;
    return wa__combo_finish(c, (c->flags & WA__COMBO_CANCELLING) ? WA_ECANCELED : 0, mt);
}

static int wa__combo_poll(wa_future *f, wa_cx *cx) { return wa__combo_poll_in((wa_combo *)f, cx, false); }

static inline void wa__combo_drop_in(wa_future *f, bool mt)
{
    wa_combo *c = (wa_combo *)f;
    wa__combo_drop_children(c, mt);
    wa_waker_drop(&c->waker);
    /* Outputs stay readable after a drop: fixed storage keeps the per-child
     * statuses; allocated storage goes (status and winner stay). */
    if (c->flags & WA__COMBO_OWNS_BR) {
        free(c->br);
        c->br = NULL;
        c->n = 0;
    }
    c->flags &= ~(unsigned)WA__COMBO_OWNS_BR;
}

static void wa__combo_drop(wa_future *f) { wa__combo_drop_in(f, false); }

/* For dumps (future.h): the i-th child still pending, and the mode. */
static const wa_future *wa__combo_awaits(const wa_future *f, unsigned i)
{
    const wa_combo *c = (const wa_combo *)f;
    for (size_t k = 0; k < c->n; k++)
        if (c->br[k].f && i-- == 0)
            return c->br[k].f;
    return NULL;
}

static size_t wa__combo_describe(const wa_future *f, uint64_t now, char *buf, size_t len)
{
    static const char *const mode[] = {"all", "all settled", "race"};
    const wa_combo *c = (const wa_combo *)f;
    wa__text d = {buf, len, 0};
    (void)now;
    wa__text_str(&d, (unsigned)c->mode < 3 ? mode[c->mode] : "?");
    wa__text_str(&d, ", ");
    wa__text_uint(&d, c->left);
    wa__text_str(&d, " of ");
    wa__text_uint(&d, c->n);
    wa__text_str(&d, " left");
    return d.need;
}

static const wa_future_vt wa__combo_vt = {wa__combo_poll, wa__combo_drop, "join", wa__combo_awaits,
                                        wa__combo_describe};

#if WA__MT
static int wa__combo_poll_mt(wa_future *f, wa_cx *cx) { return wa__combo_poll_in((wa_combo *)f, cx, true); }
static void wa__combo_drop_mt(wa_future *f) { wa__combo_drop_in(f, true); }

static const wa_future_vt wa__combo_mt_vt = {wa__combo_poll_mt, wa__combo_drop_mt, "join", wa__combo_awaits,
                                           wa__combo_describe};

/* The first poll on many threads: from now on, the functions above. */
static __attribute__((noinline, cold)) int wa__combo_poll_first_mt(wa_combo *c, wa_cx *cx)
{
    c->fut.vt = &wa__combo_mt_vt;
    c->wakers = 0; /* (set here: the local executor's init stays as it was) */
    c->lock = 0;
    return wa__combo_poll_mt(&c->fut, cx);
}
#endif

/* The futs (or the branch storage br) that c, stored outside the running
 * poll's frames, would outlive: a child stored in them (a local of the
 * poll function) is reported, and c finishes with WA_EMISUSE. (When c is
 * in them too, its await reports it, if it waits.) */
static bool wa__combo_misplaced(const wa_combo *c, const wa__branch *br, size_t n, wa_future *const *futs)
{
    if (wa__poll_local(c))
        return false;
    for (size_t i = 0; i < n; i++)
        if (wa__poll_local(futs[i])) {
            wa__misuse_local("wa_combo_init", futs[i]);
            return true;
        }
    if (br && n && wa__poll_local(br)) {
        wa__misuse_local("wa_combo_init", &c->fut);
        return true;
    }
    return false;
}

/* c, failed before it began (err): drops the futs; its poll says err. */
static wa_future *wa__combo_fail(wa_combo *c, int mode, size_t n, wa_future *const *futs, int err)
{
    for (size_t i = 0; i < n; i++)
        wa_drop(futs[i]);
    wa_combo_init(c, mode, NULL, 0, NULL);
    c->status = err;
    return &c->fut;
}

wa_future *wa_combo_init(wa_combo *c, int mode, wa__branch *br, size_t n, wa_future *const *futs)
{
    unsigned flags = 0;
    if (wa__ticking && wa__combo_misplaced(c, br, n, futs))
        return wa__combo_fail(c, mode, n, futs, WA_EMISUSE);
    if (!br && n) {
        br = malloc(n * sizeof *br);
        if (!br)
            return wa__combo_fail(c, mode, n, futs, WA_ENOMEM);
        flags = WA__COMBO_OWNS_BR;
    }
    c->fut.vt = &wa__combo_vt;
    c->br = br;
    c->n = c->left = n;
    c->unwinding = 0;
    c->woken = NULL;
    c->waker = (wa_waker){NULL, NULL};
    c->mode = mode;
    c->status = WA_PENDING;
    c->winner = -1;
    c->flags = flags;
    /* Every child starts woken, pushed in reverse so the first poll goes
     * in order. */
    for (size_t i = n; i-- > 0;) {
        br[i] = (wa__branch){futs[i], c, c->woken, WA_PENDING, 1, 0};
        c->woken = &br[i];
    }
    return &c->fut;
}
