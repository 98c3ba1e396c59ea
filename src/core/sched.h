/* SPDX-License-Identifier: MIT */
/* Internal: a runtime's scheduler, when it is not the local executor
 * (tokio's Schedule). The many-threads executor (src/threads/mt.c) sets
 * rt->sched when it takes a runtime over; tasks, scopes and the executor
 * call it through this table only, so the core names no scheduler of a
 * layer above it and the calls run one way. */
#ifndef WASYNC_CORE_SCHED_H
#define WASYNC_CORE_SCHED_H

#include <stdbool.h>

#include "rt.h"

typedef struct wa__sched {
    /* wa_spawn onto rt, into scope when it is not NULL (the checks made). */
    int (*spawn)(wa_rt *rt, const wa_future *fut, size_t size, wa_join *join, wa_scope *scope);
    /* Marks t cancelled (WA__T_CANCEL) or aborted (WA__T_ABORT) and wakes
     * it: whoever runs it next acts on it. */
    void (*signal)(wa_task *t, uint32_t bit);
    /* wa_join_drop of a handle of one of its tasks. */
    void (*join_drop)(wa_join *j);
    /* Scopes: wa_scope_init's, the poll's (outer: the awaiting task is
     * being cancelled), wa_scope_cancel's and the drop's (scope.c's checks
     * made). */
    void (*scope_init)(wa_scope *s, wa_rt *rt, unsigned flags);
    int (*scope_poll)(wa_scope *s, bool outer, wa_cx *cx);
    void (*scope_cancel)(wa_scope *s);
    void (*scope_drop)(wa_scope *s);
    /* wa_block_on's and wa_rt_run's wait on the calling thread: until
     * root's task is done (root NULL: until no task is left), 0; or, when
     * nothing can wake a task any more, the deadlock reported:
     * WA_EDEADLK. root is borrowed. */
    int (*drive)(wa_rt *rt, wa_join *root);
    /* Waits until root's task is done after drive failed (it was
     * aborted: a worker drops it). */
    void (*finish)(wa_rt *rt, wa_join *root);
    /* Shutdown: cancels every task until none is left (0) or the clock
     * reaches stop (WA_ETIMEDOUT). */
    int (*drain)(wa_rt *rt, uint64_t stop);
    /* wa_rt_dump of rt. */
    size_t (*dump)(const wa_rt *rt, char *buf, size_t len);
    /* How many of rt's tasks are live (unfinished). */
    size_t (*live)(const wa_rt *rt);
    /* Wakes a wait of drive's to look again (another thread let go). */
    void (*kick)(wa_rt *rt);
    /* Stops the workers and drops every task still alive. */
    void (*free)(wa_rt *rt);
} wa__sched;

#endif
