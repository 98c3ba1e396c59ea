/* SPDX-License-Identifier: MIT */
/* Internal: the task header, its state word, the owner lists, and what
 * task.c, spawn.c and join.c export to the executor and to scopes. */
#ifndef WASYNC_CORE_TASK_H
#define WASYNC_CORE_TASK_H

#include <stdbool.h>

#include "list.h"
#include "rt.h"
#include "slab.h"
#include "wasync/join_set.h"

/* Task state bits. In the multi-threaded executor the same word becomes
 * atomic; every transition goes through the helpers below. */
enum {
    WA__T_QUEUED = 1u << 0,   /* in the run queue (the queue holds a ref) */
    WA__T_RUNNING = 1u << 1,  /* being polled */
    WA__T_DONE = 1u << 2,     /* finished: future dropped, status final */
    WA__T_CANCEL = 1u << 3,   /* cooperative cancellation requested */
    WA__T_CLAIMED = 1u << 4,  /* someone handles the cancellation (this poll) */
    WA__T_ABORT = 1u << 5,    /* hard drop when the running poll returns */
    WA__T_STARTED = 1u << 6,  /* polled at least once */
    WA__T_LINKED = 1u << 7,   /* on an owner list (local executor) */
    WA__T_LOCKED = 1u << 8,   /* many threads: its joiner being read or written */
};

/* The local executor links a task on an owner list only when something
 * may need to find it before it finishes: a scope's child at its spawn
 * (the scope cancels and counts its children), a root task once it
 * outlives its first poll or is awaited before it. A root that finishes
 * at its first poll, the common case, is never linked; until that poll it
 * is in the run queue (or the rest of the round under way), where
 * shutdown, wa_rt_free and dumps find it (wa__task_unlinked). The local executor does not set WA__T_RUNNING
 * either: its running task is the round context's (wa__rt_current). */

/* A task's task-local values (task_local.c). The executors release them
 * through release, so that a program that sets none links none of it; on
 * the local executor a task that sets one is linked, so that its finish
 * takes the way through wa__task_leave, which releases them, and the
 * common finish tests nothing more. */
typedef struct wa__locals wa__locals;
struct wa__locals {
    void (*release)(wa_task *t);
};

/* One allocation per task: this header, then the future inline. 80 bytes on
 * 64-bit hosts (64 before the task-local values' pointer), 48 on wasm32. */
struct wa_task {
    wa_task *next;               /* run queue (first: queueing t is storing t) */
    wa__list_node link;           /* owner list (WA__T_LINKED): runtime roots or a scope */
    wa_rt *rt;
    wa_scope *scope;             /* owner scope, or NULL */
    wa_join *joiner;             /* the handle awaiting completion; set once linked */
    uint32_t word;               /* state bits | scopes owned | refs */
    int status;
    uint32_t id;
    uint32_t cls;                /* the allocation's slab class (wa__slab_class); unused by mt.c, which mallocs */
    wa__locals *locals;          /* task-local values (task_local.c), or NULL */
} __attribute__((aligned(16)));

/* State and reference count share one word, so that the multi-threaded
 * executor can update both with one atomic operation. Bits 0-8: WA__T_*.
 * Bits 9-12: how many live scopes the task created (saturating at 15), so
 * that a task which ends without dropping one is caught. Bits 13-31:
 * references: alive (until done), queued, the join handle, each waker. */
#define WA__STATE_MASK 0x1ffu
#define WA__SCOPE_ONE (1u << 9)
#define WA__SCOPE_MASK (0xfu << 9)
#define WA__REF_SHIFT 13
#define WA__REF_ONE (1u << WA__REF_SHIFT)

static inline wa_future *wa__task_future(wa_task *t) { return (wa_future *)(t + 1); }

/* Every access to the state/refcount word goes through these, the one
 * switch (WA__TASK_ATOMIC) that makes it atomic for an executor whose tasks
 * are woken from other threads. The local executor keeps plain operations. */
