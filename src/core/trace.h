/* SPDX-License-Identifier: MIT */
/* Internal: a runtime's trace: its file (trace_file.c), which the
 * diagnostics' wrapper (diag.c) feeds (every task spawned while rt->trace
 * is set runs inside one), and WASYNC_TRACE (trace.c). */
#ifndef WASYNC_CORE_TRACE_H
#define WASYNC_CORE_TRACE_H

#include "rt.h"
#include "text.h"
#include "wasync/trace.h"

/* Which trace of rt is being written (1 for its first, 2 after a stop and
 * a start...), or 0: none. */
uint32_t wa__trace_gen(wa_rt *rt);

/* An event of the task id on rt's trace gen (dropped if another is being
 * written, or none), at ts (the backend's clock): ph its phase ("b", "e",
 * "n"), name its name, args the JSON members of its args (may be NULL). */
void wa__trace_event(wa_rt *rt, uint32_t gen, const char *ph, const char *name, uint32_t id, uint64_t ts,
                     const char *args);

/* trace_file.c: opens the trace file at path for rt (a runtime, not
 * traced) and sets rt->trace. Returns 0, WA_ENOSYS, WA_ENOMEM or WA_EIO. */
int wa__trace_open(wa_rt *rt, const char *path);
/* Ends rt's trace (traced) and closes its file. Returns 0 or WA_EIO. */
int wa__trace_stop_file(wa_rt *rt);

/* Natively: starts rt's trace when WASYNC_TRACE names a file (the n-th
 * runtime of the process writes FILE.n from the second on). */
void wa__trace_env(wa_rt *rt);

#endif
