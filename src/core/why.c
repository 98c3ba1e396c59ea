/* SPDX-License-Identifier: MIT */
/* What a trace says below a traced task's polls (why.h): the cause of a
 * wake, set by the code that wakes (the timers, the reactor's table,
 * another thread) and written by the wake's note; the instants noted on
 * the track of the task being polled; the runtime's host waits. The
 * events go to the runtime's trace file as diag.c's do. */
#include "diag.h"
#include "task.h"
#include "timer.h"
#include "trace.h"
#include "why.h"

_Thread_local wa__why wa__why_now;

/* What set the cause of the wakes under way. */
enum { WA__WHY_NONE, WA__WHY_TIMER, WA__WHY_SOURCE, WA__WHY_THREAD };

static uint64_t wa__why_clock(wa_rt *rt) { return rt->backend->vt->now(rt->backend); }

static uint32_t wa__why_id(const wa__diag *g) { return ((const wa_task *)g - 1)->id; }

/* Appends the JSON member "key":"value". */
static void wa__why_member(wa__text *a, const char *key, const char *value)
{
    wa__text_str(a, a->need ? ",\"" : "\"");
    wa__text_str(a, key);
    wa__text_str(a, "\":\"");
    wa__text_json(a, value);
    wa__text_str(a, "\"");
}

/* Appends the JSON member "key":"<duration ns>". */
static void wa__why_duration(wa__text *a, const char *key, uint64_t ns)
{
    char d[32];
    wa__text t = {d, sizeof d, 0};
    if (ns == WA_NEVER)
        wa__text_str(&t, "never");
    else
        wa__text_ns(&t, ns);
    wa__why_member(a, key, d);
}

void wa__why_note(const char *name, const char *args)
{
    wa__diag *g = wa__why_now.polling;
    if (g)
        wa__trace_event(g->rt, g->traced, "n", name, wa__why_id(g), wa__why_clock(g->rt), args);
}

static void wa__why_armed(const wa__timer *tm)
{
    wa__diag *g = wa__why_now.polling;
    if (!g) /* (armed outside a traced task's poll) */
        return;
    uint64_t now = wa__why_clock(g->rt);
    uint64_t d = tm->deadline;
    uint64_t in = tm->slot & WA__TIMER_ARMING || d == WA_NEVER ? d : d > now ? d - now : 0;
    /* (read by the wake that the timer makes, on whichever worker fires it) */
    __atomic_store_n(&g->timer, tm, __ATOMIC_RELAXED);
    __atomic_store_n(&g->armed, now, __ATOMIC_RELAXED);
    char args[48];
    wa__text a = {args, sizeof args, 0};
    wa__why_duration(&a, "in", in);
    wa__trace_event(g->rt, g->traced, "n", "timer armed", wa__why_id(g), now, args);
}

/* Wakes w (taken) for the cause kind, the cause's state set. */
static void wa__why_woken(wa_waker *w, unsigned kind)
{
    wa__why *y = &wa__why_now;
    unsigned outer = y->kind;
    y->kind = kind;
    wa_waker_wake(w);
    y->kind = outer;
}

static void wa__why_fired(wa__timer *tm)
{
    wa_waker w = tm->waker;
    tm->waker = (wa_waker){NULL, NULL};
    wa__why_now.timer = tm;
    wa__why_now.due = tm->deadline;
    wa__why_woken(&w, WA__WHY_TIMER);
}

void wa__why_thread(wa_waker *w) { wa__why_woken(w, WA__WHY_THREAD); }

void wa__why_source(const char *noun, uint64_t id, const char *const *dirs, unsigned events)
{
    wa__why *y = &wa__why_now;
    wa__text d = {y->source, sizeof y->source, 0};
    wa__text_str(&d, noun);
    wa__text_uint(&d, id);
    for (unsigned i = 0; dirs && i < 2; i++)
        if (events & (1u << i))
            wa__text_str(&d, dirs[i]);
    if (!dirs) {
        wa__text_str(&d, y->detail ? ": " : " ready");
        wa__text_str(&d, y->detail ? y->detail : "");
    }
    y->kind = WA__WHY_SOURCE;
    y->ready++;
}

