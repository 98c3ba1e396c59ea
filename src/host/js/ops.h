/* SPDX-License-Identifier: MIT */
/* Internal: the host operations of ops.c as the HTTP client (http.c)
 * starts them, and how the module's exports (exports.c) hand the host's
 * results to them. Bytes at p come from wasync_alloc and
 * are taken; stale ids and handles are ignored. */
#ifndef WASYNC_HOST_JS_OPS_H
#define WASYNC_HOST_JS_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "wasync/js.h"

/* Kinds of host operation (js/ops.mjs), for http.c: HTTP_SEND fetches
 * a request (req: see http.c) for the handle of its response and
 * delivers the head (data: the headers, number: the status); HTTP_READ
 * delivers the next chunk of that response's body (WA_ECLOSED at its end). */
enum { WA__JS_HTTP_SEND = 2, WA__JS_HTTP_READ = 3 };

/* Initialises op as a host operation of kind for handle, sending the len
 * bytes at req (borrowed until it completes); it starts at its first poll.
 * See wa_js_op in wasync/js.h. */
wa_future *wa__js_op_init(wa_js_op *op, int kind, uint32_t handle, const char *req, size_t len);
/* A new handle for something the glue keeps for ptr (borrowed), in *key:
 * 0, WA_EINVAL (no runtime) or WA_ENOMEM. */
int wa__js_handle_new(void *ptr, uint32_t *key);
/* Frees a handle, and the glue lets go of what it kept for it (a fetch is
 * aborted). */
void wa__js_handle_free(uint32_t key);

/* A result of host operation id (or, with status WA_PENDING, one more
 * chunk of it): the n bytes at p and a number. */
void wa__js_op_deliver(uint32_t id, int status, void *p, size_t n, double number);
/* Up to n new pending promise handles into out: how many (fewer when
 * memory ran out). */
size_t wa__js_promises_new(uint32_t *out, size_t n);
/* The promise of handle settled: status 0 or WA_EIO, the n bytes at p and a
 * number; its waiters wake. */
void wa__js_promise_settled(uint32_t handle, int status, void *p, size_t n, double number);

/* An adopted promise's outcome as the glue writes it in the settlement
 * table (24 bytes on wasm32: js/promises.mjs writes the same layout). */
typedef struct wa__js_outcome {
    double number;
    uint32_t handle;
    int32_t status;
    void *data; /* from wasync_alloc, taken by wa__js_outcomes_settled */
    size_t len;
} wa__js_outcome;

/* The most outcomes the table holds: the glue hands over larger batches in
 * parts. */
#define WA__JS_OUTCOMES_MAX 1024

/* Room for n outcomes in the settlement table (borrowed until the next
 * call), or NULL when n passes WA__JS_OUTCOMES_MAX or memory runs out. */
wa__js_outcome *wa__js_outcomes(size_t n);
/* Settles the first n outcomes of the table in order, as
 * wa__js_promise_settled does each (their bytes taken). */
void wa__js_outcomes_settled(size_t n);

#endif
