/* SPDX-License-Identifier: MIT */
/* The JavaScript host's adopted promises: awaits of promises the embedder
 * handed in (wa_js_await_init), their outcomes as the glue delivers them
 * (js/promises.mjs), and the exports that make their handles and settle
 * them. The exports are here, not in exports.c, so that they come with
 * wa_js_await_init: a module that never awaits a promise links none of
 * this (the glue's rt.adopt says so: ENOSYS). A promise's outcome is the
 * record of its key (reactor.h), in the key's slot. Imports from "wasync":
 *
 *   op_cancel(handle)   a handle released before its promise settled
 */
#include <stdlib.h>
#include <string.h>

#include "../../core/grow.h"
#include "../../core/rt.h"
#include "exports.h"
#include "ops.h"
#include "reactor.h"

WA__JS_IMPORT(op_cancel) void wa__js_op_cancel(uint32_t id);

/* A promise the embedder handed in, and what it settled to. */
typedef struct wa__js_promise {
    double number;
    unsigned char *data;
    size_t len;
    wa_js_op *waiters;
    int status; /* WA_PENDING until it settled */
} wa__js_promise;
_Static_assert(sizeof(wa__js_promise) <= WA__JS_KEY_RECORD, "a promise's record fits its key's");

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

static int wa__js_await_poll(wa_future *f, wa_cx *cx)
{
    wa_js_op *op = (wa_js_op *)f;
    if (op->state == WA__JS_DONE)
        return wa__misuse_done(NULL, "host operation");
    wa__js_promise *pr = wa__js_key_get(op->handle, WA__JS_KEY_PROMISE);
    if (!pr) {
        int fresh = op->state == WA__JS_NEW;
        op->state = WA__JS_DONE;
        wa_waker_drop(&op->waker);
        /* released (a JS release may race a C await): not misuse */
        return fresh ? WA_ESTALE : WA_ECANCELED;
    }
    if (pr->status != WA_PENDING) { /* its outcome is here once settled */
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

static void wa__js_await_drop(wa_future *f)
{
    wa_js_op *op = (wa_js_op *)f;
    wa__js_promise *pr = op->state == WA__JS_STARTED ? wa__js_key_get(op->handle, WA__JS_KEY_PROMISE) : NULL;
    for (wa_js_op **p = pr ? &pr->waiters : NULL; p && *p; p = &(*p)->next) {
        if (*p == op) {
            *p = op->next;
            break;
        }
    }
    wa_waker_drop(&op->waker);
    op->state = WA__JS_DONE;
}

static const wa_future_vt wa__js_await_vt = {wa__js_await_poll, wa__js_await_drop, "js_op"};

wa_future *wa_js_await_init(wa_js_op *op, uint32_t handle)
{
    memset(op, 0, sizeof *op);
    op->fut.vt = &wa__js_await_vt;
    op->handle = handle;
    return &op->fut;
}

WA__JS_EXPORT(wasync_adopt_n) size_t wasync_adopt_n(uint32_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        wa__js_promise *pr;
        if (wa__js_key_new(WA__JS_KEY_PROMISE, &out[i], (void **)&pr) < 0)
            return i;
        pr->status = WA_PENDING;
    }
    return n;
}

WA__JS_EXPORT(wasync_settled) void wasync_settled(uint32_t handle, int status, void *p, size_t n, double number)
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
 * them over with one call (wasync_settled_n). It grows by doubling up to
 * WA__JS_OUTCOMES_MAX records and stays there: bounded, and reused. The
 * glue writes the same layout (js/promises.mjs). */
typedef struct wa__js_outcome {
    double number;
    uint32_t handle;
    int32_t status;
    void *data; /* from wasync_alloc, taken by wasync_settled_n */
    size_t len;
} wa__js_outcome;
_Static_assert(sizeof(wa__js_outcome) == 24, "js/promises.mjs writes 24-byte outcomes");
#define WA__JS_OUTCOMES_MAX 1024
static wa__js_outcome *wa__js_outcome_table;
static size_t wa__js_outcomes_cap;

WA__JS_EXPORT(wasync_outcomes) void *wasync_outcomes(size_t n)
{
    if (n > WA__JS_OUTCOMES_MAX)
        return NULL;
    if (wa__grow(&wa__js_outcome_table, sizeof *wa__js_outcome_table, &wa__js_outcomes_cap, n, 64, WA__JS_OUTCOMES_MAX) < 0)
        return NULL;
    return wa__js_outcome_table;
}

WA__JS_EXPORT(wasync_settled_n) void wasync_settled_n(size_t n)
{
    if (n > wa__js_outcomes_cap) /* a count the table never had room for */
        return;
    for (size_t i = 0; i < n; i++) {
        const wa__js_outcome *o = &wa__js_outcome_table[i];
        wasync_settled(o->handle, o->status, o->data, o->len, o->number);
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

WA__JS_EXPORT(wasync_release) void wasync_release(uint32_t handle) { wa_js_release(handle); }
