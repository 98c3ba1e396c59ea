/* SPDX-License-Identifier: MIT */
/* Internal: the waits queued on one backend registration (an fd, a
 * pollable), any number of them in a list (core/list.h), so that two
 * tasks waiting on one source (two accepts on a listener) are both woken,
 * in the order they came. A wait's link lives in its future, which stays
 * put once polled; the list's ends live in the registration, which may
 * move (its table grows): the list never points at them. Whether a wait
 * is queued, and whether readiness was handed to it, are two bits of a
 * flags word of the wait's own (WA__WAIT_QUEUED, WA__WAIT_HANDED). */
#ifndef WASYNC_REACTOR_WAITS_H
#define WASYNC_REACTOR_WAITS_H

#include "../core/list.h"
#include "wasync/backend.h"

/* The future that holds the link whose node is n, as a pointer to type
 * (its field `link`). */
#define WA__WAIT_OF(n, type) WA__LIST_ITEM(n, type, link.node)

static inline void wa__wait_link_init(wa__wait_link *l) { l->waker = (wa_waker){NULL, NULL}; }

/* The bits of a wait's flags word that are the list's. */
#define WA__WAIT_QUEUED (1u << 30)
#define WA__WAIT_HANDED (1u << 31)

/* Queues l on waits (once) with a reference to cx's waker. */
static inline void wa__wait_join(wa__list *waits, wa__wait_link *l, unsigned *flags, const wa_cx *cx)
{
    wa_waker_store(&l->waker, cx);
    if (!(*flags & WA__WAIT_QUEUED)) {
        *flags |= WA__WAIT_QUEUED;
        wa__list_push(waits, &l->node);
    }
}

/* Takes l off waits if it is queued, and drops its waker. */
static inline void wa__wait_leave(wa__list *waits, wa__wait_link *l, unsigned *flags)
{
    if (*flags & WA__WAIT_QUEUED) {
        *flags &= ~WA__WAIT_QUEUED;
        wa__list_remove(waits, &l->node);
    }
    wa_waker_drop(&l->waker);
}

/* Takes the queued l off waits and wakes its task; handed: readiness is
 * its (WA__WAIT_HANDED), or 0 (its source went away). */
static inline void wa__wait_wake(wa__list *waits, wa__wait_link *l, unsigned *flags, unsigned handed)
{
    *flags = (*flags & ~WA__WAIT_QUEUED) | handed;
    wa__list_remove(waits, &l->node);
    wa_waker_wake(&l->waker);
}

/* True, once, if readiness was handed to the wait: a poll after that one
 * waits again. */
static inline bool wa__wait_handed(unsigned *flags)
{
    if (!(*flags & WA__WAIT_HANDED))
        return false;
    *flags &= ~WA__WAIT_HANDED;
    return true;
}

#endif
