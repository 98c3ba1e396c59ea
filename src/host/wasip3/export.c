/* SPDX-License-Identifier: MIT */
/* The callback ABI driver: async exports written in C (WA_EXPORT_ASYNC).
 *
 * Every export call is a Component Model task lifted with a callback. Its
 * wasync task runs on the instance's one runtime (wa_wasip3_rt), whose
 * backend waits on the instance's one waitable set. One live call at a
 * time, the leader, drives that runtime: its entry and callbacks tick it,
 * and it alone ever WAITs on that set. The spec lets several tasks wait on
 * one set and any of them poll it (CanonicalABI definitions.py: a waiting
 * thread checks its condition again), but wasmtime 49.0.3 does not:
 * when a waitable of the set gets an event it hands the set's first
 * waiter a delivery that assumes the set still has an event when it runs
 * (concurrent.rs: mark_ready, get_event), and traps with "BUG: delivering
 * non-present event" when another task's poll, join or unjoin took it
 * first. So while the leader is in WAIT nothing else touches that set but
 * to ring it (wa__wasip3_ring: a write to a stream whose read end is
 * there, which marks it ready, or a fresh waitable joined with no event).
 *
 * Every other live call is a follower: it WAITs on a set of its own that
 * holds only its bell (wa__wasip3_bell_open), a stream<u8> the instance
 * writes a byte to, to call it back: its event is there at once, where a
 * short wait-for takes a host timer (about 12 ms on jco, 2 ms on
 * wasmtime). The leader rings a follower when its task is due (finished,
 * or asking for an early task.return: task.return and task.cancel must be
 * made by the call's own task), and when it leaves, it hands the lead to
 * a follower by ringing it. A call that starts beside a leader in WAIT,
 * or a follower the caller cancels, spawns or cancels its task without
 * ticking and rings the leader.
 *
 * A call's record is in its context slot 0, but for a call that began
 * alone (no context.set: it is found without). The leader answers EXIT
 * once its own wasync task has finished, YIELD while tasks are still
 * runnable after a bounded number of ticks, else WAIT on the set with the
 * shared wait-until armed for the earliest deadline and no event pending
 * in it (one taken at once at WAIT can hang jco: docs/wasip3.md). */
#include <stdio.h>
#include <stdlib.h>

#include "builtins.h"
#include "reactor.h"
#include "wasync/component.h"

/* Ticks per callback before YIELD: lets the host and other calls in. */
#define WA__EXPORT_TICKS 16

struct wa__export_call {
    wa_join join;
    struct wa__export_call *next;
    int spawned;   /* the spawn's result: < 0, no task */
    int cancelled; /* TASK_CANCELLED was delivered */
    int resolved;  /* task.return was made early (wa__export_resolve) */
    void (*resolve)(void *arg); /* ...and this one is asked for */
    void (*release)(wa_future *done); /* at a cancelled end (wa__export_on_cancel) */
    void *resolve_arg;
    struct wa__export_bell *bell; /* a follower's, where it WAITs; else NULL */
};

/* A follower's bell, on a set of its own. One whose call ended is kept for
 * the next follower: its read stays pending, so reuse costs no host call. */
typedef struct wa__export_bell {
    wa__wasip3_bell b;
    struct wa__export_bell *next;
} wa__export_bell;

static wa_rt *wa__export_rt;
static wa__export_call *wa__export_calls; /* live ones */
static wa__export_call *wa__export_bare;  /* the live one whose slot was not set, if any */
static wa__export_call *wa__export_leader; /* the one that waits on the runtime's set */
static int wa__export_parked;             /* ...it is in WAIT there */
static wa__export_bell *wa__export_bells;  /* kept for the next followers */
static unsigned wa__export_live, wa__export_max = WA_WASIP3_EXPORT_LIMIT;
static int wa__export_pressed;  /* our backpressure.inc is in force */
static int wa__export_released; /* ...was undone by a new limit: see wa__export_kick */

/* No export can answer without its record or runtime: a trap. */
static void wa__export_fail(const char *why)
{
    fprintf(stderr, "wasync export: %s\n", why);
    abort();
}

