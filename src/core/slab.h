/* SPDX-License-Identifier: MIT */
/* Internal: a size-class allocator for tasks (see slab.c). The fast paths
 * are inline: a spawn is a handful of instructions, not a malloc. */
#ifndef WASYNC_CORE_SLAB_H
#define WASYNC_CORE_SLAB_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define WA_SLAB_BYPASS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define WA_SLAB_BYPASS 1
#endif
#endif

#define WA_SLAB_GRAIN 16u
#define WA_SLAB_MAX 512u

typedef struct wa_slab_block {
    struct wa_slab_block *next;
} wa_slab_block;

typedef struct wa_slab {
    wa_slab_block *free[WA_SLAB_MAX / WA_SLAB_GRAIN + 1];
    char *bump, *end;
    struct wa_slab_chunk *chunks;
    size_t total; /* bytes in chunks */
} wa_slab;

/* A zeroed wa_slab is empty; this gives its chunks back to the system
 * (which leaves it unusable until zeroed again). */
void wa_slab_release(wa_slab *s);
void *wa_slab_alloc_slow_(wa_slab *s, size_t size);

static inline size_t wa_slab_class_(size_t size) { return (size + WA_SLAB_GRAIN - 1) / WA_SLAB_GRAIN; }

/* Allocates size bytes (at most WA_SLAB_MAX) from a free list or the
 * current chunk; NULL when that would take the slow path (a new chunk), and
 * always under a sanitizer. */
static inline void *wa_slab_try_alloc_small(wa_slab *s, size_t size)
{
#ifndef WA_SLAB_BYPASS
    size_t c = wa_slab_class_(size);
    wa_slab_block *b = s->free[c];
    if (b) {
        s->free[c] = b->next;
        return b;
    }
    char *p = s->bump;
    /* (compared as integers: past the end is not a pointer; a chunk never
     * ends within WA_SLAB_MAX of the address space's end) */
    uintptr_t next = (uintptr_t)p + c * WA_SLAB_GRAIN;
    if (next > (uintptr_t)s->end)
        return NULL;
    if (!p) /* (never: an empty slab's bump and end are both NULL) */
        __builtin_unreachable();
    s->bump = (char *)next;
    return p;
#else
    (void)s;
    (void)size;
    return NULL;
#endif
}

/* The same for any size: NULL also past WA_SLAB_MAX (malloc's). */
static inline void *wa_slab_try_alloc(wa_slab *s, size_t size)
{
    return size <= WA_SLAB_MAX ? wa_slab_try_alloc_small(s, size) : NULL;
}

static inline void *wa_slab_alloc(wa_slab *s, size_t size)
{
    void *p = wa_slab_try_alloc(s, size);
    return p ? p : wa_slab_alloc_slow_(s, size);
}

/* Frees p, allocated with a size of class cls (wa_slab_class_): kept by
 * the caller, so that a free computes nothing. */
static inline void wa_slab_free(wa_slab *s, void *p, size_t cls)
{
#ifndef WA_SLAB_BYPASS
    if (cls <= WA_SLAB_MAX / WA_SLAB_GRAIN) {
        wa_slab_block *b = p;
        b->next = s->free[cls];
        s->free[cls] = b;
        return;
    }
#endif
    (void)s;
    (void)cls;
    free(p);
}

#endif
