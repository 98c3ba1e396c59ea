/* SPDX-License-Identifier: MIT */
/* Tasks: spawning, reference counting, the task waker, leaving the owner
 * list, cancellation and join handles. The executor runs them. */
#include <stdlib.h>
#include <string.h>

#include "copy.h"
#include "sched.h"
#include "task.h"

static inline uint32_t wa_task_state(const wa_task *t) { return wa_word_load(t) & WA_STATE_MASK; }

static inline void wa_task_ref(wa_task *t)
{
    if (wa_word_load(t) >= UINT32_MAX - WA_REF_ONE) {
        wa_log_("wasync: task reference count overflow");
        abort();
    }
    wa_word_add(t, WA_REF_ONE);
}

void wa_task_unref_(wa_task *t) { wa_task_unref_n(t, 1); }

/* Appends t, whose word says it is queued, to the run queue. */
static inline void wa_task_append(wa_rt *rt, wa_task *t)
{
    t->next = NULL;
    *rt->tailp = t;
    rt->tailp = &t->next;
    rt->queued++;
}

/* Queues t: the queue holds a reference. */
static inline void wa_task_enqueue(wa_rt *rt, wa_task *t)
{
    wa_word_add(t, WA_T_QUEUED + WA_REF_ONE);
    wa_task_append(rt, t);
}

/* Queues t once, however often it is woken; a finished task is not queued. */
static void wa_task_schedule(wa_task *t)
{
    if (!(wa_word_load(t) & (WA_T_QUEUED | WA_T_DONE)))
        wa_task_enqueue(t->rt, t);
}

static wa_waker wa_task_waker_clone(void *p)
{
    wa_task_ref(p);
    return (wa_waker){p, &wa_task_waker_vt_};
}

static void wa_task_waker_wake(void *p)
{
    wa_task_schedule(p);
    wa_task_unref_(p);
}

static void wa_task_waker_wake_by_ref(void *p) { wa_task_schedule(p); }

static void wa_task_waker_drop(void *p) { wa_task_unref_(p); }

const wa_waker_vt wa_task_waker_vt_ = {
    wa_task_waker_clone, wa_task_waker_wake, wa_task_waker_wake_by_ref, wa_task_waker_drop};

static const wa_future_vt wa_join_vt;

/* Fills in the header of a new task whose future is in place, and queues
 * it. Makes no calls, so that spawn's fast path needs no stack frame. A
 * root task is not linked (task.h): its owner fields (link, scope,
 * joiner) are set when it is. The handle's waker is set by its first wait
 * (wa_join_wait). */
static inline __attribute__((always_inline)) void wa_task_init(wa_rt *rt, wa_scope *scope,
                                                              wa_task *t, size_t total,
                                                              wa_join *join)
{
    uint32_t w = WA_REF_ONE + WA_T_QUEUED + WA_REF_ONE; /* alive, queued */
    t->rt = rt;
    t->id = (uint32_t)++rt->spawned;
    t->cls = (uint32_t)wa_slab_class_(total);
    if (scope) {
        t->scope = scope;
        t->joiner = NULL;
        w |= WA_T_LINKED;
        wa_list_push(&scope->children, &t->link);
        scope->live++;
    }
    wa_word_store(t, w);
    if (join) { /* (its reference added in place: no join of two paths) */
        wa_word_add(t, WA_REF_ONE);
        join->fut.vt = &wa_join_vt;
        join->task = t;
    }
    wa_task_append(rt, t);
}

void wa_task_link_(wa_rt *rt, wa_task *t)
{
    t->scope = NULL;
    t->joiner = NULL;
    wa_word_or(t, WA_T_LINKED);
    wa_list_push(&rt->roots, &t->link);
}

/* Debug builds check every spawn's thread; a release spawn is a few stores
 * and does not look. */
#ifdef NDEBUG
#define WA_CHECK_THREAD_ 0
#else
#define WA_CHECK_THREAD_ 1
#endif

