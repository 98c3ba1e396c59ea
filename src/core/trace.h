/* SPDX-License-Identifier: MIT */
/* Internal: a runtime's trace: its JSON (trace_file.c), which the
 * diagnostics' wrapper (diag.c) feeds (every task spawned while rt->trace
 * is set runs inside one), and WASYNC_TRACE (trace.c); its bytes go to
 * the host's sink (below). */
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

/* trace_file.c: opens the trace's sink at path for rt (a runtime, not
 * traced) and sets rt->trace. Returns 0, WA_ENOMEM or WA_EIO. */
int wa__trace_open(wa_rt *rt, const char *path);
/* Ends rt's trace (traced) and closes its file. Returns 0 or WA_EIO. */
int wa__trace_stop_file(wa_rt *rt);

/* Starts rt's trace when WASYNC_TRACE names a file (the n-th runtime of
 * the process writes FILE.n from the second on) or "-" (the first
 * runtime's only): wa_rt_new's runtimes natively and on WASI, the
 * module's runtime on the JS host. */
void wa__trace_env(wa_rt *rt);

/* The host's sink of a trace's bytes, below trace_file.c: a file or
 * stderr (src/host/posix/trace_sink.c: natively and on WASI), the glue
 * (src/host/js/trace_sink.c). */

/* Opens the sink that path (borrowed) names, "-" being the host's own
 * (stderr; the glue's on the JS host): its handle (>= 0), or WA_EIO. */
int wa__trace_sink_open(const char *path);
/* Writes the n bytes at p (borrowed). Returns 0 or WA_EIO. */
int wa__trace_sink_write(int sink, const char *p, size_t n);
/* Closes the sink. Returns 0 or WA_EIO. */
int wa__trace_sink_close(int sink);
/* The path WASYNC_TRACE names (the environment's; the glue's on the JS
 * host), or NULL. */
const char *wa__trace_sink_env(void);

/* The JS host's sink takes each event as it comes (the glue hands each to
 * a live callback); the others, the buffer's worth. */
#if defined(WASYNC_HOST_JS)
#define WA__TRACE_EACH 1
#else
#define WA__TRACE_EACH 0
#endif

#endif
