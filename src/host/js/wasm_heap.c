/* SPDX-License-Identifier: MIT */
/* malloc for the JS host's WebAssembly module, in well under a kilobyte of
 * code where the C library's allocator takes about ten.
 *
 * Blocks up to 2 KiB come in eight power-of-two classes, each with a free
 * list; larger ones are whole 64 KiB pages, reused first-fit. Every block
 * has a 16-byte header (its capacity), so payloads stay 16-byte aligned.
 * Memory comes from memory.grow and is never returned: a wasm memory
 * cannot shrink anyway.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define WA_HEAP_ALIGN 16u
#define WA_HEAP_PAGE 65536u
#define WA_HEAP_CLASSES 8 /* 16 .. 2048 bytes of payload */

typedef struct wa_block {
    size_t cap;            /* payload bytes */
    struct wa_block *next; /* in a free list */
    char pad[WA_HEAP_ALIGN - sizeof(size_t) - sizeof(void *)];
} wa_block;

static wa_block *wa_heap_free[WA_HEAP_CLASSES];
static wa_block *wa_heap_large; /* freed large blocks */
static char *wa_heap_bump, *wa_heap_end;

static void *wa_heap_grow(size_t bytes)
{
    size_t pages = (bytes + WA_HEAP_PAGE - 1) / WA_HEAP_PAGE;
    size_t old = __builtin_wasm_memory_grow(0, pages);
    if (old == SIZE_MAX)
        return NULL;
    return (void *)(old * WA_HEAP_PAGE);
}

extern char __heap_base; /* from the linker: where static data ends */

static wa_block *wa_heap_carve(size_t cap)
{
    size_t need = sizeof(wa_block) + cap;
    if (!wa_heap_end) { /* first use: the rest of the initial memory */
        uintptr_t base = ((uintptr_t)&__heap_base + WA_HEAP_ALIGN - 1) & ~(uintptr_t)(WA_HEAP_ALIGN - 1);
        wa_heap_bump = (char *)base;
        wa_heap_end = (char *)(__builtin_wasm_memory_size(0) * WA_HEAP_PAGE);
    }
    if ((size_t)(wa_heap_end - wa_heap_bump) < need) {
        char *p = wa_heap_grow(WA_HEAP_PAGE);
        if (!p)
            return NULL;
        if (p != wa_heap_end) /* someone else grew memory: start afresh */
            wa_heap_bump = p;
        wa_heap_end = p + WA_HEAP_PAGE;
    }
    wa_block *b = (wa_block *)wa_heap_bump;
    wa_heap_bump += need;
    b->cap = cap;
    return b;
}

void *malloc(size_t n)
{
    wa_block *b;
    if (n <= (16u << (WA_HEAP_CLASSES - 1))) {
        int c = 0;
        while ((16u << c) < n)
            c++;
        if ((b = wa_heap_free[c]))
            wa_heap_free[c] = b->next;
        else if (!(b = wa_heap_carve(16u << c)))
            return NULL;
    } else {
        if (n > SIZE_MAX - sizeof(wa_block) - WA_HEAP_PAGE) /* its page count would wrap */
            return NULL;
        wa_block **p = &wa_heap_large;
        while (*p && (*p)->cap < n)
            p = &(*p)->next;
        if ((b = *p)) {
            *p = b->next;
        } else {
            size_t cap = (n + sizeof(wa_block) + WA_HEAP_PAGE - 1) / WA_HEAP_PAGE * WA_HEAP_PAGE;
            if (!(b = wa_heap_grow(cap)))
                return NULL;
            b->cap = cap - sizeof(wa_block);
        }
    }
    return b + 1;
}

void free(void *p)
{
    if (!p)
        return;
    wa_block *b = (wa_block *)p - 1;
    if (b->cap > (16u << (WA_HEAP_CLASSES - 1))) {
        b->next = wa_heap_large;
        wa_heap_large = b;
        return;
    }
    int c = 0;
    while ((16u << c) < b->cap)
        c++;
    b->next = wa_heap_free[c];
    wa_heap_free[c] = b;
}

void *calloc(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    void *p = malloc(n * size);
    if (p)
        memset(p, 0, n * size);
    return p;
}

void *realloc(void *p, size_t n)
{
    if (!p)
        return malloc(n);
    wa_block *b = (wa_block *)p - 1;
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
    return align <= WA_HEAP_ALIGN ? malloc(n) : NULL;
}
