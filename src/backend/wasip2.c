/* The WASI 0.2 host: wasi:io/poll with a persistent set of pollables.
 *
 * Registrations live in a slab of slots (keys.h: slot, tag, generation).
 * Only the pollables that a future waits on are "armed": they sit in a
 * dense array, with a parallel array of their slots, and that array is
 * what poll() gets, without rebuilding anything; arming appends, disarming
 * swaps the last one into the hole. An unarmed pollable is left out so that
 * a ready source nobody waits on cannot turn every wait into a busy loop.
 * The runtime's earliest deadline is one subscribe-instant pollable, kept
 * while the deadline stays the same and put last in the array for a wait.
 */
#include <stdlib.h>

#include "../core/keys.h"
#include "../core/rt.h"
#include "../wasi/cabi.h"
#include "../wasi/clocks.h"
#include "../wasi/io.h"
#include "waits.h"
#include "wasync/wasi.h"

#define WA_P2_NONE UINT32_MAX

typedef struct wa_p2_slot {
    wa_keyslot slot;
    wa_p2_pollable pollable;
    uint32_t dense;      /* index in the armed array, or WA_P2_NONE */
    wa_wait_link *waits; /* the wa_pollable_waits pending on it */
} wa_p2_slot;

typedef struct wa_p2 {
    wa_backend base;
    wa_keys slots;         /* 64-bit keys (keys.h) */
    wa_p2_pollable *armed; /* + one cell for the timer */
    uint32_t *armed_slot;
    uint32_t narmed, armed_cap;
    wa_p2_pollable timer;
    uint64_t timer_at;     /* WA_NEVER: no timer pollable */
    wa_wasip2_stats stats;
} wa_p2;

static uint64_t wa_p2_clock(wa_backend *b)
{
    ((wa_p2 *)b)->stats.nows++;
    return wa_p2_now();
}

static void wa_p2_drop_pollable(wa_p2 *h, wa_p2_pollable p)
{
    h->stats.drops++;
    wa_p2_pollable_drop(p);
}

static void wa_p2_disarm(wa_p2 *h, wa_p2_slot *s)
{
    uint32_t i = s->dense, last = --h->narmed;
    if (i != last) {
        h->armed[i] = h->armed[last];
        h->armed_slot[i] = h->armed_slot[last];
        ((wa_p2_slot *)wa_keys_at(&h->slots, h->armed_slot[i]))->dense = i;
    }
    s->dense = WA_P2_NONE;
    h->base.sources--;
}

static int wa_p2_arm(wa_p2 *h, wa_p2_slot *s, uint32_t index)
{
    if (h->narmed + 1 >= h->armed_cap) { /* keep a cell for the timer */
        uint32_t cap = h->armed_cap ? h->armed_cap * 2 : 16;
        wa_p2_pollable *a = realloc(h->armed, cap * sizeof *a);
        if (a)
            h->armed = a;
        uint32_t *k = realloc(h->armed_slot, cap * sizeof *k);
        if (k)
            h->armed_slot = k;
        if (!a || !k)
            return WA_ENOMEM;
        h->armed_cap = cap;
    }
    s->dense = h->narmed++;
    h->armed[s->dense] = s->pollable;
    h->armed_slot[s->dense] = index;
    h->base.sources++;
    return 0;
}

/* The pollable that ends this wait: the runtime's deadline (kept for the
 * next wait while it stays the same), or one that is ready at once. */
static wa_p2_pollable wa_p2_deadline(wa_p2 *h, uint64_t deadline)
{
    if (deadline == 0) {
        h->stats.subscribes++;
        return wa_p2_subscribe_duration(0);
    }
    if (h->timer_at != deadline) {
        if (h->timer_at != WA_NEVER)
            wa_p2_drop_pollable(h, h->timer);
        h->stats.subscribes++;
        h->timer = wa_p2_subscribe_instant(deadline);
        h->timer_at = deadline;
    }
    return h->timer;
}

