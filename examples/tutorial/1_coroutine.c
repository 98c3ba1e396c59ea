/* SPDX-License-Identifier: MIT */
/* Tutorial, step 1: a coroutine (docs/tutorial.md).
 *
 * A coroutine is a struct that starts with WA_CORO and holds every
 * variable that must live across an await. WA_ASYNC writes its poll
 * function; wa_block_on runs it to the end on a runtime. */
#include <stdio.h>

#include "wasync.h"

typedef struct countdown {
    WA_CORO;        /* the coroutine's header: first */
    wa_sleep sleep; /* the future it awaits lives in the struct too */
    int n;          /* a "local" that survives the awaits */
} countdown;

WA_ASYNC(countdown, t, cx)
{
    WA_BEGIN(t, cx);
    while (t->n > 0) {
        printf("%d...\n", t->n);
        /* Await a 100 ms sleep; on an error, end with it. */
        WA_TRY(wa_sleep_init(&t->sleep, WA_MS(100)));
        t->n--;
    }
    printf("liftoff\n");
    WA_END();
}

int main(void)
{
    wa_rt *rt;
    int rc = wa_rt_new(&rt);
    if (rc < 0) {
        fprintf(stderr, "wa_rt_new: %s\n", wa_strerror(rc));
        return 1;
    }
    countdown c = {.n = 3};
    rc = wa_block_on(rt, countdown_init(&c)); /* its status: 0 or a WA_E* code */
    wa_rt_free(rt);
    if (rc < 0)
        fprintf(stderr, "countdown: %s\n", wa_strerror(rc));
    return rc < 0;
}
