/* SPDX-License-Identifier: MIT */
/* Async cancels of dropped calls (wa_wasip3_set_async_cancel), in a file of
 * their own: only a program that asks for them imports the async
 * subtask.cancel, which wasmtime 49 refuses to load without
 * `-W component-model-more-async-builtins`. */
#include "builtins.h"
#include "wasync/component.h"

WA__WASI_IMPORT("$root", "[async-lower][subtask-cancel]") uint32_t wa__wasip3_imp_canon_subtask_cancel_async(uint32_t subtask);

bool wa_wasip3_set_async_cancel(bool on)
{
    return wa__wasip3_subtask_cancel_with(on ? wa__wasip3_imp_canon_subtask_cancel_async : NULL) != NULL;
}
