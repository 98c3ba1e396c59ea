/* SPDX-License-Identifier: MIT */
/* wasync/runtime.h - the runtime, tasks, join handles, tick and block_on.
 *
 * A runtime owns a FIFO run queue of tasks, a timer queue and a backend
 * (the reactor of one host). It is single-threaded: call it from the thread
 * that created it (other threads reach it through wasync/thread.h). Hosts
 * that can block drive it with wa_block_on (a loop of wa_rt_tick and a
 * backend wait); hosts that own the event loop (JS, WASI 0.3) call
 * wa_rt_tick from their loop.
 */
#ifndef WASYNC_RUNTIME_H
#define WASYNC_RUNTIME_H

#include "future.h"
#include "time.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wa_backend wa_backend;

/* Creates a runtime in *out on the platform's backend (epoll on Linux, or
 * io_uring with WASYNC_BACKEND=uring in the environment; the host's on
 * wasm). Returns 0, WA_ENOMEM or the backend's error. */
int wa_rt_new(wa_rt **out);

/* Creates a runtime in *out driven by backend, which it takes (freed on
 * failure too). A NULL backend, what a failed constructor returns, is
 * WA_EINVAL: never quietly another host. Returns 0, WA_EINVAL or
 * WA_ENOMEM. */
int wa_rt_new_on(wa_rt **out, wa_backend *backend);

/* Creates a runtime in *out whose tasks run on `workers` threads (1 to
 * 4095) that steal work from each other (native Linux; WA_ENOSYS
 * elsewhere). wa_spawn onto it, the wakers of its tasks and its join
 * handles' cancel and abort are callable from any thread; wa_block_on,
 * wa_rt_run and wa_rt_free from the thread that created it; wa_rt_tick is
 * refused (its workers tick it). Its tasks use the sync primitives and
 * channels made by their _shared variants (wasync/sync.h), scopes, and fd
 * I/O (TCP, fd streams, stdio) on its one backend (wa_rt_new's: epoll, or
 * io_uring), which one idle worker at a time waits on. block_on and run
 * report a deadlock (WA_EDEADLK) as on the local executor. Returns 0,
 * WA_EINVAL or WA_ENOMEM. */
int wa_rt_new_mt(wa_rt **out, unsigned workers);

/* Hard-drops every task still alive, joins the blocking pool (waiting for
 * the blocking functions running), closes what other threads hold
 * (wasync/thread.h), then frees rt and its backend. Not from inside a poll
 * (reported as misuse; rt is left alone). A runtime freed already, through
 * this pointer or a copy, is reported as misuse too, and not touched. */
void wa_rt_free(wa_rt *rt);

/* Ends rt gracefully, then frees it: refuses spawns from other threads,
 * requests the cancellation of every task (again each round, for tasks
 * spawned by a cleanup) and runs them, so that they run their cleanups,
 * until none is left or timeout ns passed; then does what wa_rt_free does
 * (hard-drops what is left). Where wa_rt_run may be called, from rt's
 * thread. Returns 0 (every task ended), WA_ETIMEDOUT, WA_EDEADLK (tasks
 * nothing could wake: reported) or WA_EMISUSE (rt left alone; also a
 * runtime freed or shut down already, through any copy of the pointer). */
int wa_rt_shutdown(wa_rt *rt, uint64_t timeout);

/* A join handle: the future of a spawned task's completion; its status is
 * the task's. Awaiting it with WA_AWAIT consumes it (the handle is dropped
 * when the task finishes), so a task awaited that way should deliver its
 * results through pointers it was given. A poll that finds the task
 * finished releases the task at once: the handle then keeps only its
 * status (wa_join_output is NULL), and its drop has nothing left to do. A
 * handle held without polling exposes the finished task's fields through
 * wa_join_output until dropped. Dropping an unfinished handle detaches the
 * task, which runs on. */
