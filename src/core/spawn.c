/* SPDX-License-Identifier: MIT */
/* Spawning: wa_spawn and its entry points, the checked path, the callback
 * style (wa_spawn_fn). Apart from task.c: a spawn sets its handle's
 * vtable (join.c's) and join.c calls task.c, so a spawn in task.c would
 * close a circle. The new task's header is filled in here, inline, so that
 * the common spawn is one function without a call. */
#include <stdlib.h>
#include <string.h>

#include "copy.h"
#include "diag.h"
#include "sched.h"
#include "task.h"

/* Fills in the header of a new task whose future is in place, and queues
 * it. Makes no calls, so that spawn's fast path needs no stack frame. A
 * root task is not linked (task.h): its owner fields (link, scope,
 * joiner) are set when it is. The handle's waker is set by its first wait
 * (wa__join_wait). */
static inline __attribute__((always_inline)) void wa__task_init(wa_rt *rt, wa_scope *scope,
                                                              wa_task *t, size_t total,
                                                              wa_join *join)
{
    uint32_t w = WA__REF_ONE + WA__T_QUEUED + WA__REF_ONE; /* alive, queued */
    t->rt = rt;
    t->id = (uint32_t)++rt->spawned;
    t->cls = (uint32_t)wa__slab_class(total);
    t->locals = NULL;
    if (scope) {
        t->scope = scope;
        t->joiner = NULL;
        w |= WA__T_LINKED;
        wa__list_push(&scope->children, &t->link);
        scope->live++;
    }
    wa__word_store(t, w);
    if (join) { /* (its reference added in place: no join of two paths) */
        wa__word_add(t, WA__REF_ONE);
        join->fut.vt = &wa__join_vt;
        join->task = t;
    }
    wa__task_append(rt, t);
}

/* Debug builds check every spawn's thread; a release spawn is a few stores
 * and does not look. */
#ifdef NDEBUG
#define WA__CHECK_THREAD 0
#else
#define WA__CHECK_THREAD 1
#endif

/* A spawn from a thread that is not rt's: a many-threads runtime takes it
 * (its spawns are checked there), a local one reports it. */
static int wa__spawn_checked(wa_rt *rt, const wa_future *fut, wa_join *join, size_t size, wa_scope *scope);

static __attribute__((noinline)) int wa__spawn_foreign(wa_rt *rt, const wa_future *fut, wa_join *join,
                                                      size_t size, wa_scope *scope)
{
    if (WA__MT && rt->mt)
        return wa__spawn_checked(rt, fut, join, size, scope);
    return wa__misuse_in(WA_EMISUSE, "wa_spawn", "called from a thread that is not the runtime's");
}

static __attribute__((noinline)) int wa__spawn_wrapped(wa_rt *rt, const wa_future *fut, wa_join *join,
                                                      size_t size, wa_scope *scope, const char *name,
                                                      wa__wrap_fn *wrap);

/* The largest future a task holds (its size is kept in 32 bits). */
#define WA__TASK_MAX_FUTURE (UINT32_MAX / 2)

/* The general path of a spawn: every check, any size, a many-threads
 * runtime's, a traced runtime's (its tasks run in diag.c's wrapper; the
 * library's own are not the program's to trace). */
static __attribute__((noinline)) int wa__spawn_checked(wa_rt *rt, const wa_future *fut, wa_join *join,
                                                      size_t size, wa_scope *scope)
{
    if (!rt || !fut)
        return wa__misuse_in(WA_EINVAL, "wa_spawn", !rt ? "no runtime (NULL)" : "no future (NULL)");
    if (size < sizeof(wa_future) || !fut->vt || !fut->vt->poll)
        return wa__misuse_in(WA_EINVAL, "wa_spawn", size < sizeof(wa_future) ? "size smaller than a future"
                                                                              : "a future without a poll function");
    if (size > WA__TASK_MAX_FUTURE)
        return WA_E2BIG;
    /* (a wrapper is diag.c's, set by trace.c, which links it: where it is
     * not linked, &wa__diag_vt is NULL, and the link leaves this out) */
    wa__wrap_fn *wrap = &wa__diag_vt ? __atomic_load_n(&wa__rt_home(rt)->wrap, __ATOMIC_ACQUIRE) : NULL;
    if (wrap && fut->vt != &wa__diag_vt && fut->vt != &wa__internal_vt)
        return wa__spawn_wrapped(rt, fut, join, size, scope, NULL, wrap);
    if (WA__MT && rt->sched)
        return rt->sched->spawn(rt, fut, size, join, scope);
    if (WA__CHECK_THREAD && rt->owner != wa__thread_self())
        return wa__spawn_foreign(rt, fut, join, size, scope);
    size_t total = sizeof(wa_task) + size;
    wa_task *t = wa__slab_alloc(&rt->slab, total);
    if (!t)
        return WA_ENOMEM;
    memcpy(wa__task_future(t), fut, size);
    wa__task_init(rt, scope, t, total, join);
    return 0;
}

/* The common case, a future of 8 to 64 bytes from a warm slab, copies and
 * links without a call; anything else takes the general path. fixed: size
 * is a compile-time constant of 1 to 8 words (wa__spawn_wN), which needs
 * no size test and copies without a branch. */
