/* SPDX-License-Identifier: MIT */
/* The baseline poller, written in C after the Poller/Reactor design of
 * "Designing an Async Runtime for WASI 0.2" (2024-02-29): a slab of
 * registered pollables, and on every wait a fresh list of the pollables
 * waited on plus a fresh lookup table (list position -> slab key), built by
 * walking the whole slab: O(K) work per wait however few are ready. The
 * ready indices from poll() are mapped back through the table and the
 * wakers woken.
 *
 * Where it is kinder than the document's Rust (so it is a lower bound):
 * the waker lives in the slab entry instead of a HashMap<EventKey, Waker>
 * (no hashing per poll or per wake), and a poll of the wait does not call
 * pollable.ready() on the host. Like the document's Vec::with_capacity
 * pair, the two arrays are allocated and freed on every wait. With a
 * deadline it subscribes an instant for that wait, puts it last, and drops
 * it afterwards (the document has no timers; this is the plain way).
 */
#include "naive.h"

#include <stdlib.h>

typedef struct naive_entry {
    wa__wasip2_pollable pollable;
    uint32_t next_free;
    uint8_t live, waiting, ready;
    wa_waker waker;
} naive_entry;

struct naive {
    naive_entry *e;
    uint32_t n, cap, free_head;
};

#define NAIVE_NONE UINT32_MAX

naive *naive_new(void)
{
    naive *h = calloc(1, sizeof *h);
    if (h)
        h->free_head = NAIVE_NONE;
    return h;
}

void naive_free(naive *h)
{
    for (uint32_t i = 0; i < h->n; i++)
        if (h->e[i].live)
            naive_deregister(h, i);
    free(h->e);
    free(h);
}

uint32_t naive_register(naive *h, wa__wasip2_pollable p)
{
    uint32_t k = h->free_head;
    if (k == NAIVE_NONE) {
        if (h->n == h->cap) {
            uint32_t cap = h->cap ? h->cap * 2 : 16;
            naive_entry *e = realloc(h->e, cap * sizeof *e);
            if (!e)
                return NAIVE_NONE;
            h->e = e;
            h->cap = cap;
        }
        k = h->n++;
    } else {
        h->free_head = h->e[k].next_free;
    }
    h->e[k] = (naive_entry){.pollable = p, .next_free = NAIVE_NONE, .live = 1};
    return k;
}

void naive_deregister(naive *h, uint32_t key)
{
    naive_entry *e = &h->e[key];
    wa_waker_drop(&e->waker);
    wa__wasip2_pollable_drop(e->pollable);
    e->live = e->waiting = e->ready = 0;
    e->next_free = h->free_head;
    h->free_head = key;
}

int naive_wait_poll(naive *h, uint32_t key, const wa_waker *waker)
{
    naive_entry *e = &h->e[key];
    if (e->ready) {
        e->ready = 0;
        return WA_READY;
    }
    if (!wa_waker_will_wake(&e->waker, waker)) {
        wa_waker_drop(&e->waker);
        e->waker = wa_waker_clone(waker);
    }
    e->waiting = 1;
    return WA_PENDING;
}

int naive_block_until(naive *h, uint64_t deadline)
{
    /* The fresh list and lookup table (one more cell for the deadline). */
    wa__wasip2_pollable *targets = malloc((h->n + 1) * sizeof *targets);
    uint32_t *indexes = malloc((h->n + 1) * sizeof *indexes);
    if (!targets || !indexes)
        abort();
    uint32_t n = 0;
    for (uint32_t i = 0; i < h->n; i++) {
        if (h->e[i].live && h->e[i].waiting) {
            indexes[n] = i;
            targets[n++] = h->e[i].pollable;
        }
    }
    uint32_t total = n;
    if (deadline == 0)
        targets[total++] = wa__wasip2_subscribe_duration(0);
    else if (deadline != UINT64_MAX)
        targets[total++] = wa__wasip2_subscribe_instant(deadline);
    if (total == 0) {
        free(targets);
        free(indexes);
        return -1;
    }
    size_t nready;
    uint32_t *ready = wa__wasip2_poll(targets, total, &nready);
    for (size_t i = 0; i < nready; i++) {
        if (ready[i] >= n)
            continue; /* the deadline */
        naive_entry *e = &h->e[indexes[ready[i]]];
        e->waiting = 0;
        e->ready = 1;
        wa_waker_wake(&e->waker);
    }
    free(ready);
    if (total > n)
        wa__wasip2_pollable_drop(targets[n]);
    free(targets);
    free(indexes);
    return 0;
}
