/* SPDX-License-Identifier: MIT */
/* Internal: the library's one intrusive doubly-linked list (the types are
 * in wasync/future.h, as public structs embed them): a registration's
 * waits, a primitive's waiters, the tasks of an owner list. A node lives
 * in the item it links, and is pushed at the tail (FIFO) and removed from
 * anywhere in O(1). The ends hold NULL, not the head: the head may move
 * with its owner (a registration's table grows), so nothing points at
 * it, and removing is given it. Whether a node is linked is its user's to
 * know (each keeps it in a word it already has), so removing leaves the
 * node's links as they were. */
#ifndef WASYNC_CORE_LIST_H
#define WASYNC_CORE_LIST_H

#include <stdbool.h>
#include <stddef.h>

#include "wasync/future.h"

/* The item of type that holds node n as its field. */
#define WA__LIST_ITEM(n, type, field) ((type *)(void *)((char *)(n) - offsetof(type, field)))

static inline void wa__list_init(wa__list *l) { l->first = l->last = NULL; }

static inline bool wa__list_empty(const wa__list *l) { return !l->first; }

/* The first node of l, or NULL. */
static inline wa__list_node *wa__list_first(const wa__list *l) { return l->first; }

/* The node after n, or NULL. */
static inline wa__list_node *wa__list_next(const wa__list_node *n) { return n->next; }

/* Links n, not linked, at the tail of l. */
static inline void wa__list_push(wa__list *l, wa__list_node *n)
{
    n->next = NULL;
    n->prev = l->last;
    if (l->last)
        l->last->next = n;
    else
        l->first = n;
    l->last = n;
}

/* Unlinks n, linked on l. */
static inline void wa__list_remove(wa__list *l, wa__list_node *n)
{
    if (n->prev)
        n->prev->next = n->next;
    else
        l->first = n->next;
    if (n->next)
        n->next->prev = n->prev;
    else
        l->last = n->prev;
}

#endif
