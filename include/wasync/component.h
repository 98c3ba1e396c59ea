/* SPDX-License-Identifier: MIT */
/* wasync/component.h - the WASI 0.3 host: Component Model async.
 *
 * The backend keeps one waitable set for the component instance, and every
 * wait of the runtime waits on it. A waitable (a subtask of an
 * async-lowered call, later a stream or future end) is registered with the
 * runtime and joined to the set only while a future waits on it. All the
 * runtime's timers share one async-lowered wait-until for the earliest
 * deadline. Host calls are the real cost on this host, so they are counted.
 * Async exports written in C (WA_EXPORT_ASYNC, at the end) run their tasks
 * on the instance's one runtime through the callback ABI.
 */
#ifndef WASYNC_COMPONENT_H
#define WASYNC_COMPONENT_H

#include "backend.h"
#include "runtime.h"
#include "stream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The WASI 0.3 backend (the default one of a wasip3 build): makes the
 * instance's waitable set. Returns NULL and sets *err (if not NULL) on
 * failure. */
wa_backend *wa_backend_wasip3_new(int *err);

/* A registration: a key with a generation, so stale keys are detected. */
typedef uint64_t wa_waitable_key;

/* Registers the waitable handle w (borrowed: its owner drops it after the
 * deregistration) with the wasip3 backend of rt. Returns 0 and the key, or
 * a negative code (WA_ENOSYS on another backend). */
int wa_waitable_register(wa_rt *rt, uint32_t w, wa_waitable_key *key);

/* Deregisters key (the waitable leaves the set); a future waiting on it is
 * woken and finishes with WA_ECLOSED. WA_ESTALE (misuse) for a key that is
 * stale or another runtime's. */
int wa_waitable_deregister(wa_rt *rt, wa_waitable_key key);

/* A future ready (status 0) when the host reports an event for the
 * registered waitable; its payload is then wa_waitable_payload's. The
 * waitable is in the set only while a future waits on it, so between
 * waits it can be used synchronously, cancelled or transferred. */
typedef wa_reg_wait wa_waitable_wait;
/* Initialises w to wait on the waitable of key; returns the future. */
wa_future *wa_waitable_wait_init(wa_waitable_wait *w, wa_waitable_key key);

/* The payload of the last event reported for key (a subtask's state, a
 * copy's result) in *payload: 0, or WA_ESTALE (misuse) for a stale key. */
int wa_waitable_payload(wa_rt *rt, wa_waitable_key key, uint32_t *payload);

/* A leaf future over an async-lowered call: packed is the call's result
 * (its state | subtask << 4). Returned at once: ready at the first poll.
 * Otherwise the subtask is taken: registered, waited on until it returns,
 * then dropped. Status 0 when it returned, WA_ECANCELED when the callee
 * cancelled it, WA_EINVAL (misuse) for a result that names no subtask yet
 * did not return. The caller keeps the call's arguments and result area
 * alive until the future completes or is dropped, unless it gives them
 * to the future (wa_subtask_init_area). Dropped while pending, it cancels
 * the subtask (synchronously) and drops it: if `state` then says
 * WA_SUBTASK_RETURNED, the call did finish and its results were written
 * (handles among them are the caller's to drop). */
enum { WA_SUBTASK_STARTING, WA_SUBTASK_STARTED, WA_SUBTASK_RETURNED };
typedef struct wa_subtask {
    wa_future fut;
    uint32_t subtask;      /* the handle while held, else 0 */
    uint32_t state;        /* the last state the host gave */
    void *area;            /* the call's memory (wa_subtask_init_area), or NULL */
    wa_rt *rt;             /* private: set by the first poll */
    wa_waitable_wait wait; /* private: on the subtask's registration */
} wa_subtask;
/* Initialises s over the call result packed (its subtask taken); returns
 * the future. */
wa_future *wa_subtask_init(wa_subtask *s, uint32_t packed);

/* The byte every byte of a new call area holds until the host writes it. */
#define WA_SUBTASK_UNWRITTEN 0xa5u
/* Returns a new area of size bytes (8-aligned) for an async-lowered
 * call's arguments and results, or NULL without memory. Its bytes are
 * WA_SUBTASK_UNWRITTEN until written, so that late (may be NULL) can tell
 * a result the host wrote after a cancel: late(area) returns nonzero once
 * that write is whole, having released what it lowered (a handle, a
 * string), else 0. Freed with wa_subtask_area_free, or given to a call's
 * future with wa_subtask_init_area. */