/* A spawn from a thread that is not rt's: a many-threads runtime takes it
 * (its spawns are checked there), a local one reports it. */
static int wa_spawn_checked(wa_rt *rt, const wa_future *fut, size_t size, wa_join *join, wa_scope *scope);

static __attribute__((noinline)) int wa_spawn_foreign(wa_rt *rt, const wa_future *fut, size_t size,
                                                      wa_join *join, wa_scope *scope)
{
    if (WA_MT && rt->mt)
        return wa_spawn_checked(rt, fut, size, join, scope);
    return wa_misuse_in_(WA_EMISUSE, "wa_spawn", "called from a thread that is not the runtime's");
}

/* The largest future a task holds (its size is kept in 32 bits). */
#define WA_TASK_MAX_FUTURE (UINT32_MAX / 2)

/* The general path of a spawn: every check, any size, a many-threads
 * runtime's. */
static __attribute__((noinline)) int wa_spawn_checked(wa_rt *rt, const wa_future *fut, size_t size,
                                                      wa_join *join, wa_scope *scope)
{
    if (!rt || !fut)
        return wa_misuse_in_(WA_EINVAL, "wa_spawn", !rt ? "no runtime (NULL)" : "no future (NULL)");
    if (size < sizeof(wa_future) || !fut->vt || !fut->vt->poll)
        return wa_misuse_in_(WA_EINVAL, "wa_spawn", size < sizeof(wa_future) ? "size smaller than a future"
                                                                              : "a future without a poll function");
    if (size > WA_TASK_MAX_FUTURE)
        return WA_E2BIG;
    if (WA_MT && rt->sched)
        return rt->sched->spawn(rt, fut, size, join, scope);
    if (WA_CHECK_THREAD_ && rt->owner != wa_thread_self_())
        return wa_spawn_foreign(rt, fut, size, join, scope);
    size_t total = sizeof(wa_task) + size;
    wa_task *t = wa_slab_alloc(&rt->slab, total);
    if (!t)
        return WA_ENOMEM;
    memcpy(wa_task_future(t), fut, size);
    wa_task_init(rt, scope, t, total, join);
    return 0;
}

void wa_task_abort_(wa_task *t)
{
    if (wa_task_state(t) & WA_T_DONE)
        return;
    if (t == wa_rt_current_(t->rt)) { /* running */
        wa_word_or(t, WA_T_ABORT);
        return;
    }
    wa_task_finish(t->rt, t, WA_ECANCELED, 1); /* alive */
}

void wa_task_cancel_(wa_task *t)
{
    if (wa_word_load(t) & (WA_T_DONE | WA_T_CANCEL))
        return;
    wa_word_or(t, WA_T_CANCEL);
    wa_task_schedule(t);
}

/* A finished task leaves its owner (wa_task_finish, task.h). A scope's
 * children are tasks on its owner list: counting one out is done here, so
 * that finishing calls nothing above the task. */

void wa_scope_cancel_children_(wa_scope *s)
{
    s->flags |= WA_SCOPE_CANCELLING;
    for (wa_task *t = wa_task_first_(&s->children); t; t = wa_task_next_(t))
        wa_task_cancel_(t);
}

static void wa_task_leave_scope(wa_task *t)
{
    wa_scope *s = t->scope;
    wa_list_remove(&s->children, &t->link);
    s->live--;
    int rc = t->status;
    if (rc < 0 && rc != WA_ECANCELED && s->status == 0) { /* the first error */
        s->status = rc;
        if (s->flags & WA_SCOPE_FAIL_FAST)
            wa_scope_cancel_children_(s);
    } else if (s->live) {
        return;
    }
    wa_waker_wake_by_ref(&s->waker);
}

