/* SPDX-License-Identifier: MIT */
/* Join sets: many spawned tasks, each a handle in an entry of its own (a
 * task's joiner points at its handle, so handles never move), joined in
 * the order they finish. Built on the public spawn and join calls (and
 * the runtime's home, to tell a worker's view from another runtime), so
 * that it works on any scheduler and touches no hot path: a join_next
 * poll looks for a finished handle and otherwise polls each pending one
 * with its waker, so that the first task to finish wakes it. */
#include <stdlib.h>

#include "wasync/join_set.h"
#include "task.h"
#include "list.h"

struct wa__join_set_entry {
    wa__list_node link; /* on the set's tasks */
    wa_join join;
};

static inline struct wa__join_set_entry *wa__join_set_at(wa__list_node *n)
{
    return WA__LIST_ITEM(n, struct wa__join_set_entry, link);
}

/* A set not initialised, or dropped: reported as misuse of call. */
static int wa__join_set_dead(const wa_join_set *s, const char *call)
{
    return wa__misuse_in(s ? WA_EMISUSE : WA_EINVAL, call, s ? "the set was dropped" : "no set (NULL)");
}

/* Drops e's handle and frees it (e is on no list). */
static void wa__join_set_free(struct wa__join_set_entry *e)
{
    wa_join_drop(&e->join);
    free(e);
}

void wa_join_set_init(wa_join_set *s, wa_rt *rt)
{
    if (!s || !rt) {
        wa__misuse_in(WA_EINVAL, "wa_join_set_init", !s ? "no set (NULL)" : "no runtime (NULL)");
        return;
    }
    s->rt = wa__rt_home(rt); /* (a worker's view of a many-threads runtime: the runtime) */
    wa__list_init(&s->tasks);
    s->taken = NULL;
    s->len = 0;
}

int wa__join_set_spawn(wa_join_set *s, const wa_future *fut, size_t size, const char *call, const char *name,
                       wa__wrap_fn *wrap)
{
    if (!s || !s->rt)
        return wa__join_set_dead(s, call);
    if (!fut)
        return wa__misuse_in(WA_EINVAL, call, "no future (NULL)");
    struct wa__join_set_entry *e = malloc(sizeof *e);
    if (!e)
        return WA_ENOMEM;
    int rc = wa__task_spawn_named(s->rt, fut, size, &e->join, NULL, name, wrap);
    if (rc < 0) {
        free(e);
        return rc;
    }
    wa__list_push(&s->tasks, &e->link);
    s->len++;
    return 0;
}

int wa_join_set_spawn(wa_join_set *s, const wa_future *fut, size_t size)
{
    return wa__join_set_spawn(s, fut, size, "wa_join_set_spawn", NULL, NULL);
}

/* Takes e, whose task finished with status rc, out of the set into n. */
static int wa__join_next_take(wa_join_next *n, struct wa__join_set_entry *e, int rc)
{
    wa_join_set *s = n->set;
    wa__list_remove(&s->tasks, &e->link);
    s->len--;
    s->taken = e;
    n->status = rc;
    n->output = wa_join_output(&e->join);
    return 0;
}

static int wa__join_next_poll(wa_future *f, wa_cx *cx)
{
    wa_join_next *n = (wa_join_next *)f;
    wa_join_set *s = n->set;
    if (!s || !s->rt)
        return wa__join_set_dead(s, "wa_join_next");
    if (wa__rt_home(cx->rt) != s->rt)
        return wa__misuse_in(WA_EMISUSE, "wa_join_next", "polled by another runtime than the set's");
    if (s->taken) {
        wa__join_set_free(s->taken);
        s->taken = NULL;
    }
    if (wa__list_empty(&s->tasks))
        return WA_ECLOSED;
    /* A finished task first, without polling its handle: a local handle's
     * poll that finds its task done releases it, and its output with it. */
    for (wa__list_node *l = wa__list_first(&s->tasks); l; l = wa__list_next(l)) {
        struct wa__join_set_entry *e = wa__join_set_at(l);
        if (wa_join_done(&e->join))
            return wa__join_next_take(n, e, wa_join_status(&e->join));
    }
    /* Then each handle waits with this poll's waker. One whose task
     * finished since the look above (another thread's worker) is ready:
     * a many-threads handle's poll keeps the task, so its output too. */
    for (wa__list_node *l = wa__list_first(&s->tasks); l; l = wa__list_next(l)) {
        struct wa__join_set_entry *e = wa__join_set_at(l);
        int rc = wa_poll(&e->join.fut, cx);
        if (rc != WA_PENDING)
            return wa__join_next_take(n, e, rc);
    }
    return WA_PENDING;
}

static const wa_future_vt wa__join_next_vt = {wa__join_next_poll, NULL, "join_next"};

wa_future *wa_join_next_init(wa_join_next *n, wa_join_set *set)
{
    n->fut.vt = &wa__join_next_vt;
    n->set = set;
    n->status = WA_PENDING;
    n->output = NULL;
    return &n->fut;
}

/* Calls op (wa_join_cancel or wa_join_abort) on every handle of s. */
static void wa__join_set_each(wa_join_set *s, int (*op)(wa_join *))
{
    for (wa__list_node *l = wa__list_first(&s->tasks); l; l = wa__list_next(l))
        op(&wa__join_set_at(l)->join);
}

void wa_join_set_cancel(wa_join_set *s)
{
    if (!s || !s->rt) {
        wa__join_set_dead(s, "wa_join_set_cancel");
        return;
    }
    wa__join_set_each(s, wa_join_cancel);
}

void wa_join_set_abort(wa_join_set *s)
{
    if (!s || !s->rt) {
        wa__join_set_dead(s, "wa_join_set_abort");
        return;
    }
    wa__join_set_each(s, wa_join_abort);
}

void wa_join_set_drop(wa_join_set *s)
{
    if (!s || !s->rt) {
        wa__join_set_dead(s, "wa_join_set_drop");
        return;
    }
    wa__join_set_each(s, wa_join_abort);
    wa__list_node *l = wa__list_first(&s->tasks);
    while (l) {
        wa__list_node *next = wa__list_next(l);
        wa__join_set_free(wa__join_set_at(l));
        l = next;
    }
    if (s->taken)
        wa__join_set_free(s->taken);
    wa__list_init(&s->tasks);
    s->taken = NULL;
    s->len = 0;
    s->rt = NULL;
}
