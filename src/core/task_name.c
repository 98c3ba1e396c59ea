/* SPDX-License-Identifier: MIT */
/* A task named in text, for misuse reports, dumps and a join handle's
 * describe: apart from the dumps (dump.c), which a program that only
 * reports misuse does not carry. */
#include "diag.h"
#include "dump.h"
#include "task.h"

void wa__text_task(wa__text *d, const wa_task *t)
{
    const wa_future *top = wa__task_future((wa_task *)t);
    const wa__diag *g = wa__diag_of(top);
    const wa_future *f = wa__diag_unwrap(top);
    bool root = f->vt == &wa__root_vt; /* name the future block_on runs */
    const wa_future *named = root || f->vt == &wa__internal_vt ? ((const wa__root *)f)->inner : f;
    const char *what = named && named->vt && named->vt->name ? named->vt->name : "?";
    wa__text_str(d, "task ");
    wa__text_uint(d, t->id);
    if (g && g->name) { /* its own name, then its future's */
        wa__text_str(d, " \"");
        wa__text_str(d, wa__diag_name(g));
        wa__text_str(d, "\" (");
        wa__text_str(d, what);
        wa__text_str(d, ")");
        return;
    }
    wa__text_str(d, root ? " \"block_on(" : " \"");
    wa__text_str(d, what);
    wa__text_str(d, root ? ")\"" : "\"");
}

size_t wa__join_describe(const wa_future *f, uint64_t now, char *buf, size_t len)
{
    const wa_join *j = (const wa_join *)f;
    wa__text d = {buf, len, 0};
    (void)now;
    wa__text_task(&d, j->task); /* (the handle's reference keeps it) */
    return d.need;
}