void *wa_subtask_area_new(size_t size, int (*late)(void *area));
/* Whether the host wrote any of the n bytes at p, in an area from
 * wa_subtask_area_new (they are all WA_SUBTASK_UNWRITTEN until then). A
 * late hook looks with it at the part of a result the host writes. */
static inline int wa_subtask_written(const void *p, size_t n)
{
    const unsigned char *b = (const unsigned char *)p;
    for (size_t i = 0; i < n; i++)
        if (b[i] != WA_SUBTASK_UNWRITTEN)
            return 1;
    return 0;
}
/* Frees area (from wa_subtask_area_new; NULL: nothing). */
void wa_subtask_area_free(void *area);
/* As wa_subtask_init, s taking area, which holds the call's arguments and
 * results (NULL: none). When the future completes, or is dropped after the
 * call returned, the area is the caller's again at s->area, to read and
 * free. Dropped before, the area stays from the host until it can no
 * longer write it, s->area is NULL and the area is freed by the library:
 * the Canonical ABI says a cancelled call writes nothing, but a host may
 * still write its results late (jco 1.35 does), so a cancelled call's
 * area is held until its late hook saw the host's write whole. */
wa_future *wa_subtask_init_area(wa_subtask *s, uint32_t packed, void *area);

/* A typed async call (what generated bindings' futures are made of): a
 * wa_subtask on an area (wa_subtask_area_new) that holds the call's
 * result at offset, copied to result when the call returns. Status 0 with
 * the result there (the caller's then: what it points to too), or as
 * wa_subtask's. An area whose call returned is freed by the future, after
 * its late hook released the result if it was not copied (the future was
 * dropped unpolled). */
typedef struct wa_wasip3_call {
    wa_future fut;
    wa_subtask st;
    void *result;         /* where the result goes (borrowed) */
    size_t offset, size;  /* the result's place in the area (size 0: none) */
    int err;              /* a failure before the call (WA_ENOMEM) */
    int (*late)(void *area); /* the area's late hook */
} wa_wasip3_call;
/* Initialises c over the call result packed, taking area (from
 * wa_subtask_area_new with late as its hook; NULL: no area) and borrowing
 * result (size bytes, kept alive until the future completes or is
 * dropped). Returns the future. */
wa_future *wa_wasip3_call_init(wa_wasip3_call *c, uint32_t packed, void *area, int (*late)(void *area), void *result,
                               size_t offset, size_t size);
/* Initialises c as a call that failed with err before it was made (no
 * area for it: WA_ENOMEM); returns the future, which completes with err. */
wa_future *wa_wasip3_call_fail(wa_wasip3_call *c, int err);

/* Makes the cancel of a call dropped pending (a wa_subtask's, a generated
 * import's) async when on: the drop returns at once, and a task of the
 * runtime lets the subtask go when the callee ended. Without it the
 * cancel is synchronous: a callee that is a component runs its cleanup
 * first (WA_ON_CANCEL, which may await) while this whole instance waits.
 * The async built-in it imports needs wasmtime's
 * `-W component-model-more-async-builtins` (jco 1.35 has it). Returns the
 * previous setting (off at first). */
bool wa_wasip3_set_async_cancel(bool on);

/* How many cancelled calls' areas the library holds from the host now,
 * after releasing those whose late write came whole (as it does for a
 * few at every wa_subtask_area_new). A host that honours the cancel
 * never writes them: they are held for the instance's life. */
long wa_wasip3_held_areas(void);

/* How many subtask handles the library holds now: those its own calls
 * started (its timers) and those given to wa_subtask_init, less those it
 * dropped. A leak shows as growth. */
long wa_wasip3_live_subtasks(void);

/* Host calls made by the backend and the subtask futures of a runtime. */
typedef struct wa_wasip3_stats {
    uint64_t async_calls; /* async-lowered calls (wait-until) */
    uint64_t waits;       /* waitable-set.wait (blocking) */
    uint64_t polls;       /* waitable-set.poll */
    uint64_t joins;       /* waitable.join, into the set or out of it */
    uint64_t cancels;     /* subtask.cancel */
    uint64_t drops;       /* subtask.drop */
    uint64_t nows;        /* monotonic-clock.now */
    uint64_t events;      /* events taken from the set */
    uint64_t stale;       /* ...of which for no registration: ignored */
    /* streams and futures (wa_wasip3_stream_open, wa_wasip3_future_read) */
    uint64_t copies;        /* stream.read/write and future.read calls */
    uint64_t copies_blocked; /* ...of which BLOCKED: finished by an event */
    uint64_t copy_cancels;  /* {stream,future}.cancel-read/-write */
    uint64_t end_drops;     /* stream and future ends dropped */
} wa_wasip3_stats;
/* Copies rt's counters into st (borrowed): 0, or WA_ENOSYS on another
 * backend. */
