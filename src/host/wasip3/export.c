/* SPDX-License-Identifier: MIT */
/* The callback ABI driver: async exports written in C (WA_EXPORT_ASYNC).
 *
 * Every export call is a Component Model task lifted with a callback. Its
 * wasync task runs on the instance's one runtime (wa_wasip3_rt), whose
 * backend waits on the instance's one waitable set; each call's entry and
 * callback tick that runtime, so any export task drives every wasync task
 * (the spec lets any number of tasks wait on one set, an event going to
 * one of them). A call's record is in its context slot 0, but for a call
 * that began alone (no context.set: it is found without). It answers:
 * EXIT once its own wasync task has finished (after task.return, or
 * task.cancel when the caller cancelled it), YIELD while tasks are still
 * runnable after a bounded number of ticks, else WAIT on the set with the
 * shared wait-until armed for the earliest deadline and no event pending
 * in it (one taken at once at WAIT can hang jco: docs/wasip3.md).
 *
 * task.return must be called by the call's own task, so a wasync task that
 * finishes in another call's callback waits for a callback of its own.
 * Nothing targets an event at one waiter of a shared set: while such a
 * call exists, the driver arms the wait-until a few ms ahead, and whoever
 * gets that event looks again (see docs/wasip3.md). */
#include <stdio.h>
#include <stdlib.h>

#include "builtins.h"
#include "reactor.h"
#include "wasync/component.h"

/* Ticks per callback before YIELD: lets the host and other calls in. */
#define WA_EXPORT_TICKS 16

struct wa_export_call {
    wa_join join;
    struct wa_export_call *next;
    int spawned;   /* the spawn's result: < 0, no task */
    int cancelled; /* TASK_CANCELLED was delivered */
    int resolved;  /* task.return was made early (wa_export_resolve_) */
    void (*resolve)(void *arg); /* ...and this one is asked for */
    void *resolve_arg;
};

static wa_rt *wa_export_rt;
static wa_export_call *wa_export_calls; /* live ones */
static wa_export_call *wa_export_bare;  /* the live one whose slot was not set, if any */
static unsigned wa_export_live, wa_export_max = WA_WASIP3_EXPORT_LIMIT;
static int wa_export_pressed;  /* our backpressure.inc is in force */
static int wa_export_released; /* ...was undone by a new limit: see wa_export_wake */

/* No export can answer without its record or runtime: a trap. */
static void wa_export_fail(const char *why)
{
    fprintf(stderr, "wasync export: %s\n", why);
    abort();
}

wa_rt *wa_wasip3_rt(void)
{
    if (!wa_export_rt && wa_rt_new(&wa_export_rt) < 0)
        wa_export_rt = NULL;
    return wa_export_rt;
}

void wa_wasip3_backpressure_inc(void) { wa_p3_backpressure_inc(); }
void wa_wasip3_backpressure_dec(void) { wa_p3_backpressure_dec(); }

/* Whether the live calls are at the limit. */
static int wa_export_full(void) { return wa_export_max && wa_export_live >= wa_export_max; }

/* Holds new calls back while the limit is reached. Returns 1 when it
 * undid our backpressure.inc, else 0. */
static int wa_export_press(void)
{
    int want = wa_export_full();
    if (want == wa_export_pressed)
        return 0;
    wa_export_pressed = want;
    if (want)
        wa_p3_backpressure_inc();
    else
        wa_p3_backpressure_dec();
    return !want;
}

unsigned wa_wasip3_set_export_limit(unsigned max)
{
    unsigned prev = wa_export_max;
    wa_export_max = max;
    wa_export_released |= wa_export_press();
    return prev;
}

unsigned wa_wasip3_export_live(void) { return wa_export_live; }

wa_export_call *wa_export_begin_(void)
{
    if (!wa_wasip3_rt())
        wa_export_fail("no runtime (out of memory)");
    wa_export_call *c = calloc(1, sizeof *c);
    if (!c)
        wa_export_fail("out of memory");
    /* A call that begins alone keeps its record out of its slot (no
     * context.set): while it is alone its callbacks know it, and after,
     * it is the one live call whose slot reads 0 (every later call sets
     * its own). */
    if (wa_export_live)
        wa_p3_context_set(c);
    else
        wa_export_bare = c;
    c->next = wa_export_calls;
    wa_export_calls = c;
    wa_export_live++;
    wa_export_press();
    return c;
}

wa_join *wa_export_join_(wa_export_call *c) { return &c->join; }

static int wa_export_done(const wa_export_call *c) { return c->spawned < 0 || wa_join_done(&c->join); }

/* Something for c to do in its own task: end, or resolve early. */
static int wa_export_due(const wa_export_call *c) { return c->resolve || wa_export_done(c); }

void wa_export_resolve_(wa_join *join, void (*resolve)(void *arg), void *arg)
{
    for (wa_export_call *c = wa_export_calls; c; c = c->next)
        if (&c->join == join) {
            c->resolve = resolve;
            c->resolve_arg = arg;
        }
}

/* Makes c's early task.return if one is asked for (in c's own task). */
static void wa_export_resolve_now(wa_export_call *c)
{
    void (*resolve)(void *) = c->resolve;
    if (resolve) {
        c->resolve = NULL;
        c->resolved = 1;
        resolve(c->resolve_arg);
    }
}

