/* SPDX-License-Identifier: MIT */
/* Internal: raw bindings of the Component Model's async built-ins (WASI
 * 0.3), written by hand with wit-component's core import names. Handles
 * (waitable sets, subtasks, stream and future ends) are i32 indices into
 * the component instance's tables; none of them is a resource of a WIT
 * interface, so nothing here is counted in wa__wasip2_live. Subtasks are
 * counted in wa__wasip3_live instead.
 *
 * An async export returns one of the callback codes to the host, which
 * calls its callback with an event when the code asks for one; a waitable
 * (subtask, stream or future end) reports its events through the waitable
 * set it is joined to. */
#ifndef WASYNC_HOST_WASIP3_BUILTINS_H
#define WASYNC_HOST_WASIP3_BUILTINS_H

#include <stdint.h>

#include "../../wasi/cabi.h"

/* What an async export's entry or callback returns: done (after
 * task.return), call me back soon, or call me back with an event of the
 * set. WAIT carries the set in the bits above the low four. */
#define WA__WASIP3_CALLBACK_EXIT 0u
#define WA__WASIP3_CALLBACK_YIELD 1u
#define WA__WASIP3_CALLBACK_WAIT 2u
static inline uint32_t wa__wasip3_callback_wait(uint32_t set) { return WA__WASIP3_CALLBACK_WAIT | set << 4; }

/* Event codes (the callback's first argument, waitable-set-wait's result). */
#define WA__WASIP3_EVENT_NONE 0u
#define WA__WASIP3_EVENT_SUBTASK 1u
#define WA__WASIP3_EVENT_STREAM_READ 2u
#define WA__WASIP3_EVENT_STREAM_WRITE 3u
#define WA__WASIP3_EVENT_FUTURE_READ 4u
#define WA__WASIP3_EVENT_FUTURE_WRITE 5u
#define WA__WASIP3_EVENT_TASK_CANCELLED 6u

/* A subtask's state: in an async-lowered call's result (low four bits),
 * in a SUBTASK event's p2, and from subtask-cancel. */
#define WA__WASIP3_SUBTASK_STARTING 0u
#define WA__WASIP3_SUBTASK_STARTED 1u
#define WA__WASIP3_SUBTASK_RETURNED 2u
#define WA__WASIP3_SUBTASK_CANCELLED_BEFORE_STARTED 3u
#define WA__WASIP3_SUBTASK_CANCELLED_BEFORE_RETURNED 4u

/* A stream/future copy's result: status in the low four bits, the element
 * count above; BLOCKED (no progress yet) comes back as an event later. */
#define WA__WASIP3_COPY_COMPLETED 0u
#define WA__WASIP3_COPY_DROPPED 1u
#define WA__WASIP3_COPY_CANCELLED 2u
#define WA__WASIP3_BLOCKED 0xffffffffu

/* An async-lowered call's result: its state, and the subtask (0 when the
 * call returned at once: then there is nothing to drop). */
static inline uint32_t wa__wasip3_state(uint32_t r) { return r & 0xf; }
static inline uint32_t wa__wasip3_subtask(uint32_t r) { return r >> 4; }

/* An event as waitable-set-wait/poll deliver it (the callback gets the
 * same three values as arguments). */
typedef struct wa__wasip3_event {
    uint32_t code;
    uint32_t p1; /* the waitable (the task's own 0 for TASK_CANCELLED) */
    uint32_t p2; /* a subtask's state, or a copy's result */
} wa__wasip3_event;

/* Owned: a new empty set; the caller drops it (wa__wasip3_waitable_set_drop). */
uint32_t wa__wasip3_waitable_set_new(void);
/* Borrows set: blocks the whole task until an event (this suspends the
 * core stack: callback-lifted code returns WAIT instead). */
wa__wasip3_event wa__wasip3_waitable_set_wait(uint32_t set);
/* Borrows set: an event if one is pending, else code NONE; never blocks. */
wa__wasip3_event wa__wasip3_waitable_set_poll(uint32_t set);
/* Consumes set, which must have no waitable joined (else a trap). */
void wa__wasip3_waitable_set_drop(uint32_t set);
/* Borrows both: moves w into set, or out of any with set 0. A joined
 * waitable traps on a synchronous operation and on transfer: unjoin first. */
