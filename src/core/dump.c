/* Task dumps and deadlock reports, formatted without printf so that a
 * WebAssembly build carries no stdio. */
#include <stdlib.h>
#include <string.h>

#include "rt.h"

typedef struct wa_dump {
    char *buf;
    size_t len, need; /* need: what the whole text takes, as snprintf */
} wa_dump;

static void wa_dump_str(wa_dump *d, const char *s)
{
    for (; *s; s++, d->need++)
        if (d->need + 1 < d->len)
            d->buf[d->need] = *s;
    if (d->len)
        d->buf[d->need < d->len ? d->need : d->len - 1] = 0;
}

static void wa_dump_uint(wa_dump *d, uint64_t v)
{
    char tmp[21], *p = tmp + sizeof tmp - 1;
    *p = 0;
    do
        *--p = (char)('0' + v % 10);
    while (v /= 10);
    wa_dump_str(d, p);
}

static void wa_dump_tasks(wa_dump *d, const wa_task *t, const char *indent)
{
    for (; t; t = t->lnext) {
        const wa_future *f = (const wa_future *)(t + 1);
        uint32_t st = wa_word_load(t) & WA_STATE_MASK;
        bool root = f->vt == &wa_root_vt_; /* name the future block_on runs */
        const wa_future *named = root ? ((const wa_root *)f)->inner : f;
        wa_dump_str(d, indent);
        wa_dump_str(d, "task ");
        wa_dump_uint(d, t->id);
        wa_dump_str(d, root ? " \"block_on(" : " \"");
        wa_dump_str(d, named->vt->name ? named->vt->name : "?");
        wa_dump_str(d, root ? ")\"" : "\"");
        wa_dump_str(d, (st & WA_T_QUEUED) ? " queued" : " waiting");
        wa_dump_str(d, (st & WA_T_CANCEL) ? " cancelling\n" : "\n");
    }
}

static void wa_dump_rt(wa_dump *d, const wa_rt *rt)
{
    if (d->len)
        d->buf[0] = 0;
    wa_dump_tasks(d, rt->roots, "  ");
    for (const wa_scope *s = rt->scopes; s; s = s->next) {
        if (!s->children)
            continue;
        wa_dump_str(d, "  scope of task ");
        wa_dump_uint(d, s->owner ? s->owner->id : 0);
        wa_dump_str(d, " (");
        wa_dump_uint(d, s->live);
        wa_dump_str(d, " live):\n");
        wa_dump_tasks(d, s->children, "    ");
    }
}

size_t wa_rt_dump(const wa_rt *rt, char *buf, size_t len)
{
    wa_dump d = {buf, len, 0};
    wa_dump_rt(&d, rt);
    return d.need;
}

static void wa_report_log(void *arg, const char *text)
{
    (void)arg;
    wa_log_(text);
}

void wa_report_deadlock_(wa_rt *rt)
{
    static const char head[] = "wasync: deadlock: pending tasks, nothing can wake them:\n";
    size_t need = sizeof head + wa_rt_dump(rt, NULL, 0);
    char *buf = malloc(need);
    if (!buf)
        return;
    memcpy(buf, head, sizeof head);
    wa_rt_dump(rt, buf + sizeof head - 1, need - (sizeof head - 1));
    (rt->report ? rt->report : wa_report_log)(rt->report_arg, buf);
    free(buf);
}
