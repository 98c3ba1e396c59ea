/* The JavaScript host: the event loop drives the runtime (see js.h and the
 * glue in js/wasync.mjs). The module imports only from "wasync":
 *
 *   now() -> f64                       monotonic milliseconds
 *   timer(at_ms: f64)                  arm the one host timer (-1: none)
 *   op_start(id, kind, handle, ptr, len)
 *   op_cancel(id)
 *   settle(call, status, ptr, len, number: f64)
 *   log(ptr, len)
 *
 * and exports wasync_init, wasync_tick, wasync_wake, wasync_deliver,
 * wasync_alloc and wasync_free. Nothing here calls back into JavaScript in
 * a way that could re-enter: the glue defers its work to microtasks.
 */
#include <stdlib.h>
#include <string.h>

#include "../core/keys.h"
#include "../core/rt.h"
#include "wasync/js.h"

#define WA_JS_IMPORT(name) __attribute__((import_module("wasync"), import_name(#name)))
#define WA_JS_EXPORT(name) __attribute__((export_name(#name)))

WA_JS_IMPORT(now) double wa_js_now_(void);
WA_JS_IMPORT(timer) void wa_js_timer_(double at_ms);
WA_JS_IMPORT(op_start) void wa_js_op_start_(uint32_t id, int kind, uint32_t handle, const void *p, size_t n);
WA_JS_IMPORT(op_cancel) void wa_js_op_cancel_(uint32_t id);
WA_JS_IMPORT(settle) void wa_js_settle_(uint32_t call, int status, const void *p, size_t n, double number);
WA_JS_IMPORT(log) void wa_js_log_(const char *p, size_t n);

/* Keys handed to JavaScript (host operations, promise handles): generation
 * << 20 | slot + 1, so a stale key (its op dropped, its handle released) is
 * recognised and ignored. */
#define WA_JS_SLOT_BITS 20
#define WA_JS_SLOT_MASK ((1u << WA_JS_SLOT_BITS) - 1)

enum { WA_JS_KEY_OP = 1, WA_JS_KEY_PROMISE };

typedef struct wa_js_slot {
    wa_keyslot slot;
    void *ptr;          /* a wa_js_op or a wa_js_promise */
    int kind;
} wa_js_slot;

/* A promise the embedder handed in, and what it settled to. */
typedef struct wa_js_promise {
    int settled;
    int status;
    unsigned char *data;
    size_t len;
    double number;
    wa_js_op *waiters;
} wa_js_promise;

typedef struct wa_js {
    wa_backend base;
    wa_keys keys;
    double armed_ms;                 /* the host timer's deadline, -1 none */
} wa_js;

static wa_rt *wa_js_runtime;
static wa_js *wa_js_host;

enum { WA_JS_NEW, WA_JS_STARTED, WA_JS_DELIVERED, WA_JS_DONE };

void wa_log_(const char *text) { wa_js_log_(text, strlen(text)); }

static uint64_t wa_js_now(wa_backend *b)
{
    (void)b;
    return (uint64_t)(wa_js_now_() * 1e6);
}

/* This host never blocks: the event loop calls wasync_tick. */
static int wa_js_wait(wa_backend *b, uint64_t deadline)
{
    (void)b;
    (void)deadline;
    return WA_ENOSYS;
}

static void wa_js_free(wa_backend *b)
{
    wa_js *h = (wa_js *)b;
    wa_keys_free(&h->keys);
    free(h);
}

static const wa_backend_vt wa_js_vt = {"js", wa_js_now, wa_js_wait, NULL, wa_js_free, NULL};

wa_rt *wa_js_rt(void) { return wa_js_runtime; }

WA_JS_EXPORT(wasync_init) int wasync_init(void)
{
    if (wa_js_runtime)
        return 0;
    wa_js *h = calloc(1, sizeof *h);
    if (!h)
        return WA_ENOMEM;
    h->base.vt = &wa_js_vt;
    h->base.resolution = WA_MS(1); /* setTimeout */
    h->armed_ms = -1;
    wa_keys_init(&h->keys, sizeof(wa_js_slot), UINT32_MAX >> WA_JS_SLOT_BITS, WA_JS_SLOT_MASK);
    int rc = wa_rt_new_on(&wa_js_runtime, &h->base);
    if (rc == 0)
        wa_js_host = h;
    return rc;
}

/* Keeps the host timer on the earliest deadline. */
static void wa_js_arm(wa_js *h, uint64_t deadline)
{
    double ms = deadline == WA_NEVER ? -1 : (double)deadline / 1e6;
    if (ms != h->armed_ms) {
        h->armed_ms = ms;
        wa_js_timer_(ms);
    }
}

WA_JS_EXPORT(wasync_tick) int wasync_tick(void)
{
    if (!wa_js_runtime)
        return WA_EINVAL;
    uint64_t deadline;
    int runnable = wa_rt_tick(wa_js_runtime, &deadline);
    wa_js_arm(wa_js_host, deadline);
    return runnable;
}

