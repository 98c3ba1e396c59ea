/* SPDX-License-Identifier: MIT */
/* wasync/js.h - the JavaScript host (browser, Node).
 *
 * WebAssembly cannot block, so the host's event loop drives the runtime:
 * the glue (js/wasync.mjs) calls the exported wasync_tick from a microtask
 * whenever work is queued, arms one host timer for the runtime's earliest
 * deadline, and completes host operations (a fetch) by calling
 * wasync_deliver, and the Promises handed in by the embedder in batches
 * (wasync_outcomes, wasync_settled_n). The module imports only from
 * "wasync", and, if it prints, the four WASI functions of the C library's
 * stdio, which the glue gives (js/stdio.mjs).
 *
 * The runtime of a JS module is a single one, created by wasync_init (the
 * glue calls it) and returned by wa_js_rt().
 */
#ifndef WASYNC_JS_H
#define WASYNC_JS_H

#include "runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The module's runtime (borrowed), or NULL before wasync_init. */
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

/* The module's exports, called by the glue (not by C code). */
int wasync_init(void);        /* creates the runtime: 0 or WA_ENOMEM */
int wasync_tick(void);        /* one round; returns the runnable count */
void *wasync_alloc(size_t n); /* memory the host fills for wasync_deliver */
/* Frees p, which wasync_alloc returned (taken). */
void wasync_free(void *p);
/* Completes host op id with status (WA_PENDING: a chunk, more to come),
 * the n bytes at p (taken) and a number. Stale ids are ignored. */
void wasync_deliver(uint32_t id, int status, void *p, size_t n, double number);
void wasync_wake(uint32_t id); /* wasync_deliver with no result */
/* A new promise handle (pending); 0 when out of memory. */
uint32_t wasync_adopt(void);
/* The promise of handle settled (status 0 or WA_EIO), bytes at p taken. */
void wasync_settled(uint32_t handle, int status, void *p, size_t n, double number);
/* Room for n (at most 1024) outcomes in the module's settlement table, 24
 * bytes each: f64 number, u32 handle, i32 status, u32 p, u32 n, as
 * wasync_settled takes them; NULL when out of memory. */
void *wasync_outcomes(size_t n);
/* Settles the first n outcomes of the table in order, as wasync_settled
 * does each: a batch of settlements in one call. */
void wasync_settled_n(size_t n);
/* Forgets handle (wa_js_release, from the glue). */
void wasync_release(uint32_t handle);

#ifdef __cplusplus
}
#endif
#endif
