/* SPDX-License-Identifier: MIT */
/* The future of an async-lowered call (wasync/component.h): it waits on
 * the call's subtask through a waitable registration until the subtask
 * returns, then drops it; dropped before that, it cancels it.
 *
 * It also keeps the memory of every async-lowered call the library makes
 * (its arguments and results, one area) from the host while the host may
 * write it. After a cancel that says CANCELLED_* the Canonical ABI has the
 * callee write nothing, but jco 1.35 still runs the host's function and
 * lowers its results into the area when it ends, seconds later: a freed
 * area would be reused memory by then. So a cancelled call's area goes to
 * a list of held areas instead of free(), with its late hook; an area is
 * freed once its hook sees the host's write whole (the area's bytes are
 * WA_SUBTASK_UNWRITTEN until written), having released what the host
 * lowered in it. The list is per instance (its memory is), and a few of
 * it are looked at when an area is made: a new call is when memory is
 * wanted again. */
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/dump.h"
#include "../../core/why.h"
#include "builtins.h"
#include "reactor.h"
#include "wasync/component.h"

_Static_assert(WA_SUBTASK_RETURNED == WA__WASIP3_SUBTASK_RETURNED && WA_SUBTASK_STARTED == WA__WASIP3_SUBTASK_STARTED,
               "the public states are the Canonical ABI's");

/* An area's header; the call's memory follows, max-aligned. */
typedef union wa__area {
    struct {
        union wa__area *next; /* while held */
        int (*late)(void *area);
    } h;
    max_align_t align_;
} wa__area;

/* The held areas, oldest first: a queue, so that a look at a few from
 * its head at every new area visits them all in turn at a bounded cost
 * (a host that honours cancels never writes them, and they add up). */
static wa__area *wa__areas_head, **wa__areas_tail = &wa__areas_head;
static long wa__areas_count;

static wa__area *wa__area_of(void *area) { return (wa__area *)area - 1; }

static void wa__areas_push(wa__area *a)
{
    a->h.next = NULL;
    *wa__areas_tail = a;
    wa__areas_tail = &a->h.next;
    wa__areas_count++;
}

/* Looks at up to n held areas from the head: frees those whose late
 * write came whole, puts the others back at the tail. */
static void wa__areas_sweep(long n)
{
    while (n-- > 0 && wa__areas_head) {
        wa__area *a = wa__areas_head;
        if (!(wa__areas_head = a->h.next))
            wa__areas_tail = &wa__areas_head;
        wa__areas_count--;
        if (a->h.late && a->h.late(a + 1))
            free(a);
        else
            wa__areas_push(a);
    }
}

void *wa_subtask_area_new(size_t size, int (*late)(void *area))
{
    wa__areas_sweep(4); /* (more than one a call: they are looked at faster than they come) */
    if (size > SIZE_MAX - sizeof(wa__area))
        return NULL;
    wa__area *a = malloc(sizeof *a + size);
    if (!a)
        return NULL;
    a->h.late = late;
    memset(a + 1, WA_SUBTASK_UNWRITTEN, size);
    return a + 1;
}

void wa_subtask_area_free(void *area)
{
    if (area)
        free(wa__area_of(area));
}

long wa_wasip3_held_areas(void)
{
    wa__areas_sweep(wa__areas_count);
    return wa__areas_count;
}

/* Keeps s's area from the host: its call was dropped unreturned. */
static void wa__subtask_hold_area(wa_subtask *s)
{
    wa__areas_push(wa__area_of(s->area));
    s->area = NULL;
}

/* RETURNED, or cancelled: the subtask says nothing more. */
static bool wa__subtask_resolved(uint32_t state) { return state >= WA__WASIP3_SUBTASK_RETURNED; }

/* A traced task's instant name about s ("subtask start"), with the
 * subtask's state (a Canonical ABI state, or WA__WASIP3_BLOCKED: a cancel
 * under way). */
static void wa__subtask_note(const wa_subtask *s, const char *name, uint32_t state)
{
    static const char *const states[] = {"starting", "started", "returned", "cancelled before started",
                                         "cancelled before returned"};
    char args[80];
    wa__text a = {args, sizeof args, 0};
    wa__text_str(&a, "\"subtask\":");
    wa__text_uint(&a, s->subtask);
    wa__text_str(&a, ",\"state\":\"");
    wa__text_str(&a, state < sizeof states / sizeof *states ? states[state] : "cancelling");
    wa__text_str(&a, "\"");
    wa__why_note(name, args);
}

/* Ends s's hold on its subtask: deregisters it if it still is (no wait is
 * queued, so it is out of the set), cancels it unless it resolved, and
 * drops it. Counted when s was polled on this backend. */
