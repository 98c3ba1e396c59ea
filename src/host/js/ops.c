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

WA__JS_IMPORT(op_start) void wa__js_op_start(uint32_t id, int kind, uint32_t handle, const void *p, size_t n);
WA__JS_IMPORT(op_cancel) void wa__js_op_cancel(uint32_t id);
WA__JS_IMPORT(settle) void wa__js_settle(uint32_t call, int status, const void *p, size_t n, double number);

/* A promise the embedder handed in, and what it settled to: the record of
 * its key (reactor.h). */
typedef struct wa__js_promise {
    double number;
    unsigned char *data;
    size_t len;
    wa_js_op *waiters;
    int status; /* WA_PENDING until it settled */
} wa__js_promise;
_Static_assert(sizeof(wa__js_promise) <= WA__JS_KEY_RECORD, "a promise's record fits its key's");

enum { WA__JS_NEW, WA__JS_STARTED, WA__JS_DELIVERED, WA__JS_DONE };

/* Appends the n bytes at p (taken) to a growing buffer. The host's lengths
 * are checked: n bytes at NULL are WA_EINVAL, a total past SIZE_MAX is
 * WA_E2BIG (it would wrap into a short buffer). */
static int wa__js_append(unsigned char **data, size_t *len, void *p, size_t n)
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

/* The live host operation of key id, or NULL. */
static wa_js_op *wa__js_op_of(uint32_t id)
{
    wa_js_op **rec = wa__js_key_get(id, WA__JS_KEY_OP);
    return rec ? *rec : NULL;
}

static void wa__js_op_forget_data(wa_js_op *op)
{
    free(op->data);
    op->data = NULL;
    op->len = 0;
}

void wa__js_op_deliver(uint32_t id, int status, void *p, size_t n, double number)
{
    wa_js_op *op = wa__js_op_of(id);
    if (!op) { /* the op was dropped: its result goes nowhere */
        free(p);
        return;
    }
    if (status < 0) /* a failure: data is its message, not a partial body */
        wa__js_op_forget_data(op);
    int rc = wa__js_append(&op->data, &op->len, p, n);
    if (rc < 0) {
        if (status == WA_PENDING)
            wa__js_op_cancel(id); /* stop the download: nowhere to put it */
        wa__js_op_forget_data(op);
        status = rc;
    }
    if (status == WA_PENDING)
        return; /* more to come */
    op->status = status;
    op->number = number;
    op->state = WA__JS_DELIVERED;
    wa__js_key_free(id);
    wa_waker_wake(&op->waker);
}

/* Copies a settled promise's outcome into op. */
static int wa__js_take_outcome(wa_js_op *op, const wa__js_promise *pr)
{
    op->state = WA__JS_DONE;
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

static void wa__js_unwait(wa_js_op *op)
{
    wa__js_promise *pr = wa__js_key_get(op->handle, WA__JS_KEY_PROMISE);
    for (wa_js_op **p = pr ? &pr->waiters : NULL; p && *p; p = &(*p)->next) {
        if (*p == op) {
            *p = op->next;
            break;
        }
    }
}

static int wa__js_op_poll(wa_future *f, wa_cx *cx)
{
    wa_js_op *op = (wa_js_op *)f;
    if (op->state == WA__JS_DELIVERED) {
        op->state = WA__JS_DONE;
        return op->status;
    }
    if (op->state == WA__JS_DONE)
        return wa_misuse(WA_EMISUSE, "poll of a finished or freed host operation");
    if (!op->kind) { /* a promise: its outcome is here once settled */
        wa__js_promise *pr = wa__js_key_get(op->handle, WA__JS_KEY_PROMISE);
        if (!pr) {
            int fresh = op->state == WA__JS_NEW;
            op->state = WA__JS_DONE;
            wa_waker_drop(&op->waker);
            /* released (a JS release may race a C await): not misuse */
            return fresh ? WA_ESTALE : WA_ECANCELED;
        }
        if (pr->status != WA_PENDING) {
            if (op->state == WA__JS_STARTED)
                wa_waker_drop(&op->waker);
            else if (!wa_coop_proceed(cx))
                return WA_PENDING;
            return wa__js_take_outcome(op, pr);
        }
        if (op->state == WA__JS_NEW) {
            op->next = pr->waiters;
            pr->waiters = op;
            op->state = WA__JS_STARTED;
        }
        wa_waker_store(&op->waker, cx);
        return WA_PENDING;
    }
    if (op->state == WA__JS_NEW) {
        wa_js_op **rec;
        int rc = wa__js_key_new(WA__JS_KEY_OP, &op->id, (void **)&rec);
        if (rc < 0) {
            op->state = WA__JS_DONE;
            return rc;
        }
        *rec = op;
        op->state = WA__JS_STARTED;
        op->waker = wa_waker_clone(&cx->waker);
        wa__js_op_start(op->id, op->kind, op->handle, op->req, op->req_len);
        return WA_PENDING;
    }
    wa_waker_store(&op->waker, cx);
    return WA_PENDING;
}

static void wa__js_op_drop(wa_future *f)
{
    wa_js_op *op = (wa_js_op *)f;
    if (op->state == WA__JS_STARTED) {
        if (!op->kind) {
            wa__js_unwait(op);
        } else {
            if (wa__js_op_of(op->id))
                wa__js_key_free(op->id);
            wa__js_op_cancel(op->id);
        }
    }
    if (op->state == WA__JS_STARTED || op->state == WA__JS_DELIVERED)
        wa__js_op_forget_data(op); /* never handed over */
    wa_waker_drop(&op->waker);
    op->state = WA__JS_DONE;
}

static const wa_future_vt wa__js_op_vt = {wa__js_op_poll, wa__js_op_drop, "js_op"};

wa_future *wa__js_op_init(wa_js_op *op, int kind, uint32_t handle, const char *req, size_t len)
{
    memset(op, 0, sizeof *op);
    op->fut.vt = &wa__js_op_vt;
    op->kind = kind;
    op->handle = handle;
    op->req = req;
    op->req_len = len;
    return &op->fut;
}

wa_future *wa_js_await_init(wa_js_op *op, uint32_t handle)
{
    return wa__js_op_init(op, 0, handle, NULL, 0);
}

int wa__js_handle_new(void *ptr, uint32_t *key)
{
    void **rec;
    int rc = wa__js_key_new(WA__JS_KEY_HANDLE, key, (void **)&rec);
    if (rc == 0)
        *rec = ptr;
    return rc;
}

void wa__js_handle_free(uint32_t key)
{
    wa__js_key_free(key);
    wa__js_op_cancel(key);
}

size_t wa__js_promises_new(uint32_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        wa__js_promise *pr;
        if (wa__js_key_new(WA__JS_KEY_PROMISE, &out[i], (void **)&pr) < 0)
            return i;
        pr->status = WA_PENDING;
    }
    return n;
}

