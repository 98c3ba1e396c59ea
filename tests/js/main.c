/* SPDX-License-Identifier: MIT */
/* A native test program as a JS module: its main, compiled under the name
 * wasync_test_main, runs when the glue calls the export run (call.mjs).
 * Its runtimes are wa_rt_new's, on the simulated clock (block_on waits
 * there by moving the clock), not the module's own; its lines go through
 * the glue's stdio, and the call fails when main does. */
#include <stdio.h>

#include "wasync.h"

int wasync_test_main(void);

__attribute__((export_name("run"))) int run(uint32_t call)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* (each line as it comes: a hang shows where) */
    wa_js_settle(call, wasync_test_main() == 0 ? 0 : WA_EIO, NULL, 0, 0);
    return 0;
}