static int wa_p2_wait(wa_backend *b, uint64_t deadline)
{
    wa_p2 *h = (wa_p2 *)b;
    if (deadline == 0 && h->narmed == 0)
        return 0; /* nothing could be ready */
    uint32_t n = h->narmed;
    if (deadline != WA_NEVER)
        h->armed[n++] = wa_p2_deadline(h, deadline);
    else if (n == 0)
        return WA_EDEADLK;
    h->stats.polls++;
    size_t nready;
    uint32_t *ready = wa_p2_poll(h->armed, n, &nready);
    /* The indices refer to the array as it was: take their slots first,
     * then disarm and wake (which reorders it). */
    uint32_t narmed = h->narmed;
    int deadline_hit = 0;
    for (size_t i = 0; i < nready; i++) {
        if (ready[i] < narmed)
            ready[i] = h->armed_slot[ready[i]];
        else
            deadline_hit = 1, ready[i] = WA_P2_NONE;
    }
    for (size_t i = 0; i < nready; i++) {
        if (ready[i] == WA_P2_NONE)
            continue;
        wa_p2_slot *s = (wa_p2_slot *)wa_keys_at(&h->slots, ready[i]);
        wa_p2_disarm(h, s);
        while (s->waits) /* every one waiting: each tries its I/O */
            wa_wait_wake(&s->waits, s->waits, &WA_WAIT_OF(s->waits, wa_pollable_wait)->state, WA_WAIT_HANDED);
    }
    wa_p2_host_free(ready, nready);
    if (deadline == 0) {
        wa_p2_drop_pollable(h, h->armed[narmed]);
    } else if (deadline_hit && deadline != WA_NEVER) {
        wa_p2_drop_pollable(h, h->timer); /* an instant that passed stays ready */
        h->timer_at = WA_NEVER;
    }
    /* The timer pollable was not ready: the tick after this wait has no
     * timer to fire, and need not read the clock to know it. */
    return deadline_hit || deadline == 0 || deadline == WA_NEVER ? 0 : WA_WAIT_EARLY;
}

static void wa_p2_free(wa_backend *b)
{
    wa_p2 *h = (wa_p2 *)b;
    for (uint32_t i = 0; i < h->slots.n; i++) {
        wa_p2_slot *s = (wa_p2_slot *)wa_keys_at(&h->slots, i);
        if (s->slot.live) /* (its waits went with their tasks) */
            wa_p2_drop_pollable(h, s->pollable);
    }
    if (h->timer_at != WA_NEVER)
        wa_p2_drop_pollable(h, h->timer);
    wa_keys_free(&h->slots);
    free(h->armed);
    free(h->armed_slot);
    free(h);
}

static const wa_backend_vt wa_p2_vt = {"wasip2", wa_p2_clock, wa_p2_wait, NULL, wa_p2_free, NULL};

wa_backend *wa_backend_wasip2_new(int *err)
{
    wa_p2 *h = calloc(1, sizeof *h);
    if (!h) {
        if (err)
            *err = WA_ENOMEM;
        return NULL;
    }
    h->base.vt = &wa_p2_vt;
    h->base.resolution = WA_MS(1); /* jco's clock pollables are setTimeouts */
    h->timer_at = WA_NEVER;
    wa_keys_init(&h->slots, sizeof(wa_p2_slot), WA_KEY_GENS, WA_KEY_SLOTS);
    return &h->base;
}

static wa_p2 *wa_p2_of(wa_rt *rt)
{
    return rt->backend->vt == &wa_p2_vt ? (wa_p2 *)rt->backend : NULL;
}

static wa_p2_slot *wa_p2_lookup(wa_p2 *h, wa_pollable_key key)
{
    return h ? wa_keys_find(&h->slots, key) : NULL;
}

