/* SPDX-License-Identifier: MIT */
/* join / race over N children, each with its own waker.
 *
 * A child's waker pushes its branch on the combinator's woken list and wakes
 * the parent; a poll takes the list as it stands and polls only those
 * children, so a wake costs O(1) whatever N is. Children woken during the
 * poll (a child that yields wakes itself) wait for the next poll, which the
 * parent's waker has already scheduled: no child can spin the poll forever.
 */
#include <stdlib.h>

#include "task.h"
#include "wasync/combine.h"

enum { WA_COMBO_OWNS_BR = 1, WA_COMBO_RETURNED = 2, WA_COMBO_CANCELLING = 4 };

static const wa_waker_vt wa_branch_waker_vt;

/* Puts b on its combinator's list of children to poll; false if it was
 * already there or is finished. */
static bool wa_branch_push(wa_branch *b)
{
    if (b->woken || !b->f)
        return false;
    wa_combo *c = b->owner;
    b->woken = 1;
    b->next = c->woken;
    c->woken = b;
    return true;
}

static void wa_branch_wake(void *p)
{
    wa_branch *b = p;
    if (wa_branch_push(b))
        wa_waker_wake_by_ref(&b->owner->waker);
}

/* Branch wakers hold no reference: a combinator outlives its children, and
 * a dropped child has released every waker it held. */
static wa_waker wa_branch_clone(void *p) { return (wa_waker){p, &wa_branch_waker_vt}; }
static void wa_branch_nop(void *p) { (void)p; }

static const wa_waker_vt wa_branch_waker_vt = {wa_branch_clone, wa_branch_wake, wa_branch_wake,
                                               wa_branch_nop};

static void wa_combo_drop_children(wa_combo *c)
{
    for (size_t i = 0; i < c->n; i++) {
        wa_future *f = c->br[i].f;
        c->br[i].f = NULL;
        wa_drop(f);
    }
    c->woken = NULL;
}

static int wa_combo_finish(wa_combo *c, int rc)
{
    c->status = rc;
    c->flags |= WA_COMBO_RETURNED;
    wa_combo_drop_children(c);
    wa_waker_drop(&c->waker);
    return rc;
}

static int wa_combo_poll(wa_future *f, wa_cx *cx)
{
    wa_combo *c = (wa_combo *)f;
    if (c->flags & WA_COMBO_RETURNED)
        return wa_misuse(WA_EMISUSE, "poll of a finished or freed join/race");
    if (c->status != WA_PENDING || (c->n == 0 && c->mode == WA_RACE))
        return wa_combo_finish(c, c->status != WA_PENDING ? c->status : WA_EINVAL);
    wa_waker_store(&c->waker, cx);
    if (!(c->flags & WA_COMBO_CANCELLING) && wa_cx_cancelling_(cx)) {
        /* Poll every child once: coroutines among them reach their
         * cancellation point and start their cleanup. */
        c->flags |= WA_COMBO_CANCELLING;
        for (size_t i = 0; i < c->n; i++)
            wa_branch_push(&c->br[i]);
    }
    wa_cx sub = *cx;
    wa_branch *b = c->woken;
    c->woken = NULL;
    /* Each child takes the task's cancellation for itself: a sibling's
     * claim must not stop it. A child that claimed is cleaning up until it
     * finishes, and holds the parent back meanwhile, polled or not. */
    bool claimed = cx->task && (wa_word_peek_(cx->task) & WA_T_CLAIMED);
    while (b) {
        wa_branch *next = b->next;
        b->woken = 0;
        if (b->f) {
            sub.waker = (wa_waker){b, &wa_branch_waker_vt};
            if (claimed)
                wa_word_clear_(cx->task, WA_T_CLAIMED);
            int rc = wa_poll(b->f, &sub);
            if (cx->task && (wa_word_peek_(cx->task) & WA_T_CLAIMED)) {
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
                bool cancelling = c->flags & WA_COMBO_CANCELLING;
                /* A child that completed wins its race even while the task
                 * is cancelled: its output (a message received, say) is the
                 * parent's, never dropped unseen; the parent meets the
                 * cancellation at its next await. */
                if (c->mode == WA_RACE && (!cancelling || rc != WA_ECANCELED)) {
                    c->winner = (int)(b - c->br);
                    return wa_combo_finish(c, rc);
                }
                if (!cancelling && rc < 0 && c->mode == WA_ALL)
                    return wa_combo_finish(c, rc);
                /* (cancelling: wait for every child's cleanup) */
            }
        }
        b = next;
    }
    if (claimed || c->unwinding)
        wa_word_set_(cx->task, WA_T_CLAIMED);
    if (c->left)
        return WA_PENDING;
    return wa_combo_finish(c, (c->flags & WA_COMBO_CANCELLING) ? WA_ECANCELED : 0);
}

static void wa_combo_drop(wa_future *f)
{
    wa_combo *c = (wa_combo *)f;
    wa_combo_drop_children(c);
    wa_waker_drop(&c->waker);
    /* Outputs stay readable after a drop: fixed storage keeps the per-child
     * statuses; allocated storage goes (status and winner stay). */
    if (c->flags & WA_COMBO_OWNS_BR) {
        free(c->br);
        c->br = NULL;
        c->n = 0;
    }
    c->flags &= ~(unsigned)WA_COMBO_OWNS_BR;
}

static const wa_future_vt wa_combo_vt = {wa_combo_poll, wa_combo_drop, "join"};

/* The futs (or the branch storage br) that c, stored outside the running
 * poll's frames, would outlive: a child stored in them (a local of the
 * poll function) is reported, and c finishes with WA_EMISUSE. (When c is
 * in them too, its await reports it, if it waits.) */
static bool wa_combo_misplaced(const wa_combo *c, const wa_branch *br, size_t n, wa_future *const *futs)
{
    if (wa_poll_local_(c))
        return false;
    for (size_t i = 0; i < n; i++)
        if (wa_poll_local_(futs[i])) {
            wa_misuse_local_("wa_combo_init", futs[i]);
            return true;
        }
    if (br && n && wa_poll_local_(br)) {
        wa_misuse_local_("wa_combo_init", &c->fut);
        return true;
    }
    return false;
}

/* c, failed before it began (err): drops the futs; its poll says err. */
static wa_future *wa_combo_fail(wa_combo *c, int mode, size_t n, wa_future *const *futs, int err)
{
    for (size_t i = 0; i < n; i++)
        wa_drop(futs[i]);
    wa_combo_init(c, mode, NULL, 0, NULL);
    c->status = err;
    return &c->fut;
}

wa_future *wa_combo_init(wa_combo *c, int mode, wa_branch *br, size_t n, wa_future *const *futs)
{
    unsigned flags = 0;
    if (wa_ticking_ && wa_combo_misplaced(c, br, n, futs))
        return wa_combo_fail(c, mode, n, futs, WA_EMISUSE);
    if (!br && n) {
        br = malloc(n * sizeof *br);
        if (!br)
            return wa_combo_fail(c, mode, n, futs, WA_ENOMEM);
        flags = WA_COMBO_OWNS_BR;
    }
    c->fut.vt = &wa_combo_vt;
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
        br[i] = (wa_branch){futs[i], c, c->woken, WA_PENDING, 1, 0};
        c->woken = &br[i];
    }
    return &c->fut;
}