wa_rt *wa_wasip3_rt(void)
{
    if (!wa__export_rt && wa_rt_new(&wa__export_rt) < 0)
        wa__export_rt = NULL;
    return wa__export_rt;
}

void wa_wasip3_backpressure_inc(void) { wa__wasip3_backpressure_inc(); }
void wa_wasip3_backpressure_dec(void) { wa__wasip3_backpressure_dec(); }

/* Whether the live calls are at the limit. */
static int wa__export_full(void) { return wa__export_max && wa__export_live >= wa__export_max; }

/* Holds new calls back while the limit is reached. Returns 1 when it
 * undid our backpressure.inc, else 0. */
static int wa__export_press(void)
{
    int want = wa__export_full();
    if (want == wa__export_pressed)
        return 0;
    wa__export_pressed = want;
    if (want)
        wa__wasip3_backpressure_inc();
    else
        wa__wasip3_backpressure_dec();
    return !want;
}

unsigned wa_wasip3_set_export_limit(unsigned max)
{
    unsigned prev = wa__export_max;
    wa__export_max = max;
    wa__export_released |= wa__export_press();
    return prev;
}

unsigned wa_wasip3_export_live(void) { return wa__export_live; }

wa__export_call *wa__export_begin(void)
{
    if (!wa_wasip3_rt())
        wa__export_fail("no runtime (out of memory)");
    wa__export_call *c = calloc(1, sizeof *c);
    if (!c)
        wa__export_fail("out of memory");
    /* A call that begins alone keeps its record out of its slot (no
     * context.set): while it is alone its callbacks know it, and after,
     * it is the one live call whose slot reads 0 (every later call sets
     * its own). */
    if (wa__export_live)
        wa__wasip3_context_set(c);
    else
        wa__export_bare = c;
    c->next = wa__export_calls;
    wa__export_calls = c;
    wa__export_live++;
    wa__export_press();
    return c;
}

wa_join *wa__export_join(wa__export_call *c) { return &c->join; }

void wa__export_on_cancel(wa__export_call *c, void (*release)(wa_future *done)) { c->release = release; }

static int wa__export_done(const wa__export_call *c) { return c->spawned < 0 || wa_join_done(&c->join); }

/* Something for c to do in its own task: end, or resolve early. */
static int wa__export_due(const wa__export_call *c) { return c->resolve || wa__export_done(c); }

void wa__export_resolve(wa_join *join, void (*resolve)(void *arg), void *arg)
{
    for (wa__export_call *c = wa__export_calls; c; c = c->next)
        if (&c->join == join) {
            c->resolve = resolve;
            c->resolve_arg = arg;
        }
}

/* Makes c's early task.return if one is asked for (in c's own task). */
static void wa__export_resolve_now(wa__export_call *c)
{
    void (*resolve)(void *) = c->resolve;
    if (resolve) {
        c->resolve = NULL;
        c->resolved = 1;
        resolve(c->resolve_arg);
    }
}

/* After our backpressure.dec, one wake on the runtime's set: jco (1.35)
 * starts a call queued by backpressure only when its loop runs for some
 * other reason. */
static void wa__export_kick(unsigned dec)
{
    if (dec || wa__export_released)
        wa__wasip3_wake(wa__export_rt, WA_MS(1));
    wa__export_released = 0;
}

/* jco (1.35) traps with "deadlock detected" when no host call is in
 * flight and no waiting task is ready, also while a task runs (its async
 * calls let JavaScript run before they count as in flight). A follower
 * waits on a set nothing fills while the leader runs: so while followers
 * live, a wake of WA__EXPORT_GUARD is kept in flight, a new one made at
 * half its time (the exports test, a follower's first tick behind an
 * async call of the leader's: about 1 run in 25 under load, none since). */
#define WA__EXPORT_GUARD WA_MS(500)
static uint64_t wa__export_guarded; /* when the last one was made */

static void wa__export_guard(void)
{
    if (wa__export_live < 2)
        return;
    uint64_t now = wa__wasip3_now(); /* (the runtime's may be a callback old) */
    if (wa__export_guarded && now - wa__export_guarded < WA__EXPORT_GUARD / 2)
        return;
    wa__export_guarded = now;
    wa__wasip3_wake(wa__export_rt, WA__EXPORT_GUARD);
}

