/* SPDX-License-Identifier: MIT */
/* Spawning: wa_spawn and its entry points, the checked path, the callback
 * style (wa_spawn_fn). Apart from task.c: a spawn sets its handle's
 * vtable (join.c's) and join.c calls task.c, so a spawn in task.c would
 * close a circle. The new task's header is filled in here, inline, so that
 * the common spawn is one function without a call. */
#include <string.h>

#include "copy.h"
#include "sched.h"
#include "task.h"

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
        join->fut.vt = &wa_join_vt_;
        join->task = t;
    }
    wa_task_append(rt, t);
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