static __attribute__((noinline)) void wa_task_drop_scopes(wa_rt *rt, wa_task *t, bool report)
{
    wa_scope *s = rt->scopes;
    while (s) {
        wa_scope *next = s->next;
        if (s->owner == t) {
            if (report)
                wa_misuse(WA_EMISUSE, "a task ended without dropping the scope it created");
            wa_drop(&s->fut);
            next = rt->scopes; /* the drop may have ended other scopes */
        }
        s = next;
    }
}

void wa_task_leave_(wa_task *t, int rc)
{
    if (wa_word_load(t) & WA_SCOPE_MASK)
        wa_task_drop_scopes(t->rt, t, rc != WA_ECANCELED);
    if (!(wa_word_load(t) & WA_T_LINKED))
        return;
    if (t->scope)
        wa_task_leave_scope(t);
    else
        wa_list_remove(&t->rt->roots, &t->link);
    if (t->joiner) {
        wa_join *j = t->joiner;
        t->joiner = NULL;
        wa_waker_wake(&j->waker);
    }
}

/* cooperation hooks used by futures (future.h) */

bool wa_cancel_requested(const wa_cx *cx) { return wa_cx_cancel_requested_(cx); }

void wa_cancel_claim(wa_cx *cx)
{
    if (cx->task)
        wa_word_set_(cx->task, WA_T_CLAIMED);
}

/* Join handles. */

/* The poll of a handle whose task has not finished: kept out of line, so
 * that the poll of a finished one needs no stack frame, and called as a
 * tail call, which the compiler would not keep on its own once it sees
 * this always returns WA_PENDING (where the target has tail calls: not
 * wasm without its tail-call feature). */
#if defined(__has_attribute) && (!defined(__wasm__) || defined(__wasm_tail_call__))
#if __has_attribute(musttail)
#define WA_MUSTTAIL_ __attribute__((musttail))
#endif
#endif
#ifndef WA_MUSTTAIL_
#define WA_MUSTTAIL_
#endif