/* A ring's write meets a read that is always pending: the spec completes
 * it at once, and a bell that did not ring would leave its call waiting
 * for ever. */
static void wa__export_rang(int rc)
{
    if (rc < 0)
        wa__export_fail("the host did not take a bell's byte at once");
}

/* Calls the leader in WAIT back to tick (a follower's or a new call's task
 * is runnable): the runtime's set's bell, the one touch of that set
 * allowed then. */
static void wa__export_ring_leader(void)
{
    if (wa__export_parked)
        wa__export_rang(wa__wasip3_ring(wa__export_rt));
}

/* Calls follower c back (a no-op while it is rung). */
static void wa__export_ring(wa__export_call *c) { wa__export_rang(wa__wasip3_bell_ring(wa__export_rt, &c->bell->b)); }

/* Rings the followers with something to do in their own task. */
static void wa__export_ring_due(void)
{
    for (wa__export_call *o = wa__export_calls; o; o = o->next)
        if (o != wa__export_leader && wa__export_due(o))
            wa__export_ring(o);
}

/* One tick, with the registry set for the tasks it polls. */
static int wa__export_tick(uint64_t *deadline)
{
    void *prev = wa__wasip3_task_enter();
    int runnable = wa_rt_tick(wa__export_rt, deadline);
    wa__wasip3_task_leave(prev);
    return runnable;
}

/* The leader is leaving: a follower leads in its place, called back by
 * its bell (one rung already, if any), and the reads the leaving one
 * started are cancelled, to start again from the new leader
 * (wa__wasip3_rehome: wasmtime cannot finish them once this call is
 * gone). With no follower they stay: jco, where calls seldom overlap,
 * fails a host's future read again after a cancelled one, and the next
 * call may come after the read finished. Nothing else is done here: the
 * new leader ticks, arms the wait-until and WAITs. */
static void wa__export_hand_over(void)
{
    wa__export_call *next = NULL;
    for (wa__export_call *o = wa__export_calls; o; o = o->next)
        if (!next || (o->bell->b.rung && !next->bell->b.rung))
            next = o;
    wa__export_leader = next;
    wa__export_parked = 0;
    if (next) {
        wa__wasip3_rehome(wa__export_rt);
        wa__export_ring(next);
    }
}

/* Resolves the call from its task (in the call's own task: task.return and
 * task.cancel act on the current one), frees it, and hands the lead over
 * if it had it. Its backpressure.dec comes last: jco (1.35) admits every
 * call that arrives while it is undone (they then queue for the
 * instance), and the async calls here (the bell, the wake) would widen
 * that window. The bell goes first and the dec's wake after it: one in
 * flight keeps jco from taking a wait-until that returns at once, with
 * the queued calls not yet let in, for a deadlock. */
static uint32_t wa__export_end(wa__export_call *c, wa_export_return ret)
{
    int status = c->spawned < 0 ? c->spawned : wa_join_status(&c->join);
    wa__export_resolve_now(c);
    if (c->resolved || (c->cancelled && status == WA_ECANCELED)) {
        if (!c->resolved) /* (else task.return was made) */
            wa__wasip3_task_cancel();
        if (c->release)
            c->release(wa_join_output(&c->join));
    }
    else
        ret(c->spawned < 0 ? NULL : wa_join_output(&c->join), status);
    if (c->spawned >= 0)
        wa_join_drop(&c->join);
    wa__export_call **p = &wa__export_calls;
    while (*p != c)
        p = &(*p)->next;
    *p = c->next;
    if (wa__export_bare == c)
        wa__export_bare = NULL;
    if (c->bell) { /* quiet (a follower made leader by a cancel was rung), kept */
        wa__wasip3_bell_take(wa__export_rt, &c->bell->b);
        c->bell->next = wa__export_bells;
        wa__export_bells = c->bell;
    }
    wa__export_live--;
    if (wa__export_leader == c)
        wa__export_hand_over();
    free(c); /* (the slot ends with the task: no context.set) */
    wa__export_kick(wa__export_pressed && !wa__export_full());
    wa__export_press();
    return WA__WASIP3_CALLBACK_EXIT;
}