static void wa__subtask_release(wa_subtask *s, bool registered)
{
    static wa_wasip3_stats nowhere;
    wa_wasip3_stats *st = s->rt ? wa__wasip3_stats_of(s->rt) : NULL;
    if (!st)
        st = &nowhere;
    if (registered)
        wa_waitable_deregister(s->rt, s->wait.key);
    if (!wa__subtask_resolved(s->state)) {
        st->cancels++;
        s->state = wa__wasip3_subtask_cancel(s->subtask);
        if (wa__why_now.polling)
            wa__subtask_note(s, "subtask cancel", s->state);
    }
    st->drops++;
    wa__wasip3_subtask_drop(s->subtask);
    s->subtask = 0;
    if (s->area && s->state != WA__WASIP3_SUBTASK_RETURNED)
        wa__subtask_hold_area(s);
}

/* With wa_wasip3_set_async_cancel, a subtask dropped unresolved is
 * cancelled async: a callee that is a component runs its cleanup first
 * (its WA_ON_CANCEL may await), and a synchronous cancel stalls this whole
 * instance meanwhile. When the cancel does not resolve at once, a task of
 * the runtime's waits for the subtask's end on its registration, then
 * drops it and lets its area go as a drop would have. */
typedef struct wa__reaper {
    uint32_t subtask;
    void *area;
    wa_rt *rt;
    wa_waitable_wait wait; /* on the subtask's registration */
} wa__reaper;

/* Lets area go after its call's end in state: its result, if the call
 * returned, released by its late hook; else held from the host. */
static void wa__area_settle(void *area, uint32_t state)
{
    if (!area)
        return;
    wa__area *a = wa__area_of(area);
    if (state != WA__WASIP3_SUBTASK_RETURNED) {
        wa__areas_push(a);
        return;
    }
    if (a->h.late)
        a->h.late(area);
    free(a);
}

static int wa__reap(void *arg, wa_cx *cx)
{
    wa__reaper *r = arg;
    uint32_t state = WA__WASIP3_SUBTASK_STARTED;
    int rc = 0;
    while (cx && (rc = wa_poll(&r->wait.fut, cx)) == 0) {
        wa_waitable_payload(r->rt, r->wait.key, &state);
        if (wa__subtask_resolved(state))
            break;
        wa_waitable_wait_init(&r->wait, r->wait.key);
    }
    if (rc == WA_PENDING)
        return rc;
    if (!cx)
        wa_drop(&r->wait.fut);
    wa_waitable_deregister(r->rt, r->wait.key);
    /* Dropped with its runtime before the end came, the subtask cannot be
     * dropped (a trap while unresolved): it stays, counted as live. */
    if (wa__subtask_resolved(state)) {
        wa_wasip3_stats *st = wa__wasip3_stats_of(r->rt);
        if (st)
            st->drops++;
        wa__wasip3_subtask_drop(r->subtask);
        wa__area_settle(r->area, state);
    }
    free(r);
    return 0;
}

/* s's subtask (registered, out of the set, unresolved) cancelled async:
 * true when a reaper took it over (s then holds nothing), false when the
 * cancel resolved it at once (its state in s->state) or when it is not
 * cancelled so (not asked for, or no memory: the caller cancels it
 * synchronously). */
static wa__wasip3_cancel_fn wa__subtask_cancel_async_fn;

wa__wasip3_cancel_fn wa__wasip3_subtask_cancel_with(wa__wasip3_cancel_fn cancel)
{
    wa__wasip3_cancel_fn prev = wa__subtask_cancel_async_fn;
    wa__subtask_cancel_async_fn = cancel;
    return prev;
}

static bool wa__subtask_cancel_async(wa_subtask *s)
{
    if (!wa__subtask_cancel_async_fn)
        return false;
    wa__reaper *r = malloc(sizeof *r);
    if (!r)
        return false;
    wa_wasip3_stats *st = wa__wasip3_stats_of(s->rt);
    if (st)
        st->cancels++;
    uint32_t state = wa__subtask_cancel_async_fn(s->subtask);
    if (wa__why_now.polling)
        wa__subtask_note(s, "subtask cancel", state);
    if (state != WA__WASIP3_BLOCKED) {
        free(r);
        s->state = state;
        return false;
    }
    *r = (wa__reaper){.subtask = s->subtask, .area = s->area, .rt = s->rt};
    r->wait.key = s->wait.key;
    wa_waitable_wait_init(&r->wait, r->wait.key);
    if (wa_spawn_fn(s->rt, wa__reap, r, NULL) < 0) {
        /* (out of memory with a cancel requested: neither a second
         * cancel nor a drop is allowed now; the subtask stays, live) */
        wa_waitable_deregister(s->rt, s->wait.key);
        if (s->area)
            wa__areas_push(wa__area_of(s->area));
        free(r);
    }
    s->subtask = 0;
    s->area = NULL;
    return true;
}

static int wa__subtask_status(const wa_subtask *s) { return s->state == WA__WASIP3_SUBTASK_RETURNED ? 0 : WA_ECANCELED; }