void wa__wasip3_waitable_join(uint32_t w, uint32_t set);

/* Borrows subtask: asks for cancellation and returns its state then
 * (synchronous: RETURNED if it won the race, CANCELLED_* otherwise). */
uint32_t wa__wasip3_subtask_cancel(uint32_t subtask);
/* Makes subtask.c cancel a dropped call with cancel, the async built-in
 * (BLOCKED while the callee still runs, the state then coming as the
 * subtask's event; src/host/wasip3/cancel.c has it), or synchronously
 * with NULL. Returns the previous one. */
typedef uint32_t (*wa__wasip3_cancel_fn)(uint32_t subtask);
wa__wasip3_cancel_fn wa__wasip3_subtask_cancel_with(wa__wasip3_cancel_fn cancel);
/* Consumes subtask, which must have RETURNED or been cancelled. */
void wa__wasip3_subtask_drop(uint32_t subtask);

/* Subtask handles the library holds: started by the calls below, or taken
 * from a caller (wa_subtask_init counts those), less those dropped. */
extern long wa__wasip3_live;

/* Borrows nothing: the current task's slot 0 (0 at a task's start); the
 * value is the guest's to interpret and own. */
void *wa__wasip3_context_get(void);
void wa__wasip3_context_set(void *value);

/* Borrows nothing: while the count is above 0 the host does not start new
 * calls of our async exports. */
void wa__wasip3_backpressure_inc(void);
void wa__wasip3_backpressure_dec(void);
/* Borrows nothing: lets other tasks run; nonzero if ours was cancelled. */
int wa__wasip3_thread_yield(void);
/* Borrows nothing: resolves the current task as cancelled instead of
 * calling its task.return. Traps unless TASK_CANCELLED was delivered to it
 * and it has not returned (nor been cancelled) yet. */
void wa__wasip3_task_cancel(void);

/* The wasip3_task registry (task.c), through which code that knows only
 * that ABI (wit-bindgen's runtimes) waits on wasync's loop. The drivers
 * call wa__wasip3_task_enter around every tick (the callback driver) or for the
 * whole of main (the command, whose polls all happen in its ticks); it
 * returns what wa__wasip3_task_leave restores. */
void *wa__wasip3_task_enter(void);
void wa__wasip3_task_leave(void *prev);

/* wasi:clocks/monotonic-clock@0.3.0. Borrows nothing: now (ns). */
uint64_t wa__wasip3_now(void);
/* Owned result: an async-lowered call, packed state | subtask << 4 (read it
 * with wa__wasip3_state and wa__wasip3_subtask); a started subtask is the caller's to
 * join, cancel and drop. */
uint32_t wa__wasip3_wait_for(uint64_t ns);
uint32_t wa__wasip3_wait_until(uint64_t when);


/* Streams and futures. Their built-ins are per element type, and
 * wit-component names each one through a function whose signature has the
 * type, in the interface's module: "[async-lower][stream-read-N]F", where N
 * counts the stream and future types of F's parameters then results, in
 * order. A type has one set of built-ins whatever function names it (the
 * component interns it), so a table of them per type, bound through any
 * function of an interface the world imports, serves every end of that
 * type. WA__WASIP3_STREAM_TYPE and WA__WASIP3_FUTURE_TYPE bind one such table
 * (struct wa_wasip3_stream_type, wasync/component.h). */
#include "wasync/component.h"

#define WA__WASIP3_END_IMPORT(module, op, fn) WA__WASI_IMPORT(module, op fn)

/* Defines `const struct wa_wasip3_stream_type var` from the built-ins of
 * the stream type numbered idx (a literal) in function fn of module. */