/* Ticks the runtime for leader c, then answers the host. */
static uint32_t wa__export_lead(wa__export_call *c, wa_export_return ret)
{
    wa_rt *rt = wa__export_rt;
    wa__export_parked = 0;
    wa__export_guard();
    for (unsigned n = 0; n < WA__EXPORT_TICKS; n++) {
        wa__export_resolve_now(c);
        if (wa__export_done(c))
            return wa__export_end(c, ret);
        uint64_t deadline;
        int runnable = wa__export_tick(&deadline);
        wa__export_ring_due();
        if (runnable > 0 || wa__export_due(c))
            continue;
        /* the async calls first: none between the set's last look and
         * WAIT (wa__wasip3_wait_set) */
        wa__export_kick(0);
        uint32_t set;
        if (wa__wasip3_wait_set(rt, deadline, &set) > 0) {
            wa__export_parked = 1;
            return wa__wasip3_callback_wait(set);
        }
        /* the deadline passed (its timers fire in the next tick), or an
         * event was pending (dispatched) */
    }
    if (wa__export_done(c))
        return wa__export_end(c, ret);
    wa__wasip3_poll(rt); /* YIELD delivers no event of the set */
    return WA__WASIP3_CALLBACK_YIELD;
}

/* A follower's bell: a kept one, else a new one. */
static wa__export_bell *wa__export_bell_get(void)
{
    wa__export_bell *b = wa__export_bells;
    if (b) {
        wa__export_bells = b->next;
        return b;
    }
    if (!(b = calloc(1, sizeof *b)))
        wa__export_fail("out of memory");
    wa__wasip3_bell_open(wa__export_rt, &b->b);
    return b;
}

/* Follower c's answer: its task's due in its own task, else WAIT on its
 * own set for its bell. No WAIT with the bell's event pending (jco, as on
 * the runtime's set): a rung bell's event is taken first. */
static uint32_t wa__export_follow(wa__export_call *c, wa_export_return ret)
{
    for (;;) {
        wa__export_resolve_now(c);
        if (wa__export_done(c))
            return wa__export_end(c, ret);
        if (!c->bell)
            c->bell = wa__export_bell_get();
        if (!wa__wasip3_bell_take(wa__export_rt, &c->bell->b))
            return wa__wasip3_callback_wait(c->bell->b.set);
        if (wa__export_leader == c)
            return wa__export_lead(c, ret);
    }
}

uint32_t wa__export_start(wa__export_call *c, int spawned, wa_export_return ret)
{
    c->spawned = spawned < 0 ? spawned : 0;
    if (!wa__export_leader)
        wa__export_leader = c;
    if (wa__export_leader == c)
        return wa__export_lead(c, ret);
    if (c->spawned >= 0) {
        wa__export_guard();
        wa__export_ring_leader();
    }
    return wa__export_follow(c, ret);
}

uint32_t wa__export_callback(uint32_t event, uint32_t p1, uint32_t p2, wa_export_return ret)
{
    /* One live call is the one called back: no context.get. */
    wa__export_call *c = wa__export_live == 1 ? wa__export_calls : wa__wasip3_context_get();
    if (!c)
        c = wa__export_bare;
    if (event == WA__WASIP3_EVENT_TASK_CANCELLED) {
        c->cancelled = 1;
        if (c->spawned >= 0) {
            wa_join_cancel(&c->join);
            if (wa__export_leader != c)
                wa__export_ring_leader();
        }
    } else if (c->bell && wa__wasip3_bell_heard(wa__export_rt, &c->bell->b, event, p1)) {
        /* rung */
    } else if (event != WA__WASIP3_EVENT_NONE) {
        wa__wasip3_deliver(wa__export_rt, event, p1, p2); /* (the leader's: its set's) */
    }
    return wa__export_leader == c ? wa__export_lead(c, ret) : wa__export_follow(c, ret);
}
