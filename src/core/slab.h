/* SPDX-License-Identifier: MIT */
/* Internal: a size-class allocator for tasks (see slab.c). The fast paths
 * are inline: a spawn is a handful of instructions, not a malloc. */
#ifndef WASYNC_CORE_SLAB_H
#define WASYNC_CORE_SLAB_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define WA__SLAB_BYPASS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define WA__SLAB_BYPASS 1
#endif
#endif

#define WA__SLAB_GRAIN 16u
#define WA__SLAB_MAX 512u

typedef struct wa__slab_block {
    struct wa__slab_block *next;
} wa__slab_block;

typedef struct wa__slab {
    wa__slab_block *free[WA__SLAB_MAX / WA__SLAB_GRAIN + 1];
    char *bump, *end;
    struct wa__slab_chunk *chunks;
    size_t total; /* bytes in chunks */
} wa__slab;

/* A zeroed wa__slab is empty; this gives its chunks back to the system
 * (which leaves it unusable until zeroed again). */
void wa__slab_release(wa__slab *s);
void *wa__slab_alloc_slow(wa__slab *s, size_t size);

static inline size_t wa__slab_class(size_t size) { return (size + WA__SLAB_GRAIN - 1) / WA__SLAB_GRAIN; }

/* Allocates size bytes (at most WA__SLAB_MAX) from a free list or the
 * current chunk; NULL when that would take the slow path (a new chunk), and
 * always under a sanitizer. */
static inline void *wa__slab_try_alloc_small(wa__slab *s, size_t size)
{
#ifndef WA__SLAB_BYPASS
    size_t c = wa__slab_class(size);
    wa__slab_block *b = s->free[c];
    if (b) {
        s->free[c] = b->next;
        return b;
    }
    char *p = s->bump;
    /* (compared as integers: past the end is not a pointer; a chunk never
     * ends within WA__SLAB_MAX of the address space's end) */
    uintptr_t next = (uintptr_t)p + c * WA__SLAB_GRAIN;
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

/* The same for any size: NULL also past WA__SLAB_MAX (malloc's). */
static inline void *wa__slab_try_alloc(wa__slab *s, size_t size)
{
    return size <= WA__SLAB_MAX ? wa__slab_try_alloc_small(s, size) : NULL;
}

static inline void *wa__slab_alloc(wa__slab *s, size_t size)
{
    void *p = wa__slab_try_alloc(s, size);
    return p ? p : wa__slab_alloc_slow(s, size);
}

/* Frees p, allocated with a size of class cls (wa__slab_class): kept by
 * the caller, so that a free computes nothing. */
static inline void wa__slab_free(wa__slab *s, void *p, size_t cls)
{
#ifndef WA__SLAB_BYPASS
    if (cls <= WA__SLAB_MAX / WA__SLAB_GRAIN) {
        wa__slab_block *b = p;
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
