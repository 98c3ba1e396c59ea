/* SPDX-License-Identifier: MIT */
/* The local executor: the runtime's life and fair ticks (each running its
 * queued tasks); block_on and run, which wait on the backend between
 * ticks, are block_on.c's. */
#include <stdlib.h>

#include "handles.h"
#include "sched.h"
#include "task.h"
#include "timer.h"
#include "trace.h"

static void wa__noop(void *p) { (void)p; }
static wa_waker wa__noop_clone(void *p) { return (wa_waker){p, &wa_noop_waker_vt}; }
const wa_waker_vt wa_noop_waker_vt = {wa__noop_clone, wa__noop, wa__noop, wa__noop};

/* The checks of a call that drives rt (block_on, run, tick, free): rt is
 * not NULL, the caller is its thread and is not inside a poll (wa__ticking:
 * a poll must not block or re-enter any runtime). Returns 0, or the misuse
 * reported. */
int wa__rt_enter(wa_rt *rt, const char *call)
{
    if (!rt)
        return wa__misuse_in(WA_EINVAL, call, "no runtime (NULL)");
    if (WA__THREADS && rt->owner != wa__thread_self())
        return wa__misuse_in(WA_EMISUSE, call, "called from a thread that is not the runtime's");
    if (wa__ticking)
        return wa__misuse_in(WA_EMISUSE, call, "called inside a task's poll, which must not block or re-enter");
    return 0;
}

/* The handle table's entry of rt, a live runtime, in *h: 0, or misuse
 * reported for call (a runtime freed already, through this copy of its
 * pointer or another). A runtime's handle is its address (tasks are given
 * it as cx->rt), so the entry is looked for, not looked up: the check
 * never reads rt, but a new runtime at the address of a freed one passes
 * it. */
int wa__rt_live(const wa_rt *rt, const char *call, uintptr_t *h)
{
    if (rt && !wa__handle_holds(rt, WA__HANDLE_RT, h))
        return wa__misuse_in(WA_EMISUSE, call, "not a live runtime (freed already?)");
    return 0;
}

int wa_rt_new_on(wa_rt **out, wa_backend *backend)
{
    if (!out) {
        if (backend)
            backend->vt->free(backend);
        return wa_misuse(WA_EINVAL, "wa_rt_new: NULL out");
    }
    *out = NULL;
    if (!backend) /* its constructor failed: never quietly another host */
        return WA_EINVAL;
    wa_rt *rt = calloc(1, sizeof *rt);
    uintptr_t h;
    if (!rt || wa__handle_new(rt, WA__HANDLE_RT, &h) < 0) {
        free(rt);
        backend->vt->free(backend);
        return WA_ENOMEM;
    }
    rt->backend = backend;
    rt->tailp = &rt->head;
    rt->owner = wa__thread_self();
    /* one context for every poll: a poll leaves it as it found it
     * (future.h), so each task sets only its own fields */
    rt->cx = (wa_cx){{NULL, &wa__task_waker_vt}, rt, NULL, 0, &rt->budget};
#if !defined(WASYNC_HOST_JS) /* (there, the module's runtime only: src/host/js/runtime.c) */
    wa__trace_env(rt);
#endif
    *out = rt;
    return 0;
}

int wa_rt_new(wa_rt **out)
{
    int err = WA_ENOMEM;
    wa_backend *b = wa__backend_default(&err);
    return b ? wa_rt_new_on(out, b) : err;
}

#if !WA__MT
/* (src/threads/mt.c makes many-threads runtimes where there are threads) */
int wa_rt_new_mt(wa_rt **out, unsigned workers)
{
    (void)workers;
    if (out)
        *out = NULL;
    return WA_ENOSYS; /* no threads on this host */
}
#endif

