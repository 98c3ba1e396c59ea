/* SPDX-License-Identifier: MIT */
/* The table of the handles users hold (handles.h). */
#include <stdlib.h>

#include "handles.h"
#include "rt.h"

#define WA__HANDLE_NONE UINT32_MAX
#define WA__HANDLE_GEN_SHIFT (5 + WA__HANDLE_SLOT_BITS)

_Static_assert(sizeof(wa__handle_slot) == 2 * sizeof(uintptr_t), "a slot's offset is read off its key");

/* The first page is static: a program with few handles never allocates
 * for them (and its clones and opens cannot fail for want of a slot). */
wa__handle_slot wa__handle_page0[WA__HANDLE_PAGE];
intptr_t wa__handle_pages[WA__HANDLE_PAGES];
static uint32_t wa__handle_made = 1; /* pages */

/* Everything but lookups, under the lock: the slots in use (n), and the
 * free ones in the order they were released. */
static struct {
    char lock;
    uint32_t n, head, tail;
} wa__handles = {0, 0, WA__HANDLE_NONE, WA__HANDLE_NONE};

static inline wa__handle_slot *wa__handle_slot_at(uint32_t i)
{
    return (wa__handle_slot *)((uintptr_t)wa__handle_page0 + (uintptr_t)wa__handle_pages[i / WA__HANDLE_PAGE]) +
           i % WA__HANDLE_PAGE;
}

static void wa__handles_lock(void)
{
    while (__atomic_test_and_set(&wa__handles.lock, __ATOMIC_ACQUIRE))
        ;
}

static void wa__handles_unlock(void) { __atomic_clear(&wa__handles.lock, __ATOMIC_RELEASE); }

/* A free slot's index (the oldest released, else a new one), or
 * WA__HANDLE_NONE without memory. Locked. */
static uint32_t wa__handle_take(void)
{
    uint32_t i = wa__handles.head;
    if (i != WA__HANDLE_NONE) {
        wa__handles.head = wa__handle_slot_at(i)->u.next_free;
        if (wa__handles.head == WA__HANDLE_NONE)
            wa__handles.tail = WA__HANDLE_NONE;
        return i;
    }
    i = wa__handles.n;
    if (i == WA__HANDLE_PAGES * WA__HANDLE_PAGE)
        return WA__HANDLE_NONE;
    if (i / WA__HANDLE_PAGE == wa__handle_made) {
        wa__handle_slot *page = calloc(WA__HANDLE_PAGE, sizeof *page);
        if (!page)
            return WA__HANDLE_NONE;
        __atomic_store_n(&wa__handle_pages[wa__handle_made++], (intptr_t)((uintptr_t)page - (uintptr_t)wa__handle_page0),
                         __ATOMIC_RELEASE);
    }
    wa__handles.n++;
    return i;
}

int wa__handle_new(void *obj, unsigned kind, uintptr_t *h)
{
    wa__handles_lock();
    uint32_t i = wa__handle_take();
    if (i == WA__HANDLE_NONE) {
        wa__handles_unlock();
        return WA_ENOMEM;
    }
    wa__handle_slot *s = wa__handle_slot_at(i);
    uintptr_t gen = (s->key >> WA__HANDLE_GEN_SHIFT) + 1; /* (a fresh slot's first is 1) */
    uintptr_t key = gen << WA__HANDLE_GEN_SHIFT | (uintptr_t)i << 5 | (uintptr_t)kind << 1 | 1;
    s->u.obj = obj;
    __atomic_store_n(&s->key, key, __ATOMIC_RELEASE);
    wa__handles_unlock();
    *h = key;
    return 0;
}

void wa__handle_release(uintptr_t h)
{
    uint32_t i = (uint32_t)(h >> 5) & ((1u << WA__HANDLE_SLOT_BITS) - 1);
    wa__handles_lock();
    wa__handle_slot *s = wa__handle_slot_at(i);
    __atomic_store_n(&s->key, h & ~(uintptr_t)1, __ATOMIC_RELEASE); /* its generation kept for the next */
    s->u.next_free = WA__HANDLE_NONE;
    if (wa__handles.tail == WA__HANDLE_NONE)
        wa__handles.head = i;
    else
        wa__handle_slot_at(wa__handles.tail)->u.next_free = i;
    wa__handles.tail = i;
    wa__handles_unlock();
}

int wa__handle_holds(const void *obj, unsigned kind, uintptr_t *h)
{
    int found = 0;
    wa__handles_lock();
    for (uint32_t i = 0; i < wa__handles.n && !found; i++) {
        wa__handle_slot *s = wa__handle_slot_at(i);
        if ((s->key & (WA__HANDLE_KIND_MASK | 1)) == ((uintptr_t)kind << 1 | 1) && s->u.obj == obj) {
            *h = s->key;
            found = 1;
        }
    }
    wa__handles_unlock();
    return found;
}

void *wa__handle_at(const void *h, unsigned kind, const char *call)
{
    void *obj = wa__handle_get((uintptr_t)h, kind);
    if (!obj)
        wa__misuse_in(WA_EMISUSE, call, "a handle closed or freed already (through this copy of it or another), or NULL");
    return obj;
}
