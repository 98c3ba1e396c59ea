/* SPDX-License-Identifier: MIT */
/* Events (native): set from any thread, awaited by one task at a time. An
 * event holds a reference to its runtime's cross-thread state (remote.h),
 * whose lock guards it and whose inbox takes its wake on a local runtime;
 * the holder's handle is a key of the handle table, as a remote's is. */
#include <stdlib.h>

#include "../core/handles.h"
#include "remote.h"

struct wa_event {
    wa__xwake wake;          /* its waiting task's waker */
    wa_remote *hub;         /* a reference */
    uint32_t refs;          /* atomic */
    int set;                /* under the hub's lock, as waiter */
    wa_event_wait *waiter;  /* the wait holding the slot */
};

int wa_event_new(wa_rt *rt, wa_event **out)
{
    if (!out)
        return wa__misuse_in(WA_EINVAL, "wa_event_new", "no out (NULL)");
    *out = NULL;
    int err = 0;
    wa_remote *h = wa__remote_get(rt, "wa_event_new", &err);
    if (!h)
        return err;
    wa_event *e = calloc(1, sizeof *e);
    if (!e || !(*out = wa__remote_handle(e, WA__HANDLE_EVENT))) {
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
static void wa__event_unref(wa_event *e)
{
    if (__atomic_sub_fetch(&e->refs, 1, __ATOMIC_ACQ_REL) == 0) {
        wa__remote_unref(e->hub);
        free(e);
    }
}

wa_event *wa_event_clone(wa_event *he)
{
    wa_event *e = he ? wa__handle_at(he, WA__HANDLE_EVENT, "wa_event_clone") : NULL;
    wa_event *c = e ? wa__remote_handle(e, WA__HANDLE_EVENT) : NULL;
    if (c)
        __atomic_add_fetch(&e->refs, 1, __ATOMIC_ACQ_REL);
    return c;
}

void wa_event_drop(wa_event *he)
{
    wa_event *e = he ? wa__handle_at(he, WA__HANDLE_EVENT, "wa_event_drop") : NULL;
    if (e) {
        wa__handle_release((uintptr_t)he);
        wa__event_unref(e);
    }
}

int wa_event_set(wa_event *he)
{
    if (!he)
        return wa__misuse_in(WA_EINVAL, "wa_event_set", "no event (NULL)");
    wa_event *e = wa__handle_at(he, WA__HANDLE_EVENT, "wa_event_set");
    if (!e)
        return WA_EMISUSE;
    wa_remote *h = e->hub;
    pthread_mutex_lock(&h->lock);
    int rc = h->rt ? 0 : WA_ECLOSED;
    if (rc == 0) {
        e->set = 1;
        wa__remote_fire(h, &e->wake);
    }
    pthread_mutex_unlock(&h->lock);
    return rc;
}

/* Under the hub's lock: w gives up e's wait slot and its waker. */
static void wa__event_leave(wa_event_wait *w)
{
    w->ev->waiter = NULL;
    wa__remote_forget(w->ev->hub, &w->ev->wake);
}

static int wa__event_wait_poll(wa_future *f, wa_cx *cx)
{
    wa_event_wait *w = (wa_event_wait *)f;
    wa_event *e = w->held ? w->ev : wa__handle_get((uintptr_t)w->ev, WA__HANDLE_EVENT);
    if (!e)
        return wa__misuse_in(WA_EMISUSE, "wa_event_wait", "no event (NULL, or a dropped handle), or a poll of a finished wait");
    w->ev = e;
    if (wa__rt_home(cx->rt) != e->hub->rt) /* its inbox wakes on its thread */
        return wa__misuse_in(WA_EMISUSE, "wa_event_wait", "awaited by a task of another runtime");
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
        wa__event_leave(w);
    pthread_mutex_unlock(&e->hub->lock);
    if (rc != WA_PENDING) {
        w->ev = NULL;
        w->held = 0;
        if (held)
            wa__event_unref(e);
    }
    return rc;
}

static void wa__event_wait_drop(wa_future *f)
{
    wa_event_wait *w = (wa_event_wait *)f;
    if (!w->held)
        return;
    wa_event *e = w->ev;
    pthread_mutex_lock(&e->hub->lock);
    wa__event_leave(w);
    pthread_mutex_unlock(&e->hub->lock);
    w->held = 0;
    w->ev = NULL;
    wa__event_unref(e);
}

static const wa_future_vt wa__event_wait_vt = {wa__event_wait_poll, wa__event_wait_drop, "event_wait"};

wa_future *wa_event_wait_init(wa_event_wait *w, wa_event *e)
{
    w->fut.vt = &wa__event_wait_vt;
    w->ev = e; /* the handle, until the first poll finds its event */
    w->held = 0;
    return &w->fut;
}
