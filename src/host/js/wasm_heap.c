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

extern char __heap_base; /* from the linker: where static data ends */

static wa__block *wa__heap_carve(size_t cap)
{
    size_t need = sizeof(wa__block) + cap;
    if (!wa__heap_end) { /* first use: the rest of the initial memory */
        uintptr_t base = ((uintptr_t)&__heap_base + WA__HEAP_ALIGN - 1) & ~(uintptr_t)(WA__HEAP_ALIGN - 1);
        wa__heap_bump = (char *)base;
        wa__heap_end = (char *)(__builtin_wasm_memory_size(0) * WA__HEAP_PAGE);
    }
    if ((size_t)(wa__heap_end - wa__heap_bump) < need) {
        char *p = wa__heap_grow(WA__HEAP_PAGE);
        if (!p)
            return NULL;
        if (p != wa__heap_end) /* someone else grew memory: start afresh */
            wa__heap_bump = p;
        wa__heap_end = p + WA__HEAP_PAGE;
    }
    wa__block *b = (wa__block *)wa__heap_bump;
    wa__heap_bump += need;
    b->cap = cap;
    return b;
}

void *malloc(size_t n)
{
    wa__block *b;
    if (n <= (16u << (WA__HEAP_CLASSES - 1))) {
        int c = 0;
        while ((16u << c) < n)
            c++;
        if ((b = wa__heap_free[c]))
            wa__heap_free[c] = b->next;
        else if (!(b = wa__heap_carve(16u << c)))
            return NULL;
    } else {
        if (n > SIZE_MAX - sizeof(wa__block) - WA__HEAP_PAGE) /* its page count would wrap */
            return NULL;
        wa__block **p = &wa__heap_large;
        while (*p && (*p)->cap < n)
            p = &(*p)->next;
        if ((b = *p)) {
            *p = b->next;
        } else {
            size_t cap = (n + sizeof(wa__block) + WA__HEAP_PAGE - 1) / WA__HEAP_PAGE * WA__HEAP_PAGE;
            if (!(b = wa__heap_grow(cap)))
                return NULL;
            b->cap = cap - sizeof(wa__block);
        }
    }
    return b + 1;
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
    void *p = malloc(n * size);
    if (p)
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
