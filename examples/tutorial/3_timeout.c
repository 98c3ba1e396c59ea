/* SPDX-License-Identifier: MIT */
/* Tutorial, step 3: timeouts, races and cancellation (docs/tutorial.md).
 *
 * A timeout or a race owns the futures it is given and drops the ones
 * that lose: dropping a future is how wasync cancels it, and releases what
 * it held. A task can also be asked to stop (wa_join_cancel): it may then
 * await its own cleanup before it ends. */
#include <stdio.h>
#include <stdlib.h>

#include "wasync.h"

/* A job that owns a buffer: its cleanup (the 4th argument of WA_ASYNC)
 * frees it however the job ends (done, cancelled or dropped). When it is
 * cancelled it first says goodbye, which takes an await (WA_ON_CANCEL). */
typedef struct job {
    WA_CORO;
    wa_sleep sleep;
    char *buf;
} job;

static void job_cleanup(job *t)
{
    free(t->buf); /* (NULL if it never got one: zeroed before init) */
    printf("job: buffer freed\n");
}

WA_ASYNC(job, t, cx, job_cleanup)
{
    WA_BEGIN(t, cx);
    if (!(t->buf = malloc(4096)))
        WA_RETURN(WA_ENOMEM);
    printf("job: working for 10 s\n");
    WA_TRY(wa_sleep_init(&t->sleep, WA_SEC(10)));
    printf("job: finished\n");
    WA_ON_CANCEL();
    printf("job: cancelled, saying goodbye\n");
    WA_AWAIT(wa_sleep_init(&t->sleep, WA_MS(10))); /* cleanup may await */
    WA_RETURN(WA_ECANCELED);
    WA_END();
}

typedef struct app {
    WA_CORO;
    wa_timeout to;
    wa_sleep a, b;
    WA_COMBO(2) race;
    job j;
    wa_join join;
} app;

WA_ASYNC(app, t, cx)
{
    WA_BEGIN(t, cx);
    /* 1. A 1 s sleep with a 50 ms timeout: WA_ETIMEDOUT, the sleep dropped. */
    WA_AWAIT(wa_timeout_init(&t->to, wa_sleep_init(&t->a, WA_SEC(1)), WA_MS(50)));
    printf("timeout: %s\n", wa_strerror(WA_STATUS));

    /* 2. A race: the first to finish wins, the other is dropped. */
    WA_TRY(wa_race_init(&t->race, wa_sleep_init(&t->a, WA_MS(80)), wa_sleep_init(&t->b, WA_MS(20))));
    printf("race: child %d (the 20 ms sleep) won\n", wa_race_winner(&t->race.c));

    /* 3. The job as a timeout's child: dropped when time runs out. */
    t->j = (job){0};
    WA_AWAIT(wa_timeout_init(&t->to, job_init(&t->j), WA_MS(30)));
    printf("job under a timeout: %s\n", wa_strerror(WA_STATUS));

    /* 4. The job as a task, asked to stop: it awaits its goodbye first. */
    {
        job j = {0};
        job_init(&j);
        int rc = wa_spawn_of(cx->rt, &j, &t->join);
        if (rc < 0)
            WA_RETURN(rc);
    }
    WA_AWAIT(wa_sleep_init(&t->a, WA_MS(30)));
    wa_join_cancel(&t->join);
    WA_AWAIT(&t->join.fut);
    printf("task: %s\n", wa_strerror(WA_STATUS));
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
        fprintf(stderr, "timeout: %s\n", wa_strerror(rc));
    return rc < 0;
}
