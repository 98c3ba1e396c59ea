/* SPDX-License-Identifier: MIT */
/* wasync/future.h - futures, wakers and the poll context.
 *
 * A future is a struct whose first member is a `wa_future` (a vtable
 * pointer). poll() makes progress without blocking and returns WA_PENDING
 * (having arranged for cx's waker to be woken) or its final status, 0 or a
 * negative WA_E* code; outputs stay in the future's own fields. drop()
 * releases everything the future holds (timers, waiters, host handles) and
 * is how cancellation happens; it leaves output fields readable.
 *
 * A future may be copied only before its first poll: after that it stays
 * where it is, so parents can hand out pointers to embedded children.
 */
#ifndef WASYNC_FUTURE_H
#define WASYNC_FUTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "wasync/config.h" /* the library's host (generated with it) */

#ifdef __cplusplus
extern "C" {
#endif

enum { WA_READY = 0, WA_PENDING = 1 };

/* Marks a declaration the host of this build (wasync/config.h) cannot
 * have: a call of it fails to compile with msg, rather than to link. The
 * types stay declared, so that code naming them compiles on every host. */
#define WA__UNAVAILABLE(msg) __attribute__((unavailable(msg)))

typedef struct wa_rt wa_rt;
typedef struct wa_task wa_task;
typedef struct wa_cx wa_cx;
typedef struct wa_future wa_future;

typedef struct wa_future_vt {
    int (*poll)(wa_future *self, wa_cx *cx);
    void (*drop)(wa_future *self); /* NULL: nothing to release */
    const char *name;              /* shown in task dumps */
    /* Optional, for task dumps (wa_rt_dump): NULL in a vtable that leaves
     * them out, as one written before them does, and the dump then shows
     * only the name. Called while no poll of self runs. */
    /* The i-th future self awaits now (borrowed: a coroutine's child, a
     * combinator's pending children), or NULL past the last. */
    const wa_future *(*awaits)(const wa_future *self, unsigned i);
    /* Writes what self waits for ("fd 5 readable", "due in 20 ms": now is
     * the runtime's clock), at most len bytes, NUL-terminated; returns the
     * length it needed (as snprintf). */
    size_t (*describe)(const wa_future *self, uint64_t now, char *buf, size_t len);
} wa_future_vt;

struct wa_future {
    const wa_future_vt *vt;
};

/* The links of the library's intrusive lists, which futures and
 * primitives embed (a node in the item, the ends in its owner). Private. */
typedef struct wa__list_node {
    struct wa__list_node *next, *prev;
} wa__list_node;
typedef struct wa__list {
    wa__list_node *first, *last;
} wa__list;

/* A waker is Rust's RawWaker: data plus a vtable. {NULL, NULL} is "none". */
typedef struct wa_waker wa_waker;
typedef struct wa_waker_vt {
    wa_waker (*clone)(void *data);
    void (*wake)(void *data); /* consumes the waker */
    void (*wake_by_ref)(void *data);
    void (*drop)(void *data);
} wa_waker_vt;

struct wa_waker {
    void *data;
    const wa_waker_vt *vt;
};

/* The context of one poll, borrowed: a poll that changes it puts it back
 * before returning (the executor hands the same one to the next task).
 * Combinators copy it and replace the waker in the copy. */
struct wa_cx {
    wa_waker waker; /* borrowed: clone it to keep it */
    wa_rt *rt;      /* the runtime driving this poll */
    wa_task *task;  /* the task being polled, or NULL */
    int shield;     /* > 0: cancellation is not delivered below this point */
    int *budget;    /* the task's coop budget for this poll, or NULL */
};

/* Polls f; the same as f->vt->poll(f, cx). */
static inline int wa_poll(wa_future *f, wa_cx *cx) { return f->vt->poll(f, cx); }

/* Drops f (NULL is allowed). */
static inline void wa_drop(wa_future *f)
{
    if (f && f->vt->drop)
        f->vt->drop(f);
}

/* For a child future held under a flag: polls it, and once it completes
 * drops it and clears *held. Returns WA_PENDING or the child's status. */
static inline int wa_poll_held(wa_future *child, int *held, wa_cx *cx)
{
    int rc = wa_poll(child, cx);
    if (rc != WA_PENDING) {
        wa_drop(child);
        *held = 0;
    }
    return rc;
}

/* Drops the child if *held says so, and clears *held. */
static inline void wa_drop_held(wa_future *child, int *held)
{
    if (*held) {
        wa_drop(child);
        *held = 0;
    }
}

/* Returns a new reference to the waker w (none stays none). */
static inline wa_waker wa_waker_clone(const wa_waker *w)
{
    if (!w->vt)
        return *w;
    return w->vt->clone(w->data);
}

/* Wakes and consumes *w, leaving it none. */
static inline void wa_waker_wake(wa_waker *w)
{
    wa_waker t = *w;
    w->vt = NULL;
    w->data = NULL;
    if (t.vt)
        t.vt->wake(t.data);
}

/* Wakes w without consuming it. */
static inline void wa_waker_wake_by_ref(const wa_waker *w)
{
    if (w->vt)
        w->vt->wake_by_ref(w->data);
}

/* Drops *w, leaving it none. */
static inline void wa_waker_drop(wa_waker *w)
{
    wa_waker t = *w;
    w->vt = NULL;
    w->data = NULL;
    if (t.vt)
        t.vt->drop(t.data);
}

/* True when a and b (borrowed) wake the same task. */
static inline bool wa_waker_will_wake(const wa_waker *a, const wa_waker *b)
{
    return a->data == b->data && a->vt == b->vt;
}

/* Makes *slot a reference to cx's waker, cloning only when it changed:
 * the usual way for a leaf future to register interest before PENDING. */
static inline void wa_waker_store(wa_waker *slot, const wa_cx *cx)
{
    if (!wa_waker_will_wake(slot, &cx->waker)) {
        wa_waker_drop(slot);
        *slot = wa_waker_clone(&cx->waker);
    }
}

/* The vtable of WA_NOOP_WAKER. */
extern const wa_waker_vt wa_noop_waker_vt;
/* A waker that does nothing (for polling by hand). */
#define WA_NOOP_WAKER ((wa_waker){NULL, &wa_noop_waker_vt})

/* Cooperative budget: a leaf that could complete at once calls this first.
 * When the task has done enough work in this poll it returns false and
 * schedules the task again, and the leaf returns WA_PENDING, so an always
 * ready loop still yields to other tasks and to the reactor. */
static inline bool wa_coop_proceed(wa_cx *cx)
{
    if (!cx->budget) /* polled by hand: no budget */
        return true;
    if (*cx->budget > 0) {
        --*cx->budget;
        return true;
    }
    wa_waker_wake_by_ref(&cx->waker);
    return false;
}

/* Cooperative cancellation of the current task.
 * wa_cancel_requested: cancellation was requested and is not yet handled
 * below this point; the caller may start its (possibly async) cleanup.
 * wa_cancel_claim: "I am handling the cancellation": the caller will finish
 * soon, so its parents must not drop it and the executor must not fall back
 * to a hard drop in this poll. */
bool wa_cancel_requested(const wa_cx *cx);
/* Claims the cancellation requested of cx's task (see above). */
void wa_cancel_claim(wa_cx *cx);

#ifdef __cplusplus
}
#endif
#endif
