/* SPDX-License-Identifier: MIT */
/* Generation-keyed slot tables (keys.h). */
#include <stdlib.h>
#include <string.h>

#include "grow.h"
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
    free(k->slots);
    k->slots = NULL;
    k->n = k->cap = 0;
}

int wa__keys_alloc(wa__keys *k, uint32_t *i)
{
    if (k->free_head == WA__KEYS_NONE) {
        if (k->n == k->max)
            return WA_ENOMEM;
        if (wa__grow(&k->slots, k->size, &k->cap, (size_t)k->n + 1, 16, k->max) < 0)
            return WA_ENOMEM;
        wa__keyslot *s = wa__keys_at(k, k->n);
        s->gen = 1;
        s->live = 0;
        s->next_free = WA__KEYS_NONE; /* not 0: that would free slot 0 again */
        k->free_head = k->n++;
    }
    *i = k->free_head;
    wa__keyslot *s = wa__keys_at(k, *i);
    k->free_head = s->next_free;
    uint32_t gen = s->gen;
    memset(s, 0, k->size);
    s->gen = gen;
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
