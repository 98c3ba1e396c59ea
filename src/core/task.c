/* SPDX-License-Identifier: MIT */
/* Tasks: reference counting, the task waker, linking on and leaving the
 * owner list, cancellation. The executor runs them; spawning (spawn.c)
 * and join handles (join.c) are above, and call this file. */
#include <stdlib.h>

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

void wa_task_link_(wa_rt *rt, wa_task *t)
{
    t->scope = NULL;
    t->joiner = NULL;
    wa_word_or(t, WA_T_LINKED);
    wa_list_push(&rt->roots, &t->link);
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
