/* SPDX-License-Identifier: MIT */
/* Internal: the runtime, and what the executor and the error hook export to
 * the rest of the library (the core's other files and the backends). */
#ifndef WASYNC_CORE_RT_H
#define WASYNC_CORE_RT_H

#include <stddef.h>

#include "slab.h"
#include "wasync/backend.h"
#include "wasync/runtime.h"
#include "wasync/scope.h"
#include "wasync/time.h"

/* State a layer above the core keeps per runtime (natively, the HTTP
 * client's curl multi handle and its connection cache): made by that
 * layer, found by its free function, freed by wa_rt_free once every task
 * is gone and while the backend still is (it may hold registrations).
 * Kept on the runtime itself, never on a worker's view (wa__rt_home). The
 * list takes no lock: a layer whose calls run on several workers makes
 * its extension under a lock of its own. */
typedef struct wa__trace wa__trace;

typedef struct wa__rt_ext {
    struct wa__rt_ext *next;
    void (*free)(struct wa__rt_ext *e);
} wa__rt_ext;

/* Makes a new buffer (malloc, the caller's to free) holding a future that
 * runs a copy of the size bytes at fut, named name (NULL: none), in *out;
 * returns its size, or 0 (no memory). diag.c's wa__diag_wrap. */
typedef size_t wa__wrap_fn(wa_rt *rt, const wa_future *fut, size_t size, const char *name, wa_future **out);

/* What a traced runtime's backend waits and timers tell its trace
 * (why.c's wa__why_hooks_traced, through a pointer: a program that never
 * traces does not link why.c). */
typedef struct wa__why_hooks {
    /* The backend wait of rt until `until`: a "host wait" slice on the
     * runtime's track when it may block, and the readiness it feeds in
     * says why it wakes tasks. Returns the backend's wait's code. */
    int (*wait)(wa_rt *rt, uint64_t until);
    /* tm is armed (its deadline set: ns from the commit while it is an
     * arming one, timer.h), by the task being polled on this thread if
     * that one is traced. */
    void (*armed)(const wa__timer *tm);
    /* Takes the waker of tm, which fired, and wakes it. */
    void (*fired)(wa__timer *tm);
} wa__why_hooks;

struct wa_rt {
    wa_task *head, **tailp;      /* run queue (FIFO, intrusive; tailp: the last next, or &head) */
    size_t queued;
    wa_task *rest;               /* the round under way: the tasks it has yet to poll */
    wa__list roots;               /* linked live tasks owned by no scope (task.h) */
    wa_scope *scopes;            /* live scopes */
    wa_backend *backend;
    /* timers: a 4-ary min-heap of entries ordered by (deadline, tie) */
    wa__timer **heap;
    uint32_t heap_len;
    size_t heap_cap;
    /* relative timers armed since the last clock read: their deadlines are
     * counted from the next read, so they are never early */
    wa__timer **arming;
    uint32_t arming_len;
    size_t arming_cap;
    uint32_t timer_seq;
    uint64_t now;
    int now_fresh;
    int timers_early; /* the last wait ended before the earliest deadline */
    int budget;                  /* coop budget of the running poll */
    wa_cx cx;                    /* the context of its polls, made once (its task: the one being polled, or NULL) */
    uint64_t finished;           /* local tasks finished: spawned - finished are live (one counter per spawn, not two) */
    wa__slab slab;                /* task allocations (in place: one load less per spawn) */
    /* While a trace is written: the trace (trace_file.c), and diag.c's
     * wrapper maker, which every task spawned meanwhile runs in (a spawn
     * tests wrap, beside the slab and the spawn count, and calls it through
     * this pointer: a program that never traces does not link diag.c).
     * Else NULL; atomic (workers read them). */
    struct wa__trace *trace;
    wa__wrap_fn *wrap;
    const wa__why_hooks *why; /* (the backend's waits, the timers and other threads' wakes test it) */
    uint64_t spawned, polls, ticks, waits;
    /* The library's internal tasks (wa__spawn_internal), counted in
     * spawned and finished but not the program's: live ones, and how many
     * were spawned. Atomic (on many threads, workers spawn and drop them). */
    size_t internal;
    uint64_t internal_spawned;
    wa_report_fn report;
    void *report_arg;
    uintptr_t owner;             /* the thread that created it */
    wa__rt_ext *exts;             /* extensions (wa__rt_ext_add) */
    /* The many-threads executor (src/threads/mt.c) of this runtime, or of
     * this worker's view of it; NULL for the local executor. A view's
     * timers are touched by other workers too (a task moves), under
     * timer_lock. Its operations are sched's (sched.h), and a view's
     * runtime is home (NULL: rt is a runtime). */
    struct wa__mt *mt;
    const struct wa__sched *sched;
    struct wa_rt *home;
    uint32_t timer_lock;
    /* Cross-thread state (remote.c: remotes, events, the blocking pool),
     * made at its first use; NULL until then, and on hosts without threads. */
    struct wa_remote *xt;
    /* While it ticks (wa__ticking): the frame address of the function that
     * calls its tasks' polls. Stacks grow down, so the frames of a running
     * poll lie below it (wa__poll_local). */
    const char *poll_top;
};