typedef struct wa_join {
    wa_future fut;
    wa_task *task; /* a reference; NULL once dropped (stale once a poll released it: the vtable tells) */
    union {
        wa_waker waker; /* while a poll waits for the task */
        int status;     /* the task's, once a poll released it */
    };
} wa_join;

#include "detail/spawn.h"

/* Spawns a task running a copy of the size bytes at fut (a future never
 * polled; the copy is the task's). join: NULL detaches the task, otherwise
 * it receives the handle, which the caller then owns. Returns 0, WA_ENOMEM,
 * WA_E2BIG (size past 2 GiB) or WA_EINVAL (misuse: a NULL argument, a size
 * smaller than a future); on failure fut is left to the caller, unpolled. */
int wa_spawn(wa_rt *rt, const wa_future *fut, size_t size, wa_join *join);

/* wa_spawn of the struct that ptr points to (the task takes a copy). ptr
 * must be the whole future's struct (&c), never its header (&c.wa, &c.fut):
 * that would copy only the header, and is refused at compile time. */
#define wa_spawn_of(rt, ptr, join)                                                                \
    (WA__SPAWN_WHOLE(ptr),                                                                         \
     WA__SPAWN_FIXED(sizeof *(ptr))                                                                \
         ? WA__SPAWN_WORDS(sizeof *(ptr) / sizeof(void *))((rt), (const wa_future *)(ptr), (join)) \
         : wa_spawn((rt), (const wa_future *)(ptr), sizeof *(ptr), (join)))

/* wa_spawn of a task given a name of its own (copied), for the instance
 * where the future's vtable names the kind ("conn 12" of "handler"):
 * dumps, deadlock reports and misuse reports show it, and the runtime
 * counts the task's polls and times them (busy and idle, in dumps). A
 * NULL name is wa_spawn's. Returns what wa_spawn returns. */
int wa_spawn_named(wa_rt *rt, const wa_future *fut, size_t size, wa_join *join, const char *name);

/* wa_spawn_named of the struct that ptr points to (as wa_spawn_of). */
#define wa_spawn_of_named(rt, ptr, join, name) \
    (WA__SPAWN_WHOLE(ptr), wa_spawn_named((rt), (const wa_future *)(ptr), sizeof *(ptr), (join), (name)))

/* The callback style: a task whose poll is fn(arg, cx), called until it
 * returns other than WA_PENDING. If the task is dropped before that
 * (cancelled, aborted, runtime freed), fn(arg, NULL) is called once so that
 * it can release what arg holds. arg is borrowed for the task's life. */
typedef int (*wa_task_fn)(void *arg, wa_cx *cx);
/* Spawns a task polling fn(arg, cx) (arg borrowed); join as wa_spawn.
 * Returns what wa_spawn returns. */
int wa_spawn_fn(wa_rt *rt, wa_task_fn fn, void *arg, wa_join *join);

/* Task-local values: a value per task under a key, read by the futures
 * the task polls (a request id, a trace context) without passing it down.
 * A key is a static object; its address names the value. The value is the
 * task's, not the thread's: it moves with the task from worker to worker
 * of a many-threads runtime. A task spawned by another does not inherit its
 * values (tokio's rule): a child may outlive its parent, so an inherited
 * value would need an owner count; a parent passes what a child needs in
 * the child's future, and the child sets it. */
typedef struct wa_task_local {
    /* Called on the value (if not NULL) when the task ends, however it
     * ends, and when a set replaces it; NULL: the value is borrowed. */
    void (*drop)(void *value);
} wa_task_local;

/* Sets key's (borrowed) value for the task being polled; takes value when
 * key has a drop. Returns 0, WA_ENOMEM, or WA_EMISUSE (reported: a NULL key,
 * or not inside a task's poll); on failure value is left to the caller. */
int wa_task_local_set(const wa_task_local *key, void *value);

/* The value of key (borrowed) for the task being polled (borrowed from it):
 * NULL when none was set, or outside a task's poll. */