void wa__why_clear(void)
{
    wa__why_now.kind = WA__WHY_NONE;
    wa__why_now.detail = NULL;
}

void wa__why_io_wait(const wa_future *f)
{
    char what[96], args[128];
    f->vt->describe(f, 0, what, sizeof what);
    wa__text a = {args, sizeof args, 0};
    wa__why_member(&a, "on", what);
    wa__why_note("io wait", args);
}

void wa__why_wake(wa__diag *g)
{
    const wa__why *y = &wa__why_now;
    const wa__diag *by = y->polling;
    uint32_t id = wa__why_id(g);
    uint64_t now = wa__why_clock(g->rt);
    char text[112], args[160];
    wa__text t = {text, sizeof text, 0}, a = {args, sizeof args, 0};
    if (by && by->rt == g->rt) { /* a task of its runtime's (or its own poll) */
        wa__text_str(&t, by == g ? "itself" : "task ");
        if (by != g)
            wa__text_uint(&t, wa__why_id(by));
    } else if (!by && y->ended && y->ended_rt == g->rt && !y->kind) { /* its end */
        wa__text_str(&t, "task ");
        wa__text_uint(&t, y->ended);
        wa__text_str(&t, " ended");
    } else if (y->kind == WA__WHY_TIMER) {
        wa__text_str(&t, "timer");
        if (__atomic_load_n(&g->timer, __ATOMIC_RELAXED) == y->timer) { /* the last it armed */
            uint64_t armed = __atomic_load_n(&g->armed, __ATOMIC_RELAXED);
            uint64_t after = y->due > armed ? y->due - armed : 0;
            wa__text_str(&t, " (due ");
            wa__text_ns(&t, after);
            wa__text_str(&t, " after armed)");
            wa__why_duration(&a, "after_armed", after);
        }
        wa__why_duration(&a, "late", now > y->due ? now - y->due : 0);
        wa__trace_event(g->rt, g->traced, "n", "timer fired", id, now, args);
    } else if (y->kind == WA__WHY_SOURCE) {
        wa__text_str(&t, y->source);
        wa__why_member(&a, "source", y->source);
        wa__trace_event(g->rt, g->traced, "n", "io ready", id, now, args);
    } else if (y->kind == WA__WHY_THREAD || by) { /* (by: another runtime's task) */
        wa__text_str(&t, "another thread");
    } else {
        wa__text_str(&t, "host"); /* (no cause known: a cancel from outside, an untraced task) */
    }
    a = (wa__text){args, sizeof args, 0};
    wa__why_member(&a, "by", text);
    wa__trace_event(g->rt, g->traced, "n", "wake", id, now, args);
}

static int wa__why_wait(wa_rt *rt, uint64_t until)
{
    wa_rt *home = wa__rt_home(rt);
    wa__why *y = &wa__why_now;
    uint32_t gen = wa__trace_gen(home);
    bool slice = until && gen; /* (a check that cannot block, every few rounds: no slice) */
    if (slice) {
        uint64_t now = wa__why_clock(home);
        char args[48];
        wa__text a = {args, sizeof args, 0};
        wa__why_duration(&a, "timeout", until == WA_NEVER ? WA_NEVER : until > now ? until - now : 0);
        wa__trace_event(home, gen, "B", "host wait", 0, now, args);
    }
    y->waiting = home;
    y->ready = 0;
    y->ended = 0;
    int rc = rt->backend->vt->wait(rt->backend, until);
    y->waiting = NULL;
    if (slice) {
        char args[32];
        wa__text a = {args, sizeof args, 0};
        wa__text_str(&a, "\"ready\":");
        wa__text_uint(&a, y->ready);
        wa__trace_event(home, gen, "E", "host wait", 0, wa__why_clock(home), args);
    }
    return rc;
}

const wa__why_hooks wa__why_hooks_traced = {wa__why_wait, wa__why_armed, wa__why_fired};
