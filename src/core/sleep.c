/* SPDX-License-Identifier: MIT */
/* Futures that wait on time: sleep, timeout, interval. */
#include "describe.h"
#include "timer.h"

/* A sleep's state is its vtable and its timer: relative or absolute until
 * it arms (timer.deadline holds the duration or the deadline), then armed
 * (timer.rt set), then done, so that a sleep is no larger than a future
 * and a timer (48 bytes on 64-bit hosts: a sleeping task fits 112). */
static const wa_future_vt wa__sleep_done_vt;

static void wa__sleep_end(wa_sleep *s)
{
    s->timer.rt = NULL;
    s->fut.vt = &wa__sleep_done_vt;
}

/* Ends a zero sleep at once (the coop budget permitting). */
static int wa__sleep_due(wa_sleep *s, wa_cx *cx)
{
    if (!wa_coop_proceed(cx))
        return WA_PENDING;
    wa__sleep_end(s);
    return WA_READY;
}

/* An armed sleep (timer.rt set): ready once its timer fired. */
static int wa__sleep_wait(wa_sleep *s, wa_cx *cx)
{
    if (!wa__timer_poll(&s->timer, cx))
        return WA_PENDING;
    wa__sleep_end(s);
    return WA_READY;
}

/* After arming with result rc: pending, or the error that ended it. */
static int wa__sleep_armed(wa_sleep *s, int rc)
{
    if (rc < 0)
        wa__sleep_end(s);
    return rc < 0 ? rc : WA_PENDING;
}

static int wa__sleep_rel_poll(wa_future *f, wa_cx *cx)
{
    wa_sleep *s = (wa_sleep *)f;
    if (s->timer.rt)
        return wa__sleep_wait(s, cx);
    if (s->timer.deadline == 0)
        return wa__sleep_due(s, cx);
    /* Counted from the clock read after this poll, not from the tick's
     * cached time, which a long tick leaves behind. */
    return wa__sleep_armed(s, wa__timer_arm_in(cx->rt, &s->timer, s->timer.deadline, cx));
}

static int wa__sleep_abs_poll(wa_future *f, wa_cx *cx)
{
    wa_sleep *s = (wa_sleep *)f;
    if (s->timer.rt)
        return wa__sleep_wait(s, cx);
    /* Armed even when the deadline has passed: it then fires at the next
     * tick among the other due timers, in deadline order, so that a task
     * woken late cannot run ahead of one due before its next deadline. */
    return wa__sleep_armed(s, wa__timer_arm(cx->rt, &s->timer, s->timer.deadline, cx));
}

static int wa__sleep_done_poll(wa_future *f, wa_cx *cx)
{
    (void)f;
    (void)cx;
    return wa__misuse_done(NULL, "sleep");
}

static void wa__sleep_drop(wa_future *f)
{
    wa_sleep *s = (wa_sleep *)f;
    if (s->timer.rt)
        wa__timer_disarm(&s->timer);
    wa__sleep_end(s);
}

static const wa_future_vt wa__sleep_rel_vt = {wa__sleep_rel_poll, wa__sleep_drop, "sleep", NULL, wa__sleep_describe};
static const wa_future_vt wa__sleep_abs_vt = {wa__sleep_abs_poll, wa__sleep_drop, "sleep", NULL, wa__sleep_describe};
static const wa_future_vt wa__sleep_done_vt = {wa__sleep_done_poll, NULL, "sleep"};

static wa_future *wa__sleep_setup(wa_sleep *s, uint64_t arg, const wa_future_vt *vt)
{
    s->fut.vt = vt;
    s->timer.deadline = arg;
    s->timer.rt = NULL;
    s->timer.slot = 0;
    s->timer.waker = (wa_waker){NULL, NULL};
    return &s->fut;
}

wa_future *wa_sleep_init(wa_sleep *s, uint64_t ns) { return wa__sleep_setup(s, ns, &wa__sleep_rel_vt); }

wa_future *wa_sleep_until_init(wa_sleep *s, uint64_t deadline)
{
    return wa__sleep_setup(s, deadline, &wa__sleep_abs_vt);
}

/* timeout */

static void wa__timeout_drop(wa_future *f)
{
    wa_timeout *t = (wa_timeout *)f;
    wa_future *inner = t->inner;
    t->inner = NULL;
    wa_drop(inner);
    wa_drop(&t->sleep.fut);
}