#ifndef WA__TASK_ATOMIC
#define WA__TASK_ATOMIC 0
#endif
#if WA__TASK_ATOMIC
static inline uint32_t wa__word_load(const wa_task *t) { return __atomic_load_n(&t->word, __ATOMIC_ACQUIRE); }
static inline void wa__word_store(wa_task *t, uint32_t w) { __atomic_store_n(&t->word, w, __ATOMIC_RELEASE); }
static inline uint32_t wa__word_add(wa_task *t, uint32_t v) { return __atomic_add_fetch(&t->word, v, __ATOMIC_ACQ_REL); }
static inline uint32_t wa__word_sub(wa_task *t, uint32_t v) { return __atomic_sub_fetch(&t->word, v, __ATOMIC_ACQ_REL); }
static inline uint32_t wa__word_or(wa_task *t, uint32_t v) { return __atomic_or_fetch(&t->word, v, __ATOMIC_ACQ_REL); }
static inline uint32_t wa__word_and(wa_task *t, uint32_t v) { return __atomic_and_fetch(&t->word, v, __ATOMIC_ACQ_REL); }
#else
static inline uint32_t wa__word_load(const wa_task *t) { return t->word; }
static inline void wa__word_store(wa_task *t, uint32_t w) { t->word = w; }
static inline uint32_t wa__word_add(wa_task *t, uint32_t v) { return t->word += v; }
static inline uint32_t wa__word_sub(wa_task *t, uint32_t v) { return t->word -= v; }
static inline uint32_t wa__word_or(wa_task *t, uint32_t v) { return t->word |= v; }
static inline uint32_t wa__word_and(wa_task *t, uint32_t v) { return t->word &= v; }
#endif

/* t, a queued task, is a live root that no owner list holds (above). */
static inline bool wa__task_unlinked(const wa_task *t)
{
    return !(wa__word_load(t) & (WA__T_LINKED | WA__T_DONE));
}

/* Code that runs in either executor's polls (coroutines, combinators, the
 * cancellation hooks) cannot know whether another thread is waking the
 * task meanwhile, so its accesses to the running task's word are atomic
 * always: a load costs what a plain one does, and its few
 * read-modify-writes (a claim) are off the hot paths. */
static inline uint32_t wa__word_peek(const wa_task *t) { return __atomic_load_n(&t->word, __ATOMIC_ACQUIRE); }
static inline void wa__word_set(wa_task *t, uint32_t v) { __atomic_or_fetch(&t->word, v, __ATOMIC_ACQ_REL); }
static inline void wa__word_clear(wa_task *t, uint32_t v) { __atomic_and_fetch(&t->word, ~v, __ATOMIC_ACQ_REL); }

/* The current task is being cancelled and this point is not shielded
 * (whether or not someone already claimed the request). */
static inline bool wa__cx_cancelling(const wa_cx *cx)
{
    return cx->task && cx->shield == 0 && (wa__word_peek(cx->task) & WA__T_CANCEL);
}

/* wa_cancel_requested, inline for the library's own hot paths. */
static inline bool wa__cx_cancel_requested(const wa_cx *cx)
{
    return cx->task && cx->shield == 0 &&
           (wa__word_peek(cx->task) & (WA__T_CANCEL | WA__T_CLAIMED)) == WA__T_CANCEL;
}

/* The task linked by n on an owner list (list.h), or NULL. */
static inline wa_task *wa__task_at(const wa__list_node *n) { return n ? WA__LIST_ITEM(n, wa_task, link) : NULL; }
/* An owner list's first task, and the task after t. */
static inline wa_task *wa__task_first(const wa__list *l) { return wa__task_at(wa__list_first(l)); }
static inline wa_task *wa__task_next(const wa_task *t) { return wa__task_at(wa__list_next(&t->link)); }

/* Scope flags beside the public WA_SCOPE_FAIL_FAST. A scope's children are
 * tasks on an owner list, which task.c keeps: a finishing task counts
 * itself out of its scope without calling up into scope.c. */
enum { WA__SCOPE_CANCELLING = 1u << 8, WA__SCOPE_RETURNED = 1u << 9 };