#define WA__WASIP3_STREAM_TYPE(var, module, idx, fn)                                                                        \
    WA__WASIP3_END_IMPORT(module, "[stream-new-" #idx "]", fn) uint64_t var##_new(void);                                \
    WA__WASIP3_END_IMPORT(module, "[async-lower][stream-read-" #idx "]", fn)                                            \
    uint32_t var##_read(uint32_t end, void *buf, uint32_t n);                                                        \
    WA__WASIP3_END_IMPORT(module, "[async-lower][stream-write-" #idx "]", fn)                                           \
    uint32_t var##_write(uint32_t end, const void *buf, uint32_t n);                                                 \
    WA__WASIP3_END_IMPORT(module, "[stream-cancel-read-" #idx "]", fn) uint32_t var##_cancel_read(uint32_t end);        \
    WA__WASIP3_END_IMPORT(module, "[stream-cancel-write-" #idx "]", fn) uint32_t var##_cancel_write(uint32_t end);      \
    WA__WASIP3_END_IMPORT(module, "[stream-drop-readable-" #idx "]", fn) void var##_drop_readable(uint32_t end);        \
    WA__WASIP3_END_IMPORT(module, "[stream-drop-writable-" #idx "]", fn) void var##_drop_writable(uint32_t end);        \
    const struct wa_wasip3_stream_type var = {var##_new,         var##_read,          var##_write,                  \
                                              var##_cancel_read, var##_cancel_write,  var##_drop_readable,          \
                                              var##_drop_writable}

#define WA__WASIP3_FUTURE_TYPE(var, module, idx, fn)                                                                        \
    WA__WASIP3_END_IMPORT(module, "[future-new-" #idx "]", fn) uint64_t var##_new(void);                                \
    WA__WASIP3_END_IMPORT(module, "[async-lower][future-read-" #idx "]", fn) uint32_t var##_read(uint32_t end, void *v); \
    WA__WASIP3_END_IMPORT(module, "[async-lower][future-write-" #idx "]", fn)                                           \
    uint32_t var##_write(uint32_t end, const void *v);                                                               \
    WA__WASIP3_END_IMPORT(module, "[future-cancel-read-" #idx "]", fn) uint32_t var##_cancel_read(uint32_t end);        \
    WA__WASIP3_END_IMPORT(module, "[future-cancel-write-" #idx "]", fn) uint32_t var##_cancel_write(uint32_t end);      \
    WA__WASIP3_END_IMPORT(module, "[future-drop-readable-" #idx "]", fn) void var##_drop_readable(uint32_t end);        \
    WA__WASIP3_END_IMPORT(module, "[future-drop-writable-" #idx "]", fn) void var##_drop_writable(uint32_t end);        \
    const struct wa_wasip3_future_type var = {var##_new,         var##_read,          var##_write,                  \
                                              var##_cancel_read, var##_cancel_write,  var##_drop_readable,          \
                                              var##_drop_writable}

/* A copy's result (not BLOCKED): its status and element count. */
static inline uint32_t wa__wasip3_copy_status(uint32_t r) { return r & 0xf; }
static inline uint32_t wa__wasip3_copy_count(uint32_t r) { return r >> 4; }

/* WASI resource handles the bindings hold (wasi:sockets' tcp-sockets,
 * wasi:http's fields, requests, responses). wa_wasi_live_handles is their
 * sum with the subtasks and the ends (wasync/wasi.h). */
extern long wa__wasip3_resources;

/* Stream and future ends the library holds (taken or made, less those
 * dropped or handed over). */
extern long wa__wasip3_live_ends;

/* wasi:cli@0.3.0 (cli.c). Its byte streams and result futures are
 * named through stdout's write-via-stream(stream<u8>) ->
 * future<result<_, error-code>>: stream 0, future 1. */
extern const struct wa_wasip3_stream_type wa_wasip3_cli_bytes;
extern const struct wa_wasip3_future_type wa_wasip3_cli_result;
/* Owned results: stdin's stream and the future of its end's result. */
void wa__wasip3_stdin_read_via_stream(uint32_t *stream, uint32_t *result);
/* Takes readable (which must not be joined); returns the owned future of
 * the host's result. fd: 1 stdout, 2 stderr. */
uint32_t wa__wasip3_std_write_via_stream(int fd, uint32_t readable);

#endif
