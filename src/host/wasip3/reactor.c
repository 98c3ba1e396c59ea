/* SPDX-License-Identifier: MIT */
/* The WASI 0.3 host: Component Model async, over one waitable set.
 *
 * The set is the component instance's, made with the backend and dropped
 * with it; every wait of the runtime waits on it, in one task at a time
 * (the spec lets any number of tasks wait on one set, wasmtime 49.0.3
 * does not: the export driver, export.c, has one call lead).
 * Bells call a waiting task back at once: a byte written to a stream<u8>
 * of the instance's own whose read is pending in the task's set; the
 * runtime's set has one (wa__wasip3_ring).
 *
 * Waitables are registrations in the table (regs.c) whose id is the
 * handle; a waitable is in the set only while a future waits on it (the
 * arm and disarm hooks), since a joined waitable traps on a synchronous
 * operation, a cancel or a transfer. An event's p1
 * is a handle: an array indexed by handle finds its registration, whose
 * slot keeps the event's p2 for the waiter. All timers share one
 * async-lowered wait-until for the earliest deadline, replaced only when
 * the deadline moves earlier: each such call costs about a millisecond on
 * jco even when it returns at once.
 */
#include <stdlib.h>

#include "../../core/grow.h"
#include "../../core/why.h"
#include "../../reactor/regs.h"
#include "builtins.h"
#include "reactor.h"
#include "wasync/component.h"

typedef struct wa__wasip3_reg {
    wa__reg reg;       /* its id: the waitable */
    uint32_t payload; /* the last event's p2 */
    int resolved;     /* a subtask whose last event said it resolved */
    uint32_t (*cancel)(uint32_t w); /* a bound read's in flight (wa__wasip3_bind), or NULL */
    wa__list_node bound;            /* ...and on the reactor's list of them */
} wa__wasip3_reg;

typedef struct wa__wasip3_reactor {
    wa_backend base;
    wa_regs regs;       /* of wa__wasip3_reg */
    uint32_t set;       /* the instance's waitable set */
    uint32_t *slot_of;  /* by handle: its registration's slot + 1, or 0 */
    size_t nslot_of;
    uint32_t njoined;   /* registrations in the set */
    uint32_t timer;     /* the wait-until subtask, or 0 */
    uint64_t timer_at;  /* its deadline; WA_NEVER: none */
    uint64_t fired_at;  /* the deadline of a timer that fired in this wait */
    uint32_t *wakes;    /* wake subtasks (wa__wasip3_wake), pending */
    uint32_t nwakes;
    size_t cwakes;
    wa__wasip3_bell door; /* the set's own bell (wa__wasip3_ring), once opened */
    wa__list bound;       /* registrations with a bound read in flight */
    wa_wasip3_stats stats;
} wa__wasip3_reactor;

static uint64_t wa__wasip3_reactor_clock(wa_backend *b)
{
    ((wa__wasip3_reactor *)b)->stats.nows++;
    return wa__wasip3_now();
}

static void wa__wasip3_reactor_join(wa__wasip3_reactor *h, uint32_t w, uint32_t set)
{
    h->stats.joins++;
    wa__wasip3_waitable_join(w, set);
}

static void wa__wasip3_reactor_drop_subtask(wa__wasip3_reactor *h, uint32_t subtask)
{
    h->stats.drops++;
    wa__wasip3_subtask_drop(subtask);
}

/* The regs hooks: the handle is mapped to its slot while registered, and
 * joined to the set while waited on. Dropping it is its owner's. */
static int wa__wasip3_reactor_add(wa_backend *b, wa__reg *g, uint64_t key)
{
    wa__wasip3_reactor *h = (wa__wasip3_reactor *)b;
    uint32_t w = (uint32_t)g->id;
    size_t had = h->nslot_of;
    if (wa__grow(&h->slot_of, sizeof *h->slot_of, &h->nslot_of, (size_t)w + 1, 16, UINT32_MAX) < 0)
        return WA_ENOMEM;
    for (size_t i = had; i < h->nslot_of; i++)
        h->slot_of[i] = 0;
    h->slot_of[w] = wa__key_slot(key) + 1;
    ((wa__wasip3_reg *)g)->resolved = 0;
    ((wa__wasip3_reg *)g)->cancel = NULL;
    return 0;
}

