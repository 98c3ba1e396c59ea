/* SPDX-License-Identifier: MIT */
/* A named spawn (wa_spawn_named): the task runs in the diagnostics'
 * wrapper (diag.c), which keeps its name and times its polls. In a file
 * of its own, so that only a program that names a task links diag.c. */
#include "diag.h"
#include "task.h"

int wa_spawn_named(wa_rt *rt, const wa_future *fut, size_t size, wa_join *join, const char *name)
{
    if (!name || !rt || !fut || size < sizeof(wa_future) || !fut->vt || !fut->vt->poll) /* (the checks report these) */
        return wa_spawn(rt, fut, size, join);
    return wa__spawn_wrapped(rt, fut, join, size, NULL, name, wa__diag_wrap);
}