static inline __attribute__((always_inline)) int wa__spawn_in(wa_rt *rt, const wa_future *fut, wa_join *join,
                                                             size_t size, wa_scope *scope, bool fixed)
{
    size_t total = sizeof(wa_task) + size;
    wa_task *t;
    /* (one test for "8 to 64 bytes, a multiple of 8": size - 8 wraps for
     * smaller ones; the other sizes, like NULLs and a traced runtime's
     * spawns, go the checked way) */
    if (__builtin_expect(!rt || !fut || rt->wrap || (!fixed && ((size - 8) & ~(size_t)56)), 0))
        return wa__spawn_checked(rt, fut, join, size, scope);
    if (WA__CHECK_THREAD && rt->owner != wa__thread_self())
        return wa__spawn_foreign(rt, fut, join, size, scope);
    /* (a many-threads runtime's slab is always empty: its spawns go the
     * checked way, to mt.c) */
    _Static_assert(sizeof(wa_task) + 64 <= WA__SLAB_MAX, "a small task is a slab's");
    if (!(t = wa__slab_try_alloc_small(&rt->slab, total)))
        return wa__spawn_checked(rt, fut, join, size, scope);
    if (fixed)
        memcpy(wa__task_future(t), fut, size);
    else
        wa__memcpy_8_64(wa__task_future(t), fut, size);
    wa__task_init(rt, scope, t, total, join);
    return 0;
}

/* (The internal order puts join before size: the wN entries, without a
 * size, then pass their arguments to the checked path as they came.) */
int wa_spawn(wa_rt *rt, const wa_future *fut, size_t size, wa_join *join)
{
    return wa__spawn_in(rt, fut, join, size, NULL, false);
}

/* A spawn of fut (checked) in the future wrap makes of it, named name
 * (NULL: none): a named task's, or a traced runtime's. */
static __attribute__((noinline)) int wa__spawn_wrapped(wa_rt *rt, const wa_future *fut, wa_join *join,
                                                      size_t size, wa_scope *scope, const char *name,
                                                      wa__wrap_fn *wrap)
{
    if (size > WA__TASK_MAX_FUTURE - sizeof(wa__diag) - (name ? strlen(name) + 1 : 0))
        return WA_E2BIG;
    wa_future *w;
    size_t total = wrap(rt, fut, size, name, &w);
    if (!total)
        return WA_ENOMEM;
    int rc = wa__spawn_checked(rt, w, join, total, scope);
    free(w);
    return rc;
}

/* wa_spawn_of's entry points, one per size in words (runtime.h). */
#define WA__SPAWN_DEFINE(n)                                                \
    int wa__spawn_w##n(wa_rt *rt, const wa_future *fut, wa_join *join)    \
    {                                                                       \
        return wa__spawn_in(rt, fut, join, n * sizeof(void *), NULL, true);  \
    }
WA__SPAWN_DEFINE(1)
WA__SPAWN_DEFINE(2)
WA__SPAWN_DEFINE(3)
WA__SPAWN_DEFINE(4)
WA__SPAWN_DEFINE(5)
WA__SPAWN_DEFINE(6)
WA__SPAWN_DEFINE(7)
WA__SPAWN_DEFINE(8)

int wa__task_spawn(wa_rt *rt, const wa_future *fut, size_t size, wa_join *join, wa_scope *scope)
{
    return wa__spawn_in(rt, fut, join, size, scope, false);
}

int wa__task_spawn_named(wa_rt *rt, const wa_future *fut, size_t size, wa_join *join, wa_scope *scope,
                         const char *name, wa__wrap_fn *wrap)
{
    if (!name || !rt || !fut || size < sizeof(wa_future) || !fut->vt || !fut->vt->poll) /* (the checks report these) */
        return wa__spawn_in(rt, fut, join, size, scope, false);
    return wa__spawn_wrapped(rt, fut, join, size, scope, name, wrap);
}

/* The callback style: a future that calls fn(arg, cx), and fn(arg, NULL)
 * if it is dropped before fn finished, so that arg can be released. */
typedef struct wa__fn_future {
    wa_future fut;
    wa_task_fn fn;
    void *arg;
    int done;
} wa__fn_future;

static int wa__fn_poll(wa_future *f, wa_cx *cx)
{
    wa__fn_future *ff = (wa__fn_future *)f;
    int rc = ff->fn(ff->arg, cx);
    ff->done = rc != WA_PENDING;
    return rc;
}

static void wa__fn_drop(wa_future *f)
{
    wa__fn_future *ff = (wa__fn_future *)f;
    if (!ff->done) {
        ff->done = 1;
        ff->fn(ff->arg, NULL);
    }
}

static const wa_future_vt wa__fn_vt = {wa__fn_poll, wa__fn_drop, "fn"};

int wa_spawn_fn(wa_rt *rt, wa_task_fn fn, void *arg, wa_join *join)
{
    wa__fn_future ff = {{&wa__fn_vt}, fn, arg, 0};
    return wa_spawn_of(rt, &ff, join);
}
