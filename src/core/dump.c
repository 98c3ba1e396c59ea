/* SPDX-License-Identifier: MIT */
/* Task dumps and deadlock reports, formatted without printf so that a
 * WebAssembly build carries no stdio. */
#include <stdlib.h>
#include <string.h>

#include "dump.h"
#include "task.h"

void wa_text_str_(wa_text *d, const char *s)
{
    for (; *s; s++, d->need++)
        if (d->need + 1 < d->len)
            d->buf[d->need] = *s;
    if (d->len)
        d->buf[d->need < d->len ? d->need : d->len - 1] = 0;
}

void wa_text_uint_(wa_text *d, uint64_t v)
{
    char tmp[21], *p = tmp + sizeof tmp - 1;
    *p = 0;
    do
        *--p = (char)('0' + v % 10);
    while (v /= 10);
    wa_text_str_(d, p);
}

void wa_text_task_(wa_text *d, const wa_task *t)
{
    const wa_future *f = wa_task_future((wa_task *)t);
    bool root = f->vt == &wa_root_vt_; /* name the future block_on runs */
    const wa_future *named = root || f->vt == &wa_internal_vt_ ? ((const wa_root *)f)->inner : f;
    wa_text_str_(d, "task ");
    wa_text_uint_(d, t->id);
    wa_text_str_(d, root ? " \"block_on(" : " \"");
    wa_text_str_(d, named && named->vt && named->vt->name ? named->vt->name : "?");
    wa_text_str_(d, root ? ")\"" : "\"");
}

static void wa_dump_task(wa_text *d, const wa_task *t, const char *indent)
{
    if (wa_task_future((wa_task *)t)->vt == &wa_internal_vt_)
        return; /* the library's own (rt.h): not the program's to look at */
    uint32_t st = wa_word_load(t) & WA_STATE_MASK;
    wa_text_str_(d, indent);
    wa_text_task_(d, t);
    wa_text_str_(d, (st & WA_T_QUEUED) ? " queued" : " waiting");
    wa_text_str_(d, (st & WA_T_CANCEL) ? " cancelling\n" : "\n");
}

void wa_dump_tasks_(wa_text *d, const wa_list *l, const char *indent)
{
    for (const wa_task *t = wa_task_first_(l); t; t = wa_task_next_(t))
        wa_dump_task(d, t, indent);
}

/* The roots in a queue (next links) that no owner list holds (task.h). */
static void wa_dump_unlinked(wa_text *d, const wa_task *t)
{
    for (; t; t = t->next)
        if (wa_task_unlinked_(t))
            wa_dump_task(d, t, "  ");
}

static void wa_dump_rt(wa_text *d, const wa_rt *rt)
{
    if (d->len)
        d->buf[0] = 0;
    wa_dump_tasks_(d, &rt->roots, "  ");
    const wa_task *run = rt->mt ? NULL : wa_rt_current_(rt);
    if (run) { /* inside a round: the running task, then the rest of it */
        if (wa_task_unlinked_(run) && !(wa_word_load(run) & WA_T_QUEUED))
            wa_dump_task(d, run, "  ");
        wa_dump_unlinked(d, rt->rest);
    }
    wa_dump_unlinked(d, rt->head);
    for (const wa_scope *s = rt->scopes; s; s = s->next) {
        if (wa_list_empty(&s->children))
            continue;
        wa_text_str_(d, "  scope of task ");
        wa_text_uint_(d, s->owner ? s->owner->id : 0);
        wa_text_str_(d, " (");
        wa_text_uint_(d, s->live);
        wa_text_str_(d, " live):\n");
        wa_dump_tasks_(d, &s->children, "    ");
    }
}

size_t wa_rt_dump(const wa_rt *rt, char *buf, size_t len)
{
    wa_text d = {buf, len, 0};
    wa_dump_rt(&d, rt);
    return d.need;
}

static void wa_report_log(void *arg, const char *text)
{
    (void)arg;
    wa_log_(text);
}

void wa_report_deadlock_(wa_rt *rt, size_t (*dump)(const wa_rt *rt, char *buf, size_t len))
{
    static const char head[] = "wasync: deadlock: pending tasks, nothing can wake them:\n";
    size_t need = sizeof head + dump(rt, NULL, 0);
    char *buf = malloc(need);
    if (!buf)
        return;
    memcpy(buf, head, sizeof head);
    dump(rt, buf + sizeof head - 1, need - (sizeof head - 1));
    (rt->report ? rt->report : wa_report_log)(rt->report_arg, buf);
    free(buf);
}
