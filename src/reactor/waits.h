/* SPDX-License-Identifier: MIT */
/* Internal: the waits queued on one backend registration (an fd, a
 * pollable), any number of them in an intrusive list, so that two tasks
 * waiting on one source (two accepts on a listener) are both woken. A
 * wait's link lives in its future, which stays put once polled; the list
 * head lives in the registration, which may move (its table grows), so
 * links never point back at it: unlinking is given the head. Whether a
 * wait is queued, and whether readiness was handed to it, are two bits of
 * a flags word of the wait's own (WA_WAIT_QUEUED, WA_WAIT_HANDED), so the
 * link stays three words. */
#ifndef WASYNC_REACTOR_WAITS_H
#define WASYNC_REACTOR_WAITS_H

#include <stddef.h>

#include "wasync/backend.h"

/* The future that holds link l, as a pointer to type (its field `link`). */
#define WA_WAIT_OF(l, type) ((type *)(void *)((char *)(l) - offsetof(type, link)))

static inline void wa_wait_link_init(wa_wait_link *l)
{
    l->next = l->prev = NULL;
    l->waker = (wa_waker){NULL, NULL};
}

/* Queues l first on *head. */
static inline void wa_wait_push(wa_wait_link **head, wa_wait_link *l)
{
    l->prev = NULL;
    l->next = *head;
    if (*head)
        (*head)->prev = l;
    *head = l;
}

/* Takes the queued l off *head. */
static inline void wa_wait_unlink(wa_wait_link **head, wa_wait_link *l)
{
    if (l->prev)
        l->prev->next = l->next;
    else
        *head = l->next;
    if (l->next)
        l->next->prev = l->prev;
    l->next = l->prev = NULL;
}

/* The bits of a wait's flags word that are the list's. */
#define WA_WAIT_QUEUED (1u << 30)
#define WA_WAIT_HANDED (1u << 31)

/* Queues l on *head (once) with a reference to cx's waker. */
static inline void wa_wait_join(wa_wait_link **head, wa_wait_link *l, unsigned *flags, const wa_cx *cx)
{
    wa_waker_store(&l->waker, cx);
    if (!(*flags & WA_WAIT_QUEUED)) {
        *flags |= WA_WAIT_QUEUED;
        wa_wait_push(head, l);
    }
}

/* Takes l off *head if it is queued, and drops its waker. */
static inline void wa_wait_leave(wa_wait_link **head, wa_wait_link *l, unsigned *flags)
{
    if (*flags & WA_WAIT_QUEUED) {
        *flags &= ~WA_WAIT_QUEUED;
        wa_wait_unlink(head, l);
    }
    wa_waker_drop(&l->waker);
}

/* Takes the queued l off *head and wakes its task; handed: readiness is
 * its (WA_WAIT_HANDED), or 0 (its source went away). */
static inline void wa_wait_wake(wa_wait_link **head, wa_wait_link *l, unsigned *flags, unsigned handed)
{
    *flags = (*flags & ~WA_WAIT_QUEUED) | handed;
    wa_wait_unlink(head, l);
    wa_waker_wake(&l->waker);
}

/* True, once, if readiness was handed to the wait: a poll after that one
 * waits again. */
static inline bool wa_wait_handed(unsigned *flags)
{
    if (!(*flags & WA_WAIT_HANDED))
        return false;
    *flags &= ~WA_WAIT_HANDED;
    return true;
}

#endif
