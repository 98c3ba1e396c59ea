/* SPDX-License-Identifier: MIT */
/* Task dumps and deadlock reports, formatted without printf so that a
 * WebAssembly build carries no stdio. */
#include <stdlib.h>
#include <string.h>

#include "describe.h"
#include "diag.h"
#include "dump.h"
#include "sched.h"
#include "task.h"

void wa__dump_task(wa__text *d, const wa_task *t, const char *indent, bool look, uint64_t now)
{
    if (wa__task_future((wa_task *)t)->vt == &wa__internal_vt)
        return; /* the library's own (rt.h): not the program's to look at */
    uint32_t st = wa__word_peek(t) & WA__STATE_MASK; /* (atomic: another thread's dump, on many threads) */
    wa__text_str(d, indent);
    wa__text_task(d, t);
    wa__text_str(d, (st & WA__T_QUEUED) ? " queued" : !look ? " running" : " waiting");
    if (st & WA__T_CANCEL)
        wa__text_str(d, " cancelling");
    const wa_future *f = wa__task_future((wa_task *)t);
    const wa__diag *g = look ? wa__diag_of(f) : NULL; /* (a running task's are being written) */
    if (g && !(st & WA__T_QUEUED) && now > g->since) {
        wa__text_str(d, " for ");
        wa__text_ns(d, now - g->since);
    }
    if (g) {
        wa__text_str(d, " [");
        wa__text_uint(d, g->polls);
        wa__text_str(d, g->polls == 1 ? " poll, busy " : " polls, busy ");
        wa__text_ns(d, g->busy);
        wa__text_str(d, ", idle ");
        wa__text_ns(d, g->idle + (now > g->since ? now - g->since : 0));
        wa__text_str(d, "]");
    }
    if (look)
        wa__text_waits(d, wa__diag_unwrap(f), now, ": ");
    wa__text_str(d, "\n");
}

/* A line per task of the owner list l, after indent (the local executor's:
 * every task but the running one may be looked at). */
static void wa__dump_tasks(wa__text *d, const wa__list *l, const char *indent, uint64_t now)
{
    for (const wa_task *t = wa__task_first(l); t; t = wa__task_next(t))
        wa__dump_task(d, t, indent, t != wa__rt_current(t->rt), now);
}

/* The roots in a queue (next links) that no owner list holds (task.h). */
static void wa__dump_unlinked(wa__text *d, const wa_task *t, uint64_t now)
{
    for (; t; t = t->next)
        if (wa__task_unlinked(t))
            wa__dump_task(d, t, "  ", true, now);
}

static void wa__dump_rt(wa__text *d, const wa_rt *rt)
{
    if (d->len)
        d->buf[0] = 0;
    uint64_t now = rt->backend->vt->now(rt->backend);
    wa__dump_tasks(d, &rt->roots, "  ", now);
    const wa_task *run = wa__rt_current(rt);
    if (run) { /* inside a round: the running task, then the rest of it */
        if (wa__task_unlinked(run) && !(wa__word_load(run) & WA__T_QUEUED))
            wa__dump_task(d, run, "  ", false, now);
        wa__dump_unlinked(d, rt->rest, now);
    }
    wa__dump_unlinked(d, rt->head, now);
    for (const wa_scope *s = rt->scopes; s; s = s->next) {
        if (wa__list_empty(&s->children))
            continue;
        wa__text_str(d, "  scope of task ");
        wa__text_uint(d, s->owner ? s->owner->id : 0);
        wa__text_str(d, " (");
        wa__text_uint(d, s->live);
        wa__text_str(d, " live):\n");
        wa__dump_tasks(d, &s->children, "    ", now);
    }
}

size_t wa_rt_dump(const wa_rt *rt, char *buf, size_t len)
{
    if (WA__MT && rt->sched) /* its tasks are in its lists */
        return rt->sched->dump(rt, buf, len);
    wa__text d = {buf, len, 0};
    wa__dump_rt(&d, rt);
    return d.need;
}

static void wa__report_log(void *arg, const char *text)
{
    (void)arg;
    wa__log(text);
}

void wa__report_deadlock(wa_rt *rt, size_t (*dump)(const wa_rt *rt, char *buf, size_t len))
{
    static const char head[] = "wasync: deadlock: pending tasks, nothing can wake them:\n";
    size_t need = sizeof head + dump(rt, NULL, 0);
    char *buf = malloc(need);
    if (!buf)
        return;
    memcpy(buf, head, sizeof head);
    dump(rt, buf + sizeof head - 1, need - (sizeof head - 1));
    (rt->report ? rt->report : wa__report_log)(rt->report_arg, buf);
    free(buf);
}
