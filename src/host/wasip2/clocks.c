/* SPDX-License-Identifier: MIT */
/* wasi:clocks: monotonic-clock (clocks.h) and wall-clock (wasync/wasi.h).
 * A datetime does not fit one flat value, so it comes back in a return
 * area: seconds (u64) at 0, nanoseconds (u32) at 8. */
#include "../../wasi/cabi.h"
#include "clocks.h"
#include "wasync/wasi.h"

#define MONO "wasi:clocks/monotonic-clock@0.2.12"
#define WALL "wasi:clocks/wall-clock@0.2.12"

WA__WASI_IMPORT(MONO, "now") int64_t wa__wasip2_imp_clocks_now(void);
WA__WASI_IMPORT(MONO, "subscribe-instant") int32_t wa__wasip2_imp_clocks_instant(int64_t);
WA__WASI_IMPORT(MONO, "subscribe-duration") int32_t wa__wasip2_imp_clocks_duration(int64_t);
WA__WASI_IMPORT(WALL, "now") void wa__wasip2_imp_clocks_wall_now(int32_t ret);
WA__WASI_IMPORT(WALL, "resolution") void wa__wasip2_imp_clocks_wall_resolution(int32_t ret);

uint64_t wa__wasip2_now(void) { return (uint64_t)wa__wasip2_imp_clocks_now(); }

wa__wasip2_pollable wa__wasip2_subscribe_instant(uint64_t when)
{
    wa__wasip2_live++;
    return (wa__wasip2_pollable)wa__wasip2_imp_clocks_instant((int64_t)when);
}

wa__wasip2_pollable wa__wasip2_subscribe_duration(uint64_t ns)
{
    wa__wasip2_live++;
    return (wa__wasip2_pollable)wa__wasip2_imp_clocks_duration((int64_t)ns);
}

static wa_wasi_datetime wa__wasip2_datetime(void (*imp)(int32_t))
{
    struct {
        uint64_t seconds;
        uint32_t nanoseconds;
    } ret; /* the record's layout: align 8, size 16 */
    imp((int32_t)(uintptr_t)&ret);
    return (wa_wasi_datetime){ret.seconds, ret.nanoseconds};
}

wa_wasi_datetime wa_wasi_wall_clock(void) { return wa__wasip2_datetime(wa__wasip2_imp_clocks_wall_now); }
wa_wasi_datetime wa_wasi_wall_clock_resolution(void) { return wa__wasip2_datetime(wa__wasip2_imp_clocks_wall_resolution); }
