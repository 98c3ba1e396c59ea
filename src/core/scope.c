/* SPDX-License-Identifier: MIT */
/* Task scopes: children that cannot outlive their parent. A many-threads
 * runtime's scopes, whose children finish on any worker, are its
 * scheduler's (sched.h). */
#include "sched.h"
#include "task.h"

void wa_scope_cancel(wa_scope *s)
{
    if (WA_MT && s->rt && s->rt->sched) {
        s->rt->sched->scope_cancel(s);
        return;
    }
    if (s->status == 0)
        s->status = WA_ECANCELED;
    wa_scope_cancel_children_(s);
}

static int wa_scope_poll(wa_future *f, wa_cx *cx)
{
    wa_scope *s = (wa_scope *)f;
    bool outer = wa_cx_cancelling_(cx);
    if (WA_MT && s->rt && s->rt->sched) { /* (its flags are read under its lock there) */
        int rc = s->rt->sched->scope_poll(s, outer, cx);
        if (rc == WA_PENDING && outer) /* the children are unwinding */
            wa_cancel_claim(cx);
        return rc;
    }
    if (s->flags & WA_SCOPE_RETURNED)
        return wa_misuse(WA_EMISUSE, "poll of a finished or freed scope");
    if (outer && !(s->flags & WA_SCOPE_CANCELLING)) {
        if (s->status == 0)
            s->status = WA_ECANCELED;
        wa_scope_cancel_children_(s);
    }
    if (s->live == 0) {
        s->flags |= WA_SCOPE_RETURNED;
        wa_waker_drop(&s->waker);
        return s->status;
    }
    if (outer) /* the children are unwinding: do not drop us meanwhile */
        wa_cancel_claim(cx);
    wa_waker_store(&s->waker, cx);
    return WA_PENDING;
}

static void wa_scope_drop(wa_future *f)
{
    wa_scope *s = (wa_scope *)f;
    if (!s->rt)
        return;
    if (WA_MT && s->rt->sched) {
        s->rt->sched->scope_drop(s);
        return;
    }
    if (s->owner && (wa_word_load(s->owner) & WA_SCOPE_MASK) != WA_SCOPE_MASK)
        wa_word_sub(s->owner, WA_SCOPE_ONE); /* saturated counts stay */
    /* Whoever still waits on it (dropped by someone else: a child, say)
     * is told, with the status of a scope whose children were cut short. */
    if (s->live && s->status == 0)
        s->status = WA_ECANCELED;
    wa_waker_wake(&s->waker);
    s->flags |= WA_SCOPE_CANCELLING;
    while (!wa_list_empty(&s->children)) {
        wa_task *t = wa_task_first_(&s->children);
        if (t == wa_rt_current_(s->rt) && !(wa_word_load(t) & WA_T_DONE)) { /* running */
            /* A child dropping its own scope: it cannot be dropped in the
             * middle of its poll, so it becomes a root task. */
            wa_misuse(WA_EMISUSE, "a scope dropped by its own child");
            wa_list_remove(&s->children, &t->link);
            t->scope = NULL;
            wa_list_push(&s->rt->roots, &t->link);
            s->live--;
            continue;
        }
        wa_task_abort_(t);
    }
    if (s->prev)
        s->prev->next = s->next;
    else
        s->rt->scopes = s->next;
    if (s->next)
        s->next->prev = s->prev;
    s->rt = NULL;
}

static const wa_future_vt wa_scope_vt = {wa_scope_poll, wa_scope_drop, "scope"};

wa_future *wa_scope_init(wa_scope *s, wa_rt *rt, unsigned flags)
{
    s->fut.vt = &wa_scope_vt;
    if (WA_MT && rt->sched) {
        rt->sched->scope_init(s, rt, flags);
        return &s->fut;
    }
    s->rt = rt;
    s->owner = wa_rt_current_(rt);
    if (s->owner && (wa_word_load(s->owner) & WA_SCOPE_MASK) != WA_SCOPE_MASK)
        wa_word_add(s->owner, WA_SCOPE_ONE);
    wa_list_init(&s->children);
    s->live = 0;
    s->status = 0;
    s->flags = flags & WA_SCOPE_FAIL_FAST;
    s->waker = (wa_waker){NULL, NULL};
    s->prev = NULL;
    s->next = rt->scopes;
    if (rt->scopes)
        rt->scopes->prev = s;
    rt->scopes = s;
    return &s->fut;
}

int wa_scope_spawn(wa_scope *s, const wa_future *fut, size_t size, wa_join *join)
{
    if (!s || !s->rt)
        return wa_misuse_in_(WA_ESTALE, "wa_scope_spawn", "the scope was dropped (or is NULL)");
    if (!s->rt->mt && (s->flags & (WA_SCOPE_CANCELLING | WA_SCOPE_RETURNED)))
        return WA_ECANCELED; /* (many threads: checked under the scope's lock) */
    return wa_task_spawn_(s->rt, fut, size, join, s);
}
