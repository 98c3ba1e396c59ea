/* SPDX-License-Identifier: MIT */
/* The JS host's benchmarks, C side (bench/js/run.mjs is the other half):
 * awaiting an already-resolved JS promise n times, n concurrent timers, and
 * a task that wakes itself n times. */
#include <stdlib.h>

#include "wasync.h"
#include "wasync/js.h"

#define EXPORT(name) __attribute__((export_name(#name)))

typedef struct bench {
    WA_CORO;
    uint32_t call, handle;
    uint32_t *list; /* await_list: handles, taken */
    long n, i;
    double sum;
    wa_js_op op;
    wa_scope scope;
} bench;

/* await_n(handle, n): awaits the promise n times; resolves with the sum of
 * the numbers it got (so the work cannot be skipped). */
static int await_n_poll(wa_future *f, wa_cx *cx)
{
    bench *b = (bench *)f;
    WA_BEGIN(b, cx);
    for (b->i = 0; b->i < b->n; b->i++) {
        WA_AWAIT(wa_js_await_init(&b->op, b->handle));
        if (WA_STATUS < 0)
            WA_RETURN(WA_STATUS);
        b->sum += b->op.number;
    }
    wa_js_settle(b->call, 0, NULL, 0, b->sum);
    WA_END();
}
static const wa_future_vt await_n_vt = {await_n_poll, wa_coro_drop, "await_n"};

EXPORT(await_n) int await_n(uint32_t call, uint32_t handle, double n)
{
    bench b = {.call = call, .handle = handle, .n = (long)n};
    wa_coro_init(&b.wa, &await_n_vt);
    return wa_spawn_of(wa_js_rt(), &b, NULL);
}

/* await_list(ptr, n): awaits n distinct promises (handles in a u32 array
 * from wasync_alloc, taken), each settling through the glue. */
static int await_list_poll(wa_future *f, wa_cx *cx)
{
    bench *b = (bench *)f;
    WA_BEGIN(b, cx);
    for (b->i = 0; b->i < b->n; b->i++) {
        WA_AWAIT(wa_js_await_init(&b->op, b->list[b->i]));
        if (WA_STATUS < 0)
            WA_RETURN(WA_STATUS);
        b->sum += b->op.number;
        wa_js_release(b->list[b->i]);
    }
    wa_js_settle(b->call, 0, NULL, 0, b->sum);
    WA_END();
}
static void await_list_drop(wa_future *f)
{
    bench *b = (bench *)f;
    wa_coro_drop(f);
    free(b->list);
    b->list = NULL;
}
static const wa_future_vt await_list_vt = {await_list_poll, await_list_drop, "await_list"};

EXPORT(await_list) int await_list(uint32_t call, uint32_t *list, double n)
{
    bench b = {.call = call, .list = list, .n = (long)n};
    wa_coro_init(&b.wa, &await_list_vt);
    return wa_spawn_of(wa_js_rt(), &b, NULL);
}

/* sleep_many(n, ms): n tasks each sleep ms; resolves when all are done. */
static int sleep_many_poll(wa_future *f, wa_cx *cx)
{
    bench *b = (bench *)f;
    WA_BEGIN(b, cx);
    wa_scope_init(&b->scope, cx->rt, 0);
    for (b->i = 0; b->i < b->n; b->i++) {
        wa_sleep s;
        wa_sleep_init(&s, WA_US((uint64_t)(b->sum * 1000)));
        if (wa_scope_spawn_of(&b->scope, &s, NULL) < 0) {
            wa_drop(&b->scope.fut);
            WA_RETURN(WA_ENOMEM);
        }
    }
    WA_AWAIT(wa_scope_wait(&b->scope));
    wa_js_settle(b->call, WA_STATUS, NULL, 0, (double)b->n);
    WA_END();
}
static const wa_future_vt sleep_many_vt = {sleep_many_poll, wa_coro_drop, "sleep_many"};

EXPORT(sleep_many) int sleep_many(uint32_t call, double n, double ms)
{
    bench b = {.call = call, .n = (long)n, .sum = ms};
    wa_coro_init(&b.wa, &sleep_many_vt);
    return wa_spawn_of(wa_js_rt(), &b, NULL);
}

/* yield_n(n): a task that wakes itself n times, one tick each. */
static int yield_n_poll(wa_future *f, wa_cx *cx)
{
    bench *b = (bench *)f;
    WA_BEGIN(b, cx);
    for (b->i = 0; b->i < b->n; b->i++)
        WA_YIELD();
    wa_js_settle(b->call, 0, NULL, 0, (double)b->n);
    WA_END();
}
static const wa_future_vt yield_n_vt = {yield_n_poll, wa_coro_drop, "yield_n"};

EXPORT(yield_n) int yield_n(uint32_t call, double n)
{
    bench b = {.call = call, .n = (long)n};
    wa_coro_init(&b.wa, &yield_n_vt);
    return wa_spawn_of(wa_js_rt(), &b, NULL);
}
