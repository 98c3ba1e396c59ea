/* Internal: the task header and the runtime. */
#ifndef WASYNC_CORE_RT_H
#define WASYNC_CORE_RT_H

#include <stddef.h>

#include "slab.h"
#include "wasync/backend.h"
#include "wasync/runtime.h"
#include "wasync/scope.h"
#include "wasync/time.h"

/* Task state bits. In the multi-threaded executor the same word becomes
 * atomic; every transition goes through the helpers below. */
enum {
    WA_T_QUEUED = 1u << 0,   /* in the run queue (the queue holds a ref) */
    WA_T_RUNNING = 1u << 1,  /* being polled */
    WA_T_DONE = 1u << 2,     /* finished: future dropped, status final */
    WA_T_CANCEL = 1u << 3,   /* cooperative cancellation requested */
    WA_T_CLAIMED = 1u << 4,  /* someone handles the cancellation (this poll) */
    WA_T_ABORT = 1u << 5,    /* hard drop when the running poll returns */
    WA_T_STARTED = 1u << 6,  /* polled at least once */
};

/* One allocation per task: this header, then the future inline. 64 bytes on
 * 64-bit hosts, 48 on wasm32. */
struct wa_task {
    wa_task *next;               /* run queue */
    wa_task *lprev, *lnext;      /* owner list: runtime roots or a scope */
    wa_rt *rt;
    wa_scope *scope;             /* owner scope, or NULL */
    wa_join *joiner;             /* the handle awaiting completion */
    uint32_t word;               /* state bits | scopes owned | refs */
    int status;
    uint32_t id;
    uint32_t size;               /* of the allocation, for the slab */
} __attribute__((aligned(16)));

/* State and reference count share one word, so that the multi-threaded
 * executor can update both with one atomic operation. Bits 0-7: WA_T_*.
 * Bits 8-11: how many live scopes the task created (saturating at 15), so
 * that a task which ends without dropping one is caught. Bits 12-31:
 * references: alive (until done), queued, the join handle, each waker. */
#define WA_STATE_MASK 0xffu
#define WA_SCOPE_ONE (1u << 8)
#define WA_SCOPE_MASK (0xfu << 8)
#define WA_REF_SHIFT 12
#define WA_REF_ONE (1u << WA_REF_SHIFT)

static inline wa_future *wa_task_future(wa_task *t) { return (wa_future *)(t + 1); }

/* Every access to the state/refcount word goes through these, the one
 * switch (WA_TASK_ATOMIC) that makes it atomic for an executor whose tasks
 * are woken from other threads. The local executor keeps plain operations. */
#ifndef WA_TASK_ATOMIC
#define WA_TASK_ATOMIC 0
#endif
#if WA_TASK_ATOMIC
static inline uint32_t wa_word_load(const wa_task *t) { return __atomic_load_n(&t->word, __ATOMIC_ACQUIRE); }
static inline void wa_word_store(wa_task *t, uint32_t w) { __atomic_store_n(&t->word, w, __ATOMIC_RELEASE); }
static inline uint32_t wa_word_add(wa_task *t, uint32_t v) { return __atomic_add_fetch(&t->word, v, __ATOMIC_ACQ_REL); }
static inline uint32_t wa_word_sub(wa_task *t, uint32_t v) { return __atomic_sub_fetch(&t->word, v, __ATOMIC_ACQ_REL); }
static inline uint32_t wa_word_or(wa_task *t, uint32_t v) { return __atomic_or_fetch(&t->word, v, __ATOMIC_ACQ_REL); }
static inline uint32_t wa_word_and(wa_task *t, uint32_t v) { return __atomic_and_fetch(&t->word, v, __ATOMIC_ACQ_REL); }
#else
static inline uint32_t wa_word_load(const wa_task *t) { return t->word; }
static inline void wa_word_store(wa_task *t, uint32_t w) { t->word = w; }
static inline uint32_t wa_word_add(wa_task *t, uint32_t v) { return t->word += v; }
static inline uint32_t wa_word_sub(wa_task *t, uint32_t v) { return t->word -= v; }
static inline uint32_t wa_word_or(wa_task *t, uint32_t v) { return t->word |= v; }
static inline uint32_t wa_word_and(wa_task *t, uint32_t v) { return t->word &= v; }
#endif

struct wa_rt {
    wa_task *head, *tail;        /* run queue (FIFO, intrusive) */
    size_t queued;
    wa_task *roots;              /* live tasks owned by no scope */
    wa_scope *scopes;            /* live scopes */
    wa_backend *backend;
    /* timers: a 4-ary min-heap of entries ordered by (deadline, tie) */
    wa_timer **heap;
    uint32_t heap_len, heap_cap;
    /* relative timers armed since the last clock read: their deadlines are
     * counted from the next read, so they are never early */
    wa_timer **arming;
    uint32_t arming_len, arming_cap;
    uint32_t timer_seq;
    uint64_t now;
    int now_fresh;
    int timers_early; /* the last wait ended before the earliest deadline */
    int budget;                  /* coop budget of the running poll */
    wa_task *current;            /* the task being polled, or NULL */
    size_t live;
    struct wa_slab *slab;        /* task allocations */
    uint64_t spawned, polls, ticks, waits;
    wa_report_fn report;
    void *report_arg;
    uintptr_t owner;             /* the thread that created it */
};

/* a + b, or WA_NEVER when that does not fit: a huge duration is never. */
static inline uint64_t wa_add_sat_(uint64_t a, uint64_t b) { return b > WA_NEVER - a ? WA_NEVER : a + b; }

/* executor.c: reads the backend's clock now (a host call), and caches it
 * as wa_now's. */
