/* SPDX-License-Identifier: MIT */
/* A size-class allocator for tasks.
 *
 * Tasks are small, many and short-lived; malloc's general paths cost more
 * than the rest of a spawn. Sizes up to WA__SLAB_MAX come from chunks carved
 * by a bump pointer, with a free list per 16-byte class (slab.h has the
 * inline fast paths); chunks go back to the system when the runtime is
 * freed. Larger sizes use malloc, and so does everything under a sanitizer,
 * so that it sees each task.
 *
 * The first chunks are 64 KiB from malloc, so a small program stays small.
 * Past 1 MiB, on Linux, chunks are 2 MiB huge pages: 10^5 tasks then cost a
 * handful of page faults instead of thousands, which measured as most of
 * the time it took to spawn them.
 */
#define _GNU_SOURCE /* MAP_ANONYMOUS, madvise */
#include "slab.h"

#if defined(__linux__) && !defined(WA__SLAB_BYPASS)
#include <sys/mman.h>
#define WA__SLAB_HUGE (2u * 1024u * 1024u)
#endif

#define WA__SLAB_CHUNK (64u * 1024u)
#define WA__SLAB_SMALL_TOTAL (1024u * 1024u)

struct wa__slab_chunk {
    struct wa__slab_chunk *next;
    size_t size; /* 0: from malloc */
};

#ifndef WA__SLAB_BYPASS
static struct wa__slab_chunk *wa__slab_chunk_new(wa__slab *s, size_t *size)
{
    (void)s;
#ifdef WA__SLAB_HUGE
    if (s->total >= WA__SLAB_SMALL_TOTAL) {
        /* map twice the size and trim, for a 2 MiB-aligned huge page */
        char *p = mmap(NULL, 2 * WA__SLAB_HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p != MAP_FAILED) {
            char *a = (char *)(((uintptr_t)p + WA__SLAB_HUGE - 1) & ~(uintptr_t)(WA__SLAB_HUGE - 1));
            if (a > p)
                munmap(p, (size_t)(a - p));
            munmap(a + WA__SLAB_HUGE, (size_t)(p + 2 * WA__SLAB_HUGE - (a + WA__SLAB_HUGE)));
            madvise(a, WA__SLAB_HUGE, MADV_HUGEPAGE);
            struct wa__slab_chunk *ch = (struct wa__slab_chunk *)a;
            ch->size = *size = WA__SLAB_HUGE;
            return ch;
        }
    }
#endif
    struct wa__slab_chunk *ch = aligned_alloc(WA__SLAB_GRAIN, WA__SLAB_CHUNK);
    if (ch) {
        ch->size = 0;
        *size = WA__SLAB_CHUNK;
    }
    return ch;
}
#endif

void *wa__slab_alloc_slow(wa__slab *s, size_t size)
{
    size_t bytes = wa__slab_class(size) * WA__SLAB_GRAIN;
#ifndef WA__SLAB_BYPASS
    if (size <= WA__SLAB_MAX) {
        if ((size_t)(s->end - s->bump) < bytes) {
            size_t chunk;
            struct wa__slab_chunk *ch = wa__slab_chunk_new(s, &chunk);
            if (!ch)
                return NULL;
            ch->next = s->chunks;
            s->chunks = ch;
            s->total += chunk;
            s->bump = (char *)ch + sizeof(*ch) + (WA__SLAB_GRAIN - sizeof(*ch) % WA__SLAB_GRAIN) % WA__SLAB_GRAIN;
            s->end = (char *)ch + chunk;
        }
        void *p = s->bump;
        s->bump += bytes;
        return p;
    }
#endif
    (void)s;
    return aligned_alloc(WA__SLAB_GRAIN, bytes);
}

void wa__slab_release(wa__slab *s)
{
    while (s->chunks) {
        struct wa__slab_chunk *ch = s->chunks;
        s->chunks = ch->next;
#ifdef WA__SLAB_HUGE
        if (ch->size) {
            munmap(ch, ch->size);
            continue;
        }
#endif
        free(ch);
    }
}
