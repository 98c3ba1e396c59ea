/* SPDX-License-Identifier: MIT */
/* block_on, run and shutdown: the executor's ticks (executor.c) with the
 * backend's waits between them, and deadlock detection, whose report is
 * a dump (dump.c): a program that only ticks (the JS host's) carries
 * neither. */
#include "dump.h"
#include "sched.h"
#include "task.h"

/* While tasks stay runnable, look at the backend (without blocking) every
 * this many ticks, so that I/O readiness is not starved by busy tasks. */
#define WA__IO_EVERY_TICKS 61

/* Nothing can ever wake rt's tasks: no timer (deadline), no source, and no
 * other thread that may (a remote or an event held, a blocking job). */
static bool wa__rt_stuck(wa_rt *rt, uint64_t deadline)
{
#if WA__MT
    if (wa__remote_busy(rt))
        return false;
#endif
    return deadline == WA_NEVER && rt->backend->sources == 0;
}

/* Requests the cancellation of every task (shutdown; those already asked
 * are skipped). */
static void wa__rt_cancel_all(wa_rt *rt)
{
    for (wa_task *t = wa__task_first(&rt->roots); t; t = wa__task_next(t))
        wa__task_cancel(t);
    for (wa_task *t = rt->head; t; t = t->next) /* roots never polled */
        if (wa__task_unlinked(t))
            wa__task_cancel(t);
    for (wa_scope *s = rt->scopes; s; s = s->next)
        wa__scope_cancel_children(s);
}

/* Drives rt until root finishes (or, with root NULL, until no task is
 * left). With stop (a shutdown's deadline), each round first cancels every
 * task, and the drive ends at *stop. Returns 0, WA_EDEADLK or (stop)
 * WA_ETIMEDOUT. Inlined, so that block_on's and run's loops, whose stop is
 * NULL, have none of the shutdown's tests. */
static inline __attribute__((always_inline)) int wa__rt_drive(wa_rt *rt, const wa_join *root, const uint64_t *stop)
{
    for (unsigned n = 1;; n++) {
        if (stop)
            wa__rt_cancel_all(rt);
        uint64_t deadline;
        int runnable = wa__rt_round(rt, &deadline);
        if (root ? wa__word_load(root->task) & WA__T_DONE : rt->spawned - rt->finished == rt->internal) /* (block_on's handle, never polled) */
            return 0;
        if (stop && wa__now_fresh(rt) >= *stop)
            return WA_ETIMEDOUT;
        uint64_t until = stop && *stop < deadline ? *stop : deadline;
        if (runnable) {
            if (n % WA__IO_EVERY_TICKS)
                continue;
            until = 0;
        } else if (wa__rt_stuck(rt, deadline)) {
            wa__report_deadlock(rt, wa_rt_dump);
            return WA_EDEADLK;
        }
        int rc = wa__rt_wait(rt, until);
        if (rc == WA_EDEADLK) /* sources, but none waited on */
            wa__report_deadlock(rt, wa_rt_dump);
        if (rc < 0)
            return rc;
    }
}

int wa_block_on(wa_rt *rt, wa_future *fut)
{
    int rc = wa__rt_enter(rt, "wa_block_on");
    if (rc == 0 && !fut)
        rc = wa__misuse_in(WA_EINVAL, "wa_block_on", "no future (NULL)");
    if (rc < 0) {
        wa_drop(fut); /* taken, whatever happens */
        return rc;
    }
    wa__root r = {{&wa__root_vt}, fut};
    wa_join j;
    rc = wa_spawn(rt, &r.fut, sizeof r, &j);
    if (rc < 0) {
        wa_drop(fut);
        return rc;
    }
    if (WA__MT && rt->sched)
        rc = rt->sched->drive(rt, &j);
    else
        rc = wa__rt_drive(rt, &j, NULL);
    if (rc == 0) {
        rc = wa_join_status(&j);
    } else {
        wa_join_abort(&j);
        if (WA__MT && rt->sched) /* a worker drops it: fut is the caller's, wait for that */
            rt->sched->finish(rt, &j);
    }
    wa_join_drop(&j);
    return rc;
}

int wa_rt_run(wa_rt *rt)
{
    int rc = wa__rt_enter(rt, "wa_rt_run");
    if (WA__MT && rc == 0 && rt->sched)
        return rt->sched->drive(rt, NULL);
    return rc < 0 ? rc : wa__rt_drive(rt, NULL, NULL);
}

int wa_rt_shutdown(wa_rt *rt, uint64_t timeout)
{
    uintptr_t h;
    int rc = wa__rt_live(rt, "wa_rt_shutdown", &h);
    if (rc == 0)
        rc = wa__rt_enter(rt, "wa_rt_shutdown");
    if (rc < 0)
        return rc;
    uint64_t stop = wa__add_sat(wa__now_fresh(rt), timeout);
#if WA__MT
    wa__remote_refuse(rt);
#endif
    if (WA__MT && rt->sched)
        rc = rt->sched->drain(rt, stop);
    else
        rc = wa__rt_drive(rt, NULL, &stop);
    wa_rt_free(rt);
    return rc;
}
