/* SPDX-License-Identifier: MIT */
/* The Component Model's async built-ins (builtins.h) under the core names
 * wit-component accepts: the built-ins in module "$root", async-lowered
 * imports as "[async-lower]NAME" in the interface's module. */
#include "builtins.h"
#include "wasync/component.h"
#include "wasync/wasi.h"

#define WA__WASIP3_BUILTIN(name) WA__WASI_IMPORT("$root", name)
#define MONO "wasi:clocks/monotonic-clock@0.3.0"

WA__WASIP3_BUILTIN("[waitable-set-new]") uint32_t wa__wasip3_imp_canon_set_new(void);
WA__WASIP3_BUILTIN("[waitable-set-wait]") uint32_t wa__wasip3_imp_canon_set_wait(uint32_t set, uint32_t *payload);
WA__WASIP3_BUILTIN("[waitable-set-poll]") uint32_t wa__wasip3_imp_canon_set_poll(uint32_t set, uint32_t *payload);
WA__WASIP3_BUILTIN("[waitable-set-drop]") void wa__wasip3_imp_canon_set_drop(uint32_t set);
WA__WASIP3_BUILTIN("[waitable-join]") void wa__wasip3_imp_canon_join(uint32_t w, uint32_t set);
WA__WASIP3_BUILTIN("[subtask-cancel]") uint32_t wa__wasip3_imp_canon_subtask_cancel(uint32_t subtask);
WA__WASIP3_BUILTIN("[subtask-drop]") void wa__wasip3_imp_canon_subtask_drop(uint32_t subtask);
WA__WASIP3_BUILTIN("[context-get-0]") uint32_t wa__wasip3_imp_canon_context_get(void);
WA__WASIP3_BUILTIN("[context-set-0]") void wa__wasip3_imp_canon_context_set(uint32_t value);
WA__WASIP3_BUILTIN("[backpressure-inc]") void wa__wasip3_imp_canon_backpressure_inc(void);
WA__WASIP3_BUILTIN("[backpressure-dec]") void wa__wasip3_imp_canon_backpressure_dec(void);
WA__WASIP3_BUILTIN("[thread-yield]") uint32_t wa__wasip3_imp_canon_thread_yield(void);

WA__WASI_IMPORT("[export]$root", "[task-cancel]") void wa__wasip3_imp_canon_task_cancel(void);

WA__WASI_IMPORT(MONO, "now") int64_t wa__wasip3_imp_clocks_now(void);
/* Async-lowered: flat parameters (up to four), the result packed in an
 * i32; wait-for and wait-until return nothing, so no result area. */
WA__WASI_IMPORT(MONO, "[async-lower]wait-for") uint32_t wa__wasip3_imp_clocks_wait_for(int64_t ns);
WA__WASI_IMPORT(MONO, "[async-lower]wait-until") uint32_t wa__wasip3_imp_clocks_wait_until(int64_t when);

long wa__wasip3_live;
long wa__wasip3_live_ends;
long wa__wasip3_resources;

long wa_wasi_live_handles(void) { return wa__wasip3_resources + wa__wasip3_live + wa__wasip3_live_ends; }

uint32_t wa__wasip3_waitable_set_new(void) { return wa__wasip3_imp_canon_set_new(); }

/* The payload (p1, p2) is written to an 8-byte-aligned area. */
wa__wasip3_event wa__wasip3_waitable_set_wait(uint32_t set)
{
    _Alignas(8) uint32_t payload[2];
    uint32_t code = wa__wasip3_imp_canon_set_wait(set, payload);
    return (wa__wasip3_event){code, payload[0], payload[1]};
}

wa__wasip3_event wa__wasip3_waitable_set_poll(uint32_t set)
{
    _Alignas(8) uint32_t payload[2] = {0, 0};
    uint32_t code = wa__wasip3_imp_canon_set_poll(set, payload);
    return (wa__wasip3_event){code, payload[0], payload[1]};
}

void wa__wasip3_waitable_set_drop(uint32_t set) { wa__wasip3_imp_canon_set_drop(set); }
void wa__wasip3_waitable_join(uint32_t w, uint32_t set) { wa__wasip3_imp_canon_join(w, set); }
uint32_t wa__wasip3_subtask_cancel(uint32_t subtask) { return wa__wasip3_imp_canon_subtask_cancel(subtask); }

void wa__wasip3_subtask_drop(uint32_t subtask)
{
    wa__wasip3_live--;
    wa__wasip3_imp_canon_subtask_drop(subtask);
}

void *wa__wasip3_context_get(void) { return (void *)(uintptr_t)wa__wasip3_imp_canon_context_get(); }
void wa__wasip3_context_set(void *value) { wa__wasip3_imp_canon_context_set((uint32_t)(uintptr_t)value); }
void wa__wasip3_backpressure_inc(void) { wa__wasip3_imp_canon_backpressure_inc(); }
void wa__wasip3_backpressure_dec(void) { wa__wasip3_imp_canon_backpressure_dec(); }
int wa__wasip3_thread_yield(void) { return wa__wasip3_imp_canon_thread_yield() != 0; }
void wa__wasip3_task_cancel(void) { wa__wasip3_imp_canon_task_cancel(); }

uint64_t wa__wasip3_now(void) { return (uint64_t)wa__wasip3_imp_clocks_now(); }

/* A started subtask is held from here on. */
static uint32_t wa__wasip3_started(uint32_t r)
{
    if (wa__wasip3_subtask(r))
        wa__wasip3_live++;
    return r;
}

uint32_t wa__wasip3_wait_for(uint64_t ns) { return wa__wasip3_started(wa__wasip3_imp_clocks_wait_for((int64_t)ns)); }
uint32_t wa__wasip3_wait_until(uint64_t when) { return wa__wasip3_started(wa__wasip3_imp_clocks_wait_until((int64_t)when)); }

long wa_wasip3_live_subtasks(void) { return wa__wasip3_live; }
long wa_wasip3_live_ends(void) { return wa__wasip3_live_ends; }
