/* SPDX-License-Identifier: MIT */
/* wasync/thread.h - other threads and a runtime: a remote (a handle any
 * thread may use to spawn onto a runtime), events (set from any thread,
 * awaited by a task) and blocking functions run on a bounded pool of
 * threads, whose result a task awaits. Native Linux only: threads exist
 * nowhere else, and on other hosts these calls fail to compile.
 *
 * A runtime's cross-thread state is made at its first use (wa_remote_new,
 * wa_event_new, the first blocking future polled) and shared by all of
 * them. wa_rt_free (and wa_rt_shutdown) closes it: from then on the calls
 * below on a remote or event that outlived the runtime return WA_ECLOSED,
 * and each handle is still dropped by its holder.
 */
#ifndef WASYNC_THREAD_H
#define WASYNC_THREAD_H

#include "runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The calls below, on a host that has no threads. */
#if defined(WASYNC_HOST_NATIVE) && defined(__linux__)
#define WA__THREAD
#else
#define WA__THREAD WA__UNAVAILABLE("wasync: no threads on the " WASYNC_HOST " host (thread.h is native Linux's; no wasm host has threads: js, WASI 0.1, 0.2 and 0.3)")
#endif

/* A thread-safe handle on a runtime, counted: each holder drops its own.
 * A remote, a remote join and an event are handles of their holder (keys,
 * not addresses): a copy of one used after its drop (a second drop, a
 * spawn, a set) is reported as misuse naming the call (WA_EMISUSE where
 * the call returns a status), and never touches the freed object. */
typedef struct wa_remote wa_remote;

/* A foreign thread's view of a task it spawned through a remote. */
typedef struct wa_remote_join wa_remote_join;

/* Returns in *out a new remote on rt, which must be the calling thread's
 * runtime (or, on a many-threads runtime, the runtime of the calling
 * task). A local runtime needs a backend that can be woken from another
 * thread (epoll; not the sim: WA_ENOSYS). While any remote or event of rt
 * is held, wa_block_on and wa_rt_run wait for it instead of reporting a
 * deadlock. Returns 0, WA_EINVAL, WA_EMISUSE (another thread's local
 * runtime), WA_ENOSYS or WA_ENOMEM. */
WA__THREAD int wa_remote_new(wa_rt *rt, wa_remote **out);

/* Returns a new handle to r's runtime (any thread), for another holder:
 * one more reference. NULL for NULL, a dropped r (reported), or without
 * memory. */
WA__THREAD wa_remote *wa_remote_clone(wa_remote *r);

/* Drops the caller's reference to r (any thread; NULL is ignored). */
WA__THREAD void wa_remote_drop(wa_remote *r);

/* Spawns, from any thread, a task running a copy of the size bytes at fut
 * (a future never polled) on r's runtime: at once on a many-threads
 * runtime, at the local runtime's next wait or tick (its thread is woken).
 * join: NULL detaches the task, otherwise *join receives a handle the
 * caller owns (wa_remote_join_drop). Returns 0, WA_ECLOSED (the runtime is
 * shutting down or gone), WA_ENOMEM, WA_E2BIG or WA_EINVAL; on failure fut
 * is left to the caller, unpolled, and *join to NULL. */
WA__THREAD int wa_remote_spawn(wa_remote *r, const wa_future *fut, size_t size, wa_remote_join **join);

/* Blocks the calling thread until the task finished, and returns its
 * status: the task's, WA_ECANCELED when it was dropped (cancelled, the
 * runtime freed), WA_ENOMEM when the local runtime could not allocate it.
 * Refused (WA_EMISUSE) inside a task's poll and on the thread of the
 * task's local runtime, which would never run it. j is borrowed. */
WA__THREAD int wa_remote_join_wait(wa_remote_join *j);

/* The task's status once it finished, else WA_PENDING (j borrowed). */
WA__THREAD int wa_remote_join_status(const wa_remote_join *j);

/* Requests, from any thread, the cooperative cancellation of j's task, as
 * wa_join_cancel does: it is woken, sees the request at its next await,
 * may await its cleanup, then finishes (WA_ECANCELED unless it says
 * otherwise); one that does not take the request is dropped. A task that
 * never ran (still in the local runtime's inbox) is dropped unpolled.
 * Returns 0, also when the task finished already or its runtime is gone
 * (nothing is left to cancel), or WA_EINVAL (NULL). j is borrowed. */
