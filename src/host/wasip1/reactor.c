/* SPDX-License-Identifier: MIT */
/* WASI 0.1 backend: poll_oneoff. One clock subscription carries the
 * runtime's earliest deadline, as a relative timeout (Node's WASI hangs on
 * absolute ones); each fd direction that a task waits on is an fd_read or
 * fd_write subscription. poll_oneoff is level-triggered and takes its list
 * anew each call, so only the directions with a waiter go in it. */
#include <stdlib.h>
#include <wasi/api.h>

#include "../../reactor/regs.h"

typedef struct wa__p1 {
    wa_backend base;
    wa_regs regs;
    __wasi_subscription_t *subs;
    __wasi_event_t *events;
    size_t cap;
} wa__p1;

static uint64_t wa__p1_now(wa_backend *b)
{
    (void)b;
    __wasi_timestamp_t t = 0;
    if (__wasi_clock_time_get(__WASI_CLOCKID_MONOTONIC, 1, &t) != 0)
        abort(); /* a WASI host without a monotonic clock: nothing works */
    return t;
}

/* Room for n subscriptions and their events. */
static int wa__p1_reserve(wa__p1 *h, size_t n)
{
    if (n <= h->cap)
        return 0;
    __wasi_subscription_t *s = realloc(h->subs, n * sizeof *s);
    if (s)
        h->subs = s;
    __wasi_event_t *e = realloc(h->events, n * sizeof *e);
    if (e)
        h->events = e;
    if (!s || !e)
        return WA_ENOMEM;
    h->cap = n;
    return 0;
}

/* Appends a subscription for the direction of g someone waits on; its
 * userdata is g's generation << 32 | slot << 1 | write (never the
 * deadline's UINT64_MAX: generations are 24 bits). */
static void wa__p1_subscribe(wa__p1 *h, size_t *n, uint32_t i, const wa__reg *g, int write)
{
    __wasi_subscription_t *s = &h->subs[(*n)++];
    s->userdata = ((uint64_t)g->slot.gen << 32) | (uint64_t)i << 1 | (uint64_t)write;
    s->u.tag = write ? __WASI_EVENTTYPE_FD_WRITE : __WASI_EVENTTYPE_FD_READ;
    s->u.u.fd_read.file_descriptor = (__wasi_fd_t)g->id; /* (fd_write's is the same) */
}

static int wa__p1_wait(wa_backend *b, uint64_t deadline)
{
    wa__p1 *h = (wa__p1 *)b;
    if (wa__p1_reserve(h, 1 + 2 * (size_t)h->regs.keys.n) < 0)
        return WA_ENOMEM;
    size_t n = 0;
    for (uint32_t i = 0; i < h->regs.keys.n; i++) {
        const wa__reg *g = wa__regs_at(&h->regs, i);
        unsigned want = g->slot.live ? wa__reg_wanted(g) : 0;
        if (want & WA_READABLE)
            wa__p1_subscribe(h, &n, i, g, 0);
        if (want & WA_WRITABLE)
            wa__p1_subscribe(h, &n, i, g, 1);
    }
    if (deadline != WA_NEVER) {
        uint64_t now = wa__p1_now(b);
        __wasi_subscription_t *s = &h->subs[n++];
        *s = (__wasi_subscription_t){.userdata = UINT64_MAX, .u.tag = __WASI_EVENTTYPE_CLOCK};
        s->u.u.clock.id = __WASI_CLOCKID_MONOTONIC;
        /* whole milliseconds, rounded up: Node's WASI counts in them,
         * truncating, and would end the wait early, again and again */
        uint64_t ms = deadline > now ? (deadline - now + 999999) / 1000000 : 0;
        s->u.u.clock.timeout = ms * 1000000;
    } else if (n == 0) {
        return WA_EDEADLK; /* registered fds, but nobody waits on one */
    }
    __wasi_size_t got = 0;
    __wasi_errno_t err = __wasi_poll_oneoff(h->subs, h->events, n, &got);
    if (err)
        return err == __WASI_ERRNO_INTR ? 0 : WA_EIO;
    int deadline_hit = 0;
    for (__wasi_size_t k = 0; k < got; k++) {
        const __wasi_event_t *e = &h->events[k];
        if (e->userdata == UINT64_MAX) {
            deadline_hit = 1;
            continue;
        }
        int write = (int)(e->userdata & 1);
        wa__reg *g = wa__keys_get(&h->regs.keys, (uint32_t)e->userdata >> 1, (uint32_t)(e->userdata >> 32));
        if (g) /* (an error counts as ready: the I/O call reports it) */
            wa__regs_ready(&h->regs, g, write ? WA_WRITABLE : WA_READABLE);
    }
    return deadline_hit || deadline == 0 || deadline == WA_NEVER ? 0 : WA_WAIT_EARLY;
}

static void wa__p1_free(wa_backend *b)
{
    wa__p1 *h = (wa__p1 *)b;
    wa__regs_free(&h->regs);
    free(h->subs);
    free(h->events);
    free(h);
}

static void *wa__p1_cap(wa_backend *b, unsigned cap) { return cap == WA_CAP_FDS ? &((wa__p1 *)b)->regs : NULL; }

static const wa_backend_vt wa__p1_vt = {"wasip1", wa__p1_now, wa__p1_wait, NULL, wa__p1_free, wa__p1_cap, NULL};

/* The host needs no telling: each wait subscribes what is waited on. */
static const wa__regs_hooks wa__p1_hooks = {NULL, NULL, NULL, NULL, "fd ", wa__regs_dirs};

wa_backend *wa_backend_wasip1_new(int *err)
{
    wa__p1 *h = calloc(1, sizeof *h);
    if (!h) {
        if (err)
            *err = WA_ENOMEM;
        return NULL;
    }
    h->base.vt = &wa__p1_vt;
    h->base.resolution = WA_MS(1); /* poll_oneoff waits in whole ms here */
    wa__regs_init(&h->regs, &h->base, sizeof(wa__reg), &wa__p1_hooks);
    return &h->base;
}

/* The backend wa_rt_new gives on this host. */
wa_backend *wa__backend_default(int *err) { return wa_backend_wasip1_new(err); }
