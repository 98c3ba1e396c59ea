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
 * made "ready" at its end.
 *
 * Where it goes, on each host: natively and on WASI 0.1, 0.2 and 0.3, a
 * file the C library opens (on WASI, in a directory the host preopened:
 * wasmtime run --dir), or stderr for the path "-". On the JS host, the
 * glue (js/wasync.mjs) collects it (rt.trace(), each event live to the
 * option onTraceEvent) and in Node also writes the file a path names
 * ("-": collected only).
 *
 * WASYNC_TRACE=FILE in the environment (natively, on WASI: wasmtime's
 * --env, node:wasi's and jco's environment) traces every runtime
 * wa_rt_new makes, the first to FILE, the second to FILE.2, and so on
 * ("-": the first one only, to stderr); a file that cannot be made is
 * said in one line on stderr, and the program runs untraced. On the JS
 * host, the module's runtime is traced from its start when the glue's
 * option trace or, in Node, WASYNC_TRACE asks, if the module has the
 * trace: it calls wa_trace_start, or is linked with
 * -Wl,--undefined=wa_trace_start (the others have none of its code).
 */
#ifndef WASYNC_TRACE_H
#define WASYNC_TRACE_H

#include "runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Starts tracing rt's tasks spawned from now on into the file at path
 * (borrowed; created or truncated; "-": stderr, the glue on the JS host).
 * Returns 0, WA_EBUSY (rt is being traced already), WA_ENOMEM, or WA_EIO
 * (the file could not be made: nothing is said, the caller tells). */
int wa_trace_start(wa_rt *rt, const char *path);

/* Stops rt's trace and closes its file, whose JSON is then whole (also
 * done by wa_rt_free; on the JS host, by the glue's rt.close() too).
 * Returns 0, WA_EINVAL (rt is not being traced) or WA_EIO (a write
 * failed: the file is short). */
int wa_trace_stop(wa_rt *rt);

#ifdef __cplusplus
}
#endif
#endif
