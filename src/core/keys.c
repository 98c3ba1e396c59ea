/* SPDX-License-Identifier: MIT */
/* Generation-keyed slot tables (keys.h). */
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "keys.h"
#include "wasync/error.h"

#define WA_KEYS_NONE UINT32_MAX

/* Tags for new tables, process-wide (runtimes may start on any thread). */
static uint32_t wa_keys_tags;

void wa_keys_init(wa_keys *k, size_t size, uint32_t gen_mask, uint32_t max)
{
    memset(k, 0, sizeof *k);
    k->size = size;
    k->free_head = WA_KEYS_NONE;
    k->gen_mask = gen_mask;
    k->max = max;
    do
        k->tag = __atomic_add_fetch(&wa_keys_tags, 1, __ATOMIC_RELAXED) & 0xffff;
    while (k->tag == 0);
}

void wa_keys_free(wa_keys *k)
{
    free(k->slots);
    k->slots = NULL;
    k->n = k->cap = 0;
}

int wa_keys_alloc(wa_keys *k, uint32_t *i)
{
    if (k->free_head == WA_KEYS_NONE) {
        if (k->n == k->max)
            return WA_ENOMEM;
        if (wa_grow_(&k->slots, k->size, &k->cap, (size_t)k->n + 1, 16, k->max) < 0)
            return WA_ENOMEM;
        wa_keyslot *s = wa_keys_at(k, k->n);
        s->gen = 1;
        s->live = 0;
        s->next_free = WA_KEYS_NONE; /* not 0: that would free slot 0 again */
        k->free_head = k->n++;
    }
    *i = k->free_head;
    wa_keyslot *s = wa_keys_at(k, *i);
    k->free_head = s->next_free;
    uint32_t gen = s->gen;
    memset(s, 0, k->size);
    s->gen = gen;
    s->live = 1;
    return 0;
}

void wa_keys_release(wa_keys *k, uint32_t i)
{
    wa_keyslot *s = wa_keys_at(k, i);
    s->live = 0;
    s->gen = (s->gen + 1) & k->gen_mask;
    if (!s->gen)
        s->gen = 1;
    s->next_free = k->free_head;
    k->free_head = i;
}
