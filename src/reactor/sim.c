/* SPDX-License-Identifier: MIT */
/* The simulated host: a virtual clock that jumps to the next deadline. */
#include <stdlib.h>

#include "../core/rt.h"

typedef struct wa__sim {
    wa_backend base;
    uint64_t now;
} wa__sim;

static uint64_t wa__sim_now(wa_backend *b) { return ((wa__sim *)b)->now; }

static int wa__sim_wait(wa_backend *b, uint64_t deadline)
{
    wa__sim *s = (wa__sim *)b;
    if (deadline == WA_NEVER)
        return WA_EDEADLK; /* no source could ever end this wait */
    if (deadline > s->now)
        s->now = deadline;
    return 0;
}

static void wa__sim_free(wa_backend *b) { free(b); }

static void *wa__sim_cap(wa_backend *b, unsigned cap) { return cap == WA_CAP_SIM_CLOCK ? &((wa__sim *)b)->now : NULL; }

static const wa_backend_vt wa__sim_vt = {"sim", wa__sim_now, wa__sim_wait, NULL, wa__sim_free, wa__sim_cap, NULL};

wa_backend *wa_backend_sim_new(uint64_t seed)
{
    wa__sim *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->base.vt = &wa__sim_vt;
    s->base.seed = seed;
    return &s->base;
}

int wa_sim_advance(wa_backend *b, uint64_t ns)
{
    uint64_t *now = wa_backend_cap(b, WA_CAP_SIM_CLOCK);
    if (!now)
        return wa_misuse(WA_EINVAL, "wa_sim_advance on a backend that is not sim");
    *now += ns;
    return 0;
}
