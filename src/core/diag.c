/* SPDX-License-Identifier: MIT */
/* A task's diagnostics (diag.h): the wrapper's poll times the task's, its
 * drop releases the name. */
#include <stdlib.h>
#include <string.h>

#include "diag.h"

static uint64_t wa__diag_clock(const wa_rt *rt) { return rt->backend->vt->now(rt->backend); }

static int wa__diag_poll(wa_future *f, wa_cx *cx)
{
    wa__diag *g = (wa__diag *)f;
    wa_future *in = wa__diag_inner(g);
    uint64_t start = wa__diag_clock(g->rt);
    int rc = in->vt->poll(in, cx);
    uint64_t end = wa__diag_clock(g->rt);
    g->polls++;
    g->idle += start > g->since ? start - g->since : 0;
    g->busy += end > start ? end - start : 0;
    g->since = end;
    return rc;
}

static void wa__diag_drop(wa_future *f)
{
    wa__diag *g = (wa__diag *)f;
    wa_drop(wa__diag_inner(g));
    free(g->name);
    g->name = NULL;
}

const wa_future_vt wa__diag_vt = {wa__diag_poll, wa__diag_drop, "diag", NULL, NULL};

size_t wa__diag_wrap(wa_rt *rt, const wa_future *fut, size_t size, const char *name, wa__diag **out)
{
    size_t n = name ? strlen(name) + 1 : 0;
    wa__diag *g = malloc(sizeof *g + size);
    char *copy = n ? malloc(n) : NULL;
    if (!g || (n && !copy)) {
        free(g);
        free(copy);
        return 0;
    }
    rt = wa__rt_home(rt);
    *g = (wa__diag){{&wa__diag_vt}, rt, 0, 0, 0, wa__diag_clock(rt), copy};
    if (copy)
        memcpy(copy, name, n);
    memcpy(wa__diag_inner(g), fut, size);
    *out = g;
    return sizeof *g + size;
}

void wa__diag_free(wa__diag *g, bool spawned)
{
    if (!spawned)
        free(g->name);
    free(g);
}
