/* SPDX-License-Identifier: MIT */
/* Tasks: reference counting, the task waker, linking on and leaving the
 * owner list, cancellation. The executor runs them; spawning (spawn.c)
 * and join handles (join.c) are above, and call this file. */
#include <stdlib.h>

#include "task.h"

static inline uint32_t wa__task_state(const wa_task *t) { return wa__word_load(t) & WA__STATE_MASK; }

static inline void wa__task_ref(wa_task *t)
{
    if (wa__word_load(t) >= UINT32_MAX - WA__REF_ONE) {
        wa__log("wasync: task reference count overflow");
        abort();
    }
    wa__word_add(t, WA__REF_ONE);
}

void wa__task_unref(wa_task *t) { wa__task_unref_n(t, 1); }

/* Queues t: the queue holds a reference. */
static inline void wa__task_enqueue(wa_rt *rt, wa_task *t)
{
    wa__word_add(t, WA__T_QUEUED + WA__REF_ONE);
    wa__task_append(rt, t);
}

/* Queues t once, however often it is woken; a finished task is not queued. */
static void wa__task_schedule(wa_task *t)
{
    if (!(wa__word_load(t) & (WA__T_QUEUED | WA__T_DONE)))
        wa__task_enqueue(t->rt, t);
}

static wa_waker wa__task_waker_clone(void *p)
{
    wa__task_ref(p);
    return (wa_waker){p, &wa__task_waker_vt};
}

static void wa__task_waker_wake(void *p)
{
    wa__task_schedule(p);
    wa__task_unref(p);
}

static void wa__task_waker_wake_by_ref(void *p) { wa__task_schedule(p); }

static void wa__task_waker_drop(void *p) { wa__task_unref(p); }

const wa_waker_vt wa__task_waker_vt = {
    wa__task_waker_clone, wa__task_waker_wake, wa__task_waker_wake_by_ref, wa__task_waker_drop};

void wa__task_link(wa_rt *rt, wa_task *t)
{
    t->scope = NULL;
    t->joiner = NULL;
    wa__word_or(t, WA__T_LINKED);
    wa__list_push(&rt->roots, &t->link);
}

void wa__task_abort(wa_task *t)
{
    if (wa__task_state(t) & WA__T_DONE)
        return;
    if (t == wa__rt_current(t->rt)) { /* running */
        wa__word_or(t, WA__T_ABORT);
        return;
    }
    wa__task_finish(t->rt, t, WA_ECANCELED, 1); /* alive */
}

void wa__task_cancel(wa_task *t)
{
    if (wa__word_load(t) & (WA__T_DONE | WA__T_CANCEL))
        return;
    wa__word_or(t, WA__T_CANCEL);
    wa__task_schedule(t);
}

/* A finished task leaves its owner (wa__task_finish, task.h). A scope's
 * children are tasks on its owner list: counting one out is done here, so
 * that finishing calls nothing above the task. */

void wa__scope_cancel_children(wa_scope *s)
{
    s->flags |= WA__SCOPE_CANCELLING;
    for (wa_task *t = wa__task_first(&s->children); t; t = wa__task_next(t))
        wa__task_cancel(t);
}

static void wa__task_leave_scope(wa_task *t)
{
    wa_scope *s = t->scope;
    wa__list_remove(&s->children, &t->link);
    s->live--;
    int rc = t->status;
    if (rc < 0 && rc != WA_ECANCELED && s->status == 0) { /* the first error */
        s->status = rc;
        if (s->flags & WA_SCOPE_FAIL_FAST)
            wa__scope_cancel_children(s);
    } else if (s->live) {
        return;
    }
    wa_waker_wake_by_ref(&s->waker);
}

static __attribute__((noinline)) void wa__task_drop_scopes(wa_rt *rt, wa_task *t, bool report)
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

void wa__task_leave(wa_task *t, int rc)
{
    if (t->locals)
        t->locals->release(t);
    if (wa__word_load(t) & WA__SCOPE_MASK)
        wa__task_drop_scopes(t->rt, t, rc != WA_ECANCELED);
    if (!(wa__word_load(t) & WA__T_LINKED))
        return;
    if (t->scope)
        wa__task_leave_scope(t);
    else
        wa__list_remove(&t->rt->roots, &t->link);
    if (t->joiner) {
        wa_join *j = t->joiner;
        t->joiner = NULL;
        wa_waker_wake(&j->waker);
    }
}

/* cooperation hooks used by futures (future.h) */

bool wa_cancel_requested(const wa_cx *cx) { return wa__cx_cancel_requested(cx); }

void wa_cancel_claim(wa_cx *cx)
{
    if (cx->task)
        wa__word_set(cx->task, WA__T_CLAIMED);
}
