/* SPDX-License-Identifier: MIT */
/* Named spawns (wa_spawn_named, wa_scope_spawn_named,
 * wa_join_set_spawn_named): the task runs in the diagnostics' wrapper
 * (diag.c), which keeps its name and times its polls. In a file of their
 * own, so that only a program that names a task links diag.c. */
#include "diag.h"
#include "task.h"

int wa_spawn_named(wa_rt *rt, const wa_future *fut, size_t size, wa_join *join, const char *name)
{
    return wa__task_spawn_named(rt, fut, size, join, NULL, name, wa__diag_wrap);
}

int wa_scope_spawn_named(wa_scope *s, const wa_future *fut, size_t size, wa_join *join, const char *name)
{
    return wa__scope_spawn(s, fut, size, join, "wa_scope_spawn_named", name, wa__diag_wrap);
}

int wa_join_set_spawn_named(wa_join_set *s, const wa_future *fut, size_t size, const char *name)
{
    return wa__join_set_spawn(s, fut, size, "wa_join_set_spawn_named", name, wa__diag_wrap);
}
