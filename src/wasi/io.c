/* wasi:io/poll (see io.h). */
#include "io.h"
#include "wasync/wasi.h"

#define WA_P2_IMPORT(module, name) __attribute__((import_module(module), import_name(name)))

WA_P2_IMPORT("wasi:io/poll@0.2.12", "[resource-drop]pollable") void wa_p2_imp_drop(int32_t);
WA_P2_IMPORT("wasi:io/poll@0.2.12", "poll") void wa_p2_imp_poll(int32_t ptr, int32_t len, int32_t ret);

long wa_p2_live;

void wa_p2_pollable_drop(wa_p2_pollable p)
{
    wa_p2_live--;
    wa_p2_imp_drop((int32_t)p);
}

uint32_t *wa_p2_poll(const wa_p2_pollable *list, size_t n, size_t *nready)
{
    /* the result is a list: (ptr, len) written to a return area */
    uint32_t ret[2] __attribute__((aligned(4)));
    wa_p2_imp_poll((int32_t)(uintptr_t)list, (int32_t)n, (int32_t)(uintptr_t)ret);
    *nready = ret[1];
    return (uint32_t *)(uintptr_t)ret[0];
}

long wa_wasi_live_handles(void) { return wa_p2_live; }