void *wa_task_local_get(const wa_task_local *key);

/* True once the task finished (its status and outputs are then final). */
bool wa_join_done(const wa_join *j);

/* The finished task's future, whose fields hold its outputs; valid until the
 * handle is dropped. NULL while the task runs, and once a poll of the
 * handle found it finished (that poll released the task). */
wa_future *wa_join_output(const wa_join *j);

/* The finished task's status, or WA_PENDING while it runs. */
int wa_join_status(const wa_join *j);

/* Requests cooperative cancellation: the task is woken, sees the request at
 * its next await (see coro.h), may await its cleanup, then finishes (status
 * WA_ECANCELED unless it says otherwise). A task that does not take the
 * request is hard-dropped. Returns 0, or WA_ESTALE on a dropped handle. */
int wa_join_cancel(wa_join *j);

/* Hard-drops the task's future now (deferred to the end of its poll when it
 * is the running task); the task finishes with WA_ECANCELED. */
int wa_join_abort(wa_join *j);

/* Drops the handle (detaching a running task). Returns 0, or WA_EMISUSE on
 * a double drop. A handle whose poll released its task (above) is accepted
 * once, whether or not an await dropped it. */
int wa_join_drop(wa_join *j);

/* Runs one fair round: fires due timers, then polls once each task that was
 * queued when the round began (tasks woken meanwhile run next round). Never
 * blocks. Returns how many tasks are runnable now; *deadline (may be NULL)
 * receives the earliest timer deadline or WA_NEVER. From inside a poll or
 * another thread: WA_EMISUSE. */
int wa_rt_tick(wa_rt *rt, uint64_t *deadline);

/* Runs fut (taken: it is dropped before returning, its outputs stay
 * readable) to completion on rt, waiting in the backend when idle. Returns
 * fut's status, or WA_EDEADLK when fut is pending and nothing can ever wake
 * anything (the pending tasks are reported, see wa_rt_set_report).
 * Refused with WA_EMISUSE (reported) from inside a task's poll, which must
 * never block, and from a thread other than rt's. */
int wa_block_on(wa_rt *rt, wa_future *fut);

/* Runs until no task is left. Returns 0 or WA_EDEADLK. */
int wa_rt_run(wa_rt *rt);

/* A future that is pending once, letting every other ready task run. */
typedef struct wa_yield {
    wa_future fut;
    int yielded;
} wa_yield;
/* Initialises y; returns the future. */
wa_future *wa_yield_init(wa_yield *y);

/* Counters, for tests and tuning. */
typedef struct wa_rt_stats {
    size_t tasks;      /* live (unfinished) tasks */
    size_t timers;     /* armed timers */
    size_t sources;    /* sources registered with the backend */
    uint64_t spawned;  /* tasks ever spawned */
    uint64_t polls;    /* task polls */
    uint64_t ticks;
    uint64_t waits;    /* backend waits */
} wa_rt_stats;
/* Copies rt's counters into st (borrowed). */
void wa_rt_stats_get(const wa_rt *rt, wa_rt_stats *st);

/* Writes a list of the live tasks (id, name, state; for a named task how
 * long it has waited, its polls and their busy and idle times), at most
 * len bytes, NUL-terminated; returns the length it needed (as snprintf).
 * Callable from any thread on a many-threads runtime. */
size_t wa_rt_dump(const wa_rt *rt, char *buf, size_t len);

/* Where wa_block_on reports a deadlock: fn(arg, dump). NULL: stderr. */
typedef void (*wa_report_fn)(void *arg, const char *text);
/* Sets the report function fn and its arg (borrowed). */
void wa_rt_set_report(wa_rt *rt, wa_report_fn fn, void *arg);

/* The backend driving rt (borrowed). */
wa_backend *wa_rt_backend(wa_rt *rt);

#ifdef __cplusplus
}
#endif
#endif
