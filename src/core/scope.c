/* SPDX-License-Identifier: MIT */
/* Task scopes: children that cannot outlive their parent. A many-threads
 * runtime's scopes, whose children finish on any worker, are its
 * scheduler's (sched.h). */
#include "sched.h"
#include "task.h"

void wa_scope_cancel(wa_scope *s)
{
    if (WA__MT && s->rt && s->rt->sched) {
        s->rt->sched->scope_cancel(s);
        return;
    }
    if (s->status == 0)
        s->status = WA_ECANCELED;
    wa__scope_cancel_children(s);
}

static int wa__scope_poll(wa_future *f, wa_cx *cx)
{
    wa_scope *s = (wa_scope *)f;
    bool outer = wa__cx_cancelling(cx);
    if (WA__MT && s->rt && s->rt->sched) { /* (its flags are read under its lock there) */
        int rc = s->rt->sched->scope_poll(s, outer, cx);
        if (rc == WA_PENDING && outer) /* the children are unwinding */
            wa_cancel_claim(cx);
        return rc;
    }
    if (s->flags & WA__SCOPE_RETURNED)
        return wa__misuse_done(NULL, "scope");
    if (outer && !(s->flags & WA__SCOPE_CANCELLING)) {
        if (s->status == 0)
            s->status = WA_ECANCELED;
        wa__scope_cancel_children(s);
    }
    if (s->live == 0) {
        s->flags |= WA__SCOPE_RETURNED;
        wa_waker_drop(&s->waker);
        return s->status;
    }
    if (outer) /* the children are unwinding: do not drop us meanwhile */
        wa_cancel_claim(cx);
    wa_waker_store(&s->waker, cx);
    return WA_PENDING;
}

static void wa__scope_drop(wa_future *f)
{
    wa_scope *s = (wa_scope *)f;
    if (!s->rt)
        return;
    if (WA__MT && s->rt->sched) {
        s->rt->sched->scope_drop(s);
        return;
    }
    if (s->owner && (wa__word_load(s->owner) & WA__SCOPE_MASK) != WA__SCOPE_MASK)
        wa__word_sub(s->owner, WA__SCOPE_ONE); /* saturated counts stay */
    /* Whoever still waits on it (dropped by someone else: a child, say)
     * is told, with the status of a scope whose children were cut short. */
    if (s->live && s->status == 0)
        s->status = WA_ECANCELED;
    wa_waker_wake(&s->waker);
    s->flags |= WA__SCOPE_CANCELLING;
    while (!wa__list_empty(&s->children)) {
        wa_task *t = wa__task_first(&s->children);
        if (t == wa__rt_current(s->rt) && !(wa__word_load(t) & WA__T_DONE)) { /* running */
            /* A child dropping its own scope: it cannot be dropped in the
             * middle of its poll, so it becomes a root task. */
            wa_misuse(WA_EMISUSE, "a scope dropped by its own child");
            wa__list_remove(&s->children, &t->link);
            t->scope = NULL;
            wa__list_push(&s->rt->roots, &t->link);
            s->live--;
            continue;
        }
        wa__task_abort(t);
    }
    if (s->prev)
        s->prev->next = s->next;
    else
        s->rt->scopes = s->next;
    if (s->next)
        s->next->prev = s->prev;
    s->rt = NULL;
}

static const wa_future_vt wa__scope_vt = {wa__scope_poll, wa__scope_drop, "scope"};

wa_future *wa_scope_init(wa_scope *s, wa_rt *rt, unsigned flags)
{
    s->fut.vt = &wa__scope_vt;
    if (WA__MT && rt->sched) {
        rt->sched->scope_init(s, rt, flags);
        return &s->fut;
    }
    s->rt = rt;
    s->owner = wa__rt_current(rt);
    if (s->owner && (wa__word_load(s->owner) & WA__SCOPE_MASK) != WA__SCOPE_MASK)
        wa__word_add(s->owner, WA__SCOPE_ONE);
    wa__list_init(&s->children);
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

/* (inline: wa_scope_spawn, without a name, is a few tests and a tail call) */
static inline int wa__scope_spawn_in(wa_scope *s, const wa_future *fut, size_t size, wa_join *join,
                                     const char *call, const char *name, wa__wrap_fn *wrap)
{
    if (!s || !s->rt)
        return wa__misuse_in(WA_ESTALE, call, "the scope was dropped (or is NULL)");
    if (!s->rt->mt && (s->flags & (WA__SCOPE_CANCELLING | WA__SCOPE_RETURNED)))
        return WA_ECANCELED; /* (many threads: checked under the scope's lock) */
    return name ? wa__task_spawn_named(s->rt, fut, size, join, s, name, wrap)
                : wa__task_spawn(s->rt, fut, size, join, s);
}

int wa__scope_spawn(wa_scope *s, const wa_future *fut, size_t size, wa_join *join, const char *call,
                    const char *name, wa__wrap_fn *wrap)
{
    return wa__scope_spawn_in(s, fut, size, join, call, name, wrap);
}

int wa_scope_spawn(wa_scope *s, const wa_future *fut, size_t size, wa_join *join)
{
    return wa__scope_spawn_in(s, fut, size, join, "wa_scope_spawn", NULL, NULL);
}