uint64_t wa_now_fresh_(wa_rt *rt);

/* The calling thread, to tell a runtime's owner from other threads. */
#if defined(__linux__)
#include <pthread.h>
static inline uintptr_t wa_thread_self_(void) { return (uintptr_t)pthread_self(); }
#else
static inline uintptr_t wa_thread_self_(void) { return 0; } /* one thread */
#endif

/* executor.c: the runtime ticking on this thread, or NULL. */
extern _Thread_local wa_rt *wa_ticking_;

/* The checks of a call that drives rt (block_on, run, tick, free): rt is
 * not NULL, the caller is its thread and is not inside a poll. Returns 0,
 * or the misuse reported. */
int wa_rt_enter_(wa_rt *rt, const char *call);

/* error.c: reports misuse of call ("wa_spawn: what"), naming the task
 * being polled, if any; returns err. */
int wa_misuse_in_(int err, const char *call, const char *what);

/* dump.c: text built into a buffer of len bytes, always NUL-terminated;
 * need counts what the whole text takes (as snprintf). No stdio: a wasm
 * build carries none. */
typedef struct wa_text {
    char *buf;
    size_t len, need;
} wa_text;
void wa_text_str_(wa_text *d, const char *s);
void wa_text_uint_(wa_text *d, uint64_t v);
/* Appends `task N "name"` (block_on's task is named after its future). */
void wa_text_task_(wa_text *d, const wa_task *t);

/* task.c */
/* wa_rt_tick without its checks: for the loops that made them once. */
int wa_rt_tick_(wa_rt *rt, uint64_t *deadline);
int wa_task_spawn_(wa_rt *rt, wa_scope *scope, const wa_future *fut, size_t size,
                   wa_join *join);
void wa_task_abort_(wa_task *t);
void wa_task_cancel_(wa_task *t);
void wa_task_unref_(wa_task *t);

/* timer.c */
/* A timer slot that is an index into rt->arming, not the heap. */
#define WA_TIMER_ARMING (1u << 31)
/* Arms tm for deadline with a clone of cx's waker: 0 or WA_ENOMEM. */
int wa_timer_arm_(wa_rt *rt, wa_timer *tm, uint64_t deadline, const wa_cx *cx);
/* Arms tm for ns after the clock read that commits it (wa_timers_commit_,
 * after the poll that armed it): 0 or WA_ENOMEM. */
int wa_timer_arm_in_(wa_rt *rt, wa_timer *tm, uint64_t ns, const wa_cx *cx);
/* Reads the clock and moves the arming timers into the heap, their
 * deadlines counted from that read. */
void wa_timers_commit_(wa_rt *rt);
/* Disarms tm if armed and drops its waker. */
void wa_timer_disarm_(wa_timer *tm);
void wa_timers_fire_(wa_rt *rt);
static inline uint64_t wa_timers_next_(const wa_rt *rt)
{
    return rt->heap_len ? rt->heap[0]->deadline : WA_NEVER;
}

/* The current task is being cancelled and this point is not shielded
 * (whether or not someone already claimed the request). */
static inline bool wa_cx_cancelling_(const wa_cx *cx)
{
    return cx->task && cx->shield == 0 && (wa_word_load(cx->task) & WA_T_CANCEL);
}

/* executor.c: block_on's root task polls the caller's future in place. */
typedef struct wa_root {
    wa_future fut;
    wa_future *inner;
} wa_root;
extern const wa_future_vt wa_root_vt_;

/* dump.c: reports a deadlock through rt's report hook (default: wa_log_). */
void wa_report_deadlock_(wa_rt *rt);

/* Writes diagnostic text where the host shows it (stderr; the JS console).
 * One definition per host: backend/log_stderr.c, or the JS backend's. */
void wa_log_(const char *text);

/* backend/default.c: the platform's backend, or NULL with *err set. */
wa_backend *wa_backend_default_(int *err);

/* wa_cancel_requested, inline for the library's own hot paths. */
static inline bool wa_cx_cancel_requested_(const wa_cx *cx)
{
    return cx->task && cx->shield == 0 &&
           (wa_word_load(cx->task) & (WA_T_CANCEL | WA_T_CLAIMED)) == WA_T_CANCEL;
}

/* scope.c */
void wa_scope_child_done_(wa_scope *s, wa_task *t);
/* t finished while scopes it created were live: drops them, and reports
 * misuse when t returned normally (a cancelled or dropped task's scopes go
 * with it as a matter of course). */
void wa_scope_orphans_(wa_rt *rt, wa_task *t, bool report);

/* Intrusive owner-list helpers (roots and scope children). */
static inline void wa_list_push_(wa_task **head, wa_task *t)
{
    t->lprev = NULL;
    t->lnext = *head;
    if (*head)
        (*head)->lprev = t;
    *head = t;
}

static inline void wa_list_remove_(wa_task **head, wa_task *t)
{
    if (t->lprev)
        t->lprev->lnext = t->lnext;
    else
        *head = t->lnext;
    if (t->lnext)
        t->lnext->lprev = t->lprev;
    t->lprev = t->lnext = NULL;
}

/* One backend wait until `until` (0: a non-blocking check), and what the
 * next tick must know of it. Returns 0 or the backend's error. */
static inline int wa_rt_wait_(wa_rt *rt, uint64_t until)
{
    rt->waits++;
    int rc = rt->backend->vt->wait(rt->backend, until);
    rt->now_fresh = 0;
    rt->timers_early = rc == WA_WAIT_EARLY; /* for the next tick only */
    return rc < 0 ? rc : 0;
}

#endif