/* s's bound read is no longer in flight (its event came, or it went). */
static void wa__wasip3_reactor_unbind(wa__wasip3_reactor *h, wa__wasip3_reg *s)
{
    if (s->cancel)
        wa__list_remove(&h->bound, &s->bound);
    s->cancel = NULL;
}

static void wa__wasip3_reactor_del(wa_backend *b, wa__reg *g)
{
    wa__wasip3_reactor *h = (wa__wasip3_reactor *)b;
    h->slot_of[g->id] = 0;
    wa__wasip3_reactor_unbind(h, (wa__wasip3_reg *)g);
}

static int wa__wasip3_reactor_arm(wa_backend *b, wa__reg *g, uint32_t i)
{
    (void)i;
    wa__wasip3_reactor *h = (wa__wasip3_reactor *)b;
    h->njoined++;
    wa__wasip3_reactor_join(h, (uint32_t)g->id, h->set);
    return 0;
}

/* A subtask that resolved stays joined: all it can do is be dropped, and
 * its drop takes it out of the set (one host call less per subtask). */
static void wa__wasip3_reactor_disarm(wa_backend *b, wa__reg *g)
{
    wa__wasip3_reactor *h = (wa__wasip3_reactor *)b;
    h->njoined--;
    if (!((wa__wasip3_reg *)g)->resolved)
        wa__wasip3_reactor_join(h, (uint32_t)g->id, 0);
}

static const wa__regs_hooks wa__wasip3_reactor_hooks = {wa__wasip3_reactor_add, wa__wasip3_reactor_del, wa__wasip3_reactor_arm, wa__wasip3_reactor_disarm,
                                                                   "waitable ", NULL};

/* Bells. The stream<u8> of wasi:cli/stdout's write-via-stream, which
 * every world of the library has (wit/wasync-p3.wit): the instance reads
 * and writes it itself, which the spec allows for a number type
 * (CanonicalABI.md: none_or_number_type). Only the opening names the
 * type, the rest goes through the bell: a program that never opens one
 * links none of the stream's built-ins. */
static void wa__wasip3_reactor_bell_read(wa__wasip3_reactor *h, wa__wasip3_bell *b)
{
    h->stats.async_calls++;
    b->type->read(b->rd, &b->byte, 1); /* (BLOCKED: no write is pending) */
}

static void wa__wasip3_reactor_bell_open(wa__wasip3_reactor *h, wa__wasip3_bell *b, uint32_t set)
{
    b->type = &wa_wasip3_cli_bytes;
    uint64_t ends = b->type->new_();
    b->rd = (uint32_t)ends;
    b->wr = (uint32_t)(ends >> 32);
    b->set = set;
    b->rung = 0;
    wa__wasip3_reactor_join(h, b->rd, set); /* (nothing pending: marks nothing ready) */
    wa__wasip3_reactor_bell_read(h, b);
}

/* A write that meets a pending read completes at once, and the read's
 * event is then pending in its set: no timer, no event of the writer's. */
static int wa__wasip3_reactor_bell_ring(wa__wasip3_reactor *h, wa__wasip3_bell *b)
{
    static const unsigned char one = 1;
    if (b->rung)
        return 0;
    h->stats.async_calls++;
    uint32_t r = b->type->write(b->wr, &one, 1);
    b->rung = 1;
    return r == (WA__WASIP3_COPY_COMPLETED | 1u << 4) ? 0 : WA_EIO;
}

static int wa__wasip3_reactor_bell_heard(wa__wasip3_reactor *h, wa__wasip3_bell *b, uint32_t code, uint32_t p1)
{
    if (code != WA__WASIP3_EVENT_STREAM_READ || p1 != b->rd || !b->type)
        return 0;
    b->rung = 0;
    wa__wasip3_reactor_bell_read(h, b);
    return 1;
}

/* What the event says, for a traced wake's cause ("waitable 3: subtask
 * returned"). */
static const char *wa__wasip3_reactor_word(wa__wasip3_event e)
{
    static const char *const codes[] = {"", "subtask", "stream read", "stream written", "future read",
                                        "future written", "task cancelled"};
    static const char *const subtask[] = {"subtask starting", "subtask started", "subtask returned",
                                          "subtask cancelled before it started",
                                          "subtask cancelled before it returned"};
    if (e.code == WA__WASIP3_EVENT_SUBTASK)
        return e.p2 < sizeof subtask / sizeof *subtask ? subtask[e.p2] : "subtask";
    return e.code < sizeof codes / sizeof *codes ? codes[e.code] : "event";
}