static __attribute__((noinline)) int wa_join_wait(wa_future *f, wa_cx *cx)
{
    wa_join *j = (wa_join *)f;
    wa_task *t = j->task;
    if (!(wa_word_load(t) & WA_T_LINKED)) /* awaited before its first poll */
        wa_task_link_(t->rt, t);
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
static int wa_join_released_poll(wa_future *f, wa_cx *cx)
{
    (void)cx;
    return ((wa_join *)f)->status;
}

static const wa_future_vt wa_join_released_vt = {wa_join_released_poll, NULL, "join"};

static bool wa_join_released(const wa_join *j) { return j->fut.vt == &wa_join_released_vt; }

/* A dropped local handle (j->task NULL): its drop switches it to this
 * vtable, so that the poll of a live one has no NULL to test. */
static int wa_join_dropped_poll(wa_future *f, wa_cx *cx)
{
    (void)f;
    (void)cx;
    return wa_misuse_in_(WA_EMISUSE, "await of a join handle", "the handle was dropped");
}

static const wa_future_vt wa_join_dropped_vt = {wa_join_dropped_poll, NULL, "join"};

/* Marks j, a local handle, dropped. */
static inline void wa_join_dropped(wa_join *j)
{
    j->fut.vt = &wa_join_dropped_vt;
    j->task = NULL;
}

static int wa_join_poll(wa_future *f, wa_cx *cx)
{
    wa_join *j = (wa_join *)f;
    wa_task *t = j->task; /* (set: a dropped handle has another vtable) */
    uint32_t w = wa_word_load(t);
    if (!(w & WA_T_DONE))
        WA_MUSTTAIL_ return wa_join_wait(f, cx);
    int rc = t->status;
    j->fut.vt = &wa_join_released_vt; /* (j->task is left stale: a released
                                         * handle is told by its vtable,
                                         * which every call tests first) */
    j->status = rc; /* (its waker was consumed by the finish's wake) */
    /* the common case, the handle's the last reference: free the task
     * without writing the word that nobody reads again (local executor:
     * nothing else changes it meanwhile) */
    if (w < 2 * WA_REF_ONE)
        wa_slab_free(&t->rt->slab, t, t->cls);
    else
        wa_word_store(t, w - WA_REF_ONE);
    return rc;
}

/* Detaches j from t, its task still running (t runs on), and releases
 * it. Out of line, so that releasing a finished task's handle needs no
 * stack frame. */
static __attribute__((noinline)) void wa_join_detach(wa_join *j, wa_task *t)
{
    if ((wa_word_load(t) & WA_T_LINKED) && t->joiner == j) { /* (an unlinked task has none) */
        t->joiner = NULL;
        wa_waker_drop(&j->waker);
    }
    wa_task_unref_n(t, 1);
}

/* Releases a local task's handle j (j->task set). */
static inline void wa_join_release(wa_join *j)
{
    wa_task *t = j->task;
    wa_join_dropped(j);
    if (!(wa_word_load(t) & WA_T_DONE)) { /* a finish has detached it */
        wa_join_detach(j, t);
        return;
    }
    wa_task_unref_n(t, 1);
}

/* Only wa_join_vt leads here, so the handle is a local task's, not yet
 * dropped (an await's drop skips wa_join_drop's check). */
static void wa_join_drop_vt(wa_future *f) { wa_join_release((wa_join *)f); }

static const wa_future_vt wa_join_vt = {wa_join_poll, wa_join_drop_vt, "join"};

/* The common case, a future of 8 to 64 bytes from a warm slab, copies and
 * links without a call; anything else takes the general path. fixed: size
 * is a compile-time constant of 1 to 8 words (wa_spawn_wN_), which needs
 * no size test and copies without a branch. */
static inline __attribute__((always_inline)) int wa_spawn_in(wa_rt *rt, const wa_future *fut, size_t size,
                                                             wa_join *join, wa_scope *scope, bool fixed)
{
    size_t total = sizeof(wa_task) + size;
    wa_task *t;
    /* (one test for "8 to 64 bytes, a multiple of 8": size - 8 wraps for
     * smaller ones; the other sizes, like NULLs, go the checked way) */
    if (__builtin_expect(!rt || !fut || (!fixed && ((size - 8) & ~(size_t)56)), 0))
        return wa_spawn_checked(rt, fut, size, join, scope);
    if (WA_CHECK_THREAD_ && rt->owner != wa_thread_self_())
        return wa_spawn_foreign(rt, fut, size, join, scope);
    /* (a many-threads runtime's slab is always empty: its spawns go the
     * checked way, to mt.c) */
    _Static_assert(sizeof(wa_task) + 64 <= WA_SLAB_MAX, "a small task is a slab's");
    if (!(t = wa_slab_try_alloc_small(&rt->slab, total)))
        return wa_spawn_checked(rt, fut, size, join, scope);
    if (fixed)
        memcpy(wa_task_future(t), fut, size);
    else
        wa_memcpy_8_64_(wa_task_future(t), fut, size);
    wa_task_init(rt, scope, t, total, join);
    return 0;
}

/* (The argument order is the checked path's, which gets them as they are.) */
int wa_spawn(wa_rt *rt, const wa_future *fut, size_t size, wa_join *join)
{
    return wa_spawn_in(rt, fut, size, join, NULL, false);
}

/* wa_spawn_of's entry points, one per size in words (runtime.h). */
#define WA_SPAWN_DEFINE_(n)                                                \
    int wa_spawn_w##n##_(wa_rt *rt, const wa_future *fut, wa_join *join)    \
    {                                                                       \
        return wa_spawn_in(rt, fut, n * sizeof(void *), join, NULL, true);  \
    }
WA_SPAWN_DEFINE_(1)
WA_SPAWN_DEFINE_(2)
WA_SPAWN_DEFINE_(3)
WA_SPAWN_DEFINE_(4)
WA_SPAWN_DEFINE_(5)
WA_SPAWN_DEFINE_(6)
WA_SPAWN_DEFINE_(7)
WA_SPAWN_DEFINE_(8)

int wa_task_spawn_(wa_rt *rt, const wa_future *fut, size_t size, wa_join *join, wa_scope *scope)
{
    return wa_spawn_in(rt, fut, size, join, scope, false);
}

/* j holds a finished task (atomic: a many-threads task finishes on a
 * worker). */
static bool wa_join_holds_done(const wa_join *j)
{
    return j && !wa_join_released(j) && j->task && (wa_word_peek_(j->task) & WA_T_DONE);
}

bool wa_join_done(const wa_join *j) { return wa_join_holds_done(j) || (j && wa_join_released(j)); }

wa_future *wa_join_output(const wa_join *j)
{
    return wa_join_holds_done(j) ? wa_task_future(j->task) : NULL;
}

int wa_join_status(const wa_join *j)
{
    if (wa_join_holds_done(j))
        return j->task->status;
    return j && wa_join_released(j) ? j->status : WA_PENDING;
}

/* Cancelling or aborting a finished task does nothing, whether or not a
 * poll released it. */
int wa_join_cancel(wa_join *j)
{
    if (j && wa_join_released(j))
        return 0;
    if (!j || !j->task)
        return wa_misuse_in_(WA_ESTALE, "wa_join_cancel", "the handle was dropped");
    if (WA_MT && j->fut.vt != &wa_join_vt) { /* another scheduler's task */
        j->task->rt->sched->signal(j->task, WA_T_CANCEL);
        return 0;
    }
    wa_task_cancel_(j->task);
    return 0;
}

int wa_join_abort(wa_join *j)
{
    if (j && wa_join_released(j))
        return 0;
    if (!j || !j->task)
        return wa_misuse_in_(WA_ESTALE, "wa_join_abort", "the handle was dropped");
    if (WA_MT && j->fut.vt != &wa_join_vt) { /* another scheduler's task */
        j->task->rt->sched->signal(j->task, WA_T_ABORT);
        return 0;
    }
    wa_task_abort_(j->task);
    return 0;
}

/* A handle that a poll released holds nothing; dropping it marks it
 * dropped, so that a second drop is reported. */
int wa_join_drop(wa_join *j)
{
    if (j && wa_join_released(j)) {
        wa_join_dropped(j);
        return 0;
    }
    if (!j || !j->task)
        return wa_misuse_in_(WA_EMISUSE, "wa_join_drop", "the handle was dropped already");
    if (WA_MT && j->fut.vt != &wa_join_vt) { /* another scheduler's task */
        j->task->rt->sched->join_drop(j);
        return 0;
    }
    wa_join_release(j);
    return 0;
}

/* The callback style: a future that calls fn(arg, cx), and fn(arg, NULL)
 * if it is dropped before fn finished, so that arg can be released. */
typedef struct wa_fn_future {
    wa_future fut;
    wa_task_fn fn;
    void *arg;
    int done;
} wa_fn_future;

static int wa_fn_poll(wa_future *f, wa_cx *cx)
{
    wa_fn_future *ff = (wa_fn_future *)f;
    int rc = ff->fn(ff->arg, cx);
    ff->done = rc != WA_PENDING;
    return rc;
}

static void wa_fn_drop(wa_future *f)
{
    wa_fn_future *ff = (wa_fn_future *)f;
    if (!ff->done) {
        ff->done = 1;
        ff->fn(ff->arg, NULL);
    }
}

static const wa_future_vt wa_fn_vt = {wa_fn_poll, wa_fn_drop, "fn"};

int wa_spawn_fn(wa_rt *rt, wa_task_fn fn, void *arg, wa_join *join)
{
    wa_fn_future ff = {{&wa_fn_vt}, fn, arg, 0};
    return wa_spawn_of(rt, &ff, join);
}
