/* SPDX-License-Identifier: MIT */
/* The Component Model's async built-ins (builtins.h) under the core names
 * wit-component accepts: the built-ins in module "$root", async-lowered
 * imports as "[async-lower]NAME" in the interface's module. */
#include "builtins.h"
#include "wasync/component.h"
#include "wasync/wasi.h"

#define WA_P3_BUILTIN(name) WA_WASI_IMPORT("$root", name)
#define MONO "wasi:clocks/monotonic-clock@0.3.0"

WA_P3_BUILTIN("[waitable-set-new]") uint32_t wa_p3_imp_canon_set_new(void);
WA_P3_BUILTIN("[waitable-set-wait]") uint32_t wa_p3_imp_canon_set_wait(uint32_t set, uint32_t *payload);
WA_P3_BUILTIN("[waitable-set-poll]") uint32_t wa_p3_imp_canon_set_poll(uint32_t set, uint32_t *payload);
WA_P3_BUILTIN("[waitable-set-drop]") void wa_p3_imp_canon_set_drop(uint32_t set);
WA_P3_BUILTIN("[waitable-join]") void wa_p3_imp_canon_join(uint32_t w, uint32_t set);
WA_P3_BUILTIN("[subtask-cancel]") uint32_t wa_p3_imp_canon_subtask_cancel(uint32_t subtask);
WA_P3_BUILTIN("[subtask-drop]") void wa_p3_imp_canon_subtask_drop(uint32_t subtask);
WA_P3_BUILTIN("[context-get-0]") uint32_t wa_p3_imp_canon_context_get(void);
WA_P3_BUILTIN("[context-set-0]") void wa_p3_imp_canon_context_set(uint32_t value);
WA_P3_BUILTIN("[backpressure-inc]") void wa_p3_imp_canon_backpressure_inc(void);
WA_P3_BUILTIN("[backpressure-dec]") void wa_p3_imp_canon_backpressure_dec(void);
WA_P3_BUILTIN("[thread-yield]") uint32_t wa_p3_imp_canon_thread_yield(void);

WA_WASI_IMPORT("[export]$root", "[task-cancel]") void wa_p3_imp_canon_task_cancel(void);

WA_WASI_IMPORT(MONO, "now") int64_t wa_p3_imp_clocks_now(void);
/* Async-lowered: flat parameters (up to four), the result packed in an
 * i32; wait-for and wait-until return nothing, so no result area. */
WA_WASI_IMPORT(MONO, "[async-lower]wait-for") uint32_t wa_p3_imp_clocks_wait_for(int64_t ns);
WA_WASI_IMPORT(MONO, "[async-lower]wait-until") uint32_t wa_p3_imp_clocks_wait_until(int64_t when);

long wa_p3_live;
long wa_p3_live_ends;
long wa_p3_resources;

long wa_wasi_live_handles(void) { return wa_p3_resources + wa_p3_live + wa_p3_live_ends; }

uint32_t wa_p3_waitable_set_new(void) { return wa_p3_imp_canon_set_new(); }

/* The payload (p1, p2) is written to an 8-byte-aligned area. */
wa_p3_event wa_p3_waitable_set_wait(uint32_t set)
{
    _Alignas(8) uint32_t payload[2];
    uint32_t code = wa_p3_imp_canon_set_wait(set, payload);
    return (wa_p3_event){code, payload[0], payload[1]};
}

wa_p3_event wa_p3_waitable_set_poll(uint32_t set)
{
    _Alignas(8) uint32_t payload[2] = {0, 0};
    uint32_t code = wa_p3_imp_canon_set_poll(set, payload);
    return (wa_p3_event){code, payload[0], payload[1]};
}

void wa_p3_waitable_set_drop(uint32_t set) { wa_p3_imp_canon_set_drop(set); }
void wa_p3_waitable_join(uint32_t w, uint32_t set) { wa_p3_imp_canon_join(w, set); }
uint32_t wa_p3_subtask_cancel(uint32_t subtask) { return wa_p3_imp_canon_subtask_cancel(subtask); }

void wa_p3_subtask_drop(uint32_t subtask)
{
    wa_p3_live--;
    wa_p3_imp_canon_subtask_drop(subtask);
}

void *wa_p3_context_get(void) { return (void *)(uintptr_t)wa_p3_imp_canon_context_get(); }
void wa_p3_context_set(void *value) { wa_p3_imp_canon_context_set((uint32_t)(uintptr_t)value); }
void wa_p3_backpressure_inc(void) { wa_p3_imp_canon_backpressure_inc(); }
void wa_p3_backpressure_dec(void) { wa_p3_imp_canon_backpressure_dec(); }
int wa_p3_thread_yield(void) { return wa_p3_imp_canon_thread_yield() != 0; }
void wa_p3_task_cancel(void) { wa_p3_imp_canon_task_cancel(); }

uint64_t wa_p3_now(void) { return (uint64_t)wa_p3_imp_clocks_now(); }

/* A started subtask is held from here on. */
static uint32_t wa_p3_started(uint32_t r)
{
    if (wa_p3_subtask(r))
        wa_p3_live++;
    return r;
}

uint32_t wa_p3_wait_for(uint64_t ns) { return wa_p3_started(wa_p3_imp_clocks_wait_for((int64_t)ns)); }
uint32_t wa_p3_wait_until(uint64_t when) { return wa_p3_started(wa_p3_imp_clocks_wait_until((int64_t)when)); }

long wa_wasip3_live_subtasks(void) { return wa_p3_live; }
long wa_wasip3_live_ends(void) { return wa_p3_live_ends; }