/* Hands an event to its registration's waiters; the timer's ends it. */
static void wa__wasip3_reactor_dispatch(wa__wasip3_reactor *h, wa__wasip3_event e)
{
    h->stats.events++;
    if (wa__wasip3_reactor_bell_heard(h, &h->door, e.code, e.p1))
        return; /* a ring: its event was the point */
    if (e.code == WA__WASIP3_EVENT_SUBTASK && h->timer && e.p1 == h->timer) {
        if (e.p2 == WA__WASIP3_SUBTASK_RETURNED) {
            wa__wasip3_reactor_drop_subtask(h, h->timer);
            h->timer = 0;
            h->fired_at = h->timer_at;
            h->timer_at = WA_NEVER;
        }
        return;
    }
    if (e.code == WA__WASIP3_EVENT_SUBTASK && e.p2 == WA__WASIP3_SUBTASK_RETURNED) {
        for (uint32_t i = 0; i < h->nwakes; i++) {
            if (h->wakes[i] == e.p1) { /* a wake: its event was the point */
                wa__wasip3_reactor_drop_subtask(h, e.p1);
                h->wakes[i] = h->wakes[--h->nwakes];
                return;
            }
        }
    }
    uint32_t slot = e.p1 < h->nslot_of ? h->slot_of[e.p1] : 0;
    if (!slot) { /* (a waitable deregistered with an event pending) */
        h->stats.stale++;
        return;
    }
    wa__wasip3_reg *s = (wa__wasip3_reg *)wa__regs_at(&h->regs, slot - 1);
    wa__wasip3_reactor_unbind(h, s);
    s->payload = e.p2;
    s->resolved = e.code == WA__WASIP3_EVENT_SUBTASK && e.p2 >= WA__WASIP3_SUBTASK_RETURNED;
    bool traced = wa__why_now.waiting;
    if (traced)
        wa__why_now.detail = wa__wasip3_reactor_word(e);
    wa__regs_ready(&h->regs, &s->reg, WA__REG_READY);
    if (traced)
        wa__why_now.detail = NULL;
}

/* Dispatches every event already pending, without blocking. Returns how
 * many there were. */
static unsigned wa__wasip3_reactor_drain(wa__wasip3_reactor *h)
{
    for (unsigned n = 0;; n++) {
        h->stats.polls++;
        wa__wasip3_event e = wa__wasip3_waitable_set_poll(h->set);
        if (e.code == WA__WASIP3_EVENT_NONE)
            return n;
        wa__wasip3_reactor_dispatch(h, e);
    }
}

/* Takes a subtask of the backend's own (the timer, a wake) out of the
 * set, cancels and drops it. Returns its state. */
static uint32_t wa__wasip3_reactor_cancel_subtask(wa__wasip3_reactor *h, uint32_t subtask)
{
    wa__wasip3_reactor_join(h, subtask, 0); /* (a cancel of a joined subtask traps) */
    h->stats.cancels++;
    uint32_t state = wa__wasip3_subtask_cancel(subtask);
    wa__wasip3_reactor_drop_subtask(h, subtask);
    return state;
}

/* Ends the timer. Returns 1 if it had returned first (its deadline
 * passed), else 0. */
static int wa__wasip3_reactor_timer_cancel(wa__wasip3_reactor *h)
{
    uint32_t state = wa__wasip3_reactor_cancel_subtask(h, h->timer);
    h->timer = 0;
    h->timer_at = WA_NEVER;
    return state == WA__WASIP3_SUBTASK_RETURNED;
}

/* Makes a wait-until end by deadline: keeps the one that ends first (a
 * later deadline lets it fire early), replaces one that ends later.
 * Returns 1 when the deadline has passed already: no wait is needed. */