/* The task being polled on rt (a worker's view, on many threads), or NULL. */
static inline wa_task *wa__rt_current(const wa_rt *rt) { return rt->cx.task; }

/* The native many-threads executor (mt.c) is built where there are threads. */
#if defined(__linux__) && !defined(__wasm__)
#define WA__MT 1
#else
#define WA__MT 0
#endif

/* A worker's timers (mt.c) are shared with the other workers: timer.c
 * holds this short lock around each change. Nothing for the local
 * executor, whose rt->mt is NULL. */
#if WA__MT
#include <sched.h>
static inline void wa__timers_lock(wa_rt *rt)
{
    if (rt->mt)
        while (__atomic_exchange_n(&rt->timer_lock, 1, __ATOMIC_ACQUIRE))
            sched_yield(); /* held for a few heap moves, by a worker that may be descheduled */
}

static inline void wa__timers_unlock(wa_rt *rt)
{
    if (rt->mt)
        __atomic_store_n(&rt->timer_lock, 0, __ATOMIC_RELEASE);
}
#else
static inline void wa__timers_lock(wa_rt *rt) { (void)rt; }
static inline void wa__timers_unlock(wa_rt *rt) { (void)rt; }
#endif

/* The runtime rt is, or whose worker's view it is (a poll's cx->rt on
 * many threads): where per-runtime state lives. */
static inline wa_rt *wa__rt_home(wa_rt *rt) { return WA__MT && rt->home ? rt->home : rt; }

/* rt's extension whose free function is free_fn, or NULL. */
static inline wa__rt_ext *wa__rt_ext_find(wa_rt *rt, void (*free_fn)(wa__rt_ext *))
{
    wa__rt_ext *e = wa__rt_home(rt)->exts;
    while (e && e->free != free_fn)
        e = e->next;
    return e;
}

/* Hands e (taken, its free set) to rt: freed by wa_rt_free. */
static inline void wa__rt_ext_add(wa_rt *rt, wa__rt_ext *e)
{
    rt = wa__rt_home(rt);
    e->next = rt->exts;
    rt->exts = e;
}

/* a + b, or WA_NEVER when that does not fit: a huge duration is never. */
static inline uint64_t wa__add_sat(uint64_t a, uint64_t b) { return b > WA_NEVER - a ? WA_NEVER : a + b; }

/* The calling thread, to tell a runtime's owner from other threads; a
 * host of one thread has no other (and carries no check for one). */
#if defined(__linux__)
#include <pthread.h>
#define WA__THREADS 1
static inline uintptr_t wa__thread_self(void) { return (uintptr_t)pthread_self(); }
#else
#define WA__THREADS 0
static inline uintptr_t wa__thread_self(void) { return 0; }
#endif

/* clock.c: reads the backend's clock now (a host call), and caches it
 * as wa_now's. */
uint64_t wa__now_fresh(wa_rt *rt);

/* root.c: the futures of the tasks the executor spawns for block_on and
 * for the library, told from the program's by their vtables (by dumps and
 * misuse reports, and the many-threads executor's count of live tasks):
 * no field of the runtime marks them, which workers would read while the
 * creating thread writes it. block_on's root task polls the caller's
 * future in place (dumps name that future). */
typedef struct wa__root {
    wa_future fut;
    wa_future *inner;
} wa__root;
extern const wa_future_vt wa__root_vt;

/* An internal task's: the root's, and the runtime whose count of internal
 * tasks its drop lowers. */
typedef struct wa__internal {
    wa__root root;
    wa_rt *rt;
} wa__internal;
extern const wa_future_vt wa__internal_vt;

