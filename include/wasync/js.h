/* SPDX-License-Identifier: MIT */
/* wasync/js.h - the JavaScript host (browser, Node).
 *
 * WebAssembly cannot block, so the host's event loop drives the runtime:
 * the glue (js/wasync.mjs) calls the module's exported tick from a
 * microtask whenever work is queued, arms one host timer for the runtime's earliest
 * deadline, and completes host operations (a fetch) and the Promises
 * handed in by the embedder through the module's other exports (the export
 * ABI: docs/reactor.md; declared in src/host/js/exports.h). The module imports only from
 * "wasync", and, if it prints, the four WASI functions of the C library's
 * stdio, which the glue gives (js/stdio.mjs).
 *
 * The runtime of a JS module is a single one, created when the glue
 * starts the module and returned by wa_js_rt().
 */
#ifndef WASYNC_JS_H
#define WASYNC_JS_H

#include "runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The module's runtime (borrowed), or NULL before the glue started it. */
wa_rt *wa_js_rt(void);

/* A host operation as a future. Status 0 when the host delivered a result,
 * a negative WA_E* code when it failed (a rejected promise gives WA_EIO; the
 * rejection's message is in data). Once it completed, data belongs to the
 * caller (free() it; NULL when nothing was delivered). Dropping it before
 * completion cancels the operation in the host (a fetch is aborted) and
 * frees what had arrived. */
typedef struct wa_js_op {
    wa_future fut;
    uint32_t id;          /* the host's key, 0 until started */
    int kind;             /* the HTTP client's kinds (internal), or 0: a promise await */
    int state;
    uint32_t handle;      /* a promise await: the promise's handle */
    struct wa_js_op *next; /* a promise await: in the promise's waiters */
    const char *req;      /* borrowed until completion */
    size_t req_len;
    wa_waker waker;
    int status;
    unsigned char *data;  /* delivered bytes: the caller's once complete */
    size_t len;
    double number;        /* a delivered number (HTTP status, resolved value) */
} wa_js_op;

/* Awaits the JS promise the embedder registered as handle (the glue's
 * adopt(promise) returns it). Resolving with a number sets number; with a
 * string, ArrayBuffer or typed array sets data/len (a copy per await). A
 * promise's outcome is kept in wasm once it settled, so awaiting a settled
 * promise completes at once, without a trip through JavaScript. */
wa_future *wa_js_await_init(wa_js_op *op, uint32_t handle);

/* Forgets a promise handle (its outcome and the glue's reference). Awaits
 * still pending on it finish with WA_ECANCELED; new ones get WA_ESTALE. */
void wa_js_release(uint32_t handle);

/* Settles the JS promise of an exported async call (the glue's
 * callAsync(name, ...)): status 0 resolves it with data (copied; as a
 * Uint8Array) or, when data is NULL, with number; a negative status rejects
 * it with an Error naming the code. Call once per call id. */
void wa_js_settle(uint32_t call, int status, const void *data, size_t len, double number);

#ifdef __cplusplus
}
#endif
#endif
