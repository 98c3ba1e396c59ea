/* SPDX-License-Identifier: MIT */
/* A task's diagnostics (diag.h): the wrapper's poll times the task's and,
 * traced, writes its events (trace.c): the task's slice from its spawn to
 * its end, a slice per poll (its end saying what the task awaits), and
 * an instant per wake through a waker that wraps the executor's, saying
 * why (why.c, which also notes what the task's polls do below them). */
#include <stdlib.h>
#include <string.h>

#include "describe.h"
#include "diag.h"
#include "task.h"
#include "trace.h"
#include "why.h"

static uint64_t wa__diag_clock(const wa_rt *rt) { return rt->backend->vt->now(rt->backend); }

/* The task whose future g is (a task's future follows its header). */
static wa_task *wa__diag_task(const wa__diag *g) { return (wa_task *)g - 1; }

/* The task's slice begins (at its spawn; written at its first poll, or
 * its drop, once its id is known): named by its name or its future's. */
static void wa__diag_begin(wa__diag *g)
{
    char args[160], name[96];
    const wa_future *f = wa__diag_inner(g);
    bool root = f->vt == &wa__root_vt;
    const wa_future *in = root ? ((const wa__root *)f)->inner : f;
    wa__text n = {name, sizeof name, 0};
    const char *own = wa__diag_name(g);
    wa__text_str(&n, own ? own : root ? "block_on(" : "");
    if (!own) {
        wa__text_str(&n, in->vt->name ? in->vt->name : "?");
        wa__text_str(&n, root ? ")" : "");
    }
    wa__text a = {args, sizeof args, 0};
    wa__text_str(&a, "\"future\":\"");
    wa__text_json(&a, in->vt->name ? in->vt->name : "?");
    wa__text_str(&a, "\",\"spawned_by\":");
    wa__text_uint(&a, g->parent);
    wa__trace_event(g->rt, g->traced, "b", name, wa__diag_task(g)->id, g->spawned, args);
}

/* The task's slice ends with status rc. */
static void wa__diag_end(wa__diag *g, int rc, uint64_t now)
{
    char args[96];
    wa__text a = {args, sizeof args, 0};
    wa__text_str(&a, rc < 0 ? "\"status\":-" : "\"status\":");
    wa__text_uint(&a, rc < 0 ? (uint64_t)-(int64_t)rc : (uint64_t)rc);
    __atomic_store_n(&g->ended, 1, __ATOMIC_RELEASE);
    wa__trace_event(g->rt, g->traced, "e", "task", wa__diag_task(g)->id, now, args);
}

/* The traced waker: the executor's, with each wake written first. Its
 * data is the wrapper, inside the task the executor's waker names. */
static void wa__diag_wake_note(wa__diag *g)
{
    if (!__atomic_load_n(&g->ended, __ATOMIC_ACQUIRE))
        wa__why_wake(g);
}

static const wa_waker_vt wa__diag_waker_vt;

static wa_waker wa__diag_waker_clone(void *p)
{
    wa__diag *g = p;
    g->waker_vt->clone(wa__diag_task(g)); /* (its reference, which the drop or wake gives back) */
    return (wa_waker){p, &wa__diag_waker_vt};
}

static void wa__diag_waker_wake(void *p)
{
    wa__diag *g = p;
    wa__diag_wake_note(g);
    g->waker_vt->wake(wa__diag_task(g));
}

static void wa__diag_waker_wake_by_ref(void *p)
{
    wa__diag *g = p;
    wa__diag_wake_note(g);
    g->waker_vt->wake_by_ref(wa__diag_task(g));
}

static void wa__diag_waker_drop(void *p)
{
    wa__diag *g = p;
    g->waker_vt->drop(wa__diag_task(g));
}

static const wa_waker_vt wa__diag_waker_vt = {wa__diag_waker_clone, wa__diag_waker_wake,
                                            wa__diag_waker_wake_by_ref, wa__diag_waker_drop};

/* A traced poll: the poll's slice around it, the task's own waker
 * wrapped, what the task awaits at the slice's end. */
