/* SPDX-License-Identifier: MIT */
/* wasync/scope.h - structured concurrency: task scopes (nurseries).
 *
 * Tasks spawned into a scope cannot outlive it. Awaiting the scope waits
 * for all of them; its status is the first error a child returned. With
 * WA_SCOPE_FAIL_FAST that error also cancels the siblings.
 * Cancelling the task that awaits the scope cancels the children
 * (cooperatively: they may await their cleanup) and the scope waits for
 * them; dropping the scope hard-drops whatever is left.
 *
 *     wa_scope_init(&t->scope, cx->rt, WA_SCOPE_FAIL_FAST);
 *     wa_scope_spawn(&t->scope, &child.wa.fut, sizeof child, NULL);
 *     WA_AWAIT(wa_scope_wait(&t->scope));
 */
#ifndef WASYNC_SCOPE_H
#define WASYNC_SCOPE_H

#include "runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    WA_SCOPE_FAIL_FAST = 1, /* an error in one child cancels the others */
};

typedef struct wa_scope {
    wa_future fut;
    wa_rt *rt;
    wa_task *owner;    /* the task that created the scope, or NULL */
    wa__list children;  /* list of live children */
    struct wa_scope *prev, *next; /* in the runtime's list of scopes */
    size_t live;
    int status;
    unsigned flags;
    wa_waker waker;
} wa_scope;

/* Initialises s on rt with WA_SCOPE_* flags. The scope must be dropped
 * (awaiting it with WA_AWAIT does that) by the task that created it. When
 * that task ends, a scope it left live is dropped with it (its children
 * hard-dropped); if the task returned normally rather than being cancelled,
 * that is reported as misuse. Returns s's future. */
wa_future *wa_scope_init(wa_scope *s, wa_rt *rt, unsigned flags);

/* The scope's future, to await. */
static inline wa_future *wa_scope_wait(wa_scope *s) { return &s->fut; }

/* Spawns a child as wa_spawn does, into s. Returns 0, WA_ENOMEM, or
 * WA_ECANCELED if the scope is already cancelling. */
int wa_scope_spawn(wa_scope *s, const wa_future *fut, size_t size, wa_join *join);

/* wa_scope_spawn of the struct that ptr points to (as wa_spawn_of). */
#define wa_scope_spawn_of(s, ptr, join) \
    (WA__SPAWN_WHOLE(ptr), wa_scope_spawn((s), (const wa_future *)(ptr), sizeof *(ptr), (join)))

/* wa_scope_spawn of a task given a name of its own (copied; NULL: none),
 * as wa_spawn_named. Returns what wa_scope_spawn returns. */
int wa_scope_spawn_named(wa_scope *s, const wa_future *fut, size_t size, wa_join *join, const char *name);

/* wa_scope_spawn_named of the struct that ptr points to (as wa_spawn_of). */
#define wa_scope_spawn_of_named(s, ptr, join, name) \
    (WA__SPAWN_WHOLE(ptr), wa_scope_spawn_named((s), (const wa_future *)(ptr), sizeof *(ptr), (join), (name)))

/* Requests cooperative cancellation of every child; awaiting the scope then
 * gives WA_ECANCELED (unless a child failed first). */
void wa_scope_cancel(wa_scope *s);

/* Live children. */
static inline size_t wa_scope_live(const wa_scope *s) { return s->live; }

#ifdef __cplusplus
}
#endif
#endif