/* A call whose task finished in another call's callback waits for a
 * callback of its own: one wake event on the set per such call. An event
 * may reach a call that is still running, which then asks again. And jco
 * (1.35) starts a call queued by backpressure only when its loop runs for
 * some other reason: after our backpressure.dec, one wake is that reason. */
static void wa_export_wake(unsigned extra)
{
    unsigned want = wa_export_released + extra;
    for (const wa_export_call *o = wa_export_calls; o; o = o->next)
        want += wa_export_due(o);
    wa_export_released = 0;
    wa_wasip3_wake_(wa_export_rt, want);
}

/* One tick, with the registry set for the tasks it polls. */
static int wa_export_tick(uint64_t *deadline)
{
    void *prev = wa_p3_task_enter();
    int runnable = wa_rt_tick(wa_export_rt, deadline);
    wa_p3_task_leave(prev);
    return runnable;
}

/* A call is leaving: the calls still live wait on the set, so it must get
 * what they wait for: the wait-until for the next deadline, and a wake
 * when tasks are runnable or the deadline has passed. Its backpressure.dec
 * comes last: jco (1.35) admits every call that arrives while it is undone
 * (they then queue for the instance), and the async calls here would
 * widen that window. The wakes come first: the dec's (jco starts a call
 * queued by backpressure only when its loop runs) ends after it, and one
 * in flight keeps jco from taking a wait-until that returns at once, with
 * the queued calls not yet let in, for a deadlock. */
static uint32_t wa_export_exit(void)
{
    unsigned extra = wa_export_pressed && !wa_export_full();
    if (wa_export_live) {
        uint64_t deadline;
        uint32_t set;
        int runnable = wa_export_tick(&deadline);
        extra += runnable > 0;
        wa_export_wake(extra);
        if (runnable <= 0 && wa_wasip3_wait_set_(wa_export_rt, deadline, &set) == 0)
            wa_export_wake(extra + 1);
    } else if (extra) {
        wa_export_wake(extra);
    }
    wa_export_press();
    return WA_P3_CALLBACK_EXIT;
}

/* Resolves the call from its task (in the call's own task: task.return and
 * task.cancel act on the current one), then frees it. */
static uint32_t wa_export_end(wa_export_call *c, wa_export_return ret)
{
    int status = c->spawned < 0 ? c->spawned : wa_join_status(&c->join);
    wa_export_resolve_now(c);
    if (c->resolved)
        ; /* task.return was made */
    else if (c->cancelled && status == WA_ECANCELED)
        wa_p3_task_cancel();
    else
        ret(c->spawned < 0 ? NULL : wa_join_output(&c->join), status);
    if (c->spawned >= 0)
        wa_join_drop(&c->join);
    wa_export_call **p = &wa_export_calls;
    while (*p != c)
        p = &(*p)->next;
    *p = c->next;
    if (wa_export_bare == c)
        wa_export_bare = NULL;
    free(c);
    wa_export_live--;
    return wa_export_exit(); /* (the slot ends with the task: no context.set) */
}

/* Ticks the runtime for call c, then answers the host. */
static uint32_t wa_export_drive(wa_export_call *c, wa_export_return ret)
{
    wa_rt *rt = wa_export_rt;
    for (unsigned n = 0; n < WA_EXPORT_TICKS; n++) {
        wa_export_resolve_now(c);
        if (wa_export_done(c))
            return wa_export_end(c, ret);
        uint64_t deadline;
        int runnable = wa_export_tick(&deadline);
        if (runnable > 0 || wa_export_due(c))
            continue;
        /* the wakes first: no async call between the set's last look and
         * WAIT (wa_wasip3_wait_set_) */
        wa_export_wake(0);
        uint32_t set;
        if (wa_wasip3_wait_set_(rt, deadline, &set) > 0)
            return wa_p3_callback_wait(set);
        /* the deadline passed (its timers fire in the next tick), or an
         * event was pending (dispatched) */
    }
    if (wa_export_done(c))
        return wa_export_end(c, ret);
    wa_wasip3_poll_(rt); /* YIELD delivers no event of the set */
    return WA_P3_CALLBACK_YIELD;
}

uint32_t wa_export_start_(wa_export_call *c, int spawned, wa_export_return ret)
{
    c->spawned = spawned < 0 ? spawned : 0;
    return wa_export_drive(c, ret);
}

uint32_t wa_export_callback_(uint32_t event, uint32_t p1, uint32_t p2, wa_export_return ret)
{
    /* One live call is the one called back: no context.get. */
    wa_export_call *c = wa_export_live == 1 ? wa_export_calls : wa_p3_context_get();
    if (!c)
        c = wa_export_bare;
    if (event == WA_P3_EVENT_TASK_CANCELLED) {
        c->cancelled = 1;
        if (c->spawned >= 0)
            wa_join_cancel(&c->join);
    } else if (event != WA_P3_EVENT_NONE) {
        wa_wasip3_event_(wa_export_rt, event, p1, p2);
    }
    return wa_export_drive(c, ret);
}