static int wa__diag_poll_traced(wa__diag *g, wa_future *in, wa_cx *cx, uint64_t start)
{
    uint32_t id = wa__diag_task(g)->id;
    if (!g->waker_vt) { /* the first poll (written once: clones read it on other threads) */
        g->waker_vt = cx->waker.vt;
        wa__diag_begin(g);
    }
    wa__trace_event(g->rt, g->traced, "b", "poll", id, start, NULL);
    wa_cx c = *cx;
    c.waker = (wa_waker){g, &wa__diag_waker_vt};
    wa__diag *outer = wa__why_now.polling; /* (NULL: polls do not nest) */
    wa__why_now.polling = g;
    wa__why_now.ended = 0;
    int rc = in->vt->poll(in, &c);
    wa__why_now.polling = outer;
    if (rc != WA_PENDING) { /* (the executor's finish wakes its joiner next) */
        wa__why_now.ended_rt = g->rt;
        wa__why_now.ended = id;
    }
    uint64_t end = wa__diag_clock(g->rt);
    char args[256];
    wa__text a = {args, sizeof args, 0};
    char chain[200] = "";
    if (rc == WA_PENDING) { /* (a future whose vtable says nothing more: no args) */
        wa__text w = {chain, sizeof chain, 0};
        wa__text_waits(&w, in, end, "");
        wa__text_str(&a, "\"awaits\":\"");
        wa__text_json(&a, chain);
        wa__text_str(&a, "\"");
    }
    wa__trace_event(g->rt, g->traced, "e", "poll", id, end, chain[0] ? args : NULL);
    if (rc != WA_PENDING)
        wa__diag_end(g, rc, end);
    g->since = end; /* (the caller's count sees the same end) */
    return rc;
}

static int wa__diag_poll(wa_future *f, wa_cx *cx)
{
    wa__diag *g = (wa__diag *)f;
    wa_future *in = wa__diag_inner(g);
    uint64_t start = wa__diag_clock(g->rt);
    int rc = g->traced ? wa__diag_poll_traced(g, in, cx, start) : in->vt->poll(in, cx);
    uint64_t end = g->traced ? g->since : wa__diag_clock(g->rt);
    g->polls++;
    g->idle += start > g->since ? start - g->since : 0;
    g->busy += end > start ? end - start : 0;
    g->since = end;
    return rc;
}

static void wa__diag_drop(wa_future *f)
{
    wa__diag *g = (wa__diag *)f;
    wa__diag *outer = wa__why_now.polling;
    if (g->traced) /* (what the drop does is the task's: a subtask cancelled) */
        wa__why_now.polling = g;
    wa_drop(wa__diag_inner(g));
    wa__why_now.polling = outer;
    if (g->traced && !__atomic_load_n(&g->ended, __ATOMIC_ACQUIRE)) { /* cancelled, or never polled */
        if (!g->waker_vt)
            wa__diag_begin(g);
        wa__diag_end(g, WA_ECANCELED, wa__diag_clock(g->rt));
    }
}

const wa_future_vt wa__diag_vt = {wa__diag_poll, wa__diag_drop, "diag", NULL, NULL};

size_t wa__diag_wrap(wa_rt *rt, const wa_future *fut, size_t size, const char *name, wa_future **out)
{
    size_t n = name ? strlen(name) + 1 : 0;
    if (size + n > UINT32_MAX - sizeof(wa__diag))
        return 0;
    wa__diag *g = malloc(sizeof *g + size + n);
    if (!g)
        return 0;
    wa_rt *home = wa__rt_home(rt);
    const wa__diag *parent = wa__why_now.polling; /* (a spawn from a traced task's poll) */
    uint64_t now = wa__diag_clock(home);
    *g = (wa__diag){.fut = {&wa__diag_vt},
                    .rt = home,
                    .since = now,
                    .spawned = now,
                    .name = n ? (uint32_t)(sizeof *g + size) : 0,
                    .parent = parent ? wa__diag_task(parent)->id : 0,
                    .traced = wa__trace_gen(home)};
    memcpy(wa__diag_inner(g), fut, size);
    if (n)
        memcpy((char *)g + g->name, name, n);
    *out = &g->fut;
    return sizeof *g + size + n;
}