static int wa__wasip3_reactor_timer_arm(wa__wasip3_reactor *h, uint64_t deadline)
{
    if (h->timer_at <= deadline)
        return 0;
    if (h->timer && wa__wasip3_reactor_timer_cancel(h))
        return 1; /* its later deadline passed: so did this one */
    /* now costs ~20 us, a wait-until that returns at once ~1 ms */
    if (deadline <= wa__wasip3_reactor_clock(&h->base))
        return 1;
    h->stats.async_calls++;
    uint32_t r = wa__wasip3_wait_until(deadline);
    if (wa__wasip3_state(r) == WA__WASIP3_SUBTASK_RETURNED)
        return 1;
    h->timer = wa__wasip3_subtask(r);
    h->timer_at = deadline;
    wa__wasip3_reactor_join(h, h->timer, h->set);
    return 0;
}

/* Readies a wait of the set until deadline (WA_NEVER: none): arms the
 * timer. Returns 1 when there is something to wait for, 0 when the
 * deadline has passed (the pending events are then drained), WA_EDEADLK
 * when nothing is joined and there is no deadline. The blocking wait and a
 * callback that returns WAIT (wa__wasip3_wait_set) share it. */
static int wa__wasip3_reactor_wait_ready(wa__wasip3_reactor *h, uint64_t deadline)
{
    if (deadline != WA_NEVER) {
        if (wa__wasip3_reactor_timer_arm(h, deadline)) {
            wa__wasip3_reactor_drain(h);
            return 0;
        }
    } else if (h->njoined == 0) {
        return WA_EDEADLK;
    }
    h->fired_at = 0;
    return 1;
}

static int wa__wasip3_reactor_wait(wa_backend *b, uint64_t deadline)
{
    wa__wasip3_reactor *h = (wa__wasip3_reactor *)b;
    if (deadline == 0) {
        if (h->njoined || h->timer) /* else nothing could be ready */
            wa__wasip3_reactor_drain(h);
        return 0;
    }
    int rc = wa__wasip3_reactor_wait_ready(h, deadline);
    if (rc <= 0)
        return rc;
    h->stats.waits++;
    wa__wasip3_reactor_dispatch(h, wa__wasip3_waitable_set_wait(h->set));
    wa__wasip3_reactor_drain(h);
    /* No timer reached the deadline: the tick after this wait has no timer
     * to fire, and need not read the clock to know it. */
    return deadline == WA_NEVER || h->fired_at >= deadline ? 0 : WA_WAIT_EARLY;
}

static void wa__wasip3_reactor_free(wa_backend *b)
{
    wa__wasip3_reactor *h = (wa__wasip3_reactor *)b;
    if (h->timer)
        wa__wasip3_reactor_timer_cancel(h);
    for (uint32_t i = 0; i < h->nwakes; i++)
        wa__wasip3_reactor_cancel_subtask(h, h->wakes[i]);
    free(h->wakes);
    if (h->door.type) {
        wa__wasip3_reactor_join(h, h->door.rd, 0); /* (a cancel of a joined end traps) */
        h->door.type->cancel_read(h->door.rd);
        h->door.type->drop_readable(h->door.rd);
        h->door.type->drop_writable(h->door.wr);
    }
    wa__regs_free(&h->regs); /* (the runtime dropped every wait: none joined) */
    wa__wasip3_waitable_set_drop(h->set);
    free(h->slot_of);
    free(h);
}

static void *wa__wasip3_reactor_cap(wa_backend *b, unsigned cap)
{
    wa__wasip3_reactor *h = (wa__wasip3_reactor *)b;
    return cap == WA_CAP_WAITABLES ? (void *)&h->regs : cap == WA_CAP_WASIP3_STATS ? (void *)&h->stats : NULL;
}

static const wa_backend_vt wa__wasip3_reactor_vt = {"wasip3", wa__wasip3_reactor_clock, wa__wasip3_reactor_wait, NULL, wa__wasip3_reactor_free, wa__wasip3_reactor_cap, NULL};

wa_backend *wa_backend_wasip3_new(int *err)
{
    wa__wasip3_reactor *h = calloc(1, sizeof *h);
    if (!h) {
        if (err)
            *err = WA_ENOMEM;
        return NULL;
    }
    h->base.vt = &wa__wasip3_reactor_vt;
    h->base.resolution = WA_MS(1); /* jco's wait-until is setTimeouts of whole ms */
    h->timer_at = WA_NEVER;
    wa__list_init(&h->bound);
    h->set = wa__wasip3_waitable_set_new();
    wa__regs_init(&h->regs, &h->base, sizeof(wa__wasip3_reg), &wa__wasip3_reactor_hooks);
    return &h->base;
}

