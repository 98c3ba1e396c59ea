/* SPDX-License-Identifier: MIT */
/* Generation-keyed slot tables (keys.h). */
#include <stdlib.h>
#include <string.h>

#include "keys.h"
#include "wasync/error.h"

#define WA__KEYS_NONE UINT32_MAX

/* Tags for new tables, process-wide (runtimes may start on any thread). */
static uint32_t wa__keys_tags;

void wa__keys_init(wa__keys *k, size_t size, uint32_t gen_mask, uint32_t max)
{
    memset(k, 0, sizeof *k);
    k->size = size;
    k->free_head = WA__KEYS_NONE;
    k->gen_mask = gen_mask;
    k->max = max;
    do
        k->tag = __atomic_add_fetch(&wa__keys_tags, 1, __ATOMIC_RELAXED) & 0xffff;
    while (k->tag == 0);
}

void wa__keys_free(wa__keys *k)
{
    for (uint32_t p = 0, first = 0; first < k->cap; first = 8u << ++p) /* (page p > 0 starts at slot 8 << p) */
        free((void *)(k->pages[p] + first * k->size));
    memset(k->pages, 0, sizeof k->pages);
    k->n = k->cap = 0;
}

/* Makes the next page, zeroed: 0 or WA_ENOMEM. */
static int wa__keys_grow(wa__keys *k)
{
    uint32_t p = wa__keys_page(k->cap), count = p ? k->cap : 16; /* as many as all before it */
    char *page = calloc(count, k->size);
    if (!page)
        return WA_ENOMEM;
    k->pages[p] = (uintptr_t)page - (uintptr_t)k->cap * k->size;
    k->cap += count;
    return 0;
}

int wa__keys_alloc(wa__keys *k, uint32_t *i)
{
    wa__keyslot *s;
    if (k->free_head != WA__KEYS_NONE) {
        *i = k->free_head;
        s = wa__keys_at(k, *i);
        k->free_head = s->next_free;
        uint32_t gen = s->gen;
        memset(s, 0, k->size);
        s->gen = gen;
    } else {
        if (k->n == k->max || (k->n == k->cap && wa__keys_grow(k) < 0))
            return WA_ENOMEM;
        *i = k->n++;
        s = wa__keys_at(k, *i); /* zero: a page is made zeroed */
        s->gen = 1;
    }
    s->live = 1;
    return 0;
}

void wa__keys_release(wa__keys *k, uint32_t i)
{
    wa__keyslot *s = wa__keys_at(k, i);
    s->live = 0;
    s->gen = (s->gen + 1) & k->gen_mask;
    if (!s->gen)
        s->gen = 1;
    s->next_free = k->free_head;
    k->free_head = i;
}
