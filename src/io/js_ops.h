/* Internal: how the module's exports (src/js/exports.c) hand the host's
 * results to the host operations of js_ops.c. Bytes at p come from
 * wasync_alloc and are taken; stale ids and handles are ignored. */
#ifndef WASYNC_IO_JS_OPS_H
#define WASYNC_IO_JS_OPS_H

#include <stddef.h>
#include <stdint.h>

/* A result of host operation id (or, with status WA_PENDING, one more
 * chunk of it): the n bytes at p and a number. */
void wa_js_op_deliver_(uint32_t id, int status, void *p, size_t n, double number);
/* A new pending promise handle; 0 when out of memory. */
uint32_t wa_js_promise_new_(void);
/* The promise of handle settled: status 0 or WA_EIO, the n bytes at p and a
 * number; its waiters wake. */
void wa_js_promise_settled_(uint32_t handle, int status, void *p, size_t n, double number);

#endif
