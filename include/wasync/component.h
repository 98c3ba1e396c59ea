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
 * alive until the future completes or is dropped. Dropped while pending,
 * it cancels the subtask (synchronously) and drops it: if `state` then
 * says WA_SUBTASK_RETURNED, the call did finish and its results were
 * written (handles among them are the caller's to drop). */
enum { WA_SUBTASK_STARTING, WA_SUBTASK_STARTED, WA_SUBTASK_RETURNED };
typedef struct wa_subtask {
    wa_future fut;
    uint32_t subtask;      /* the handle while held, else 0 */
    uint32_t state;        /* the last state the host gave */
    wa_rt *rt;             /* private: set by the first poll */
    wa_waitable_wait wait; /* private: on the subtask's registration */
} wa_subtask;
wa_future *wa_subtask_init(wa_subtask *s, uint32_t packed);

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
} wa_wasip3_stats;
int wa_wasip3_stats_get(wa_rt *rt, wa_wasip3_stats *st);


/* ---- Async exports: the callback ABI driver (src/wasi/export_p3.c) ----
 *
 * WA_EXPORT_ASYNC(name, spawn, ret, params, args...) exports the WIT
 * `async func` name ("iface#func", e.g. "wasync:test/ops#sleep-then-add")
 * from the user's file (a library's export would not be linked: see
 * docs/design.md). A call runs
 * spawn(wa_wasip3_rt(), join, args...), the user's, which spawns the
 * call's task with the call's flat core parameters (params, declared as
 * the Canonical ABI gives them, e.g. (uint32_t ms, uint32_t a)) and
 * returns wa_spawn's result. When the task finishes, ret(done, status)
 * runs in the call's own Component Model task: it lifts the outputs from
 * the task's future (done: NULL if spawn failed) and calls the user's
 * [task-return] import, whatever the status. A call the caller cancels
 * has its task cancelled cooperatively (wa_join_cancel: it may await its
 * cleanup); if it then ends WA_ECANCELED the call ends with task.cancel,
 * not ret. */
typedef void (*wa_export_return)(wa_future *done, int status);

#define WA_EXPORT_ASYNC(name, spawn, ret, params, ...)                                               \
    __attribute__((export_name("[async-lift]" name))) uint32_t wa_export_lift_##spawn params;        \
    uint32_t wa_export_lift_##spawn params                                                            \
    {                                                                                                 \
        wa_export_call *c_ = wa_export_begin_();                                                      \
        return wa_export_start_(c_, spawn(wa_wasip3_rt(), wa_export_join_(c_), ##__VA_ARGS__), (ret)); \
    }                                                                                                 \
    __attribute__((export_name("[callback][async-lift]" name))) uint32_t wa_export_cb_##spawn(       \
        uint32_t e, uint32_t p1, uint32_t p2);                                                        \
    uint32_t wa_export_cb_##spawn(uint32_t e, uint32_t p1, uint32_t p2)                               \
    {                                                                                                 \
        return wa_export_callback_(e, p1, p2, (ret));                                                 \
    }

/* The instance's runtime, where every export call's task runs: made on
 * first use (NULL on ENOMEM), never freed. */
wa_rt *wa_wasip3_rt(void);

/* The instance's backpressure count (the built-ins): while above 0 the
 * host queues new calls of async exports instead of starting them. Each
 * inc needs its dec. */
void wa_wasip3_backpressure_inc(void);
void wa_wasip3_backpressure_dec(void);

/* The most export calls live at once (0: no limit): when it is reached the
 * driver holds new calls back with backpressure until one ends. Returns
 * the previous limit. */
#define WA_WASIP3_EXPORT_LIMIT 64
unsigned wa_wasip3_set_export_limit(unsigned max);
/* How many export calls are live (started, not yet ended). */
unsigned wa_wasip3_export_live(void);

/* Private to WA_EXPORT_ASYNC. */
typedef struct wa_export_call wa_export_call;
wa_export_call *wa_export_begin_(void);
wa_join *wa_export_join_(wa_export_call *c);
uint32_t wa_export_start_(wa_export_call *c, int spawned, wa_export_return ret);
uint32_t wa_export_callback_(uint32_t event, uint32_t p1, uint32_t p2, wa_export_return ret);

#ifdef __cplusplus
}
#endif
#endif