int wa_pollable_register(wa_rt *rt, uint32_t p, wa_pollable_key *key)
{
    wa_p2 *h = wa_p2_of(rt);
    uint32_t i;
    int rc = !h ? WA_ENOSYS : wa_keys_alloc(&h->slots, &i) < 0 ? WA_ENOMEM : 0;
    if (rc < 0) {
        wa_p2_pollable_drop(p); /* taken, also on failure */
        return rc;
    }
    wa_p2_slot *s = (wa_p2_slot *)wa_keys_at(&h->slots, i);
    s->pollable = p;
    s->dense = WA_P2_NONE;
    *key = wa_keys_key(&h->slots, i);
    return 0;
}

int wa_pollable_deregister(wa_rt *rt, wa_pollable_key key)
{
    wa_p2 *h = wa_p2_of(rt);
    if (!h)
        return WA_ENOSYS;
    wa_p2_slot *s = wa_p2_lookup(h, key);
    if (!s)
        return wa_misuse_in_(WA_ESTALE, "wa_pollable_deregister", "a key that is stale or another runtime's");
    if (s->dense != WA_P2_NONE)
        wa_p2_disarm(h, s);
    while (s->waits) /* their next poll sees WA_ECLOSED */
        wa_wait_wake(&s->waits, s->waits, &WA_WAIT_OF(s->waits, wa_pollable_wait)->state, 0);
    wa_p2_drop_pollable(h, s->pollable);
    wa_keys_release(&h->slots, wa_key_slot(key));
    return 0;
}

static int wa_pollable_wait_poll(wa_future *f, wa_cx *cx)
{
    wa_pollable_wait *w = (wa_pollable_wait *)f;
    if (wa_wait_handed(&w->state)) /* by a wait of the backend */
        return WA_READY;
    wa_p2 *h = wa_p2_of(cx->rt);
    wa_p2_slot *s = wa_p2_lookup(h, w->key);
    if (!s) {
        if (!h)
            return WA_ENOSYS;
        return w->rt ? WA_ECLOSED : wa_misuse_in_(WA_ESTALE, "pollable wait", "a key that is stale or another runtime's");
    }
    w->rt = cx->rt;
    if (s->dense == WA_P2_NONE && wa_p2_arm(h, s, wa_key_slot(w->key)) < 0)
        return WA_ENOMEM;
    wa_wait_join(&s->waits, &w->link, &w->state, cx);
    return WA_PENDING;
}

static void wa_pollable_wait_drop(wa_future *f)
{
    wa_pollable_wait *w = (wa_pollable_wait *)f;
    /* (queued only while its slot lives: found by its key) */
    wa_p2 *h = (w->state & WA_WAIT_QUEUED) ? wa_p2_of(w->rt) : NULL;
    wa_p2_slot *s = h ? wa_p2_lookup(h, w->key) : NULL;
    wa_wait_leave(s ? &s->waits : NULL, &w->link, &w->state);
    if (s && !s->waits && s->dense != WA_P2_NONE) /* nobody waits: out of polls */
        wa_p2_disarm(h, s);
    w->rt = NULL;
}

static const wa_future_vt wa_pollable_wait_vt = {wa_pollable_wait_poll, wa_pollable_wait_drop,
                                                 "pollable_wait"};

wa_future *wa_pollable_wait_init(wa_pollable_wait *w, wa_pollable_key key)
{
    w->fut.vt = &wa_pollable_wait_vt;
    w->key = key;
    w->rt = NULL;
    w->state = 0;
    wa_wait_link_init(&w->link);
    return &w->fut;
}

int wa_wasip2_stats_get(wa_rt *rt, wa_wasip2_stats *st)
{
    wa_p2 *h = wa_p2_of(rt);
    if (!h)
        return WA_ENOSYS;
    *st = h->stats;
    return 0;
}

/* Where the streams of rt (wasi_stream.c) count their waits; NULL on
 * another backend. */
wa_wasip2_stats *wa_wasip2_stats_of_(wa_rt *rt);
wa_wasip2_stats *wa_wasip2_stats_of_(wa_rt *rt)
{
    wa_p2 *h = wa_p2_of(rt);
    return h ? &h->stats : NULL;
}