int wa_wasip3_stats_get(wa_rt *rt, wa_wasip3_stats *st);


/* Streams and futures of the Component Model, behind stream.h and as
 * wasync futures. A copy (stream.read/write, future.read) is async: BLOCKED
 * leaves the buffer to the host until the end's event (STREAM_READ/WRITE,
 * FUTURE_READ) gives the count, so the end is registered as a waitable and
 * joined only while a read or write waits on it. Dropping a read or write
 * that waits cancels its copy (unjoined first; the cancel is synchronous)
 * before its buffer can go; the bytes a cancelled read got are kept for
 * the next one. DROPPED (the other end is gone) ends a read with
 * WA_ECLOSED and fails the next write with WA_ECLOSED.
 *
 * The built-ins are per element type, named through one function of an
 * imported interface: a type is a table of them (src/host/wasip3/builtins.h). The
 * library's are wasi:cli's stream<u8> and future<result<_, error-code>>,
 * and wasi:sockets' stream<tcp-socket> and result future (net.h's TCP,
 * whose stream<u8> is wasi:cli's). */
typedef struct wa_wasip3_stream_type {
    uint64_t (*new_)(void); /* readable | writable << 32, both owned */
    /* Async copies of n elements: BLOCKED (~0u), or status | count << 4.
     * The buffer is the host's until the copy's event or its cancel. */
    uint32_t (*read)(uint32_t end, void *buf, uint32_t n);
    uint32_t (*write)(uint32_t end, const void *buf, uint32_t n);
    /* Synchronous (the end must not be joined): the copy's result. */
    uint32_t (*cancel_read)(uint32_t end);
    uint32_t (*cancel_write)(uint32_t end);
    void (*drop_readable)(uint32_t end); /* consumes end (no copy in flight) */
    void (*drop_writable)(uint32_t end);
} wa_wasip3_stream_type;

/* The same for a future<T>: a copy is of one value, in T's layout. */
typedef struct wa_wasip3_future_type {
    uint64_t (*new_)(void);
    uint32_t (*read)(uint32_t end, void *value);
    uint32_t (*write)(uint32_t end, const void *value);
    uint32_t (*cancel_read)(uint32_t end);
    uint32_t (*cancel_write)(uint32_t end);
    void (*drop_readable)(uint32_t end);
    void (*drop_writable)(uint32_t end);
} wa_wasip3_future_type;

/* Defines `const wa_wasip3_stream_type var` over the built-ins that
 * wit-bindgen's C generator emits for one stream type, named prefix_new,
 * prefix_read... (e.g. prefix my_pkg_iface_stream_u8). Generated bindings
 * (scripts/bindings.mjs) have one line of it per stream type of a world,
 * its var named wa_PREFIX. */
#define WA_WASIP3_STREAM_TYPE_OF(var, prefix)                                                   \
    static uint32_t var##_read_(uint32_t e_, void *b_, uint32_t n_) { return prefix##_read(e_, b_, n_); } \
    static uint32_t var##_write_(uint32_t e_, const void *b_, uint32_t n_)                      \
    {                                                                                           \
        return prefix##_write(e_, b_, n_);                                                      \
    }                                                                                           \
    WA__WASIP3_END_COMMON(var, prefix, wa_wasip3_stream_type)

/* The same for a future type's built-ins (prefix my_pkg_iface_future_u32). */
#define WA_WASIP3_FUTURE_TYPE_OF(var, prefix)                                                   \
    static uint32_t var##_read_(uint32_t e_, void *v_) { return prefix##_read(e_, v_); }        \
    static uint32_t var##_write_(uint32_t e_, const void *v_) { return prefix##_write(e_, v_); } \
    WA__WASIP3_END_COMMON(var, prefix, wa_wasip3_future_type)

/* (the part of both: new (its readable end returned, its writable one
 * given back through a pointer), the cancels and drops, and the table) */
