/* SPDX-License-Identifier: MIT */
/* Internal: a table of slots addressed by keys with a generation, the one
 * used by every backend for what it hands out (fd registrations, pollables,
 * host operations, promise handles). A freed slot's generation moves on, so
 * every key to it goes stale and is detected instead of trusted. Slots are
 * of any size; each starts with a wa__keyslot. The table grows by pages
 * that never move, each as large as all before it (16 slots, 16, 32, 64,
 * ...): growing copies nothing, touches only the new page's memory, and a
 * slot's address holds while it lives. */
#ifndef WASYNC_CORE_KEYS_H
#define WASYNC_CORE_KEYS_H

#include <stddef.h>
#include <stdint.h>

typedef struct wa__keyslot {
    uint32_t gen;       /* >= 1 */
    uint32_t next_free; /* while free */
    int live;
} wa__keyslot;

/* Pages of the table: page 0 holds slots 0-15, page p > 0 slots
 * [8 << p, 16 << p); 29 of them hold any 32-bit index. */
#define WA__KEYS_PAGES 29

typedef struct wa__keys {
    /* page p's address less its first slot's offset in the table, so that
     * slot i is at pages[p] + i * size */
    uintptr_t pages[WA__KEYS_PAGES];
    size_t size;        /* bytes per slot */
    uint32_t n, free_head;
    uint32_t cap;       /* slots in the pages made */
    uint32_t gen_mask;  /* generations wrap within it (never to 0) */
    uint32_t max;       /* slots at most */
    uint32_t tag;       /* this table's, in its 64-bit keys (never 0) */
} wa__keys;

/* An empty table of at most max slots of size bytes, generations within
 * gen_mask, with a tag of its own for its 64-bit keys. */
void wa__keys_init(wa__keys *k, size_t size, uint32_t gen_mask, uint32_t max);

/* 64-bit keys: the slot (bits 0-23), the table's tag (24-39) and the
 * generation (40-63). The tag makes a key of one runtime's table a stale
 * key in every other's, instead of a valid one for the wrong fd. */
#define WA__KEY_SLOTS (1u << 24)
#define WA__KEY_GENS ((1u << 24) - 1)

void wa__keys_free(wa__keys *k);

/* The page of slot i: 0 below 16, else log2(i) - 3 (i | 8: never 0). */
static inline uint32_t wa__keys_page(uint32_t i) { return 28 - (uint32_t)__builtin_clz(i | 8); }

static inline wa__keyslot *wa__keys_at(const wa__keys *k, uint32_t i)
{
    return (wa__keyslot *)(k->pages[wa__keys_page(i)] + (uintptr_t)i * k->size);
}

static inline uint64_t wa__keys_key(const wa__keys *k, uint32_t i)
{
    return (uint64_t)wa__keys_at(k, i)->gen << 40 | (uint64_t)k->tag << 24 | i;
}

/* A fresh live slot: its index in *i (its generation is in the slot), or
 * WA_ENOMEM (also past max slots). The rest of the slot is zeroed. */
int wa__keys_alloc(wa__keys *k, uint32_t *i);

/* Frees live slot i: keys to it go stale. */
void wa__keys_release(wa__keys *k, uint32_t i);

/* The live slot i of generation gen, or NULL (stale or out of range). */
static inline void *wa__keys_get(const wa__keys *k, uint32_t i, uint32_t gen)
{
    if (i >= k->n)
        return NULL;
    wa__keyslot *s = wa__keys_at(k, i);
    return s->live && s->gen == gen ? s : NULL;
}

/* The slot index of a 64-bit key. */
static inline uint32_t wa__key_slot(uint64_t key) { return (uint32_t)key & (WA__KEY_SLOTS - 1); }

/* The live slot a 64-bit key of this table names, or NULL (stale, or a
 * key of another table). */
static inline void *wa__keys_find(const wa__keys *k, uint64_t key)
{
    if ((uint32_t)(key >> 24 & 0xffff) != k->tag)
        return NULL;
    return wa__keys_get(k, wa__key_slot(key), (uint32_t)(key >> 40));
}

#endif
