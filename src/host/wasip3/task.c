/* SPDX-License-Identifier: MIT */
/* The wasip3_task registry: the ABI through which code linked into the
 * same component that knows nothing of wasync (wit-bindgen's runtimes,
 * other C libraries) waits on wasync's loop. One process-wide pointer,
 * swapped by the weak function wasip3_task_set, names the current task's
 * executor while one of its polls runs; such code registers a waitable
 * with a callback, and the executor calls it with the event's payload when
 * the waitable fires (once: the registration then ends).
 *
 * Here every registration is a wasync waitable registration (so it joins
 * the instance's one set only while waited on) with a small task that
 * waits on it. The runtime is the one whose tick is running: the drivers
 * enter the registry around their ticks only, so a registration always
 * happens inside a task's poll. */
#include <stdio.h>
#include <stdlib.h>

#include "../../core/rt.h"
#include "builtins.h"
#include "wasync/component.h"

/* The ABI's layout (repr(C) in wit-bindgen; V1's fields first, so a V1
 * reader works with V2). */
#define WASIP3_TASK_V2 2
typedef void (*wa__wasip3_hook_fn)(void *callback_ptr, uint32_t payload);
typedef struct wasip3_task_vtable {
    void *(*waitable_register)(void *ptr, uint32_t waitable, wa__wasip3_hook_fn callback, void *callback_ptr);
    void *(*waitable_unregister)(void *ptr, uint32_t waitable);
    void *(*clone)(void *ptr);
    void (*drop)(void *ptr);
} wasip3_task_vtable;
typedef struct wasip3_task {
    uint32_t version;
    void *ptr;
    void *(*waitable_register)(void *ptr, uint32_t waitable, wa__wasip3_hook_fn callback, void *callback_ptr);
    void *(*waitable_unregister)(void *ptr, uint32_t waitable);
} wasip3_task;
typedef struct wasip3_task_v2 {
    wasip3_task v1;
    const wasip3_task_vtable *vtable;
} wasip3_task_v2;

/* A registration made through the ABI. */
typedef struct wa__wasip3_hook {
    struct wa__wasip3_hook *next;
    wa_rt *rt;
    uint32_t w;
    int registered;    /* its waitable key is live */
    int waiting;       /* wait is initialised */
    wa_waitable_key key;
    wa__wasip3_hook_fn fn;  /* NULL once unregistered or fired */
    void *arg;
    wa_waitable_wait wait;
} wa__wasip3_hook;

static wa__wasip3_hook *wa__wasip3_hooks; /* registered or ending ones */

/* The live registration of w, or NULL. */
static wa__wasip3_hook *wa__wasip3_hook_find(uint32_t w)
{
    for (wa__wasip3_hook *h = wa__wasip3_hooks; h; h = h->next)
        if (h->w == w && h->fn)
            return h;
    return NULL;
}

/* Ends h: its wait, its registration (which unjoins the waitable), its
 * memory. */
static void wa__wasip3_hook_free(wa__wasip3_hook *h)
{
    if (h->waiting)
        wa_drop(&h->wait.fut);
    if (h->registered)
        wa_waitable_deregister(h->rt, h->key);
    wa__wasip3_hook **p = &wa__wasip3_hooks;
    while (*p != h)
        p = &(*p)->next;
    *p = h->next;
    free(h);
}

/* The task of a registration: waits for its waitable's event, ends the
 * registration, then calls the callback with the event's payload. An
 * unregistered one (or one dropped with its runtime: cx NULL) just ends. */
static int wa__wasip3_hook_run(void *arg, wa_cx *cx)
{
    wa__wasip3_hook *h = arg;
    if (cx && h->fn) {
        if (!h->waiting) {
            wa_waitable_wait_init(&h->wait, h->key);
            h->waiting = 1;
        }
        int rc = wa_poll(&h->wait.fut, cx);
        if (rc == WA_PENDING)
            return WA_PENDING;
        uint32_t payload = 0;
        wa_waitable_payload(h->rt, h->key, &payload);
        wa__wasip3_hook_fn fn = h->fn;
        void *fn_arg = h->arg;
        wa__wasip3_hook_free(h);
        fn(fn_arg, payload);
        return 0;
    }
    wa__wasip3_hook_free(h);
    return 0;
}

/* The ABI has no way to report a failure: a registration that cannot be
 * made stops the program, as a failed allocation in Rust does. */
static void wa__wasip3_hook_fail(const char *why)
{
    fprintf(stderr, "wasip3_task.waitable_register: %s\n", why);
    abort();
}

static void *wa__wasip3_hook_register(void *ptr, uint32_t w, wa__wasip3_hook_fn fn, void *arg)
{
    (void)ptr;
    wa__wasip3_hook *h = wa__wasip3_hook_find(w);
    if (h) { /* a new callback for a registration that stays */
        void *prev = h->arg;
        h->fn = fn;
        h->arg = arg;
        return prev;
    }
    wa_rt *rt = wa__ticking;
    if (!rt)
        wa__wasip3_hook_fail("outside a task's poll");
    h = calloc(1, sizeof *h);
    if (!h)
        wa__wasip3_hook_fail("out of memory");
    *h = (wa__wasip3_hook){wa__wasip3_hooks, rt, w, 0, 0, 0, fn, arg, {0}};
    int rc = wa_waitable_register(rt, w, &h->key);
    if (rc < 0)
        wa__wasip3_hook_fail(wa_strerror(rc));
    h->registered = 1;
    wa__wasip3_hooks = h;
    if (wa_spawn_fn(rt, wa__wasip3_hook_run, h, NULL) < 0)
        wa__wasip3_hook_fail("out of memory");
    return NULL;
}

/* Ends w's registration now (the waitable leaves the set, so its owner
 * may use it synchronously); its task frees it when next polled. */
static void *wa__wasip3_hook_unregister(void *ptr, uint32_t w)
{
    (void)ptr;
    wa__wasip3_hook *h = wa__wasip3_hook_find(w);
    if (!h)
        return NULL;
    void *arg = h->arg;
    h->fn = NULL;
    h->registered = 0;
    wa_waitable_deregister(h->rt, h->key); /* wakes its task */
    return arg;
}

/* One registry for every task: it lives as long as the instance, so a
 * clone is the pointer itself. */
static void *wa__wasip3_task_clone(void *ptr) { return ptr; }
static void wa__wasip3_task_drop(void *ptr) { (void)ptr; }

static const wasip3_task_vtable wa__wasip3_task_vt = {wa__wasip3_hook_register, wa__wasip3_hook_unregister, wa__wasip3_task_clone,
                                                 wa__wasip3_task_drop};
static wasip3_task_v2 wa__wasip3_task = {
    {WASIP3_TASK_V2, &wa__wasip3_task, wa__wasip3_hook_register, wa__wasip3_hook_unregister}, &wa__wasip3_task_vt};

/* The ABI's process-wide pointer; weak, as in wit-bindgen's C runtime, so
 * that one definition wins when both are linked. */
void *wasip3_task_set(void *ptr);
static void *wa__wasip3_task_current;
__attribute__((weak)) void *wasip3_task_set(void *ptr)
{
    void *prev = wa__wasip3_task_current;
    wa__wasip3_task_current = ptr;
    return prev;
}

void *wa__wasip3_task_enter(void) { return wasip3_task_set(&wa__wasip3_task); }
void wa__wasip3_task_leave(void *prev) { wasip3_task_set(prev); }
