/* SPDX-License-Identifier: MIT */
/* wasync/trace.h - a trace of a runtime's tasks, for Perfetto
 * (ui.perfetto.dev) and chrome://tracing.
 *
 * The trace is Chrome's trace-event JSON. Each task is an async slice
 * keyed by its id (its track), from its spawn to its end (its status in
 * the end's args), named by its name (wa_spawn_named) or its future's;
 * on that track:
 *   - "poll": a slice per poll, whose end says what the task awaits when
 *     it stays pending (the dump's chain: "sleep (due in 1000 ms)",
 *     "fd_wait (fd 5 readable)");
 *   - "wake": an instant per wake, whose "by" says who or what woke it:
 *     "task 3", "itself" (a yield), "task 3 ended" (its joiner's or
 *     scope's wake), "timer (due 20 ms after armed)", "fd 5 readable",
 *     "pollable 7 ready" (WASI 0.2), "waitable 3: subtask returned"
 *     (WASI 0.3), "another thread" (a remote, an event, a task of another
 *     runtime), or "host" when nothing more is known (a cancel from
 *     outside the runtime, a task spawned before the trace began);
 *   - "timer armed" (its "in": the deadline, from this instant) and
 *     "timer fired" (its "after_armed", and how "late" it fired), instants
 *     before the wake they cause;
 *   - "io wait" (a wait on a registered source begins: "on" "fd 5
 *     readable", "pollable 7", "waitable 3") and "io ready" (the readiness
 *     that ends it: "source" "fd 5 readable");
 *   - WASI 0.3: "subtask start", "subtask return" and "subtask cancel"
 *     (its handle and state) of the task's async-lowered calls.
 * On the runtime's own track (its thread): a "host wait" slice per
 * backend wait that may block (epoll_wait, poll_oneoff, wasi:io's poll,
 * a waitable set's wait), its "timeout" at its begin and how many waits it
 * made "ready" at its end. Natively, WASYNC_TRACE=FILE in the environment
 * traces every runtime wa_rt_new makes to FILE.
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
