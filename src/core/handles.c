/* SPDX-License-Identifier: MIT */
/* The table of the handles users hold (handles.h). */
#include <stdlib.h>

#include "handles.h"
#include "rt.h"

#define WA_HANDLE_NONE UINT32_MAX
#define WA_HANDLE_GEN_SHIFT (5 + WA_HANDLE_SLOT_BITS)

_Static_assert(sizeof(wa_handle_slot) == 2 * sizeof(uintptr_t), "a slot's offset is read off its key");

/* The first page is static: a program with few handles never allocates
 * for them (and its clones and opens cannot fail for want of a slot). */
wa_handle_slot wa_handle_page0_[WA_HANDLE_PAGE];
intptr_t wa_handle_pages_[WA_HANDLE_PAGES];
static uint32_t wa_handle_made = 1; /* pages */

/* Everything but lookups, under the lock: the slots in use (n), and the
 * free ones in the order they were released. */
static struct {
    char lock;
    uint32_t n, head, tail;
} wa_handles = {0, 0, WA_HANDLE_NONE, WA_HANDLE_NONE};

static inline wa_handle_slot *wa_handle_at(uint32_t i)
{
    return (wa_handle_slot *)((uintptr_t)wa_handle_page0_ + (uintptr_t)wa_handle_pages_[i / WA_HANDLE_PAGE]) +
           i % WA_HANDLE_PAGE;
}

static void wa_handles_lock(void)
{
    while (__atomic_test_and_set(&wa_handles.lock, __ATOMIC_ACQUIRE))
        ;
}

static void wa_handles_unlock(void) { __atomic_clear(&wa_handles.lock, __ATOMIC_RELEASE); }

/* A free slot's index (the oldest released, else a new one), or
 * WA_HANDLE_NONE without memory. Locked. */
static uint32_t wa_handle_take(void)
{
    uint32_t i = wa_handles.head;
    if (i != WA_HANDLE_NONE) {
        wa_handles.head = wa_handle_at(i)->u.next_free;
        if (wa_handles.head == WA_HANDLE_NONE)
            wa_handles.tail = WA_HANDLE_NONE;
        return i;
    }
    i = wa_handles.n;
    if (i == WA_HANDLE_PAGES * WA_HANDLE_PAGE)
        return WA_HANDLE_NONE;
    if (i / WA_HANDLE_PAGE == wa_handle_made) {
        wa_handle_slot *page = calloc(WA_HANDLE_PAGE, sizeof *page);
        if (!page)
            return WA_HANDLE_NONE;
        __atomic_store_n(&wa_handle_pages_[wa_handle_made++], (intptr_t)((uintptr_t)page - (uintptr_t)wa_handle_page0_),
                         __ATOMIC_RELEASE);
    }
    wa_handles.n++;
    return i;
}

int wa_handle_new_(void *obj, unsigned kind, uintptr_t *h)
{
    wa_handles_lock();
    uint32_t i = wa_handle_take();
    if (i == WA_HANDLE_NONE) {
        wa_handles_unlock();
        return WA_ENOMEM;
    }
    wa_handle_slot *s = wa_handle_at(i);
    uintptr_t gen = (s->key >> WA_HANDLE_GEN_SHIFT) + 1; /* (a fresh slot's first is 1) */
    uintptr_t key = gen << WA_HANDLE_GEN_SHIFT | (uintptr_t)i << 5 | (uintptr_t)kind << 1 | 1;
    s->u.obj = obj;
    __atomic_store_n(&s->key, key, __ATOMIC_RELEASE);
    wa_handles_unlock();
    *h = key;
    return 0;
}

void wa_handle_release_(uintptr_t h)
{
    uint32_t i = (uint32_t)(h >> 5) & ((1u << WA_HANDLE_SLOT_BITS) - 1);
    wa_handles_lock();
    wa_handle_slot *s = wa_handle_at(i);
    __atomic_store_n(&s->key, h & ~(uintptr_t)1, __ATOMIC_RELEASE); /* its generation kept for the next */
    s->u.next_free = WA_HANDLE_NONE;
    if (wa_handles.tail == WA_HANDLE_NONE)
        wa_handles.head = i;
    else
        wa_handle_at(wa_handles.tail)->u.next_free = i;
    wa_handles.tail = i;
    wa_handles_unlock();
}

int wa_handle_holds_(const void *obj, unsigned kind, uintptr_t *h)
{
    int found = 0;
    wa_handles_lock();
    for (uint32_t i = 0; i < wa_handles.n && !found; i++) {
        wa_handle_slot *s = wa_handle_at(i);
        if ((s->key & (WA_HANDLE_KIND_MASK | 1)) == ((uintptr_t)kind << 1 | 1) && s->u.obj == obj) {
            *h = s->key;
            found = 1;
        }
    }
    wa_handles_unlock();
    return found;
}

void *wa_handle_at_(const void *h, unsigned kind, const char *call)
{
    void *obj = wa_handle_get_((uintptr_t)h, kind);
    if (!obj)
        wa_misuse_in_(WA_EMISUSE, call, "a handle closed or freed already (through this copy of it or another), or NULL");
    return obj;
}
