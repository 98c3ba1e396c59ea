/* SPDX-License-Identifier: MIT */
/* wasync/join_set.h - a join set: many tasks, awaited in the order they
 * finish (tokio's JoinSet, Rust's FuturesUnordered).
 *
 * Tasks spawned into a set are root tasks of its runtime that the set
 * holds a join handle of; each wa_join_next gives the next one to finish,
 * its status and its future's outputs. Unlike a scope (wasync/scope.h) a
 * set does not end with the first error or wait for all: its owner takes
 * each result as it comes and decides. Dropping the set hard-drops
 * (aborts) what it still holds, as tokio does.
 *
 *     wa_join_set_init(&t->set, cx->rt);
 *     for (i = 0; i < 3; i++)
 *         wa_join_set_spawn_of(&t->set, &t->child[i]);
 *     while (wa_join_set_len(&t->set)) {
 *         WA_AWAIT(wa_join_next_init(&t->next, &t->set));
 *         use(t->next.status, t->next.output);
 *     }
 *     wa_join_set_drop(&t->set);
 *
 * A set is used by one task (or thread) at a time, on the local executor
 * and on the many-threads one alike.
 */
#ifndef WASYNC_JOIN_SET_H
#define WASYNC_JOIN_SET_H

#include "runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wa_join_set {
    wa_rt *rt;                   /* NULL once dropped */
    wa__list tasks;              /* the entries not yet joined, in spawn order */
    struct wa__join_set_entry *taken; /* the last one joined: its output is readable */
    size_t len;
} wa_join_set;

/* Initialises s, empty, on rt (borrowed; it must outlive the set). The
 * set must be dropped with wa_join_set_drop. */
void wa_join_set_init(wa_join_set *s, wa_rt *rt);

/* Spawns a task running a copy of the size bytes at fut, as wa_spawn does,
 * into s, which holds its handle. Returns 0, WA_ENOMEM, WA_E2BIG, or
 * WA_EINVAL / WA_EMISUSE (misuse, reported: a NULL argument, a set not
 * initialised or dropped, what wa_spawn refuses); on failure fut is left
 * to the caller, unpolled. */
int wa_join_set_spawn(wa_join_set *s, const wa_future *fut, size_t size);

/* wa_join_set_spawn of the struct that ptr points to (as wa_spawn_of). */
#define wa_join_set_spawn_of(s, ptr) \
    (WA__SPAWN_WHOLE(ptr), wa_join_set_spawn((s), (const wa_future *)(ptr), sizeof *(ptr)))

/* wa_join_set_spawn of a task given a name of its own (copied; NULL:
 * none), as wa_spawn_named. Returns what wa_join_set_spawn returns. */
int wa_join_set_spawn_named(wa_join_set *s, const wa_future *fut, size_t size, const char *name);

/* wa_join_set_spawn_named of the struct that ptr points to (as wa_spawn_of). */
#define wa_join_set_spawn_of_named(s, ptr, name) \
    (WA__SPAWN_WHOLE(ptr), wa_join_set_spawn_named((s), (const wa_future *)(ptr), sizeof *(ptr), (name)))

/* The future of the next task of set to finish. */
typedef struct wa_join_next {
    wa_future fut;
    wa_join_set *set;  /* borrowed */
    int status;        /* the task's status, once the future is ready */
    wa_future *output; /* the task's future, whose fields hold its outputs:
                        * valid until the set's next join_next is polled or
                        * the set is dropped */
} wa_join_next;

/* Initialises n to wait for the next task of set (borrowed) to finish, and
 * returns n's future. Its first poll releases the previous join_next's
 * output. Ready with 0 and n->status, n->output set; WA_ECLOSED when the
 * set holds no task; WA_EMISUSE (reported) when the set was dropped or is
 * polled by another runtime. Tasks found finished by the same poll come in
 * spawn order. Dropping n while it is pending loses nothing: the task it
 * would have returned comes with the next join_next. Each poll looks at
 * every task the set holds (a poll costs O(len)). */
wa_future *wa_join_next_init(wa_join_next *n, wa_join_set *set);

/* How many tasks s holds: running, or finished and not yet joined. */
static inline size_t wa_join_set_len(const wa_join_set *s) { return s->len; }

/* Requests the cooperative cancellation of every task s holds (as
 * wa_join_cancel): each still comes out of a join_next, its status
 * WA_ECANCELED unless it says otherwise. */
void wa_join_set_cancel(wa_join_set *s);

/* Hard-drops the future of every task s holds (as wa_join_abort): each
 * still comes out of a join_next, status WA_ECANCELED unless it finished
 * before. */
void wa_join_set_abort(wa_join_set *s);

/* Aborts every task s still holds (as wa_join_set_abort; on the
 * many-threads executor a worker drops each soon after), releases their
 * handles and the last output, and marks s dropped. A second drop is
 * reported as misuse. */
void wa_join_set_drop(wa_join_set *s);

#ifdef __cplusplus
}
#endif
#endif