WA_JS_EXPORT(wasync_alloc) void *wasync_alloc(size_t n) { return malloc(n ? n : 1); }
WA_JS_EXPORT(wasync_free) void wasync_free(void *p) { free(p); }

static void *wa_js_key_get(uint32_t key, int kind)
{
    wa_js *h = wa_js_host;
    wa_js_slot *s = h ? wa_keys_get(&h->keys, (key & WA_JS_SLOT_MASK) - 1, key >> WA_JS_SLOT_BITS) : NULL;
    return s && s->kind == kind ? s->ptr : NULL;
}

static int wa_js_key_new(void *ptr, int kind, uint32_t *key)
{
    wa_js *h = wa_js_host;
    uint32_t i;
    if (!h)
        return WA_EINVAL;
    if (wa_keys_alloc(&h->keys, &i) < 0) /* (at most WA_JS_SLOT_MASK: i + 1 fits) */
        return WA_ENOMEM;
    wa_js_slot *s = (wa_js_slot *)wa_keys_at(&h->keys, i);
    s->ptr = ptr;
    s->kind = kind;
    *key = s->slot.gen << WA_JS_SLOT_BITS | (i + 1);
    h->base.sources++;
    return 0;
}

static void wa_js_key_free(uint32_t key)
{
    wa_js *h = wa_js_host;
    wa_keys_release(&h->keys, (key & WA_JS_SLOT_MASK) - 1);
    h->base.sources--;
}

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

/* A result (or, with status WA_PENDING, one more chunk) from the host. The
 * bytes at p were allocated with wasync_alloc; they are taken here. */
WA_JS_EXPORT(wasync_deliver) void wasync_deliver(uint32_t id, int status, void *p, size_t n, double number)
{
    wa_js_op *op = wa_js_key_get(id, WA_JS_KEY_OP);
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
    wa_js_key_free(id);
    wa_waker_wake(&op->waker);
}

WA_JS_EXPORT(wasync_wake) void wasync_wake(uint32_t id) { wasync_deliver(id, 0, NULL, 0, 0); }

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
    wa_js_promise *pr = wa_js_key_get(op->handle, WA_JS_KEY_PROMISE);
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
        wa_js_promise *pr = wa_js_key_get(op->handle, WA_JS_KEY_PROMISE);
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
        int rc = wa_js_key_new(op, WA_JS_KEY_OP, &op->id);
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
            if (wa_js_key_get(op->id, WA_JS_KEY_OP))
                wa_js_key_free(op->id);
            wa_js_op_cancel_(op->id);
        }
    }
    if (op->state == WA_JS_STARTED || op->state == WA_JS_DELIVERED)
        wa_js_op_forget_data(op); /* never handed over */
    wa_waker_drop(&op->waker);
    op->state = WA_JS_DONE;
}

static const wa_future_vt wa_js_op_vt = {wa_js_op_poll, wa_js_op_drop, "js_op"};

static wa_future *wa_js_op_init(wa_js_op *op, int kind, uint32_t handle, const char *req, size_t len)
{
    memset(op, 0, sizeof *op);
    op->fut.vt = &wa_js_op_vt;
    op->kind = kind;
    op->handle = handle;
    op->req = req;
    op->req_len = len;
    return &op->fut;
}

wa_future *wa_js_fetch_init(wa_js_op *op, const char *url)
{
    return wa_js_op_init(op, WA_JS_FETCH, 0, url, strlen(url));
}

wa_future *wa_js_await_init(wa_js_op *op, uint32_t handle)
{
    return wa_js_op_init(op, 0, handle, NULL, 0);
}

WA_JS_EXPORT(wasync_adopt) uint32_t wasync_adopt(void)
{
    uint32_t key;
    wa_js_promise *pr = calloc(1, sizeof *pr);
    if (!pr || wa_js_key_new(pr, WA_JS_KEY_PROMISE, &key) < 0) {
        free(pr);
        return 0;
    }
    return key;
}

WA_JS_EXPORT(wasync_settled) void wasync_settled(uint32_t handle, int status, void *p, size_t n, double number)
{
    wa_js_promise *pr = wa_js_key_get(handle, WA_JS_KEY_PROMISE);
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

void wa_js_release(uint32_t handle)
{
    wa_js_promise *pr = wa_js_key_get(handle, WA_JS_KEY_PROMISE);
    if (!pr)
        return;
    wa_js_op_cancel_(handle); /* the glue forgets the promise too */
    for (wa_js_op *op = pr->waiters; op; op = op->next)
        wa_waker_wake_by_ref(&op->waker); /* they find the handle gone */
    wa_js_key_free(handle);
    free(pr->data);
    free(pr);
}

WA_JS_EXPORT(wasync_release) void wasync_release(uint32_t handle) { wa_js_release(handle); }

void wa_js_settle(uint32_t call, int status, const void *data, size_t len, double number)
{
    wa_js_settle_(call, status, data, len, number);
}
