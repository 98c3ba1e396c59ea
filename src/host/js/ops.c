/* SPDX-License-Identifier: MIT */
/* The JavaScript host's operations: futures over what the host does for C
 * (an HTTP client's fetches: ops.h's kinds), handles of what the host
 * keeps for C (a fetch's Response), and the settling of exported async
 * calls (the awaits of adopted promises are promises.c's). The host
 * completes them through the module's exports (exports.c); keys come from
 * the reactor (reactor.c).
 * Imports from "wasync":
 *
 *   op_start(id, kind, handle, ptr, len)
 *   op_cancel(id)
 *   settle(call, status, ptr, len, number: f64)
 */
#include <stdlib.h>
#include <string.h>

#include "../../core/rt.h"
#include "ops.h"
#include "reactor.h"

WA__JS_IMPORT(op_start) void wa__js_op_start(uint32_t id, int kind, uint32_t handle, const void *p, size_t n);
WA__JS_IMPORT(op_cancel) void wa__js_op_cancel(uint32_t id);
WA__JS_IMPORT(settle) void wa__js_settle(uint32_t call, int status, const void *p, size_t n, double number);

/* (The host's lengths are checked: a total past SIZE_MAX would wrap into a
 * short buffer.) */
int wa__js_append(unsigned char **data, size_t *len, void *p, size_t n)
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

static int wa__js_op_poll(wa_future *f, wa_cx *cx)
{
    wa_js_op *op = (wa_js_op *)f;
    if (op->state == WA__JS_DELIVERED) {
        op->state = WA__JS_DONE;
        return op->status;
    }
    if (op->state == WA__JS_DONE)
        return wa__misuse_done(NULL, "host operation");
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
        if (wa__js_op_of(op->id))
            wa__js_key_free(op->id);
        wa__js_op_cancel(op->id);
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

void wa_js_settle(uint32_t call, int status, const void *data, size_t len, double number)
{
    wa__js_settle(call, status, data, len, number);
}
