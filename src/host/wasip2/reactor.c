/* SPDX-License-Identifier: MIT */
/* The WASI 0.2 host: wasi:io/poll with a persistent set of pollables.
 *
 * Registrations live in the backend's registration table (regs.c).
 * Only the pollables that a future waits on are "armed": they sit in a
 * dense array, with a parallel array of their slots, and that array is
 * what poll() gets, without rebuilding anything; arming appends, disarming
 * swaps the last one into the hole. An unarmed pollable is left out so that
 * a ready source nobody waits on cannot turn every wait into a busy loop.
 * The runtime's earliest deadline is one subscribe-instant pollable, kept
 * while the deadline stays the same and put last in the array for a wait.
 */
#include <stdlib.h>

#include "../../core/grow.h"
#include "../../reactor/regs.h"
#include "../../wasi/cabi.h"
#include "clocks.h"
#include "io.h"
#include "wasync/wasi.h"

#define WA__WASIP2_NONE UINT32_MAX

typedef struct wa__wasip2_reg {
    wa__reg reg;     /* its id: the pollable */
    uint32_t dense; /* index in the armed array, while armed */
} wa__wasip2_reg;

typedef struct wa__wasip2 {
    wa_backend base;
    wa_regs regs;          /* of wa__wasip2_regs */
    wa__wasip2_pollable *armed; /* + one cell for the timer */
    uint32_t *armed_slot;
    uint32_t narmed;
    size_t armed_cap;
    wa__wasip2_pollable timer;
    uint64_t timer_at;     /* WA_NEVER: no timer pollable */
    wa_wasip2_stats stats;
} wa__wasip2;

static uint64_t wa__wasip2_clock(wa_backend *b)
{
    ((wa__wasip2 *)b)->stats.nows++;
    return wa__wasip2_now();
}

static void wa__wasip2_drop_pollable(wa__wasip2 *h, wa__wasip2_pollable p)
{
    h->stats.drops++;
    wa__wasip2_pollable_drop(p);
}

/* The regs hooks: a registration's pollable is dropped with it, and is in
 * the armed array while someone waits on it. */
static void wa__wasip2_del(wa_backend *b, wa__reg *g) { wa__wasip2_drop_pollable((wa__wasip2 *)b, (wa__wasip2_pollable)g->id); }

static void wa__wasip2_disarm(wa_backend *b, wa__reg *g)
{
    wa__wasip2 *h = (wa__wasip2 *)b;
    wa__wasip2_reg *s = (wa__wasip2_reg *)g;
    uint32_t i = s->dense, last = --h->narmed;
    if (i != last) {
        h->armed[i] = h->armed[last];
        h->armed_slot[i] = h->armed_slot[last];
        ((wa__wasip2_reg *)wa__regs_at(&h->regs, h->armed_slot[i]))->dense = i;
    }
}

static int wa__wasip2_arm(wa_backend *b, wa__reg *g, uint32_t index)
{
    wa__wasip2 *h = (wa__wasip2 *)b;
    wa__wasip2_reg *s = (wa__wasip2_reg *)g;
    size_t need = (size_t)h->narmed + 2, cap = h->armed_cap; /* (a cell kept for the timer) */
    if (wa__grow(&h->armed, sizeof *h->armed, &cap, need, 16, UINT32_MAX) < 0 ||
        wa__grow(&h->armed_slot, sizeof *h->armed_slot, &h->armed_cap, need, 16, UINT32_MAX) < 0)
        return WA_ENOMEM; /* (armed may have grown: it is the larger, and grows again with the rest) */
    s->dense = h->narmed++;
    h->armed[s->dense] = (wa__wasip2_pollable)g->id;
    h->armed_slot[s->dense] = index;
    return 0;
}

static const wa__regs_hooks wa__wasip2_hooks = {NULL, wa__wasip2_del, wa__wasip2_arm, wa__wasip2_disarm,
                                                 "pollable ", NULL};

/* The pollable that ends this wait: the runtime's deadline (kept for the
 * next wait while it stays the same), or one that is ready at once. */
static wa__wasip2_pollable wa__wasip2_deadline(wa__wasip2 *h, uint64_t deadline)
{
    if (deadline == 0) {
        h->stats.subscribes++;
        return wa__wasip2_subscribe_duration(0);
    }
    if (h->timer_at != deadline) {
        if (h->timer_at != WA_NEVER)
            wa__wasip2_drop_pollable(h, h->timer);
        h->stats.subscribes++;
        h->timer = wa__wasip2_subscribe_instant(deadline);
        h->timer_at = deadline;
    }
    return h->timer;
}

