/* SPDX-License-Identifier: MIT */
/* Small futures shared by the tests. */
#ifndef WASYNC_TESTS_FUTURES_H
#define WASYNC_TESTS_FUTURES_H

#include "check.h"

/* The order things happened in, one character each: compare with strcmp. */
static char trail[256];
static inline void mark(char c)
{
    size_t n = strlen(trail);
    if (n + 1 < sizeof trail) {
        trail[n] = c;
        trail[n + 1] = 0;
    }
}

/* Never completes; counts its drops in *drops. */
typedef struct never {
    wa_future fut;
    int *drops;
} never;

static int never_poll(wa_future *f, wa_cx *cx)
{
    (void)f;
    (void)cx;
    return WA_PENDING;
}
static void never_drop(wa_future *f) { (*((never *)f)->drops)++; }
static const wa_future_vt never_vt = {never_poll, never_drop, "never"};

static inline wa_future *never_init(never *n, int *drops)
{
    n->fut.vt = &never_vt;
    n->drops = drops;
    return &n->fut;
}

/* Sleeps ns (or until ns, if absolute), then records the time it woke in
 * *woke (if not NULL) and finishes with status rc. Counts its drops in
 * *drops (if not NULL). */
typedef struct sleeper {
    WA_CORO;
    wa_sleep s;
    uint64_t ns;
    int rc, absolute;
    uint64_t *woke;
    int *drops;
} sleeper;

static int sleeper_poll(wa_future *f, wa_cx *cx)
{
    sleeper *t = (sleeper *)f;
    WA_BEGIN(t, cx);
    WA_AWAIT(t->absolute ? wa_sleep_until_init(&t->s, t->ns) : wa_sleep_init(&t->s, t->ns));
    if (t->woke)
        *t->woke = wa_now(cx->rt);
    WA_RETURN(t->rc);
    WA_END();
}
static void sleeper_drop(wa_future *f)
{
    sleeper *t = (sleeper *)f;
    if (t->drops)
        (*t->drops)++;
    wa_coro_drop(f);
}
static const wa_future_vt sleeper_vt = {sleeper_poll, sleeper_drop, "sleeper"};

static inline wa_future *sleeper_init(sleeper *t, uint64_t ns, int rc)
{
    wa_coro_init(&t->wa, &sleeper_vt);
    t->ns = ns;
    t->rc = rc;
    t->absolute = 0;
    t->woke = NULL;
    t->drops = NULL;
    return &t->wa.fut;
}

#endif
