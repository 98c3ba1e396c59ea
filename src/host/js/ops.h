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

/* A wa_js_op's state (ops.c's host operations, promises.c's awaits). */
enum { WA__JS_NEW, WA__JS_STARTED, WA__JS_DELIVERED, WA__JS_DONE };

/* Appends the n bytes at p (taken) to a growing buffer *data of *len
 * bytes: 0, WA_EINVAL (n bytes at NULL), WA_E2BIG (a total past SIZE_MAX)
 * or WA_ENOMEM; p is freed in every case. */
int wa__js_append(unsigned char **data, size_t *len, void *p, size_t n);

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
#endif