static int wa__wasip2_wait(wa_backend *b, uint64_t deadline)
{
    wa__wasip2 *h = (wa__wasip2 *)b;
    if (deadline == 0 && h->narmed == 0)
        return 0; /* nothing could be ready */
    uint32_t n = h->narmed;
    if (deadline != WA_NEVER)
        h->armed[n++] = wa__wasip2_deadline(h, deadline);
    else if (n == 0)
        return WA_EDEADLK;
    h->stats.polls++;
    size_t nready;
    uint32_t *ready = wa__wasip2_poll(h->armed, n, &nready);
    /* The indices refer to the array as it was: take their slots first,
     * then wake (which disarms, reordering it). */
    uint32_t narmed = h->narmed;
    int deadline_hit = 0;
    for (size_t i = 0; i < nready; i++) {
        if (ready[i] < narmed)
            ready[i] = h->armed_slot[ready[i]];
        else
            deadline_hit = 1, ready[i] = WA__WASIP2_NONE;
    }
    for (size_t i = 0; i < nready; i++) {
        if (ready[i] == WA__WASIP2_NONE)
            continue;
        /* every one waiting: each tries its I/O */
        wa__regs_ready(&h->regs, wa__regs_at(&h->regs, ready[i]), WA__REG_READY);
    }
    wa__wasip2_host_free(ready, nready);
    if (deadline == 0) {
        wa__wasip2_drop_pollable(h, h->armed[narmed]);
    } else if (deadline_hit && deadline != WA_NEVER) {
        wa__wasip2_drop_pollable(h, h->timer); /* an instant that passed stays ready */
        h->timer_at = WA_NEVER;
    }
    /* The timer pollable was not ready: the tick after this wait has no
     * timer to fire, and need not read the clock to know it. */
    return deadline_hit || deadline == 0 || deadline == WA_NEVER ? 0 : WA_WAIT_EARLY;
}

static void wa__wasip2_free(wa_backend *b)
{
    wa__wasip2 *h = (wa__wasip2 *)b;
    wa__regs_free(&h->regs); /* drops the pollables still registered */
    if (h->timer_at != WA_NEVER)
        wa__wasip2_drop_pollable(h, h->timer);
    free(h->armed);
    free(h->armed_slot);
    free(h);
}

static void *wa__wasip2_cap(wa_backend *b, unsigned cap)
{
    wa__wasip2 *h = (wa__wasip2 *)b;
    return cap == WA_CAP_POLLABLES ? (void *)&h->regs : cap == WA_CAP_WASIP2_STATS ? (void *)&h->stats : NULL;
}

static const wa_backend_vt wa__wasip2_vt = {"wasip2", wa__wasip2_clock, wa__wasip2_wait, NULL, wa__wasip2_free, wa__wasip2_cap, NULL};

wa_backend *wa_backend_wasip2_new(int *err)
{
    wa__wasip2 *h = calloc(1, sizeof *h);
    if (!h) {
        if (err)
            *err = WA_ENOMEM;
        return NULL;
    }
    h->base.vt = &wa__wasip2_vt;
    h->base.resolution = WA_MS(1); /* jco's clock pollables are setTimeouts */
    h->timer_at = WA_NEVER;
    wa__regs_init(&h->regs, &h->base, sizeof(wa__wasip2_reg), &wa__wasip2_hooks);
    return &h->base;
}

int wa_pollable_register(wa_rt *rt, uint32_t p, wa_pollable_key *key)
{
    int rc = wa__regs_register(rt, WA_CAP_POLLABLES, p, key);
    if (rc < 0)
        wa__wasip2_pollable_drop(p); /* taken, also on failure */
    return rc;
}

int wa_pollable_deregister(wa_rt *rt, wa_pollable_key key)
{
    return wa__regs_deregister(rt, WA_CAP_POLLABLES, key, "wa_pollable_deregister");
}

static int wa__pollable_wait_poll(wa_future *f, wa_cx *cx) { return wa__reg_wait_poll(f, cx, WA_CAP_POLLABLES); }

static size_t wa__pollable_wait_describe(const wa_future *f, uint64_t now, char *buf, size_t len)
{
    (void)now;
    return wa__reg_wait_describe(f, "pollable ", NULL, buf, len);
}

static const wa_future_vt wa__pollable_wait_vt = {wa__pollable_wait_poll, wa__reg_wait_drop, "pollable_wait", NULL,
                                                wa__pollable_wait_describe};

wa_future *wa_pollable_wait_init(wa_pollable_wait *w, wa_pollable_key key)
{
    return wa__reg_wait_init(w, &wa__pollable_wait_vt, key, WA__REG_READY);
}

/* Where the streams of rt (stream.c) count their waits; NULL on
 * another backend. */
wa_wasip2_stats *wa__wasip2_stats_of(wa_rt *rt);
wa_wasip2_stats *wa__wasip2_stats_of(wa_rt *rt) { return wa_backend_cap(rt->backend, WA_CAP_WASIP2_STATS); }

int wa_wasip2_stats_get(wa_rt *rt, wa_wasip2_stats *st)
{
    wa_wasip2_stats *s = wa__wasip2_stats_of(rt);
    if (!s)
        return WA_ENOSYS;
    *st = *s;
    return 0;
}

/* The backend wa_rt_new gives on this host. */
wa_backend *wa__backend_default(int *err) { return wa_backend_wasip2_new(err); }