#define WA__WASIP3_END_COMMON(var, prefix, type)                                                \
    static uint64_t var##_new_(void)                                                            \
    {                                                                                           \
        prefix##_writer_t w_;                                                                   \
        uint32_t r_ = prefix##_new(&w_);                                                        \
        return r_ | (uint64_t)w_ << 32;                                                         \
    }                                                                                           \
    static uint32_t var##_cancel_read_(uint32_t e_) { return prefix##_cancel_read(e_); }        \
    static uint32_t var##_cancel_write_(uint32_t e_) { return prefix##_cancel_write(e_); }      \
    static void var##_drop_readable_(uint32_t e_) { prefix##_drop_readable(e_); }               \
    static void var##_drop_writable_(uint32_t e_) { prefix##_drop_writable(e_); }               \
    const type var = {var##_new_,          var##_read_,           var##_write_,                 \
                      var##_cancel_read_,  var##_cancel_write_,   var##_drop_readable_,         \
                      var##_drop_writable_}
extern const wa_wasip3_stream_type wa_wasip3_cli_bytes;
extern const wa_wasip3_future_type wa_wasip3_cli_result;

/* A new stream over the ends of a stream<u8> of type t (borrowed, static):
 * readable, writable or both (0: that direction is absent), taken, also on
 * failure, and dropped by the close; none may be joined to a set. Returns
 * 0, or WA_ENOMEM. */
int wa_wasip3_stream_open(wa_rt *rt, const wa_wasip3_stream_type *t, uint32_t readable, uint32_t writable,
                          wa_stream **s);

/* A new stream<u8> of type t, its two ends as two new streams: what
 * *writer writes, *reader reads (u8 allows copies inside one instance).
 * Returns 0 or WA_ENOMEM. */
int wa_wasip3_stream_new(wa_rt *rt, const wa_wasip3_stream_type *t, wa_stream **reader, wa_stream **writer);

/* A copy between a Component Model end and memory, as a future: a
 * future<T>'s value (wa_wasip3_future_read_init, _write_init) or elements
 * of a stream<T> (wa_wasip3_stream_read_init, _write_init), in T's
 * layout. BLOCKED waits for the end's event; dropped while pending, the
 * copy is cancelled (synchronously), and the memory is the caller's
 * again. Its fields are private but for count. */
typedef struct wa_wasip3_copy {
    wa_future fut;
    const void *t;         /* a wa_wasip3_future_type (n 0) or wa_wasip3_stream_type */
    uint32_t end;          /* the end while held, else 0 */
    void *value;           /* the value, or the elements */
    uint32_t n;            /* 0: a future's value; else the elements asked */
    uint32_t count;        /* the elements a stream copy moved (also one cancelled) */
    int writing;
    int borrowed;          /* the end stays the caller's (a stream's) */
    wa_rt *rt;             /* set by the first poll */
    wa_waitable_wait wait; /* on the end's registration */
} wa_wasip3_copy;
typedef wa_wasip3_copy wa_wasip3_future_read;
typedef wa_wasip3_copy wa_wasip3_future_write;

/* Reads the future readable (taken, not joined; dropped when this
 * finishes or is dropped) of type t into value (borrowed: T's memory
 * layout, kept alive until this finishes or is dropped): status 0 when the
 * value came, WA_ECLOSED when the writer went without one. Dropped while
 * pending, it cancels the read. Returns the future. */
wa_future *wa_wasip3_future_read_init(wa_wasip3_future_read *f, const wa_wasip3_future_type *t, uint32_t readable,
                                      void *value);

/* Writes value (borrowed, T's layout, kept alive until this finishes or is
 * dropped) into the future writable (taken, not joined) of type t: status
 * 0 when the reader took it, WA_ECLOSED when the reader had gone; the end
 * is dropped then. Dropped while pending, it cancels the write; an end
 * whose write was cancelled before the reader took it stays held (the
 * spec traps on dropping a writable end that wrote nothing). Returns the
 * future. */
wa_future *wa_wasip3_future_write_init(wa_wasip3_future_write *f, const wa_wasip3_future_type *t, uint32_t writable,
                                       const void *value);

/* Reads up to n (> 0) elements of the stream<T> of type t from its end
 * readable (borrowed, not joined: the caller reads on or drops it) into
 * buf (borrowed, n elements in T's layout, kept alive until this finishes
 * or is dropped): status 0 with f->count elements (1 to n), WA_ECLOSED
 * when the writer dropped its end, none read. The elements are the
 * caller's (what they hold: free them with their type's _free). Dropped
 * while pending, it cancels the read; f->count then says what the read
 * moved. For stream<u8>, wa_wasip3_stream_open makes a wa_stream. Returns
 * the future. */
wa_future *wa_wasip3_stream_read_init(wa_wasip3_copy *f, const wa_wasip3_stream_type *t, uint32_t readable, void *buf,
                                      uint32_t n);

/* Writes n (> 0) elements at buf (borrowed, T's layout, kept alive until
 * this finishes or is dropped) into the stream<T> end writable (borrowed,
 * not joined) of type t: status 0 with f->count elements taken (1 to n:
 * write the rest again), WA_ECLOSED when the reader dropped its end, none
 * taken. Dropped while pending, it cancels the write (f->count: what it
 * moved). Returns the future. */
wa_future *wa_wasip3_stream_write_init(wa_wasip3_copy *f, const wa_wasip3_stream_type *t, uint32_t writable,
                                       const void *buf, uint32_t n);

/* How many stream and future ends the library holds now (taken, made,
 * less dropped or handed to the host). A leak shows as growth. */
long wa_wasip3_live_ends(void);

/* ---- Async exports: the callback ABI driver (src/host/wasip3/export.c) ----
 *
 * WA_EXPORT_ASYNC(name, spawn, ret, params, args...) exports the WIT
 * `async func` name ("iface#func", e.g. "wasync:test/ops#sleep-then-add")
 * from the user's file (a library's export would not be linked: see
 * docs/design.md). A call runs
 * spawn(wa_wasip3_rt(), join, args...), the user's, which spawns the
 * call's task with the call's flat core parameters (params, declared as
 * the Canonical ABI gives them, e.g. (uint32_t ms, uint32_t a)) and
 * returns wa_spawn's result (and polls nothing: it may run while another
 * call waits on the runtime's set). When the task finishes, ret(done, status)
 * runs in the call's own Component Model task: it lifts the outputs from
 * the task's future (done: NULL if spawn failed) and calls the user's
 * [task-return] import, whatever the status. A call the caller cancels
 * has its task cancelled cooperatively (wa_join_cancel: it may await its
 * cleanup); if it then ends WA_ECANCELED the call ends with task.cancel,
 * not ret. */
typedef void (*wa_export_return)(wa_future *done, int status);
#include "detail/export.h"

/* Exports the async func name, its calls started by spawn and returned by
 * ret (see above). */
#define WA_EXPORT_ASYNC(name, spawn, ret, params, ...)                                               \
    __attribute__((export_name("[async-lift]" name))) uint32_t wa__export_lift_##spawn params;        \
    uint32_t wa__export_lift_##spawn params                                                            \
    {                                                                                                 \
        wa__export_call *c_ = wa__export_begin();                                                      \
        return wa__export_start(c_, spawn(wa_wasip3_rt(), wa__export_join(c_), ##__VA_ARGS__), (ret)); \
    }                                                                                                 \
    __attribute__((export_name("[callback][async-lift]" name))) uint32_t wa__export_cb_##spawn(       \
        uint32_t e, uint32_t p1, uint32_t p2);                                                        \
    uint32_t wa__export_cb_##spawn(uint32_t e, uint32_t p1, uint32_t p2)                               \
    {                                                                                                 \
        return wa__export_callback(e, p1, p2, (ret));                                                 \
    }

/* Defines the async export name of generated bindings (scripts/bindings.mjs;
 * name as in its exports_NAME, e.g. my_pkg_store_get) as the task type T,
 * a WA_ASYNC coroutine with a member io of type wa_exports_NAME_io: each
 * call runs a new T whose io holds the call's parameters; when the task
 * ends, io.ret is returned (task.return), whatever its status, unless the
 * task returned early with wa_exports_NAME_return. A call the caller
 * cancels cancels the task (WA_ON_CANCEL runs); if it then ends
 * WA_ECANCELED, the call ends cancelled. Write it at file scope, once
 * (docs/bindings.md). */
#define WA_EXPORT_TASK(name, T) WA__EXPORT_TASK_##name(T)

/* The instance's runtime, where every export call's task runs: made on
 * first use (NULL on ENOMEM), never freed. */
wa_rt *wa_wasip3_rt(void);

/* The instance's backpressure count (the built-ins): while above 0 the
 * host queues new calls of async exports instead of starting them. Each
 * inc needs its dec. */
void wa_wasip3_backpressure_inc(void);
/* Undoes one wa_wasip3_backpressure_inc. */
void wa_wasip3_backpressure_dec(void);

/* The most export calls live at once (0: no limit): when it is reached the
 * driver holds new calls back with backpressure until one ends. Returns
 * the previous limit. */
#define WA_WASIP3_EXPORT_LIMIT 64
/* Sets the limit to max (WA_WASIP3_EXPORT_LIMIT by default). */
unsigned wa_wasip3_set_export_limit(unsigned max);
/* How many export calls are live (started, not yet ended). */
unsigned wa_wasip3_export_live(void);

#ifdef __cplusplus
}
#endif
#endif
