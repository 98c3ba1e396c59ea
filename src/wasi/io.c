/* wasi:io/poll and wasi:clocks/monotonic-clock (see io.h). */
#include "io.h"
#include "wasync/wasi.h"

#define WA_P2_IMPORT(module, name) __attribute__((import_module(module), import_name(name)))

WA_P2_IMPORT("wasi:io/poll@0.2.12", "[resource-drop]pollable") void wa_p2_imp_drop(int32_t);
WA_P2_IMPORT("wasi:io/poll@0.2.12", "[method]pollable.ready") int32_t wa_p2_imp_ready(int32_t);
WA_P2_IMPORT("wasi:io/poll@0.2.12", "[method]pollable.block") void wa_p2_imp_block(int32_t);
WA_P2_IMPORT("wasi:io/poll@0.2.12", "poll") void wa_p2_imp_poll(int32_t ptr, int32_t len, int32_t ret);
WA_P2_IMPORT("wasi:clocks/monotonic-clock@0.2.12", "now") int64_t wa_p2_imp_now(void);
WA_P2_IMPORT("wasi:clocks/monotonic-clock@0.2.12", "subscribe-instant") int32_t wa_p2_imp_instant(int64_t);
WA_P2_IMPORT("wasi:clocks/monotonic-clock@0.2.12", "subscribe-duration") int32_t wa_p2_imp_duration(int64_t);

long wa_p2_live;

void wa_p2_pollable_drop(wa_p2_pollable p)
{
    wa_p2_live--;
    wa_p2_imp_drop((int32_t)p);
}
int wa_p2_pollable_ready(wa_p2_pollable p) { return wa_p2_imp_ready((int32_t)p) != 0; }
void wa_p2_pollable_block(wa_p2_pollable p) { wa_p2_imp_block((int32_t)p); }

uint32_t *wa_p2_poll(const wa_p2_pollable *list, size_t n, size_t *nready)
{
    /* the result is a list: (ptr, len) written to a return area */
    uint32_t ret[2] __attribute__((aligned(4)));
    wa_p2_imp_poll((int32_t)(uintptr_t)list, (int32_t)n, (int32_t)(uintptr_t)ret);
    *nready = ret[1];
    return (uint32_t *)(uintptr_t)ret[0];
}

uint64_t wa_p2_now(void) { return (uint64_t)wa_p2_imp_now(); }
wa_p2_pollable wa_p2_subscribe_instant(uint64_t when)
{
    wa_p2_live++;
    return (wa_p2_pollable)wa_p2_imp_instant((int64_t)when);
}

wa_p2_pollable wa_p2_subscribe_duration(uint64_t ns)
{
    wa_p2_live++;
    return (wa_p2_pollable)wa_p2_imp_duration((int64_t)ns);
}

long wa_wasi_live_handles(void) { return wa_p2_live; }
