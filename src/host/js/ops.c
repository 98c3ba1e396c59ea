/* SPDX-License-Identifier: MIT */
/* The JavaScript host's operations: futures over what the host does for C
 * (an HTTP client's fetches: ops.h's kinds), handles of what the host
 * keeps for C (a fetch's Response), awaits of promises the embedder adopted, and the
 * settling of exported async calls. The host completes them through the
 * module's exports (exports.c); keys come from the reactor (reactor.c).
 * Imports from "wasync":
 *
 *   op_start(id, kind, handle, ptr, len)
 *   op_cancel(id)
 *   settle(call, status, ptr, len, number: f64)
 */
#include <stdlib.h>
#include <string.h>

#include "../../core/grow.h"
#include "ops.h"
#include "reactor.h"

WA_JS_IMPORT(op_start) void wa_js_op_start_(uint32_t id, int kind, uint32_t handle, const void *p, size_t n);
WA_JS_IMPORT(op_cancel) void wa_js_op_cancel_(uint32_t id);
WA_JS_IMPORT(settle) void wa_js_settle_(uint32_t call, int status, const void *p, size_t n, double number);

/* A promise the embedder handed in, and what it settled to. */
typedef struct wa_js_promise {
    int settled;
    int status;
    unsigned char *data;
    size_t len;
    double number;
    wa_js_op *waiters;
} wa_js_promise;

enum { WA_JS_NEW, WA_JS_STARTED, WA_JS_DELIVERED, WA_JS_DONE };

/* Appends the n bytes at p (taken) to a growing buffer. The host's lengths
 * are checked: n bytes at NULL are WA_EINVAL, a total past SIZE_MAX is
 * WA_E2BIG (it would wrap into a short buffer). */
static int wa_js_append(unsigned char **data, size_t *len, void *p, size_t n)
{
    if (!n) {
        free(p);
        return 0;
    }
    if (!p)
        return WA_EINVAL;
    if (n > SIZE_MAX - *len) {
        free(p);
        return WA_E2BIG;
    }
    unsigned char *d = *data ? realloc(*data, *len + n) : p;
    if (!d) {
        free(p);
        return WA_ENOMEM;
    }
    if (d != p) {
        memcpy(d + *len, p, n);
        free(p);
    }
    *data = d;
    *len += n;
    return 0;
}

static void wa_js_op_forget_data(wa_js_op *op)
{
    free(op->data);
    op->data = NULL;
    op->len = 0;
}

void wa_js_op_deliver_(uint32_t id, int status, void *p, size_t n, double number)
{
    wa_js_op *op = wa_js_key_get_(id, WA_JS_KEY_OP);
    if (!op) { /* the op was dropped: its result goes nowhere */
        free(p);
        return;
    }
    if (status < 0) /* a failure: data is its message, not a partial body */
        wa_js_op_forget_data(op);
    int rc = wa_js_append(&op->data, &op->len, p, n);
    if (rc < 0) {
        if (status == WA_PENDING)
            wa_js_op_cancel_(id); /* stop the download: nowhere to put it */
        wa_js_op_forget_data(op);
        status = rc;
    }
    if (status == WA_PENDING)
        return; /* more to come */
    op->status = status;
    op->number = number;
    op->state = WA_JS_DELIVERED;
    wa_js_key_free_(id);
    wa_waker_wake(&op->waker);
}

/* Copies a settled promise's outcome into op. */
static int wa_js_take_outcome(wa_js_op *op, const wa_js_promise *pr)
{
    op->state = WA_JS_DONE;
    op->number = pr->number;
    op->status = pr->status;
    if (pr->len) {
        if (!(op->data = malloc(pr->len)))
            return op->status = WA_ENOMEM;
        memcpy(op->data, pr->data, pr->len);
        op->len = pr->len;
    }
    return op->status;
}

static void wa_js_unwait(wa_js_op *op)
{
    wa_js_promise *pr = wa_js_key_get_(op->handle, WA_JS_KEY_PROMISE);
    for (wa_js_op **p = pr ? &pr->waiters : NULL; p && *p; p = &(*p)->next) {
        if (*p == op) {
            *p = op->next;
            break;
        }
    }
}

static int wa_js_op_poll(wa_future *f, wa_cx *cx)
{
    wa_js_op *op = (wa_js_op *)f;
    if (op->state == WA_JS_DELIVERED) {
        op->state = WA_JS_DONE;
        return op->status;
    }
    if (op->state == WA_JS_DONE)
        return wa_misuse(WA_EMISUSE, "poll of a finished or freed host operation");
    if (!op->kind) { /* a promise: its outcome is here once settled */
        wa_js_promise *pr = wa_js_key_get_(op->handle, WA_JS_KEY_PROMISE);
        if (!pr) {
            int fresh = op->state == WA_JS_NEW;
            op->state = WA_JS_DONE;
            wa_waker_drop(&op->waker);
            /* released (a JS release may race a C await): not misuse */
            return fresh ? WA_ESTALE : WA_ECANCELED;
        }
        if (pr->settled) {
            if (op->state == WA_JS_STARTED)
                wa_waker_drop(&op->waker);
            else if (!wa_coop_proceed(cx))
                return WA_PENDING;
            return wa_js_take_outcome(op, pr);
        }
        if (op->state == WA_JS_NEW) {
            op->next = pr->waiters;
            pr->waiters = op;
            op->state = WA_JS_STARTED;
        }
        wa_waker_store(&op->waker, cx);
        return WA_PENDING;
    }
    if (op->state == WA_JS_NEW) {
        int rc = wa_js_key_new_(op, WA_JS_KEY_OP, &op->id);
        if (rc < 0) {
            op->state = WA_JS_DONE;
            return rc;
        }
        op->state = WA_JS_STARTED;
        op->waker = wa_waker_clone(&cx->waker);
        wa_js_op_start_(op->id, op->kind, op->handle, op->req, op->req_len);
        return WA_PENDING;
    }
    wa_waker_store(&op->waker, cx);
    return WA_PENDING;
}

