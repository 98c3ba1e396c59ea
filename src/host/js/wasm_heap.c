/* SPDX-License-Identifier: MIT */
/* malloc for the JS host's WebAssembly module, in well under a kilobyte of
 * code where the C library's allocator takes about ten.
 *
 * Blocks up to 2 KiB come in eight power-of-two classes, each with a free
 * list; larger ones are reused first-fit. Every block has a 16-byte header
 * (its capacity), so payloads stay 16-byte aligned. New blocks of every
 * size are cut from the end of the memory used so far; memory comes from
 * memory.grow and is never returned: a wasm memory cannot shrink anyway.
 * It grows by an eighth of its size at least (a growth is a call into the
 * engine, a few microseconds: a burst of small blocks would make one
 * every 64 KiB, and growing tables one per large block), and calloc
 * zeroes only a block used before: memory the module never touched is
 * zero already.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define WA__HEAP_ALIGN 16u
#define WA__HEAP_PAGE 65536u
#define WA__HEAP_CLASSES 8 /* 16 .. 2048 bytes of payload */

typedef struct wa__block {
    size_t cap;            /* payload bytes */
    struct wa__block *next; /* in a free list */
    char pad[WA__HEAP_ALIGN - sizeof(size_t) - sizeof(void *)];
} wa__block;

static wa__block *wa__heap_free[WA__HEAP_CLASSES];
static wa__block *wa__heap_large; /* freed large blocks */
static char *wa__heap_bump, *wa__heap_end;

static void *wa__heap_grow(size_t bytes)
{
    size_t pages = (bytes + WA__HEAP_PAGE - 1) / WA__HEAP_PAGE;
    size_t old = __builtin_wasm_memory_grow(0, pages);
    if (old == SIZE_MAX)
        return NULL;
    return (void *)(old * WA__HEAP_PAGE);
}

/* Makes room for a block of need bytes at the bump pointer: 0 or -1. */
static int wa__heap_more(size_t need)
{
    size_t size = __builtin_wasm_memory_size(0) * WA__HEAP_PAGE;
    size_t more = size / 8 > need ? size / 8 : need;
    char *p = wa__heap_grow(more);
    if (!p && !(p = wa__heap_grow(need))) /* (the eighth may pass a maximum) */
        return -1;
    if (p != wa__heap_end) /* someone else grew memory: start afresh */
        wa__heap_bump = p;
    wa__heap_end = (char *)(__builtin_wasm_memory_size(0) * WA__HEAP_PAGE);
    return 0;
}

extern char __heap_base; /* from the linker: where static data ends */

static wa__block *wa__heap_carve(size_t cap)
{
    size_t need = sizeof(wa__block) + cap;
    if (!wa__heap_end) { /* first use: the rest of the initial memory */
        uintptr_t base = ((uintptr_t)&__heap_base + WA__HEAP_ALIGN - 1) & ~(uintptr_t)(WA__HEAP_ALIGN - 1);
        wa__heap_bump = (char *)base;
        wa__heap_end = (char *)(__builtin_wasm_memory_size(0) * WA__HEAP_PAGE);
    }
    if ((size_t)(wa__heap_end - wa__heap_bump) < need && wa__heap_more(need) < 0)
        return NULL; /* (a leftover too short for a large block stays unused) */
    wa__block *b = (wa__block *)wa__heap_bump;
    wa__heap_bump += need;
    b->cap = cap;
    return b;
}

/* A block of n bytes or NULL; *fresh says whether its memory was never
 * used (and so is zero). */
static void *wa__heap_alloc(size_t n, int *fresh)
{
    wa__block *b;
    *fresh = 0;
    if (n <= (16u << (WA__HEAP_CLASSES - 1))) {
        int c = 0;
        while ((16u << c) < n)
            c++;
        if ((b = wa__heap_free[c]))
            wa__heap_free[c] = b->next;
        else if (!(b = wa__heap_carve(16u << c)))
            return NULL;
        else
            *fresh = 1;
    } else {
        if (n > SIZE_MAX / 2) /* (its block and the memory's eighth would wrap) */
            return NULL;
        wa__block **p = &wa__heap_large;
        while (*p && (*p)->cap < n)
            p = &(*p)->next;
        if ((b = *p)) {
            *p = b->next;
        } else if (!(b = wa__heap_carve((n + WA__HEAP_ALIGN - 1) & ~(size_t)(WA__HEAP_ALIGN - 1)))) {
            return NULL;
        } else {
            *fresh = 1;
        }
    }
    return b + 1;
}

void *malloc(size_t n)
{
    int fresh;
    return wa__heap_alloc(n, &fresh);
}

void free(void *p)
{
    if (!p)
        return;
    wa__block *b = (wa__block *)p - 1;
    if (b->cap > (16u << (WA__HEAP_CLASSES - 1))) {
        b->next = wa__heap_large;
        wa__heap_large = b;
        return;
    }
    int c = 0;
    while ((16u << c) < b->cap)
        c++;
    b->next = wa__heap_free[c];
    wa__heap_free[c] = b;
}

void *calloc(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    int fresh;
    void *p = wa__heap_alloc(n * size, &fresh);
    if (p && !fresh)
        memset(p, 0, n * size);
    return p;
}

void *realloc(void *p, size_t n)
{
    if (!p)
        return malloc(n);
    wa__block *b = (wa__block *)p - 1;
    if (n <= b->cap)
        return p;
    void *q = malloc(n);
    if (q) {
        memcpy(q, p, b->cap);
        free(p);
    }
    return q;
}

void *aligned_alloc(size_t align, size_t n)
{
    return align <= WA__HEAP_ALIGN ? malloc(n) : NULL;
}
