/* SPDX-License-Identifier: MIT */
/* A component that exports async functions written in C (WA_EXPORT_ASYNC,
 * world exports-p3 of exports/ops.wit), driven from JavaScript by
 * exports.test.mjs: concurrent calls, a call cancelled by its caller,
 * the export limit, and extlib (a library that knows only the wasip3_task
 * registry) awaited from a wasync task. */
#include <stdint.h>

#include "../../src/host/wasip3/builtins.h"
#include "extlib.h"
#include "wasync/component.h"
#include "wasync/coro.h"
#include "wasync/time.h"

#define OPS "[export]wasync:test/ops"
__attribute__((import_module(OPS), import_name("[task-return]sleep-then-add"))) void ops_add_return(uint32_t sum);
__attribute__((import_module(OPS), import_name("[task-return]ext-sleep"))) void ops_ext_return(uint32_t ms);
__attribute__((import_module(OPS), import_name("[task-return]late-event"))) void ops_late_return(uint32_t state);

static uint32_t peak, cleanups;

static void note_live(void)
{
    uint32_t live = wa_wasip3_export_live();
    if (live > peak)
        peak = live;
}

/* sleep-then-add: a sleep, then the sum; cancelled, an awaited cleanup. */
typedef struct adder {
    WA_CORO;
    wa_sleep s;
    uint32_t ms, a, b, sum;
} adder;

WA_ASYNC(adder, t, cx)
{
    WA_BEGIN(t, cx);
    WA_AWAIT(wa_sleep_init(&t->s, WA_MS(t->ms)));
    t->sum = t->a + t->b;
    WA_RETURN(0);
    WA_ON_CANCEL();
    WA_AWAIT(wa_sleep_init(&t->s, WA_MS(10)));
    cleanups++;
    WA_END();
}

static int add_spawn(wa_rt *rt, wa_join *join, uint32_t ms, uint32_t a, uint32_t b)
{
    note_live();
    adder t = {.ms = ms, .a = a, .b = b};
    adder_init(&t);
    return wa_spawn_of(rt, &t, join);
}

static void add_return(wa_future *done, int status) { ops_add_return(status == 0 ? ((adder *)done)->sum : UINT32_MAX); }

WA_EXPORT_ASYNC("wasync:test/ops#sleep-then-add", add_spawn, add_return, (uint32_t ms, uint32_t a, uint32_t b), ms, a,
                b)

/* extlib's sleep as a wasync future: started at the first poll, ready
 * when the library calls back (from the registry's callback). */
typedef struct ext_wait {
    wa_future fut;
    extlib_sleep sleep;
    uint64_t ns;
    int started, done;
    wa_waker waker;
} ext_wait;

static void ext_wait_done(void *arg)
{
    ext_wait *w = arg;
    w->done = 1;
    wa_waker_wake(&w->waker);
    w->waker = (wa_waker){0};
}

static int ext_wait_poll(wa_future *f, wa_cx *cx)
{
    ext_wait *w = (ext_wait *)f;
    if (!w->started) {
        w->started = 1;
        if (extlib_sleep_start(&w->sleep, w->ns, ext_wait_done, w) < 0)
            return WA_EIO;
    }
    if (w->done)
        return 0;
    wa_waker_drop(&w->waker);
    w->waker = wa_waker_clone(&cx->waker);
    return WA_PENDING;
}

static void ext_wait_drop(wa_future *f) { wa_waker_drop(&((ext_wait *)f)->waker); }

static const wa_future_vt ext_wait_vt = {ext_wait_poll, ext_wait_drop, "ext_wait"};

typedef struct ext_sleeper {
    WA_CORO;
    ext_wait wait;
    uint32_t ms, took;
    uint64_t t0;
} ext_sleeper;

WA_ASYNC(ext_sleeper, t, cx)
{
    WA_BEGIN(t, cx);
    t->t0 = wa_now(cx->rt);
    t->wait = (ext_wait){.fut.vt = &ext_wait_vt, .ns = WA_MS(t->ms)};
    WA_TRY(&t->wait.fut);
    t->took = (uint32_t)((wa_now(cx->rt) - t->t0) / WA_MS(1));
    WA_END();
}

static int ext_spawn(wa_rt *rt, wa_join *join, uint32_t ms)
{
    ext_sleeper t = {.ms = ms};
    ext_sleeper_init(&t);
    return wa_spawn_of(rt, &t, join);
}

static void ext_return(wa_future *done, int status)
{
    ops_ext_return(status == 0 ? ((ext_sleeper *)done)->took : UINT32_MAX);
}

WA_EXPORT_ASYNC("wasync:test/ops#ext-sleep", ext_spawn, ext_return, (uint32_t ms), ms)

/* late-event: a 2 ms wait-for whose host timer fires during the next
 * async call (the spin keeps JavaScript out until then), so its event is
 * pending before it is awaited; then an async call from the callback that
 * took that event. jco (1.35) takes a pending event at WAIT at once, ahead
 * of a call queued for the instance: the driver must not answer WAIT then
 * (docs/wasip3.md). */
typedef struct late {
    WA_CORO;
    wa_subtask s;
    uint32_t ms, first, spun, then;
    uint64_t t0;
} late;

WA_ASYNC(late, t, cx)
{
    WA_BEGIN(t, cx);
    t->first = wa__wasip3_wait_for(WA_MS(2));
    for (t->t0 = wa__wasip3_now(); wa__wasip3_now() - t->t0 < WA_MS(t->ms);)
        ;
    t->spun = wa__wasip3_wait_for(WA_MS(1));
    WA_TRY(wa_subtask_init(&t->s, t->first));
    t->then = wa__wasip3_wait_for(WA_MS(1));
    WA_TRY(wa_subtask_init(&t->s, t->then));
    WA_TRY(wa_subtask_init(&t->s, t->spun));
    WA_END();
}

static int late_spawn(wa_rt *rt, wa_join *join, uint32_t ms)
{
    late t = {.ms = ms};
    late_init(&t);
    return wa_spawn_of(rt, &t, join);
}

static void late_return(wa_future *done, int status)
{
    ops_late_return(status == 0 ? wa__wasip3_state(((late *)done)->first) : UINT32_MAX);
}

WA_EXPORT_ASYNC("wasync:test/ops#late-event", late_spawn, late_return, (uint32_t ms), ms)

__attribute__((export_name("wasync:test/ops#set-limit"))) void ops_set_limit(uint32_t n)
{
    wa_wasip3_set_export_limit(n);
    peak = 0;
}

__attribute__((export_name("wasync:test/ops#peak"))) uint32_t ops_peak(void) { return peak; }
__attribute__((export_name("wasync:test/ops#cleanups"))) uint32_t ops_cleanups(void) { return cleanups; }