/* task.c */
/* The waker of a task: each clone holds a reference. */
extern const wa_waker_vt wa__task_waker_vt;
void wa__task_abort(wa_task *t);
void wa__task_cancel(wa_task *t);
void wa__task_unref(wa_task *t);
/* Marks s cancelling and requests the cancellation of each child. */
void wa__scope_cancel_children(wa_scope *s);
/* t finished (status rc) linked or owning scopes (wa__task_finish):
 * releases its task-local values (after its future's drop, which may
 * still use one), drops the scopes it created that are live, and reports
 * misuse when t returned normally (a cancelled or dropped task's scopes go
 * with it as a matter of course); leaves its owner list, counting a scope's child out of its
 * scope (its first error, fail-fast, its awaiter's wake); wakes its
 * joiner. */
void wa__task_leave(wa_task *t, int rc);
/* Links t, a root task, on rt's roots (WA__T_LINKED): no joiner yet. */
void wa__task_link(wa_rt *rt, wa_task *t);

/* spawn.c */
/* wa_spawn of a task owned by scope (wa_scope_spawn's, after its own
 * checks), or by rt with scope NULL. */
int wa__task_spawn(wa_rt *rt, const wa_future *fut, size_t size, wa_join *join, wa_scope *scope);
/* The same, given a name (NULL: none): it runs in the future wrap makes of
 * it (diag.c's: the caller links it). */
int wa__task_spawn_named(wa_rt *rt, const wa_future *fut, size_t size, wa_join *join, wa_scope *scope,
                         const char *name, wa__wrap_fn *wrap);

/* scope.c: wa_scope_spawn, for call, with the spawn named name (NULL:
 * none) in wrap's future. */
int wa__scope_spawn(wa_scope *s, const wa_future *fut, size_t size, wa_join *join, const char *call,
                    const char *name, wa__wrap_fn *wrap);

/* join_set.c: wa_join_set_spawn, for call, with the spawn named name (NULL:
 * none) in wrap's future. */
int wa__join_set_spawn(wa_join_set *s, const wa_future *fut, size_t size, const char *call, const char *name,
                       wa__wrap_fn *wrap);

/* join.c */
/* The vtable of a local task's join handle, set by its spawn (a handle
 * with another is a scheduler's, sched.h). */
extern const wa_future_vt wa__join_vt;

/* Appends t, whose word says it is queued, to the run queue (a spawn's
 * and a wake's). */
static inline void wa__task_append(wa_rt *rt, wa_task *t)
{
    t->next = NULL;
    *rt->tailp = t;
    rt->tailp = &t->next;
    rt->queued++;
}

/* Subtracts v from t's word, freeing t if that dropped its last
 * reference. */
static inline void wa__task_word_release(wa_task *t, uint32_t v)
{
    if (wa__word_sub(t, v) < WA__REF_ONE)
        wa__slab_free(&t->rt->slab, t, t->cls);
}

/* Drops n references at once (one word update on the hot path). */
static inline void wa__task_unref_n(wa_task *t, uint32_t n) { wa__task_word_release(t, n * WA__REF_ONE); }

/* The task t of rt finished (status rc) or was hard-dropped
 * (WA_ECANCELED): marks it done, drops its future, leaves its owner, then
 * drops n references (the "alive" one and the caller's). Inline, so that
 * the executor's run loop finishes a task without a call; what an
 * unlinked task without scopes does not need is wa__task_leave's. */
static inline __attribute__((always_inline)) void wa__task_finish(wa_rt *rt, wa_task *t, int rc, uint32_t n)
{
    wa_future *f = wa__task_future(t);
    t->status = rc;
    rt->finished++;
    if (!f->vt->drop && !(wa__word_load(t) & (WA__T_LINKED | WA__SCOPE_MASK))) {
        /* nothing runs between done and the release: one update (the
         * task is not done yet, so adding the bit sets it) */
        wa__task_word_release(t, n * WA__REF_ONE - WA__T_DONE);
        return;
    }
    wa__word_or(t, WA__T_DONE);
    wa_drop(f);
    if (wa__word_load(t) & (WA__T_LINKED | WA__SCOPE_MASK))
        wa__task_leave(t, rc);
    wa__task_unref_n(t, n);
}

#endif
