/* SPDX-License-Identifier: MIT */
/* The entry of a WASI 0.3 command: the async export wasi:cli/run@0.3.0#run,
 * lifted with a callback, which runs the program's main. A program that
 * exports run itself (the probes) does not link this object: it is pulled
 * in by name (cmake/component.cmake), not with cabi_realloc, since two
 * exports of one name make an invalid module. */
#include "builtins.h"

int __main_void(void);
void __wasm_call_dtors(void);

WA__WASI_IMPORT("[export]wasi:cli/run@0.3.0", "[task-return]run") void wa__wasip3_imp_run_return(uint32_t is_err);

uint32_t wa__wasip3_run(void);
uint32_t wa__wasip3_run_callback(uint32_t event, uint32_t p1, uint32_t p2);

/* main runs to its end in this first call: its waits block the task
 * (waitable-set.wait suspends the core stack), so no event comes back to
 * the callback. The ctors ran in _initialize (crt1-reactor's), which the
 * component calls when it is instantiated; the dtors flush stdio before
 * run returns, as a command's _start does (src/wasi/cabi.c). Code that
 * waits through the wasip3_task registry finds it set for all of main. */
__attribute__((export_name("[async-lift]wasi:cli/run@0.3.0#run")))
uint32_t wa__wasip3_run(void)
{
    void *prev = wa__wasip3_task_enter(); /* main's ticks poll tasks */
    int r = __main_void();
    wa__wasip3_task_leave(prev);
    __wasm_call_dtors();
    wa__wasip3_imp_run_return(r != 0);
    return WA__WASIP3_CALLBACK_EXIT;
}

/* Never called: run returns EXIT from its first call. */
__attribute__((export_name("[callback][async-lift]wasi:cli/run@0.3.0#run")))
uint32_t wa__wasip3_run_callback(uint32_t event, uint32_t p1, uint32_t p2)
{
    (void)event, (void)p1, (void)p2;
    return WA__WASIP3_CALLBACK_EXIT;
}