void wa_rt_free(wa_rt *rt)
{
    uintptr_t h;
    if (!rt || wa__rt_live(rt, "wa_rt_free", &h) < 0)
        return;
    if (wa__rt_enter(rt, "wa_rt_free") < 0)
        return; /* freeing it under a running poll would pull the floor away */
#if WA__MT
    wa__remote_refuse(rt); /* other threads spawn no more */
#endif
    if (WA__MT && rt->sched)
        rt->sched->free(rt);
    /* Dropping a root drops the scopes inside it, which abort their children;
     * then what is left are roots never polled (queued) and scopes that no
     * task owned. */
    while (!wa__list_empty(&rt->roots))
        wa__task_abort(wa__task_first(&rt->roots));
    for (wa_task *t = rt->head; t; t = t->next) /* (an abort only appends) */
        if (wa__task_unlinked(t))
            wa__task_abort(t);
    while (rt->scopes)
        wa_drop(&rt->scopes->fut);
    while (rt->head) { /* queue references of aborted tasks */
        wa_task *t = rt->head;
        rt->head = t->next;
        wa__task_unref(t);
    }
#if WA__MT
    wa__pool_stop(rt); /* after the tasks: their blocking jobs are cancelled or detached */
    wa__remote_close(rt);
#endif
    while (rt->exts) {
        wa__rt_ext *e = rt->exts;
        rt->exts = e->next;
        e->free(e);
    }
    free(rt->heap);
    free(rt->arming);
    rt->backend->vt->free(rt->backend);
    wa__slab_release(&rt->slab);
    wa__handle_release(h);
    free(rt);
}

void wa_rt_set_report(wa_rt *rt, wa_report_fn fn, void *arg)
{
    if (!rt) {
        wa_misuse(WA_EINVAL, "wa_rt_set_report: NULL runtime");
        return;
    }
    rt->report = fn;
    rt->report_arg = arg;
}

/* Polls t, which the tick took off the queue (with the queue's reference),
 * once with cx (the round's, borrowed: this sets its task's fields);
 * finishes it if it is done, aborted, or cancelled and unclaimed, and
 * links a root that outlives its first poll (task.h). Inlined into the
 * tick loop. */
static inline __attribute__((always_inline)) void wa__task_run(wa_rt *rt, wa_task *t, wa_cx *cx)
{
    uint32_t w = wa__word_load(t);
    if (w & (WA__T_DONE | WA__T_CANCEL)) { /* rare: aborted, or cancelled */
        wa__word_store(t, w & ~(uint32_t)(WA__T_QUEUED | WA__T_CLAIMED));
        if (w & WA__T_DONE)
            goto out;
        if (!(w & WA__T_STARTED)) { /* never started: nothing to clean up */
            cx->task = NULL; /* (its drop is no poll: no task's locals, not the last polled one's) */
            wa__task_finish(rt, t, WA_ECANCELED, 2); /* alive, queue */
            return;
        }
    }
    wa__word_store(t, (w & ~(uint32_t)(WA__T_QUEUED | WA__T_CLAIMED)) | WA__T_STARTED);
    rt->budget = 128;
    rt->polls++;
    cx->waker.data = cx->task = t;
    wa_future *f = wa__task_future(t);
    int rc = f->vt->poll(f, cx);
    if (rt->arming_len) /* sleeps armed by this poll count from now */
        wa__timers_commit(rt, wa__now_fresh(rt));
    w = wa__word_load(t);
    if (rc == WA_PENDING) {
        if (!(w & WA__T_ABORT) && (w & (WA__T_CANCEL | WA__T_CLAIMED)) != WA__T_CANCEL) {
            if (!(w & WA__T_LINKED))
                wa__task_link(rt, t);
            goto out;
        }
        rc = WA_ECANCELED; /* aborted, or nobody took the request: hard drop */
    }
    wa__task_finish(rt, t, rc, 2); /* alive, queue */
    return;
out:
    wa__task_unref_n(t, 1); /* the queue's */
}

/* One fair round: the tasks queued when it began, each polled once.
 * wa_rt_tick without its checks, for the loops that made them once. Out of
 * line: its frame address is its polls' poll_top (rt.h), which must lie
 * below the frame of block_on's caller, whose futures are awaited by
 * right (and, under ASan, whose fake frames say they ran just below it). */
