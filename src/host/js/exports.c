/* SPDX-License-Identifier: MIT */
/* The JavaScript host's export ABI: the functions the glue (js/wasync.mjs)
 * calls, and nothing else does (exports.h lists them). Each hands
 * its call to the layer it is for: the module's runtime (runtime.c) starts
 * and ticks, the host operations (ops.c) take the host's results. The glue
 * never calls them from inside an import, so none of them re-enters another.
 */
#include <stdlib.h>

#include "exports.h"
#include "ops.h"
#include "reactor.h"

WA__JS_EXPORT(wasync_init) int wasync_init(void) { return wa__js_start(); }
WA__JS_EXPORT(wasync_tick) int wasync_tick(void) { return wa__js_tick(); }

WA__JS_EXPORT(wasync_alloc) void *wasync_alloc(size_t n) { return malloc(n ? n : 1); }
WA__JS_EXPORT(wasync_free) void wasync_free(void *p) { free(p); }

WA__JS_EXPORT(wasync_deliver) void wasync_deliver(uint32_t id, int status, void *p, size_t n, double number)
{
    wa__js_op_deliver(id, status, p, n, number);
}