static int wa__subtask_poll(wa_future *f, wa_cx *cx)
{
    wa_subtask *s = (wa_subtask *)f;
    if (!s->rt) {
        s->rt = cx->rt;
        if (!s->subtask) {
            if (s->state == WA__WASIP3_SUBTASK_RETURNED)
                return WA_READY; /* (at once: nothing to wait on) */
            return wa_misuse(WA_EINVAL, "wa_subtask: a call result with no subtask that did not return");
        }
        int rc = wa_waitable_register(cx->rt, s->subtask, &s->wait.key);
        if (rc < 0)
            return rc; /* (its drop cancels the subtask) */
        wa_waitable_wait_init(&s->wait, s->wait.key);
        if (wa__why_now.polling)
            wa__subtask_note(s, "subtask start", s->state);
    } else if (!s->subtask) {
        return wa_misuse(WA_EMISUSE, "poll of a finished subtask");
    }
    for (;;) {
        int rc = wa_poll(&s->wait.fut, cx);
        if (rc == WA_PENDING)
            return rc;
        if (rc == 0)
            wa_waitable_payload(s->rt, s->wait.key, &s->state);
        if (rc < 0 || wa__subtask_resolved(s->state)) {
            if (s->state == WA__WASIP3_SUBTASK_RETURNED && wa__why_now.polling)
                wa__subtask_note(s, "subtask return", s->state);
            wa__subtask_release(s, rc == 0); /* (< 0: its key went stale) */
            return rc < 0 ? rc : wa__subtask_status(s);
        }
        wa_waitable_wait_init(&s->wait, s->wait.key); /* STARTED: wait on */
    }
}

static void wa__subtask_drop(wa_future *f)
{
    wa_subtask *s = (wa_subtask *)f;
    if (!s->subtask)
        return;
    if (s->wait.key) { /* registered; else never joined */
        wa_drop(&s->wait.fut); /* (out of the set before the cancel) */
        /* an event that resolved it may have come after the last poll */
        uint32_t state;
        wa_waitable_payload(s->rt, s->wait.key, &state);
        if (wa__subtask_resolved(state))
            s->state = state;
    }
    if (s->wait.key && !wa__subtask_resolved(s->state) && wa__subtask_cancel_async(s))
        return;
    wa__subtask_release(s, s->wait.key != 0);
}

/* For dumps (future.h): the subtask's handle. */
static size_t wa__subtask_describe(const wa_future *f, uint64_t now, char *buf, size_t len)
{
    const wa_subtask *s = (const wa_subtask *)f;
    wa__text d = {buf, len, 0};
    (void)now;
    wa__text_str(&d, "subtask ");
    wa__text_uint(&d, s->subtask);
    return d.need;
}

static const wa_future_vt wa__subtask_vt = {wa__subtask_poll, wa__subtask_drop, "subtask", NULL,
                                          wa__subtask_describe};

wa_future *wa_subtask_init(wa_subtask *s, uint32_t packed) { return wa_subtask_init_area(s, packed, NULL); }

wa_future *wa_subtask_init_area(wa_subtask *s, uint32_t packed, void *area)
{
    s->fut.vt = &wa__subtask_vt;
    s->area = area;
    s->subtask = wa__wasip3_subtask(packed);
    s->state = wa__wasip3_state(packed);
    s->rt = NULL;
    s->wait.key = 0; /* (keys are never 0) */
    if (s->subtask)
        wa__wasip3_live++; /* taken */
    return &s->fut;
}

/* A typed call: the subtask's future, then the result out of the area. */
static int wa__call_poll(wa_future *f, wa_cx *cx)
{
    wa_wasip3_call *c = (wa_wasip3_call *)f;
    if (c->err)
        return c->err;
    int rc = wa_poll(&c->st.fut, cx);
    if (rc == WA_PENDING || !c->st.area)
        return rc;
    if (rc == 0 && c->size)
        memcpy(c->result, (char *)c->st.area + c->offset, c->size);
    else if (c->late)
        c->late(c->st.area); /* (returned, yet not ours: released) */
    wa_subtask_area_free(c->st.area);
    c->st.area = NULL;
    return rc;
}

static void wa__call_drop(wa_future *f)
{
    wa_wasip3_call *c = (wa_wasip3_call *)f;
    if (c->err)
        return;
    wa_drop(&c->st.fut);
    if (c->st.area) { /* returned, its result never taken */
        if (c->late)
            c->late(c->st.area);
        wa_subtask_area_free(c->st.area);
        c->st.area = NULL;
    }
}

static const wa_future *wa__call_awaits(const wa_future *f, unsigned i)
{
    const wa_wasip3_call *c = (const wa_wasip3_call *)f;
    return i || c->err ? NULL : &c->st.fut;
}

static const wa_future_vt wa__call_vt = {wa__call_poll, wa__call_drop, "wasip3 call", wa__call_awaits, NULL};

wa_future *wa_wasip3_call_init(wa_wasip3_call *c, uint32_t packed, void *area, int (*late)(void *area), void *result,
                               size_t offset, size_t size)
{
    wa_subtask_init_area(&c->st, packed, area);
    c->fut.vt = &wa__call_vt;
    c->result = result;
    c->offset = offset;
    c->size = size;
    c->err = 0;
    c->late = late;
    return &c->fut;
}

wa_future *wa_wasip3_call_fail(wa_wasip3_call *c, int err)
{
    c->fut.vt = &wa__call_vt;
    c->err = err;
    return &c->fut;
}
