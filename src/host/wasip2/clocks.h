/* SPDX-License-Identifier: MIT */
/* Internal: Canonical ABI bindings for wasi:clocks/monotonic-clock@0.2.12
 * (wall-clock is public: wa_wasi_wall_clock in wasync/wasi.h). Instants
 * and durations are in nanoseconds; the subscriptions return own<pollable>
 * handles, counted in wa__wasip2_live. */
#ifndef WASYNC_HOST_WASIP2_CLOCKS_H
#define WASYNC_HOST_WASIP2_CLOCKS_H

#include <stdint.h>

#include "io.h"

uint64_t wa__wasip2_now(void);
wa__wasip2_pollable wa__wasip2_subscribe_instant(uint64_t when);
wa__wasip2_pollable wa__wasip2_subscribe_duration(uint64_t ns);

#endif