/* executor.c: the checks of a call that drives rt (block_on, run, tick,
 * free): rt is not NULL, the caller is its thread and is not inside a poll
 * (wa__ticking: a poll must not block or re-enter any runtime). Returns 0,
 * or the misuse reported. */
int wa__rt_enter(wa_rt *rt, const char *call);
/* The handle table's entry of rt, a live runtime, in *h: 0, or misuse
 * reported for call (a runtime freed already). */
int wa__rt_live(const wa_rt *rt, const char *call, uintptr_t *h);
/* One fair round of rt's tasks (wa_rt_tick without its checks, for the
 * loops that made them once): the number of tasks queued for the next,
 * and in *deadline (if not NULL) the earliest timer's. */
int wa__rt_round(wa_rt *rt, uint64_t *deadline);

/* executor.c: spawns on rt (or the runtime of the view rt) a task of the
 * library's own that polls inner (borrowed: kept by its caller, such as a
 * runtime extension, until the task drops it). It is not the program's:
 * not in wa_rt_stats_get's tasks and spawned, nor in dumps and deadlock
 * reports, and wa_rt_run does not wait for it; what it waits on (a
 * source, a timer) still counts, so that what the program awaits through
 * it is no deadlock. Its name is inner's. Returns 0, or the spawn's error
 * (inner not dropped). */
int wa__spawn_internal(wa_rt *rt, wa_future *inner);

#if WA__MT
/* remote.c (where there are threads): runs on rt's thread what other
 * threads posted to its inbox (spawns, wakes). */
void wa__remote_drain(wa_rt *rt);
/* Whether another thread may still wake rt: a remote or an event held, or
 * a blocking job in flight (so an idle runtime is no deadlock). */
bool wa__remote_busy(wa_rt *rt);
/* Shutdown began: remote spawns and new blocking jobs are refused. */
void wa__remote_refuse(wa_rt *rt);
/* blocking.c: every task is gone: joins the pool's threads (so detached
 * functions have returned and been released). */
void wa__pool_stop(wa_rt *rt);
/* Then closes the state (what other threads still hold says WA_ECLOSED)
 * and drops rt's hold on it. */
void wa__remote_close(wa_rt *rt);
#endif

/* One backend wait until `until` (0: a non-blocking check), and what the
 * next tick must know of it. Returns 0 or the backend's error. */
static inline int wa__rt_wait(wa_rt *rt, uint64_t until)
{
    rt->waits++;
    wa_backend *b = rt->backend;
    const wa__why_hooks *why = __atomic_load_n(&wa__rt_home(rt)->why, __ATOMIC_RELAXED);
    int rc = why ? why->wait(rt, until) : b->vt->wait(b, until);
    rt->now_fresh = 0;
    rt->timers_early = rc == WA_WAIT_EARLY; /* for the next tick only */
#if WA__MT
    if (rt->xt) /* the wait may have ended for it */
        wa__remote_drain(rt);
#endif
    return rc < 0 ? rc : 0;
}

/* error.c: the runtime whose tick runs on this thread, or NULL. The
 * executor sets it; misuse reports read it to name the running task. */
extern _Thread_local wa_rt *wa__ticking;

/* error.c: reports misuse of call ("wa_spawn: what"), naming the task
 * being polled, if any; returns err. */
int wa__misuse_in(int err, const char *call, const char *what);

/* error.c: reports the poll of a finished or freed future (what: its
 * words, "sleep", "HTTP send") as misuse of call (NULL: none); returns
 * WA_EMISUSE. */
int wa__misuse_done(const char *call, const char *what);

/* Built with AddressSanitizer, which may keep a function's locals in fake
 * frames off the stack (wa__poll_local). */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WA__ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(WA__ASAN)
#define WA__ASAN 1
#endif
#ifndef WA__ASAN
#define WA__ASAN 0
#endif

/* error.c: p lies in the stack frames of the poll running on this thread,
 * which its return frees: in the frames from the caller of this call up to
 * the executor's poll_top. False outside a tick. */
bool wa__poll_local(const void *p);
/* error.c: reports f, stored in the frames of the poll running (above),
 * as misuse of call; returns WA_EMISUSE. */
int wa__misuse_local(const char *call, const wa_future *f);

/* Writes diagnostic text where the host shows it (stderr; the JS console).
 * One definition per host: src/reactor/log_stderr.c, or src/host/js/log.c. */
void wa__log(const char *text);

/* The host's backend (its reactor file's last function, or
 * src/reactor/sim_default.c), or NULL with *err set. */
wa_backend *wa__backend_default(int *err);



#endif
