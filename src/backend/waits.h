/* Internal: the waits queued on one backend registration (an fd, a
 * pollable), any number of them in an intrusive list, so that two tasks
 * waiting on one source (two accepts on a listener) are both woken. A
 * wait's link lives in its future, which stays put once polled; the list
 * head lives in the registration, which may move (its table grows), so
 * links never point back at it: unlinking is given the head. Whether a
 * link is queued is its owner's to know (a flag bit of the wait). */
#ifndef WASYNC_BACKEND_WAITS_H
#define WASYNC_BACKEND_WAITS_H

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

/* Takes the queued l off *head and wakes its task. */
static inline void wa_wait_wake(wa_wait_link **head, wa_wait_link *l)
{
    wa_wait_unlink(head, l);
    wa_waker_wake(&l->waker);
}

#endif
