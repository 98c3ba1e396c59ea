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

/* Host operations in flight: key = generation << 20 | slot + 1, so stale
 * deliveries (an op dropped meanwhile) are recognised and ignored. */
#define WA_JS_SLOT_BITS 20
#define WA_JS_SLOT_MASK ((1u << WA_JS_SLOT_BITS) - 1)

typedef struct wa_js_slot {
    wa_js_op *op;      /* NULL when free */
    uint32_t gen;
    uint32_t next_free;
} wa_js_slot;

typedef struct wa_js {
    wa_backend base;
    wa_js_slot *slots;
    uint32_t nslots, cap, free_head; /* free list through next_free; 0 ends */
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
    free(h->slots);
    free(h);
}

static const wa_backend_vt wa_js_vt = {"js", wa_js_now, wa_js_wait, NULL, wa_js_free};

wa_rt *wa_js_rt(void) { return wa_js_runtime; }

WA_JS_EXPORT(wasync_init) int wasync_init(void)
{
    if (wa_js_runtime)
        return 0;
    wa_js *h = calloc(1, sizeof *h);
    if (!h)
        return WA_ENOMEM;
    h->base.vt = &wa_js_vt;
    h->armed_ms = -1;
    int rc = wa_rt_new(&wa_js_runtime, &h->base);
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

static wa_js_slot *wa_js_lookup(uint32_t id)
{
    wa_js *h = wa_js_host;
    uint32_t slot = (id & WA_JS_SLOT_MASK) - 1;
    if (!h || slot >= h->nslots || h->slots[slot].gen != id >> WA_JS_SLOT_BITS || !h->slots[slot].op)
        return NULL;
    return &h->slots[slot];
}

static int wa_js_slot_new(wa_js *h, wa_js_op *op, uint32_t *id)
{
    if (!h->free_head) {
        if (h->nslots == h->cap) {
            uint32_t cap = h->cap ? h->cap * 2 : 16;
            wa_js_slot *s = cap <= WA_JS_SLOT_MASK ? realloc(h->slots, cap * sizeof *s) : NULL;
            if (!s)
                return WA_ENOMEM;
            h->slots = s;
            h->cap = cap;
        }
        h->slots[h->nslots] = (wa_js_slot){NULL, 1, 0};
        h->free_head = ++h->nslots;
    }
    wa_js_slot *s = &h->slots[h->free_head - 1];
    *id = s->gen << WA_JS_SLOT_BITS | h->free_head;
    h->free_head = s->next_free;
    s->op = op;
    h->base.sources++;
    return 0;
}

static void wa_js_slot_release(wa_js_slot *s)
{
    wa_js *h = wa_js_host;
    s->op = NULL;
    s->gen = (s->gen + 1) & (UINT32_MAX >> WA_JS_SLOT_BITS); /* old keys go stale */
    if (!s->gen)
        s->gen = 1;
    s->next_free = h->free_head;
    h->free_head = (uint32_t)(s - h->slots) + 1;
    h->base.sources--;
}

/* A result (or, with status WA_PENDING, one more chunk) from the host. The
 * bytes at p were allocated with wasync_alloc; they are taken here. */
WA_JS_EXPORT(wasync_deliver) void wasync_deliver(uint32_t id, int status, void *p, size_t n, double number)
{
    wa_js_slot *s = wa_js_lookup(id);
    if (!s) { /* the op was dropped: its result goes nowhere */
        free(p);
        return;
    }
    wa_js_op *op = s->op;
    if (n) {
        unsigned char *d = op->data ? realloc(op->data, op->len + n) : p;
        if (!d) {
            free(p);
            status = WA_ENOMEM;
        } else {
            if (d != p) {
                memcpy(d + op->len, p, n);
                free(p);
            }
            op->data = d;
            op->len += n;
        }
    } else {
        free(p);
    }
    if (status == WA_PENDING)
        return; /* more to come */
    op->status = status;
    op->number = number;
    op->state = WA_JS_DELIVERED;
    wa_js_slot_release(s);
    wa_waker_wake(&op->waker);
}

WA_JS_EXPORT(wasync_wake) void wasync_wake(uint32_t id) { wasync_deliver(id, 0, NULL, 0, 0); }

static int wa_js_op_poll(wa_future *f, wa_cx *cx)
{
    wa_js_op *op = (wa_js_op *)f;
    switch (op->state) {
    case WA_JS_NEW: {
        if (!wa_js_host)
            return WA_EINVAL;
        int rc = wa_js_slot_new(wa_js_host, op, &op->id);
        if (rc < 0) {
            op->state = WA_JS_DONE;
            return rc;
        }
        op->state = WA_JS_STARTED;
        op->waker = wa_waker_clone(&cx->waker);
        wa_js_op_start_(op->id, op->kind, op->handle, op->req, op->req_len);
        return WA_PENDING;
    }
    case WA_JS_STARTED:
        wa_waker_store(&op->waker, cx);
        return WA_PENDING;
    case WA_JS_DELIVERED:
        op->state = WA_JS_DONE;
        return op->status;
    default:
        return wa_misuse(WA_EMISUSE, "poll of a finished host operation");
    }
}

static void wa_js_op_drop(wa_future *f)
{
    wa_js_op *op = (wa_js_op *)f;
    if (op->state == WA_JS_STARTED) {
        wa_js_slot *s = wa_js_lookup(op->id);
        if (s)
            wa_js_slot_release(s);
        wa_js_op_cancel_(op->id);
    }
    if (op->state == WA_JS_STARTED || op->state == WA_JS_DELIVERED) {
        free(op->data); /* never handed over */
        op->data = NULL;
        op->len = 0;
    }
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

wa_future *wa_js_fetch(wa_js_op *op, const char *url)
{
    return wa_js_op_init(op, WA_JS_FETCH, 0, url, strlen(url));
}

wa_future *wa_js_await(wa_js_op *op, uint32_t handle)
{
    return wa_js_op_init(op, WA_JS_AWAIT, handle, NULL, 0);
}

void wa_js_settle(uint32_t call, int status, const void *data, size_t len, double number)
{
    wa_js_settle_(call, status, data, len, number);
}
