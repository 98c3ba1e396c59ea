/* SPDX-License-Identifier: MIT */
/* The simulated host: a virtual clock that jumps to the next deadline. */
#include <stdlib.h>

#include "../core/rt.h"

typedef struct wa_sim {
    wa_backend base;
    uint64_t now;
} wa_sim;

static uint64_t wa_sim_now(wa_backend *b) { return ((wa_sim *)b)->now; }

static int wa_sim_wait(wa_backend *b, uint64_t deadline)
{
    wa_sim *s = (wa_sim *)b;
    if (deadline == WA_NEVER)
        return WA_EDEADLK; /* no source could ever end this wait */
    if (deadline > s->now)
        s->now = deadline;
    return 0;
}

static void wa_sim_free(wa_backend *b) { free(b); }

static void *wa_sim_cap(wa_backend *b, unsigned cap) { return cap == WA_CAP_SIM_CLOCK ? &((wa_sim *)b)->now : NULL; }

static const wa_backend_vt wa_sim_vt = {"sim", wa_sim_now, wa_sim_wait, NULL, wa_sim_free, wa_sim_cap, NULL};

wa_backend *wa_backend_sim_new(uint64_t seed)
{
    wa_sim *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->base.vt = &wa_sim_vt;
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
