/* SPDX-License-Identifier: MIT */
/* Internal: a task's diagnostics (diag.c). A task given a name at its
 * spawn runs its future inside this wrapper, which times each poll (busy
 * and idle, for dumps) and keeps the name; the executors know nothing of
 * it, so that a task without one costs nothing more. Dumps and
 * wa_join_output look through it. */
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
    char *name;          /* its own (a copy), or NULL */
} __attribute__((aligned(16))) wa__diag;

extern const wa_future_vt wa__diag_vt;

static inline wa_future *wa__diag_inner(const wa__diag *g) { return (wa_future *)(g + 1); }

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

/* A new buffer (malloc) holding the wrapper over a copy of the size bytes
 * at fut, named a copy of name (NULL: none), to spawn on rt in its place
 * (wa__diag_free after the spawn). Returns its size, or 0 (no memory). */
size_t wa__diag_wrap(wa_rt *rt, const wa_future *fut, size_t size, const char *name, wa__diag **out);

/* Frees a buffer of wa__diag_wrap's; its name too when the spawn failed
 * (spawned, the task's copy owns it). */
void wa__diag_free(wa__diag *g, bool spawned);

#endif