void wa__js_promise_settled(uint32_t handle, int status, void *p, size_t n, double number)
{
    wa__js_promise *pr = wa__js_key_get(handle, WA__JS_KEY_PROMISE);
    if (!pr || pr->status != WA_PENDING) {
        free(p);
        return;
    }
    int rc = wa__js_append(&pr->data, &pr->len, p, n);
    if (rc < 0)
        status = rc;
    else if (status == WA_PENDING) /* an await would return it and never wake */
        status = WA_EINVAL;
    pr->status = status;
    pr->number = number;
    for (wa_js_op *op = pr->waiters; op; op = op->next)
        wa_waker_wake_by_ref(&op->waker);
    pr->waiters = NULL; /* each polls the outcome and finishes */
}

/* The settlement table: the glue writes a batch of outcomes here and hands
 * them over with one call (wa__js_outcomes_settled). It grows by doubling up
 * to WA__JS_OUTCOMES_MAX records and stays there: bounded, and reused. */
_Static_assert(sizeof(wa__js_outcome) == 24, "js/promises.mjs writes 24-byte outcomes");
static wa__js_outcome *wa__js_outcome_table;
static size_t wa__js_outcomes_cap;

wa__js_outcome *wa__js_outcomes(size_t n)
{
    if (n > WA__JS_OUTCOMES_MAX)
        return NULL;
    if (wa__grow(&wa__js_outcome_table, sizeof *wa__js_outcome_table, &wa__js_outcomes_cap, n, 64, WA__JS_OUTCOMES_MAX) < 0)
        return NULL;
    return wa__js_outcome_table;
}

void wa__js_outcomes_settled(size_t n)
{
    if (n > wa__js_outcomes_cap) /* a count the table never had room for */
        return;
    for (size_t i = 0; i < n; i++) {
        const wa__js_outcome *o = &wa__js_outcome_table[i];
        wa__js_promise_settled(o->handle, o->status, o->data, o->len, o->number);
    }
}

void wa_js_release(uint32_t handle)
{
    wa__js_promise *pr = wa__js_key_get(handle, WA__JS_KEY_PROMISE);
    if (!pr)
        return;
    if (pr->status == WA_PENDING) /* a settled one the glue forgot when it settled */
        wa__js_op_cancel(handle);
    for (wa_js_op *op = pr->waiters; op; op = op->next)
        wa_waker_wake_by_ref(&op->waker); /* they find the handle gone */
    free(pr->data);
    wa__js_key_free(handle);
}

void wa_js_settle(uint32_t call, int status, const void *data, size_t len, double number)
{
    wa__js_settle(call, status, data, len, number);
}
