/* SPDX-License-Identifier: MIT */
/* The JavaScript host's one runtime: made on the JS reactor by the glue's
 * wasync_init, ticked by its wasync_tick (exports.c), returned by
 * wa_js_rt. The layer above the executor and the reactor: it calls both,
 * and neither calls it. */
#include "../../core/rt.h"
#include "reactor.h"

static wa_rt *wa_js_runtime;

wa_rt *wa_js_rt(void) { return wa_js_runtime; }

int wa_js_start_(void)
{
    if (wa_js_runtime)
        return 0;
    int err = WA_ENOMEM;
    wa_backend *b = wa_backend_js_new_(&err);
    return b ? wa_rt_new_on(&wa_js_runtime, b) : err;
}

int wa_js_tick_(void)
{
    if (!wa_js_runtime)
        return WA_EINVAL;
    uint64_t deadline;
    int runnable = wa_rt_tick(wa_js_runtime, &deadline);
    wa_js_arm_(deadline);
    return runnable;
}