/* The wasip3 backend of rt, or NULL. */
static wa__wasip3_reactor *wa__wasip3_reactor_of(wa_rt *rt)
{
    wa_backend *b = rt->backend;
    return b->vt == &wa__wasip3_reactor_vt ? (wa__wasip3_reactor *)b : NULL;
}

void wa__wasip3_deliver(wa_rt *rt, uint32_t code, uint32_t p1, uint32_t p2)
{
    wa__wasip3_reactor *h = wa__wasip3_reactor_of(rt);
    if (!h)
        return;
    wa__wasip3_reactor_dispatch(h, (wa__wasip3_event){code, p1, p2});
}

void wa__wasip3_poll(wa_rt *rt)
{
    wa__wasip3_reactor *h = wa__wasip3_reactor_of(rt);
    if (h)
        wa__wasip3_reactor_wait(&h->base, 0);
}

int wa__wasip3_wake(wa_rt *rt, uint64_t ns)
{
    wa__wasip3_reactor *h = wa__wasip3_reactor_of(rt);
    if (!h)
        return WA_ENOSYS;
    if (wa__grow(&h->wakes, sizeof *h->wakes, &h->cwakes, (size_t)h->nwakes + 1, 4, UINT32_MAX) < 0)
        return WA_ENOMEM;
    for (;; ns *= 2) { /* (one that ended while it was called has no event) */
        h->stats.async_calls++;
        uint32_t r = wa__wasip3_wait_for(ns);
        if (wa__wasip3_state(r) != WA__WASIP3_SUBTASK_RETURNED) {
            h->wakes[h->nwakes++] = wa__wasip3_subtask(r);
            wa__wasip3_reactor_join(h, wa__wasip3_subtask(r), h->set);
            return 0;
        }
    }
}

int wa__wasip3_ring(wa_rt *rt)
{
    wa__wasip3_reactor *h = wa__wasip3_reactor_of(rt);
    if (!h)
        return WA_ENOSYS;
    if (!h->door.type)
        wa__wasip3_reactor_bell_open(h, &h->door, h->set);
    return wa__wasip3_reactor_bell_ring(h, &h->door);
}

int wa__wasip3_bell_open(wa_rt *rt, wa__wasip3_bell *b)
{
    wa__wasip3_reactor *h = wa__wasip3_reactor_of(rt);
    if (!h)
        return WA_ENOSYS;
    wa__wasip3_reactor_bell_open(h, b, wa__wasip3_waitable_set_new());
    return 0;
}

int wa__wasip3_bell_ring(wa_rt *rt, wa__wasip3_bell *b)
{
    wa__wasip3_reactor *h = wa__wasip3_reactor_of(rt);
    return h ? wa__wasip3_reactor_bell_ring(h, b) : WA_ENOSYS;
}

int wa__wasip3_bell_heard(wa_rt *rt, wa__wasip3_bell *b, uint32_t code, uint32_t p1)
{
    wa__wasip3_reactor *h = wa__wasip3_reactor_of(rt);
    return h && wa__wasip3_reactor_bell_heard(h, b, code, p1);
}

int wa__wasip3_bell_take(wa_rt *rt, wa__wasip3_bell *b)
{
    wa__wasip3_reactor *h = wa__wasip3_reactor_of(rt);
    if (!h || !b->rung)
        return 0;
    h->stats.polls++;
    wa__wasip3_event e = wa__wasip3_waitable_set_poll(b->set);
    return wa__wasip3_reactor_bell_heard(h, b, e.code, e.p1);
}

int wa__wasip3_wait_set(wa_rt *rt, uint64_t deadline, uint32_t *set)
{
    wa__wasip3_reactor *h = wa__wasip3_reactor_of(rt);
    if (!h)
        return WA_ENOSYS;
    *set = h->set;
    int rc = wa__wasip3_reactor_wait_ready(h, deadline);
    /* An event pending at WAIT is taken at once by the callback's own
     * task, and jco (1.35) then spins its hand-over of the instance to a
     * call queued for it until that callback returns: an async call in it
     * waits for a timer that never runs. So no WAIT with an event pending
     * (the async calls of this callback, the timer's included, are made). */
    if (rc != 0 && wa__wasip3_reactor_drain(h))
        return 0;
    return rc == WA_EDEADLK ? 1 : rc; /* (another task may join one) */
}