WA__THREAD int wa_remote_join_cancel(wa_remote_join *j);

/* As wa_remote_join_cancel, but the task's future is dropped at its next
 * poll, with no cleanup (as wa_join_abort; status WA_ECANCELED). */
WA__THREAD int wa_remote_join_abort(wa_remote_join *j);

/* Drops the handle j (any thread); a task still running runs on. */
WA__THREAD void wa_remote_join_drop(wa_remote_join *j);

/* An event: set from any thread, awaited by one task at a time. Sets
 * coalesce (as libuv's uv_async_send): any number of sets before the
 * waiting task runs complete one wait. Counted: each holder drops its own. */
typedef struct wa_event wa_event;

/* Returns in *out a new event of rt (rt as wa_remote_new). Returns 0,
 * WA_EINVAL, WA_EMISUSE, WA_ENOSYS or WA_ENOMEM. */
WA__THREAD int wa_event_new(wa_rt *rt, wa_event **out);

/* Returns a new handle to e's event (any thread): one more reference.
 * NULL for NULL, a dropped e (reported), or without memory. */
WA__THREAD wa_event *wa_event_clone(wa_event *e);

/* Drops the caller's reference to e (any thread; NULL is ignored). */
WA__THREAD void wa_event_drop(wa_event *e);

/* Sets e (any thread) and wakes its waiting task. Returns 0, or
 * WA_ECLOSED once its runtime is gone. */
WA__THREAD int wa_event_set(wa_event *e);

/* The future of the next set of an event, awaited by a task of e's
 * runtime: ready (0) at once if e was set since the last wait completed,
 * which the wait then clears; WA_EBUSY while another wait holds e. It
 * holds a reference to e while pending. */
typedef struct wa_event_wait {
    wa_future fut;
    wa_event *ev;
    int held; /* private: polled, holding a reference and e's wait slot */
} wa_event_wait;
/* Initialises w to wait for e (borrowed until the first poll); returns the
 * future. */
WA__THREAD wa_future *wa_event_wait_init(wa_event_wait *w, wa_event *e);

/* A blocking function, run on a pool thread: its result. */
typedef void *(*wa_blocking_fn)(void *arg);
/* Releases what a blocking future owned when it is dropped without having
 * delivered its result: arg, and the result (NULL when fn never ran). Runs
 * on the thread that drops the future, or on the pool thread when fn was
 * running then. */
typedef void (*wa_blocking_release_fn)(void *arg, void *result);

/* The future of fn(arg) run on the runtime's blocking pool. Its status is
 * 0 with `result` set to what fn returned, WA_ENOMEM (no job, or no thread
 * could be started), or WA_ECLOSED (the runtime is shutting down). The
 * job is queued at the first poll; a future dropped before a pool thread
 * took the job cancels it (fn never runs), one dropped while fn runs
 * detaches it: release(arg, result) then runs on the pool thread when fn
 * returns. release may be NULL. */
typedef struct wa_blocking {
    wa_future fut;
    void *result;                   /* fn's, once ready */
    wa_blocking_fn fn;
    void *arg;
    wa_blocking_release_fn release;
    struct wa_job *job;             /* private: queued or running */
    int state;                      /* private */
} wa_blocking;
/* Initialises b to run fn(arg) (arg owned by the future until it is ready,
 * see wa_blocking_release_fn); returns the future. */
WA__THREAD wa_future *wa_blocking_init(wa_blocking *b, wa_blocking_fn fn, void *arg,
                                       wa_blocking_release_fn release);

/* Sizes rt's blocking pool: at most max_threads threads (1 to 1024; 16 by
 * default) run blocking functions at once, the others queue; a thread
 * idle for keep_alive ns (10 s by default) exits. Threads start when jobs
 * need them. rt as wa_remote_new. Returns 0, WA_EINVAL, WA_EMISUSE,
 * WA_ENOSYS or WA_ENOMEM. */
WA__THREAD int wa_rt_set_blocking(wa_rt *rt, unsigned max_threads, uint64_t keep_alive);

#ifdef __cplusplus
}
#endif
#endif
