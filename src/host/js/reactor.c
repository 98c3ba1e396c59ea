/* SPDX-License-Identifier: MIT */
/* The JavaScript host's reactor: the host's event loop drives the runtime
 * (see js.h and the glue in js/wasync.mjs), so waiting is the host's; this
 * keeps the one host timer on the runtime's earliest deadline and the keys
 * handed to JavaScript (host operations: ops.c; promise handles:
 * promises.c), each a source of wakes, with what each stands for in its
 * slot (a promise's outcome is kept there, not in a block of its own: a
 * burst of adopts allocates nothing per promise but the slots, which never
 * move). It imports from "wasync":
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

WA__JS_IMPORT(now) double wa__js_now(void);
WA__JS_IMPORT(timer) void wa__js_timer(double at_ms);

/* Keys handed to JavaScript (host operations, promise handles): generation
 * << 20 | slot + 1, so a stale key (its op dropped, its handle released) is
 * recognised and ignored. */
#define WA__JS_SLOT_BITS 20
#define WA__JS_SLOT_MASK ((1u << WA__JS_SLOT_BITS) - 1)

typedef struct wa__js_slot {
    wa__keyslot slot;
    int kind;
    union {
        double align;
        unsigned char bytes[WA__JS_KEY_RECORD];
    } rec;              /* what the key stands for (reactor.h) */
} wa__js_slot;

typedef struct wa__js {
    wa_backend base;
    wa__keys keys;
    double armed_ms;                 /* the host timer's deadline, -1 none */
} wa__js;

static wa__js *wa__js_host; /* the one reactor, made by wa__backend_js_new */

static uint64_t wa__js_reactor_now(wa_backend *b)
{
    (void)b;
    return (uint64_t)(wa__js_now() * 1e6);
}

/* This host never blocks: the event loop calls wasync_tick. */
static int wa__js_wait(wa_backend *b, uint64_t deadline)
{
    (void)b;
    (void)deadline;
    return WA_ENOSYS;
}

static void wa__js_free(wa_backend *b)
{
    wa__js *h = (wa__js *)b;
    wa__keys_free(&h->keys);
    free(h);
    wa__js_host = NULL;
}

static const wa_backend_vt wa__js_vt = {"js", wa__js_reactor_now, wa__js_wait, NULL, wa__js_free, NULL, NULL};

wa_backend *wa__backend_js_new(int *err)
{
    if (wa__js_host) {
        *err = WA_EMISUSE;
        return NULL;
    }
    wa__js *h = calloc(1, sizeof *h);
    if (!h) {
        *err = WA_ENOMEM;
        return NULL;
    }
    h->base.vt = &wa__js_vt;
    h->base.resolution = WA_MS(1); /* setTimeout */
    h->armed_ms = -1;
    wa__keys_init(&h->keys, sizeof(wa__js_slot), UINT32_MAX >> WA__JS_SLOT_BITS, WA__JS_SLOT_MASK);
    wa__js_host = h;
    return &h->base;
}

void wa__js_arm(uint64_t deadline)
{
    wa__js *h = wa__js_host;
    double ms = deadline == WA_NEVER ? -1 : (double)deadline / 1e6;
    if (ms != h->armed_ms) {
        h->armed_ms = ms;
        wa__js_timer(ms);
    }
}

void *wa__js_key_get(uint32_t key, int kind)
{
    wa__js *h = wa__js_host;
    wa__js_slot *s = h ? wa__keys_get(&h->keys, (key & WA__JS_SLOT_MASK) - 1, key >> WA__JS_SLOT_BITS) : NULL;
    return s && s->kind == kind ? s->rec.bytes : NULL;
}

int wa__js_key_new(int kind, uint32_t *key, void **rec)
{
    wa__js *h = wa__js_host;
    uint32_t i;
    if (!h)
        return WA_EINVAL;
    if (wa__keys_alloc(&h->keys, &i) < 0) /* (at most WA__JS_SLOT_MASK: i + 1 fits) */
        return WA_ENOMEM;
    wa__js_slot *s = (wa__js_slot *)wa__keys_at(&h->keys, i);
    s->kind = kind;
    *key = s->slot.gen << WA__JS_SLOT_BITS | (i + 1);
    *rec = s->rec.bytes;
    h->base.sources++;
    return 0;
}

void wa__js_key_free(uint32_t key)
{
    wa__js *h = wa__js_host;
    wa__keys_release(&h->keys, (key & WA__JS_SLOT_MASK) - 1);
    h->base.sources--;
}