__attribute__((noinline)) int wa__rt_round(wa_rt *rt, uint64_t *deadline)
{
    wa__ticking = rt;
    rt->poll_top = __builtin_frame_address(0);
    rt->ticks++;
    rt->now_fresh = 0;
    if (rt->arming_len) /* armed outside a task's poll (polled by hand) */
        wa__timers_commit(rt, wa__now_fresh(rt));
    if (rt->heap_len && !rt->timers_early)
        wa__timers_fire(rt, wa_now(rt));
    rt->timers_early = 0;
    /* Take the queue as it stands: tasks woken from now on go to a fresh
     * queue and wait for the next round. */
    wa_task *t = rt->head;
    rt->head = NULL;
    rt->tailp = &rt->head;
    rt->queued = 0;
    while (t) {
        wa_task *next = rt->rest = t->next; /* (for a dump in a poll) */
        wa__task_run(rt, t, &rt->cx);
        t = next;
    }
    rt->cx.task = NULL;
    wa__ticking = NULL;
    if (deadline)
        *deadline = wa__timers_next(rt);
    return (int)rt->queued;
}

int wa_rt_tick(wa_rt *rt, uint64_t *deadline)
{
    int rc = wa__rt_enter(rt, "wa_rt_tick");
    if (rc == 0 && WA__MT && rt->mt) /* its workers tick it */
        rc = wa__misuse_in(WA_EMISUSE, "wa_rt_tick", "the runtime has worker threads of its own");
    if (rc < 0)
        return rc;
#if WA__MT
    if (rt->xt) /* a loop of ticks may never wait */
        wa__remote_drain(rt);
#endif
    return wa__rt_round(rt, deadline);
}

int wa__spawn_internal(wa_rt *rt, wa_future *inner)
{
    rt = wa__rt_home(rt);
    wa__internal w = {{{&wa__internal_vt}, inner}, rt};
    /* counted before it can run: on many threads a worker may drop it at once */
    __atomic_add_fetch(&rt->internal, 1, __ATOMIC_RELAXED);
    int rc = wa_spawn(rt, &w.root.fut, sizeof w, NULL);
    if (rc < 0)
        __atomic_sub_fetch(&rt->internal, 1, __ATOMIC_RELAXED);
    else
        __atomic_add_fetch(&rt->internal_spawned, 1, __ATOMIC_RELAXED);
    return rc;
}

static int wa__yield_poll(wa_future *f, wa_cx *cx)
{
    wa_yield *y = (wa_yield *)f;
    if (y->yielded)
        return WA_READY;
    y->yielded = 1;
    wa_waker_wake_by_ref(&cx->waker);
    return WA_PENDING;
}

static const wa_future_vt wa__yield_vt = {wa__yield_poll, NULL, "yield"};

wa_future *wa_yield_init(wa_yield *y)
{
    y->fut.vt = &wa__yield_vt;
    y->yielded = 0;
    return &y->fut;
}

void wa_rt_stats_get(const wa_rt *rt, wa_rt_stats *st)
{
    if (!rt || !st) {
        wa_misuse(WA_EINVAL, "wa_rt_stats_get: NULL argument");
        return;
    }
    if (WA__MT && rt->sched)
        st->tasks = rt->sched->live(rt);
    else
        st->tasks = (size_t)(rt->spawned - rt->finished) - rt->internal;
    st->timers = (size_t)rt->heap_len + rt->arming_len;
    st->sources = rt->backend->sources;
    st->spawned = __atomic_load_n(&rt->spawned, __ATOMIC_RELAXED) - __atomic_load_n(&rt->internal_spawned, __ATOMIC_RELAXED);
    st->polls = rt->polls;
    st->ticks = rt->ticks;
    st->waits = rt->waits;
}

wa_backend *wa_rt_backend(wa_rt *rt) { return rt->backend; }
