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

wa_slab *wa_slab_new(void);
void wa_slab_destroy(wa_slab *s);
void *wa_slab_alloc_slow_(wa_slab *s, size_t size);

static inline size_t wa_slab_class_(size_t size) { return (size + WA_SLAB_GRAIN - 1) / WA_SLAB_GRAIN; }

/* Allocates from a free list or the current chunk; NULL when that would
 * take the slow path (a new chunk, malloc). */
static inline void *wa_slab_try_alloc(wa_slab *s, size_t size)
{
#ifndef WA_SLAB_BYPASS
    if (size <= WA_SLAB_MAX) {
        size_t c = wa_slab_class_(size);
        wa_slab_block *b = s->free[c];
        if (b) {
            s->free[c] = b->next;
            return b;
        }
        size_t bytes = c * WA_SLAB_GRAIN;
        if ((size_t)(s->end - s->bump) >= bytes) {
            void *p = s->bump;
            s->bump += bytes;
            return p;
        }
    }
#endif
    (void)s;
    (void)size;
    return NULL;
}

static inline void *wa_slab_alloc(wa_slab *s, size_t size)
{
    void *p = wa_slab_try_alloc(s, size);
    return p ? p : wa_slab_alloc_slow_(s, size);
}

static inline void wa_slab_free(wa_slab *s, void *p, size_t size)
{
#ifndef WA_SLAB_BYPASS
    if (size <= WA_SLAB_MAX) {
        wa_slab_block *b = p;
        b->next = s->free[wa_slab_class_(size)];
        s->free[wa_slab_class_(size)] = b;
        return;
    }
#endif
    (void)s;
    (void)size;
    free(p);
}

#endif
