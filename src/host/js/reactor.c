/* SPDX-License-Identifier: MIT */
/* The JavaScript host's reactor: the host's event loop drives the runtime
 * (see js.h and the glue in js/wasync.mjs), so waiting is the host's; this
 * keeps the one host timer on the runtime's earliest deadline and the keys
 * handed to JavaScript (host operations, promise handles: ops.c), each a
 * source of wakes. It imports from "wasync":
 *
 *   now() -> f64                       monotonic milliseconds
 *   timer(at_ms: f64)                  arm the one host timer (-1: none)
 *
 * The module's one runtime is made on it and ticked by runtime.c, a layer
 * above: this file calls nothing of the executor.
 */
#include <stdlib.h>

#include "../../core/keys.h"
#include "../../core/rt.h"
#include "reactor.h"

WA_JS_IMPORT(now) double wa_js_now_(void);
WA_JS_IMPORT(timer) void wa_js_timer_(double at_ms);

/* Keys handed to JavaScript (host operations, promise handles): generation
 * << 20 | slot + 1, so a stale key (its op dropped, its handle released) is
 * recognised and ignored. */
#define WA_JS_SLOT_BITS 20
#define WA_JS_SLOT_MASK ((1u << WA_JS_SLOT_BITS) - 1)

typedef struct wa_js_slot {
    wa_keyslot slot;
    void *ptr;          /* a wa_js_op or a wa_js_promise */
    int kind;
} wa_js_slot;

typedef struct wa_js {
    wa_backend base;
    wa_keys keys;
    double armed_ms;                 /* the host timer's deadline, -1 none */
} wa_js;

static wa_js *wa_js_host; /* the one reactor, made by wa_backend_js_new_ */

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
    wa_js_host = NULL;
}

static const wa_backend_vt wa_js_vt = {"js", wa_js_now, wa_js_wait, NULL, wa_js_free, NULL, NULL};

wa_backend *wa_backend_js_new_(int *err)
{
    if (wa_js_host) {
        *err = WA_EMISUSE;
        return NULL;
    }
    wa_js *h = calloc(1, sizeof *h);
    if (!h) {
        *err = WA_ENOMEM;
        return NULL;
    }
    h->base.vt = &wa_js_vt;
    h->base.resolution = WA_MS(1); /* setTimeout */
    h->armed_ms = -1;
    wa_keys_init(&h->keys, sizeof(wa_js_slot), UINT32_MAX >> WA_JS_SLOT_BITS, WA_JS_SLOT_MASK);
    wa_js_host = h;
    return &h->base;
}

void wa_js_arm_(uint64_t deadline)
{
    wa_js *h = wa_js_host;
    double ms = deadline == WA_NEVER ? -1 : (double)deadline / 1e6;
    if (ms != h->armed_ms) {
        h->armed_ms = ms;
        wa_js_timer_(ms);
    }
}

void *wa_js_key_get_(uint32_t key, int kind)
{
    wa_js *h = wa_js_host;
    wa_js_slot *s = h ? wa_keys_get(&h->keys, (key & WA_JS_SLOT_MASK) - 1, key >> WA_JS_SLOT_BITS) : NULL;
    return s && s->kind == kind ? s->ptr : NULL;
}

int wa_js_key_new_(void *ptr, int kind, uint32_t *key)
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

void wa_js_key_free_(uint32_t key)
{
    wa_js *h = wa_js_host;
    wa_keys_release(&h->keys, (key & WA_JS_SLOT_MASK) - 1);
    h->base.sources--;
}
