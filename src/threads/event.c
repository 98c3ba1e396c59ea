/* SPDX-License-Identifier: MIT */
/* Events (native): set from any thread, awaited by one task at a time. An
 * event holds a reference to its runtime's cross-thread state (remote.h),
 * whose lock guards it and whose inbox takes its wake on a local runtime;
 * the holder's handle is a key of the handle table, as a remote's is. */
#include <stdlib.h>

#include "../core/handles.h"
#include "remote.h"

struct wa_event {
    wa_xwake wake;          /* its waiting task's waker */
    wa_remote *hub;         /* a reference */
    uint32_t refs;          /* atomic */
    int set;                /* under the hub's lock, as waiter */
    wa_event_wait *waiter;  /* the wait holding the slot */
};

int wa_event_new(wa_rt *rt, wa_event **out)
{
    if (!out)
        return wa_misuse_in_(WA_EINVAL, "wa_event_new", "no out (NULL)");
    *out = NULL;
    int err = 0;
    wa_remote *h = wa_xt_get_(rt, "wa_event_new", &err);
    if (!h)
        return err;
    wa_event *e = calloc(1, sizeof *e);
    if (!e || !(*out = wa_xt_handle_(e, WA_HANDLE_EVENT))) {
        free(e);
        return WA_ENOMEM;
    }
    __atomic_add_fetch(&h->refs, 1, __ATOMIC_ACQ_REL);
    e->hub = h;
    e->refs = 1;
    return 0;
}

/* Drops a reference to e. (A listed event has a waiter, whose wait holds
 * a reference.) */
static void wa_event_unref(wa_event *e)
{
    if (__atomic_sub_fetch(&e->refs, 1, __ATOMIC_ACQ_REL) == 0) {
        wa_xt_unref_(e->hub);
        free(e);
    }
}

wa_event *wa_event_clone(wa_event *he)
{
    wa_event *e = he ? wa_handle_at_(he, WA_HANDLE_EVENT, "wa_event_clone") : NULL;
    wa_event *c = e ? wa_xt_handle_(e, WA_HANDLE_EVENT) : NULL;
    if (c)
        __atomic_add_fetch(&e->refs, 1, __ATOMIC_ACQ_REL);
    return c;
}

void wa_event_drop(wa_event *he)
{
    wa_event *e = he ? wa_handle_at_(he, WA_HANDLE_EVENT, "wa_event_drop") : NULL;
    if (e) {
        wa_handle_release_((uintptr_t)he);
        wa_event_unref(e);
    }
}

int wa_event_set(wa_event *he)
{
    if (!he)
        return wa_misuse_in_(WA_EINVAL, "wa_event_set", "no event (NULL)");
    wa_event *e = wa_handle_at_(he, WA_HANDLE_EVENT, "wa_event_set");
    if (!e)
        return WA_EMISUSE;
    wa_remote *h = e->hub;
    pthread_mutex_lock(&h->lock);
    int rc = h->rt ? 0 : WA_ECLOSED;
    if (rc == 0) {
        e->set = 1;
        wa_xt_fire_(h, &e->wake);
    }
    pthread_mutex_unlock(&h->lock);
    return rc;
}

/* Under the hub's lock: w gives up e's wait slot and its waker. */
static void wa_event_leave(wa_event_wait *w)
{
    w->ev->waiter = NULL;
    wa_xt_forget_(w->ev->hub, &w->ev->wake);
}

static int wa_event_wait_poll(wa_future *f, wa_cx *cx)
{
    wa_event_wait *w = (wa_event_wait *)f;
    wa_event *e = w->held ? w->ev : wa_handle_get_((uintptr_t)w->ev, WA_HANDLE_EVENT);
    if (!e)
        return wa_misuse_in_(WA_EMISUSE, "wa_event_wait", "no event (NULL, or a dropped handle), or a poll of a finished wait");
    w->ev = e;
    if (wa_rt_home_(cx->rt) != e->hub->rt) /* its inbox wakes on its thread */
        return wa_misuse_in_(WA_EMISUSE, "wa_event_wait", "awaited by a task of another runtime");
    pthread_mutex_lock(&e->hub->lock);
    int rc = WA_PENDING;
    if (e->set) {
        e->set = 0;
        rc = 0;
    } else if (e->waiter && e->waiter != w) {
        rc = WA_EBUSY; /* one waiting task at a time */
    } else {
        e->waiter = w;
        wa_waker_store(&e->wake.waker, cx);
        if (!w->held) { /* e stays while the slot is held */
            w->held = 1;
            __atomic_add_fetch(&e->refs, 1, __ATOMIC_ACQ_REL);
        }
    }
    int held = w->held;
    if (rc != WA_PENDING && held)
        wa_event_leave(w);
    pthread_mutex_unlock(&e->hub->lock);
    if (rc != WA_PENDING) {
        w->ev = NULL;
        w->held = 0;
        if (held)
            wa_event_unref(e);
    }
    return rc;
}

static void wa_event_wait_drop(wa_future *f)
{
    wa_event_wait *w = (wa_event_wait *)f;
    if (!w->held)
        return;
    wa_event *e = w->ev;
    pthread_mutex_lock(&e->hub->lock);
    wa_event_leave(w);
    pthread_mutex_unlock(&e->hub->lock);
    w->held = 0;
    w->ev = NULL;
    wa_event_unref(e);
}

static const wa_future_vt wa_event_wait_vt = {wa_event_wait_poll, wa_event_wait_drop, "event_wait"};

wa_future *wa_event_wait_init(wa_event_wait *w, wa_event *e)
{
    w->fut.vt = &wa_event_wait_vt;
    w->ev = e; /* the handle, until the first poll finds its event */
    w->held = 0;
    return &w->fut;
}
