/* SPDX-License-Identifier: MIT */
/* Join handles: the future of a task's completion (a local task's
 * vtables, its poll and drop) and the wa_join_* calls, which hand a
 * many-threads task's handle to its scheduler (sched.h). Apart from
 * task.c, which finishes a task without naming its handle (it wakes the
 * joiner's waker), so that this file calls task.c and not the reverse. */
#include "diag.h"
#include "dump.h"
#include "sched.h"
#include "task.h"

/* The poll of a handle whose task has not finished: kept out of line, so
 * that the poll of a finished one needs no stack frame, and called as a
 * tail call, which the compiler would not keep on its own once it sees
 * this always returns WA_PENDING (where the target has tail calls: not
 * wasm without its tail-call feature). */
#if defined(__has_attribute) && (!defined(__wasm__) || defined(__wasm_tail_call__))
#if __has_attribute(musttail)
#define WA__MUSTTAIL __attribute__((musttail))
#endif
#endif
#ifndef WA__MUSTTAIL
#define WA__MUSTTAIL
#endif

static __attribute__((noinline)) int wa__join_wait(wa_future *f, wa_cx *cx)
{
    wa_join *j = (wa_join *)f;
    wa_task *t = j->task;
    if (!(wa__word_load(t) & WA__T_LINKED)) /* awaited before its first poll */
        wa__task_link(t->rt, t);
    if (t->joiner == j) { /* j's waker is set while it is the joiner */
        wa_waker_store(&j->waker, cx);
    } else {
        j->waker = wa_waker_clone(&cx->waker);
        t->joiner = j;
    }
    return WA_PENDING;
}

/* A handle whose poll found its task finished: the poll released the
 * task and kept its status in the handle, so that the await's drop finds
 * no drop to call. */
static int wa__join_released_poll(wa_future *f, wa_cx *cx)
{
    (void)cx;
    return ((wa_join *)f)->status;
}

static const wa_future_vt wa__join_released_vt = {wa__join_released_poll, NULL, "join"};

static bool wa__join_released(const wa_join *j) { return j->fut.vt == &wa__join_released_vt; }

/* A dropped local handle (j->task NULL): its drop switches it to this
 * vtable, so that the poll of a live one has no NULL to test. */
static int wa__join_dropped_poll(wa_future *f, wa_cx *cx)
{
    (void)f;
    (void)cx;
    return wa__misuse_in(WA_EMISUSE, "await of a join handle", "the handle was dropped");
}

static const wa_future_vt wa__join_dropped_vt = {wa__join_dropped_poll, NULL, "join"};

/* Marks j, a local handle, dropped. */
static inline void wa__join_dropped(wa_join *j)
{
    j->fut.vt = &wa__join_dropped_vt;
    j->task = NULL;
}

static int wa__join_poll(wa_future *f, wa_cx *cx)
{
    wa_join *j = (wa_join *)f;
    wa_task *t = j->task; /* (set: a dropped handle has another vtable) */
    uint32_t w = wa__word_load(t);
    if (!(w & WA__T_DONE))
        WA__MUSTTAIL return wa__join_wait(f, cx);
    int rc = t->status;
    j->fut.vt = &wa__join_released_vt; /* (j->task is left stale: a released
                                         * handle is told by its vtable,
                                         * which every call tests first) */
    j->status = rc; /* (its waker was consumed by the finish's wake) */
    /* the common case, the handle's the last reference: free the task
     * without writing the word that nobody reads again (local executor:
     * nothing else changes it meanwhile) */
    if (w < 2 * WA__REF_ONE)
        wa__slab_free(&t->rt->slab, t, t->cls);
    else
        wa__word_store(t, w - WA__REF_ONE);
    return rc;
}

/* Detaches j from t, its task still running (t runs on), and releases
 * it. Out of line, so that releasing a finished task's handle needs no
 * stack frame. */
static __attribute__((noinline)) void wa__join_detach(wa_join *j, wa_task *t)
{
    if ((wa__word_load(t) & WA__T_LINKED) && t->joiner == j) { /* (an unlinked task has none) */
        t->joiner = NULL;
        wa_waker_drop(&j->waker);
    }
    wa__task_unref_n(t, 1);
}

/* Releases a local task's handle j (j->task set). */
static inline void wa__join_release(wa_join *j)
{
    wa_task *t = j->task;
    wa__join_dropped(j);
    if (!(wa__word_load(t) & WA__T_DONE)) { /* a finish has detached it */
        wa__join_detach(j, t);
        return;
    }
    wa__task_unref_n(t, 1);
}

/* Only wa__join_vt leads here, so the handle is a local task's, not yet
 * dropped (an await's drop skips wa_join_drop's check). */
static void wa__join_drop_vt(wa_future *f) { wa__join_release((wa_join *)f); }

const wa_future_vt wa__join_vt = {wa__join_poll, wa__join_drop_vt, "join", NULL, wa__join_describe};

/* j holds a finished task (atomic: a many-threads task finishes on a
 * worker). */
static bool wa__join_holds_done(const wa_join *j)
{
    return j && !wa__join_released(j) && j->task && (wa__word_peek(j->task) & WA__T_DONE);
}

bool wa_join_done(const wa_join *j) { return wa__join_holds_done(j) || (j && wa__join_released(j)); }

wa_future *wa_join_output(const wa_join *j)
{
    /* (a named task's future is inside its diagnostics' wrapper) */
    return wa__join_holds_done(j) ? (wa_future *)wa__diag_unwrap(wa__task_future(j->task)) : NULL;
}

int wa_join_status(const wa_join *j)
{
    if (wa__join_holds_done(j))
        return j->task->status;
    return j && wa__join_released(j) ? j->status : WA_PENDING;
}

/* Cancelling or aborting a finished task does nothing, whether or not a
 * poll released it. */
int wa_join_cancel(wa_join *j)
{
    if (j && wa__join_released(j))
        return 0;
    if (!j || !j->task)
        return wa__misuse_in(WA_ESTALE, "wa_join_cancel", "the handle was dropped");
    if (WA__MT && j->fut.vt != &wa__join_vt) { /* another scheduler's task */
        j->task->rt->sched->signal(j->task, WA__T_CANCEL);
        return 0;
    }
    wa__task_cancel(j->task);
    return 0;
}

int wa_join_abort(wa_join *j)
{
    if (j && wa__join_released(j))
        return 0;
    if (!j || !j->task)
        return wa__misuse_in(WA_ESTALE, "wa_join_abort", "the handle was dropped");
    if (WA__MT && j->fut.vt != &wa__join_vt) { /* another scheduler's task */
        j->task->rt->sched->signal(j->task, WA__T_ABORT);
        return 0;
    }
    wa__task_abort(j->task);
    return 0;
}

/* A handle that a poll released holds nothing; dropping it marks it
 * dropped, so that a second drop is reported. */
int wa_join_drop(wa_join *j)
{
    if (j && wa__join_released(j)) {
        wa__join_dropped(j);
        return 0;
    }
    if (!j || !j->task)
        return wa__misuse_in(WA_EMISUSE, "wa_join_drop", "the handle was dropped already");
    if (WA__MT && j->fut.vt != &wa__join_vt) { /* another scheduler's task */
        j->task->rt->sched->join_drop(j);
        return 0;
    }
    wa__join_release(j);
    return 0;
}