int wa_waitable_register(wa_rt *rt, uint32_t w, wa_waitable_key *key)
{
    return wa__regs_register(rt, WA_CAP_WAITABLES, w, key);
}

int wa_waitable_deregister(wa_rt *rt, wa_waitable_key key)
{
    return wa__regs_deregister(rt, WA_CAP_WAITABLES, key, "wa_waitable_deregister");
}

static int wa__waitable_wait_poll(wa_future *f, wa_cx *cx) { return wa__reg_wait_poll(f, cx, WA_CAP_WAITABLES); }

static size_t wa__waitable_wait_describe(const wa_future *f, uint64_t now, char *buf, size_t len)
{
    (void)now;
    return wa__reg_wait_describe(f, "waitable ", NULL, buf, len);
}

static const wa_future_vt wa__waitable_wait_vt = {wa__waitable_wait_poll, wa__reg_wait_drop, "waitable_wait", NULL,
                                                wa__waitable_wait_describe};

wa_future *wa_waitable_wait_init(wa_waitable_wait *w, wa_waitable_key key)
{
    return wa__reg_wait_init(w, &wa__waitable_wait_vt, key, WA__REG_READY);
}

int wa_waitable_payload(wa_rt *rt, wa_waitable_key key, uint32_t *payload)
{
    wa_regs *r = wa_backend_cap(rt->backend, WA_CAP_WAITABLES);
    if (!r)
        return WA_ENOSYS;
    wa__wasip3_reg *s = (wa__wasip3_reg *)wa__regs_find(r, key);
    if (!s)
        return wa__misuse_in(WA_ESTALE, "wa_waitable_payload", "a key that is stale or another runtime's");
    *payload = s->payload;
    return 0;
}

/* The registration of key in rt's table, or NULL (another backend, a
 * stale key). */
static wa__wasip3_reg *wa__wasip3_reactor_reg(wa_rt *rt, wa_waitable_key key)
{
    wa__wasip3_reactor *h = wa__wasip3_reactor_of(rt);
    return h ? (wa__wasip3_reg *)wa__regs_find(&h->regs, key) : NULL;
}

void wa__wasip3_bind(wa_rt *rt, wa_waitable_key key, uint32_t (*cancel)(uint32_t w))
{
    wa__wasip3_reg *s = wa__wasip3_reactor_reg(rt, key);
    if (!s || s->cancel)
        return;
    s->cancel = cancel;
    wa__list_push(&wa__wasip3_reactor_of(rt)->bound, &s->bound);
}

bool wa__wasip3_bound(wa_rt *rt, wa_waitable_key key)
{
    wa__wasip3_reg *s = wa__wasip3_reactor_reg(rt, key);
    return s && s->cancel;
}

void wa__wasip3_rehome(wa_rt *rt)
{
    wa__wasip3_reactor *h = wa__wasip3_reactor_of(rt);
    while (h && !wa__list_empty(&h->bound)) {
        wa__wasip3_reg *s = WA__LIST_ITEM(wa__list_first(&h->bound), wa__wasip3_reg, bound);
        uint32_t w = (uint32_t)s->reg.id;
        if (!wa__list_empty(&s->reg.waits)) /* joined: a cancel of a joined end traps */
            wa__wasip3_reactor_join(h, w, 0);
        h->stats.copy_cancels++;
        wa__wasip3_reactor_dispatch(h, (wa__wasip3_event){WA__WASIP3_EVENT_FUTURE_READ, w, s->cancel(w)});
    }
}

wa_wasip3_stats *wa__wasip3_stats_of(wa_rt *rt) { return wa_backend_cap(rt->backend, WA_CAP_WASIP3_STATS); }

int wa_wasip3_stats_get(wa_rt *rt, wa_wasip3_stats *st)
{
    wa_wasip3_stats *s = wa__wasip3_stats_of(rt);
    if (!s)
        return WA_ENOSYS;
    *st = *s;
    return 0;
}

/* The backend wa_rt_new gives on this host. */
wa_backend *wa__backend_default(int *err) { return wa_backend_wasip3_new(err); }
