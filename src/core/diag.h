/* SPDX-License-Identifier: MIT */
/* Internal: a task's diagnostics (diag.c). A task given a name at its
 * spawn, and every task spawned while its runtime is traced (trace.h),
 * runs its future inside this wrapper, which times each poll (busy and
 * idle, for dumps), keeps the name and writes the trace's events; the
 * executors know nothing of it, so that a task without one costs nothing
 * more. Dumps and wa_join_output look through it. */
#ifndef WASYNC_CORE_DIAG_H
#define WASYNC_CORE_DIAG_H

#include "rt.h"

/* The wrapper, then the task's own future (16-aligned, as a task's). */
typedef struct wa__diag {
    wa_future fut; /* wa__diag_vt */
    wa_rt *rt;     /* the runtime (not a worker's view) */
    uint64_t polls;
    uint64_t busy, idle; /* ns in its polls, and between them since its spawn */
    uint64_t since;      /* the end of its last poll (its spawn before the first) */
    uint64_t spawned;    /* when */
    const wa_waker_vt *waker_vt; /* traced: its executor's waker, set by its first poll */
    const wa__timer *timer; /* traced: the last timer it armed, and when (why.c), */
    uint64_t armed;         /* which the wake that timer makes names by its delay */
    uint32_t parent;     /* traced: the task that spawned it, or 0 */
    uint32_t traced;     /* spawned while rt was traced: that trace's wa__trace_gen, else 0 */
    uint32_t ended;      /* traced: its end written (atomic: wakes read it) */
    uint32_t name;       /* where its own name lies from here, after the future (in the task's
                            allocation: a dump on another thread reads it until the task is
                            freed), or 0: none */
} __attribute__((aligned(16))) wa__diag;

/* Weak: the wrapper is diag.c's, linked by a program that names or
 * traces a task; in one that does not, its address is NULL and no future
 * is the wrapper (the spawns, joins and dumps that look for it then cost
 * nothing more). */
extern const wa_future_vt wa__diag_vt __attribute__((weak));

static inline wa_future *wa__diag_inner(const wa__diag *g) { return (wa_future *)(g + 1); }

/* The name g was given at its spawn, or NULL. */
static inline const char *wa__diag_name(const wa__diag *g) { return g->name ? (const char *)g + g->name : NULL; }

/* The diagnostics of the task future f, or NULL. */
static inline const wa__diag *wa__diag_of(const wa_future *f)
{
    return f->vt == &wa__diag_vt ? (const wa__diag *)f : NULL;
}

/* f, or the future it wraps. */
static inline const wa_future *wa__diag_unwrap(const wa_future *f)
{
    const wa__diag *g = wa__diag_of(f);
    return g ? wa__diag_inner(g) : f;
}

/* The wrapper over fut (rt.h's wa__wrap_fn): a buffer holding it, then a
 * copy of fut, then a copy of name, to spawn on rt in fut's place. */
wa__wrap_fn wa__diag_wrap;

#endif
