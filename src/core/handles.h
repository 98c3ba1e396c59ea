/* SPDX-License-Identifier: MIT */
/* Internal: the handles users hold and may copy (the streams and TCP
 * listeners the library makes, channel ends, remotes, events). Such a
 * handle is not the object's address but a key into one process-wide
 * table of slots with a generation: bit 0 set (no object's address has
 * it), the slot, then the generation. Closing or dropping releases the
 * slot, which moves its generation on, so every copy of the handle goes
 * stale at once, and a later use is found out by reading the table, never
 * the freed object. Lookups take no lock (channels of many threads look
 * up on every send); a slot's page never moves; a freed slot is reused
 * last (first in, first out), which puts a generation's wrap far off. */
#ifndef WASYNC_CORE_HANDLES_H
#define WASYNC_CORE_HANDLES_H

#include <stddef.h>
#include <stdint.h>

/* What a slot holds: a handle of one kind is stale for every other. */
enum {
    WA_HANDLE_STREAM = 1,
    WA_HANDLE_TCP,
    WA_HANDLE_TX,
    WA_HANDLE_RX,
    WA_HANDLE_RT,
    WA_HANDLE_REMOTE,
    WA_HANDLE_EVENT,
    WA_HANDLE_REMOTE_JOIN,
};

#define WA_HANDLE_SLOT_BITS (sizeof(uintptr_t) == 8 ? 22 : 16)
#define WA_HANDLE_PAGE 256u
#define WA_HANDLE_PAGES ((1u << WA_HANDLE_SLOT_BITS) / WA_HANDLE_PAGE)

typedef struct wa_handle_slot {
    uint32_t gen;       /* odd while live; moves on at each alloc and release */
    uint32_t kind;
    void *obj;
    uint32_t next_free;
} wa_handle_slot;

extern wa_handle_slot *wa_handle_pages_[];

/* A new handle of kind to obj in *h: 0, or WA_ENOMEM (the first 256
 * handles need no memory). */
int wa_handle_new_(void *obj, unsigned kind, uintptr_t *h);

/* Releases live handle h: every copy of it goes stale. */
void wa_handle_release_(uintptr_t h);

/* Whether h is a handle rather than an address (streams: an
 * implementer's own stream is its address). */
static inline int wa_handle_is_(uintptr_t h) { return (int)(h & 1); }

/* The object of live handle h of kind, or NULL (stale, another kind's, not
 * a handle, NULL). */
static inline void *wa_handle_get_(uintptr_t h, unsigned kind)
{
    uint32_t i = (uint32_t)(h >> 1) & ((1u << WA_HANDLE_SLOT_BITS) - 1);
    wa_handle_slot *page = __atomic_load_n(&wa_handle_pages_[i / WA_HANDLE_PAGE], __ATOMIC_ACQUIRE);
    if (!(h & 1) || !page)
        return NULL;
    wa_handle_slot *s = &page[i % WA_HANDLE_PAGE];
    if (__atomic_load_n(&s->gen, __ATOMIC_ACQUIRE) != (uint32_t)(h >> (1 + WA_HANDLE_SLOT_BITS)) || s->kind != kind)
        return NULL;
    return s->obj;
}

/* Whether obj is the object of a live handle of kind (a scan: for the
 * rare calls on objects whose handle must stay their address, runtimes). */
int wa_handle_holds_(const void *obj, unsigned kind, uintptr_t *h);

#endif
