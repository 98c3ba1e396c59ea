/* SPDX-License-Identifier: MIT */
/* The JavaScript host's one runtime: made on the JS reactor by the glue's
 * wasync_init, ticked by its wasync_tick (exports.c), returned by
 * wa_js_rt. The layer above the executor and the reactor: it calls both,
 * and neither calls it. */
#include "../../core/rt.h"
#include "reactor.h"

static wa_rt *wa__js_runtime;

wa_rt *wa_js_rt(void) { return wa__js_runtime; }

int wa__js_start(void)
{
    if (wa__js_runtime)
        return 0;
    int err = WA_ENOMEM;
    wa_backend *b = wa__backend_js_new(&err);
    return b ? wa_rt_new_on(&wa__js_runtime, b) : err;
}

int wa__js_tick(void)
{
    if (!wa__js_runtime)
        return WA_EINVAL;
    uint64_t deadline;
    int runnable = wa_rt_tick(wa__js_runtime, &deadline);
    wa__js_arm(deadline);
    return runnable;
}
