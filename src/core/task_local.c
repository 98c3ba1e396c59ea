/* SPDX-License-Identifier: MIT */
/* Task-local values (runtime.h): a task's pairs of key and value, in one
 * array the task's header points to, made at the first set. A task holds
 * few keys, so a get is a scan. Only the task's own polls read and write
 * it, one at a time on any executor; the executor's finish releases it
 * (through its release pointer, so that programs that set no value link
 * none of this): the many-threads one's for every task, the local one's
 * in wa__task_leave, for the linked tasks, so a set links its task. */
#include <stdlib.h>

#include "task.h"

typedef struct wa__local {
    const wa_task_local *key;
    void *value;
} wa__local;

typedef struct wa__local_set {
    wa__locals head; /* first: the task points here */
    size_t n, cap;
    wa__local e[];
} wa__local_set;

/* The task being polled on this thread, or NULL. */
static wa_task *wa__local_task(void)
{
    wa_rt *rt = wa__ticking;
    return rt ? wa__rt_current(rt) : NULL;
}

/* Runs the drops of t's values and frees them (again if a drop set one). */
static void wa__locals_release(wa_task *t)
{
    while (t->locals) {
        wa__local_set *s = (wa__local_set *)t->locals;
        t->locals = NULL;
        for (size_t i = 0; i < s->n; i++)
            if (s->e[i].key->drop && s->e[i].value)
                s->e[i].key->drop(s->e[i].value);
        free(s);
    }
}

/* The entry of key in t's values, or NULL. */
static wa__local *wa__local_find(const wa_task *t, const wa_task_local *key)
{
    wa__local_set *s = (wa__local_set *)t->locals;
    for (size_t i = 0; s && i < s->n; i++)
        if (s->e[i].key == key)
            return &s->e[i];
    return NULL;
}

int wa_task_local_set(const wa_task_local *key, void *value)
{
    wa_task *t = wa__local_task();
    if (!key || !t)
        return wa__misuse_in(WA_EMISUSE, "wa_task_local_set", !key ? "NULL key" : "not inside a task's poll");
    wa__local *e = wa__local_find(t, key);
    if (e) {
        void *old = e->value;
        e->value = value;
        if (key->drop && old && old != value)
            key->drop(old);
        return 0;
    }
    wa__local_set *s = (wa__local_set *)t->locals;
    if (!s || s->n == s->cap) {
        size_t cap = s ? 2 * s->cap : 4;
        wa__local_set *g = realloc(s, sizeof *g + cap * sizeof g->e[0]);
        if (!g)
            return WA_ENOMEM;
        if (!s) {
            g->head.release = wa__locals_release;
            g->n = 0;
        }
        g->cap = cap;
        t->locals = &g->head;
        s = g;
        if (!(WA__MT && t->rt->sched) && !(wa__word_peek(t) & WA__T_LINKED))
            wa__task_link(t->rt, t); /* (task.h: its finish releases them) */
    }
    s->e[s->n++] = (wa__local){key, value};
    return 0;
}

void *wa_task_local_get(const wa_task_local *key)
{
    wa_task *t = wa__local_task();
    wa__local *e = t && key ? wa__local_find(t, key) : NULL;
    return e ? e->value : NULL;
}
