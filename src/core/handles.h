/* SPDX-License-Identifier: MIT */
/* Internal: the handles users hold and may copy (the streams and TCP
 * listeners the library makes, channel ends, remotes, their joins and
 * events; runtimes are registered too).
 * Such a handle is not the object's address but a key into one
 * process-wide table of slots: bit 0 set (no object's address has it), its
 * kind, its slot, and the slot's generation. A slot holds the key of its
 * live handle and the object. Closing or dropping releases the slot, so
 * that every copy of the handle goes stale at once, and a later use is
 * found out by reading the table, never the freed object; the next handle
 * in the slot has the next generation. Lookups take no lock (channels of
 * many threads look up at every send); a page of slots never moves; a
 * freed slot is reused last (first in, first out), which puts a
 * generation's wrap far off. */
#ifndef WASYNC_CORE_HANDLES_H
#define WASYNC_CORE_HANDLES_H

#include <stddef.h>
#include <stdint.h>

/* What a handle is to: one of one kind is stale for every other. */
enum {
    WA__HANDLE_STREAM = 1,
    WA__HANDLE_TCP,
    WA__HANDLE_TX,
    WA__HANDLE_RX,
    WA__HANDLE_RT,
    WA__HANDLE_REMOTE,
    WA__HANDLE_EVENT,
    WA__HANDLE_REMOTE_JOIN,
    WA__HANDLE_HTTP_RESPONSE,
    WA__HANDLE_UDP,
    WA__HANDLE_BROADCAST_TX,
    WA__HANDLE_BROADCAST_RX,
    WA__HANDLE_WATCH_TX,
    WA__HANDLE_WATCH_RX,
    WA__HANDLE_SIGNALS, /* 15: the kind has four bits (15 at most) */
};

/* A key: bit 0 set, the kind (bits 1-4), the slot (bits 5 up, SLOT_BITS
 * of them), the generation (the rest: 32 bits on 64-bit hosts, 12 on
 * wasm32). */
#define WA__HANDLE_KIND_MASK ((uintptr_t)0x1e)
#define WA__HANDLE_SLOT_BITS (sizeof(uintptr_t) == 8 ? 22 : 15)
#define WA__HANDLE_PAGE 256u
#define WA__HANDLE_PAGES ((1u << WA__HANDLE_SLOT_BITS) / WA__HANDLE_PAGE)

typedef struct wa__handle_slot {
    uintptr_t key;          /* the live handle's; while free, the last one's without bit 0 */
    union {
        void *obj;          /* while live */
        uint32_t next_free; /* while free */
    } u;
} wa__handle_slot;

/* The pages, each as its distance in bytes from page 0, which is static.
 * A page not made yet is 0 too, page 0, whose keys name no other page:
 * so the table needs no initialised data, and a lookup no NULL test. */
extern wa__handle_slot wa__handle_page0[];
extern intptr_t wa__handle_pages[];

/* A new handle of kind to obj in *h: 0, or WA_ENOMEM (the first 256
 * handles need no memory). */
int wa__handle_new(void *obj, unsigned kind, uintptr_t *h);

/* Releases live handle h: every copy of it goes stale. */
void wa__handle_release(uintptr_t h);

/* Whether h is a handle rather than an address (streams: an
 * implementer's own stream is its address). */
static inline int wa__handle_is(uintptr_t h) { return (int)(h & 1); }

/* The object of live handle h of kind, or NULL (stale, another kind's,
 * NULL). The slot's byte offset in its page is read off the key. */
static inline void *wa__handle_get(uintptr_t h, unsigned kind)
{
    const uintptr_t slot_shift = sizeof(wa__handle_slot) == 16 ? 1 : 2; /* 5 less log2 of the size */
    intptr_t page = __atomic_load_n(&wa__handle_pages[(h >> (5 + 8)) & (WA__HANDLE_PAGES - 1)], __ATOMIC_ACQUIRE);
    const wa__handle_slot *s = (const wa__handle_slot *)((uintptr_t)wa__handle_page0 + (uintptr_t)page +
                                                       ((h >> slot_shift) & ((WA__HANDLE_PAGE - 1) * sizeof *s)));
    uintptr_t want = (h & ~WA__HANDLE_KIND_MASK) | (uintptr_t)kind << 1;
    return __atomic_load_n(&s->key, __ATOMIC_ACQUIRE) == want ? s->u.obj : NULL;
}

/* As wa__handle_get, a NULL reported as misuse of call (a handle closed,
 * dropped or freed already, through this copy of it or another, or NULL):
 * for the calls that have nothing else to say about it. */
void *wa__handle_at(const void *h, unsigned kind, const char *call);

/* Whether obj is the object of a live handle of kind, whose key goes in
 * *h (a scan: for the rare calls on objects whose handle must stay their
 * address, runtimes). */
int wa__handle_holds(const void *obj, unsigned kind, uintptr_t *h);

#endif
