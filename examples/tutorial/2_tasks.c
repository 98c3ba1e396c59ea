/* SPDX-License-Identifier: MIT */
/* Tutorial, step 2: tasks (docs/tutorial.md).
 *
 * wa_spawn_of starts a task that runs beside the current one; its join
 * handle is a future that completes with the task. A scope runs any number
 * of child tasks and cannot finish before them. */
#include <stdio.h>

#include "wasync.h"

/* Sleeps ms, then adds ms to *total (a task gives its results through
 * pointers it was given: awaiting its join handle consumes the handle). */
typedef struct worker {
    WA_CORO;
    wa_sleep sleep;
    const char *name;
    int ms;
    int *total;
} worker;

WA_ASYNC(worker, t, cx)
{
    WA_BEGIN(t, cx);
    WA_TRY(wa_sleep_init(&t->sleep, WA_MS(t->ms)));
    printf("%s: done after %d ms\n", t->name, t->ms);
    *t->total += t->ms;
    WA_END();
}

typedef struct app {
    WA_CORO;
    wa_join join;
    wa_scope scope;
    int total;
    int rc; /* a failed spawn's error */
} app;

WA_ASYNC(app, t, cx)
{
    WA_BEGIN(t, cx);
    /* One task beside this one: spawn it, then await its join handle. */
    {
        worker w = {.name = "background", .ms = 50, .total = &t->total};
        worker_init(&w);
        int rc = wa_spawn_of(cx->rt, &w, &t->join); /* the task runs a copy of w */
        if (rc < 0)
            WA_RETURN(rc);
    }
    printf("main: spawned, waiting for it\n");
    WA_TRY(&t->join.fut);

    /* Three children in a scope: they sleep together, so this takes 30 ms,
     * not 60; awaiting the scope waits for every one of them. */
    wa_scope_init(&t->scope, cx->rt, WA_SCOPE_FAIL_FAST);
    for (int i = 1; i <= 3; i++) {
        static const char *const names[] = {"child 1", "child 2", "child 3"};
        worker c = {.name = names[i - 1], .ms = 10 * i, .total = &t->total};
        worker_init(&c);
        if ((t->rc = wa_scope_spawn_of(&t->scope, &c, NULL)) < 0) {
            wa_scope_cancel(&t->scope); /* the children spawned stop; still awaited */
            break;
        }
    }
    WA_AWAIT(wa_scope_wait(&t->scope));
    if (t->rc < 0 || WA_STATUS < 0)
        WA_RETURN(t->rc < 0 ? t->rc : WA_STATUS);
    printf("main: all done, %d ms of work\n", t->total);
    WA_END();
}

int main(void)
{
    wa_rt *rt;
    if (wa_rt_new(&rt) < 0)
        return 1;
    app a = {0};
    int rc = wa_block_on(rt, app_init(&a));
    wa_rt_free(rt);
    if (rc < 0)
        fprintf(stderr, "tasks: %s\n", wa_strerror(rc));
    return rc < 0;
}