static void wa_js_op_drop(wa_future *f)
{
    wa_js_op *op = (wa_js_op *)f;
    if (op->state == WA_JS_STARTED) {
        if (!op->kind) {
            wa_js_unwait(op);
        } else {
            if (wa_js_key_get_(op->id, WA_JS_KEY_OP))
                wa_js_key_free_(op->id);
            wa_js_op_cancel_(op->id);
        }
    }
    if (op->state == WA_JS_STARTED || op->state == WA_JS_DELIVERED)
        wa_js_op_forget_data(op); /* never handed over */
    wa_waker_drop(&op->waker);
    op->state = WA_JS_DONE;
}

static const wa_future_vt wa_js_op_vt = {wa_js_op_poll, wa_js_op_drop, "js_op"};

wa_future *wa_js_op_init_(wa_js_op *op, int kind, uint32_t handle, const char *req, size_t len)
{
    memset(op, 0, sizeof *op);
    op->fut.vt = &wa_js_op_vt;
    op->kind = kind;
    op->handle = handle;
    op->req = req;
    op->req_len = len;
    return &op->fut;
}

wa_future *wa_js_await_init(wa_js_op *op, uint32_t handle)
{
    return wa_js_op_init_(op, 0, handle, NULL, 0);
}

int wa_js_handle_new_(void *ptr, uint32_t *key) { return wa_js_key_new_(ptr, WA_JS_KEY_HANDLE, key); }

void wa_js_handle_free_(uint32_t key)
{
    wa_js_key_free_(key);
    wa_js_op_cancel_(key);
}

uint32_t wa_js_promise_new_(void)
{
    uint32_t key;
    wa_js_promise *pr = calloc(1, sizeof *pr);
    if (!pr || wa_js_key_new_(pr, WA_JS_KEY_PROMISE, &key) < 0) {
        free(pr);
        return 0;
    }
    return key;
}

void wa_js_promise_settled_(uint32_t handle, int status, void *p, size_t n, double number)
{
    wa_js_promise *pr = wa_js_key_get_(handle, WA_JS_KEY_PROMISE);
    if (!pr || pr->settled) {
        free(p);
        return;
    }
    int rc = wa_js_append(&pr->data, &pr->len, p, n);
    if (rc < 0)
        status = rc;
    else if (status == WA_PENDING) /* an await would return it and never wake */
        status = WA_EINVAL;
    pr->settled = 1;
    pr->status = status;
    pr->number = number;
    for (wa_js_op *op = pr->waiters; op; op = op->next)
        wa_waker_wake_by_ref(&op->waker);
    pr->waiters = NULL; /* each polls the outcome and finishes */
}

/* The settlement table: the glue writes a batch of outcomes here and hands
 * them over with one call (wa_js_outcomes_settled_). It grows by doubling up
 * to WA_JS_OUTCOMES_MAX records and stays there: bounded, and reused. */
_Static_assert(sizeof(wa_js_outcome) == 24, "js/promises.mjs writes 24-byte outcomes");
static wa_js_outcome *wa_js_outcomes;
static size_t wa_js_outcomes_cap;

wa_js_outcome *wa_js_outcomes_(size_t n)
{
    if (n > WA_JS_OUTCOMES_MAX)
        return NULL;
    if (wa_grow_(&wa_js_outcomes, sizeof *wa_js_outcomes, &wa_js_outcomes_cap, n, 64, WA_JS_OUTCOMES_MAX) < 0)
        return NULL;
    return wa_js_outcomes;
}

void wa_js_outcomes_settled_(size_t n)
{
    if (n > wa_js_outcomes_cap) /* a count the table never had room for */
        return;
    for (size_t i = 0; i < n; i++) {
        const wa_js_outcome *o = &wa_js_outcomes[i];
        wa_js_promise_settled_(o->handle, o->status, o->data, o->len, o->number);
    }
}

void wa_js_release(uint32_t handle)
{
    wa_js_promise *pr = wa_js_key_get_(handle, WA_JS_KEY_PROMISE);
    if (!pr)
        return;
    if (!pr->settled) /* a settled one the glue forgot when it settled */
        wa_js_op_cancel_(handle);
    for (wa_js_op *op = pr->waiters; op; op = op->next)
        wa_waker_wake_by_ref(&op->waker); /* they find the handle gone */
    wa_js_key_free_(handle);
    free(pr->data);
    free(pr);
}

void wa_js_settle(uint32_t call, int status, const void *data, size_t len, double number)
{
    wa_js_settle_(call, status, data, len, number);
}
