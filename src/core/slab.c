/* A size-class allocator for tasks.
 *
 * Tasks are small, many and short-lived; malloc's general paths cost more
 * than the rest of a spawn. Sizes up to WA_SLAB_MAX come from 64 KiB chunks
 * carved by a bump pointer, with a free list per 16-byte class (slab.h has
 * the inline fast paths); chunks go back to the system when the runtime is
 * freed. Larger sizes use malloc, and so does everything under a sanitizer,
 * so that it sees each task.
 */
#include "slab.h"

#define WA_SLAB_CHUNK (64u * 1024u)

struct wa_slab_chunk {
    struct wa_slab_chunk *next;
};

wa_slab *wa_slab_new(void) { return calloc(1, sizeof(wa_slab)); }

void *wa_slab_alloc_slow_(wa_slab *s, size_t size)
{
    size_t bytes = wa_slab_class_(size) * WA_SLAB_GRAIN;
#ifndef WA_SLAB_BYPASS
    if (size <= WA_SLAB_MAX) {
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
    }
#endif
    (void)s;
    return aligned_alloc(WA_SLAB_GRAIN, bytes);
}

void wa_slab_destroy(wa_slab *s)
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
