/* A size-class allocator for tasks.
 *
 * Tasks are small, many and short-lived; malloc's general paths cost more
 * than the rest of a spawn. Sizes up to WA_SLAB_MAX come from 64 KiB chunks
 * carved by a bump pointer, with a free list per 16-byte class; chunks go
 * back to the system when the runtime is freed. Larger sizes use malloc.
 * Under AddressSanitizer everything uses malloc, so that it sees each task.
 */
#include <stdlib.h>

#include "rt.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define WA_SLAB_BYPASS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define WA_SLAB_BYPASS 1
#endif
#endif

#define WA_SLAB_GRAIN 16u
#define WA_SLAB_MAX 512u
#define WA_SLAB_CHUNK (64u * 1024u)

struct wa_slab_chunk {
    struct wa_slab_chunk *next;
};

typedef struct wa_slab_free_block {
    struct wa_slab_free_block *next;
} wa_slab_free_block;

struct wa_slab {
    wa_slab_free_block *free[WA_SLAB_MAX / WA_SLAB_GRAIN + 1];
    char *bump, *end;
    struct wa_slab_chunk *chunks;
};

struct wa_slab *wa_slab_new(void) { return calloc(1, sizeof(struct wa_slab)); }

static size_t wa_slab_class(size_t size) { return (size + WA_SLAB_GRAIN - 1) / WA_SLAB_GRAIN; }

void *wa_slab_alloc(struct wa_slab *s, size_t size)
{
#ifdef WA_SLAB_BYPASS
    (void)s;
    return aligned_alloc(WA_SLAB_GRAIN, wa_slab_class(size) * WA_SLAB_GRAIN);
#else
    if (size > WA_SLAB_MAX)
        return aligned_alloc(WA_SLAB_GRAIN, wa_slab_class(size) * WA_SLAB_GRAIN);
    size_t c = wa_slab_class(size);
    wa_slab_free_block *b = s->free[c];
    if (b) {
        s->free[c] = b->next;
        return b;
    }
    size_t bytes = c * WA_SLAB_GRAIN;
    if ((size_t)(s->end - s->bump) < bytes) {
        struct wa_slab_chunk *ch = aligned_alloc(WA_SLAB_GRAIN, WA_SLAB_CHUNK);
        if (!ch)
            return NULL;
        ch->next = s->chunks;
        s->chunks = ch;
        s->bump = (char *)ch + WA_SLAB_GRAIN;
        s->end = (char *)ch + WA_SLAB_CHUNK;
    }
    void *p = s->bump;
    s->bump += bytes;
    return p;
#endif
}

void wa_slab_free(struct wa_slab *s, void *p, size_t size)
{
#ifdef WA_SLAB_BYPASS
    (void)s;
    (void)size;
    free(p);
#else
    if (size > WA_SLAB_MAX) {
        free(p);
        return;
    }
    size_t c = wa_slab_class(size);
    wa_slab_free_block *b = p;
    b->next = s->free[c];
    s->free[c] = b;
#endif
}

void wa_slab_destroy(struct wa_slab *s)
{
    if (!s)
        return;
    while (s->chunks) {
        struct wa_slab_chunk *ch = s->chunks;
        s->chunks = ch->next;
        free(ch);
    }
    free(s);
}
