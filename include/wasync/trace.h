/* SPDX-License-Identifier: MIT */
/* wasync/trace.h - a trace of a runtime's tasks, for Perfetto
 * (ui.perfetto.dev) and chrome://tracing.
 *
 * The trace is Chrome's trace-event JSON: each task is an async slice
 * keyed by its id, from its spawn to its end (its status in the end's
 * args), named by its name (wa_spawn_named) or its future's; each poll
 * is a slice inside it, whose end says what the task awaits when it stays
 * pending (the dump's chain: "sleep (due in 1000 ms)", "fd_wait (fd 5
 * readable)"); each wake is an instant on the task saying who woke it
 * (a task, or the host: a timer, I/O). Natively, WASYNC_TRACE=FILE in the
 * environment traces every runtime wa_rt_new makes to FILE.
 */
#ifndef WASYNC_TRACE_H
#define WASYNC_TRACE_H

#include "runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Starts tracing rt's tasks spawned from now on into the file at path
 * (borrowed; created or truncated). Returns 0, WA_EBUSY (rt is being
 * traced already), WA_ENOSYS (a host without files: natively only, for
 * now), WA_ENOMEM, or WA_EIO (the file could not be opened). */
int wa_trace_start(wa_rt *rt, const char *path);

/* Stops rt's trace and closes its file, whose JSON is then whole (also
 * done by wa_rt_free). Returns 0, WA_EINVAL (rt is not being traced) or
 * WA_EIO (a write failed: the file is short). */
int wa_trace_stop(wa_rt *rt);

#ifdef __cplusplus
}
#endif
#endif