static int wa__timeout_poll(wa_future *f, wa_cx *cx)
{
    wa_timeout *t = (wa_timeout *)f;
    if (!t->inner)
        return wa__misuse_done(NULL, "timeout");
    int rc = wa_poll(t->inner, cx);
    if (rc == WA_PENDING) {
        rc = wa_poll(&t->sleep.fut, cx);
        if (rc == WA_PENDING)
            return WA_PENDING;
        if (rc == 0)
            rc = WA_ETIMEDOUT;
    }
    wa__timeout_drop(f);
    return rc;
}

/* For dumps: the inner future, then the sleep. */
static const wa_future *wa__timeout_awaits(const wa_future *f, unsigned i)
{
    const wa_timeout *t = (const wa_timeout *)f;
    return !t->inner || i > 1 ? NULL : i == 0 ? t->inner : &t->sleep.fut;
}

static const wa_future_vt wa__timeout_vt = {wa__timeout_poll, wa__timeout_drop, "timeout", wa__timeout_awaits,
                                          NULL};

/* What a timeout holds instead of an inner future it would outlive (one
 * stored in the running poll's frames, which wa_timeout_init reports and
 * drops): its poll ends the timeout with WA_EMISUSE. */
static int wa__misplaced_poll(wa_future *f, wa_cx *cx)
{
    (void)f;
    (void)cx;
    return WA_EMISUSE;
}
static const wa_future_vt wa__misplaced_vt = {wa__misplaced_poll, NULL, "misplaced"};
static wa_future wa__misplaced = {&wa__misplaced_vt}; /* (never written) */

wa_future *wa_timeout_init(wa_timeout *t, wa_future *inner, uint64_t ns)
{
    if (wa__ticking && !wa__poll_local(t) && wa__poll_local(inner)) {
        wa__misuse_local("wa_timeout_init", inner);
        wa_drop(inner);
        inner = &wa__misplaced;
    }
    t->fut.vt = &wa__timeout_vt;
    t->inner = inner;
    wa_sleep_init(&t->sleep, ns);
    return &t->fut;
}

wa_future *wa_timeout_until_init(wa_timeout *t, wa_future *inner, uint64_t deadline)
{
    wa_timeout_init(t, inner, 0);
    wa_sleep_until_init(&t->sleep, deadline);
    return &t->fut;
}

/* interval: timer.rt is set while a tick is armed or fired but not taken */

static int wa__interval_poll(wa_future *f, wa_cx *cx)
{
    wa_interval *iv = (wa_interval *)f;
    if (iv->timer.rt && !wa__timer_poll(&iv->timer, cx))
        return WA_PENDING;
    /* the first tick: the phase starts at a fresh read, not the tick's */
    uint64_t now = iv->next ? wa_now(cx->rt) : (iv->next = wa__now_fresh(cx->rt));
    if (!iv->timer.rt && iv->next > now) {
        int rc = wa__timer_arm(cx->rt, &iv->timer, iv->next, cx);
        return rc < 0 ? rc : WA_PENDING;
    }
    if (!iv->timer.rt && !wa_coop_proceed(cx))
        return WA_PENDING;
    iv->timer.rt = NULL;
    iv->next = wa__add_sat(iv->next, iv->period);
    if (iv->next <= now) /* skip missed ticks, keeping the phase */
        iv->next = wa__add_sat(iv->next, ((now - iv->next) / iv->period + 1) * iv->period);
    return WA_READY;
}

/* Dropping a tick (a race loser, say) disarms it; the next tick re-arms. */
static void wa__interval_tick_drop(wa_future *f) { wa_interval_drop((wa_interval *)f); }

static const wa_future_vt wa__interval_vt = {wa__interval_poll, wa__interval_tick_drop, "interval", NULL,
                                           wa__interval_describe};

void wa_interval_init(wa_interval *iv, uint64_t period)
{
    iv->fut.vt = &wa__interval_vt;
    iv->timer.rt = NULL;
    iv->timer.slot = 0;
    iv->timer.waker = (wa_waker){NULL, NULL};
    iv->period = period ? period : 1;
    iv->next = 0;
}

wa_future *wa_interval_tick(wa_interval *iv) { return &iv->fut; }

void wa_interval_drop(wa_interval *iv)
{
    if (iv->timer.rt)
        wa__timer_disarm(&iv->timer);
    iv->timer.rt = NULL;
}
