/* SPDX-License-Identifier: MIT */
/* The smallest WASI 0.3 program: wasi:cli/run@0.3.0's async run, lifted
 * with a callback, prints through wasi-libc (the preview1 reactor adapter,
 * on wasi:cli@0.2.12) and returns ok at once, without waiting. */
#include <stdint.h>
#include <stdio.h>

__attribute__((import_module("[export]wasi:cli/run@0.3.0"), import_name("[task-return]run")))
void task_return_run(uint32_t is_err);

__attribute__((export_name("[async-lift]wasi:cli/run@0.3.0#run")))
uint32_t run_start(void)
{
    printf("hello from a WASI 0.3 component\n");
    fflush(stdout);
    task_return_run(0);
    return 0; /* EXIT: the callback is never called */
}

__attribute__((export_name("[callback][async-lift]wasi:cli/run@0.3.0#run")))
uint32_t run_callback(uint32_t event, uint32_t p1, uint32_t p2)
{
    (void)event, (void)p1, (void)p2;
    return 0;
}
