/* SPDX-License-Identifier: MIT */
/* The JavaScript host's export ABI: the functions the glue (js/wasync.mjs)
 * calls, and nothing else does (include/wasync/js.h lists them). Each hands
 * its call to the layer it is for: the module's runtime (runtime.c) starts
 * and ticks, the host operations (ops.c) take the host's results. The glue
 * never calls them from inside an import, so none of them re-enters another.
 */
#include <stdlib.h>

#include "ops.h"
#include "reactor.h"

#define WA_JS_EXPORT(name) __attribute__((export_name(#name)))

WA_JS_EXPORT(wasync_init) int wasync_init(void) { return wa_js_start_(); }
WA_JS_EXPORT(wasync_tick) int wasync_tick(void) { return wa_js_tick_(); }

WA_JS_EXPORT(wasync_alloc) void *wasync_alloc(size_t n) { return malloc(n ? n : 1); }
WA_JS_EXPORT(wasync_free) void wasync_free(void *p) { free(p); }

WA_JS_EXPORT(wasync_deliver) void wasync_deliver(uint32_t id, int status, void *p, size_t n, double number)
{
    wa_js_op_deliver_(id, status, p, n, number);
}

WA_JS_EXPORT(wasync_wake) void wasync_wake(uint32_t id) { wa_js_op_deliver_(id, 0, NULL, 0, 0); }

WA_JS_EXPORT(wasync_adopt) uint32_t wasync_adopt(void) { return wa_js_promise_new_(); }

WA_JS_EXPORT(wasync_settled) void wasync_settled(uint32_t handle, int status, void *p, size_t n, double number)
{
    wa_js_promise_settled_(handle, status, p, n, number);
}

WA_JS_EXPORT(wasync_outcomes) void *wasync_outcomes(size_t n) { return wa_js_outcomes_(n); }
WA_JS_EXPORT(wasync_settled_n) void wasync_settled_n(size_t n) { wa_js_outcomes_settled_(n); }

WA_JS_EXPORT(wasync_release) void wasync_release(uint32_t handle) { wa_js_release(handle); }
