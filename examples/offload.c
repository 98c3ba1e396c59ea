/* SPDX-License-Identifier: MIT */
/* A thread of the program's own (a UI's, a library caller's) hands work to
 * a wasync runtime: it spawns each job onto the runtime through a remote
 * and waits for it; each job runs its CPU-heavy part on the runtime's
 * blocking pool; at the end the thread sets an event that the runtime's
 * thread waits for, then the runtime shuts down. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "wasync.h"

/* The blocking part: the sum of 1..n, the slow way. */
static void *sum_to(void *arg)
{
    uint64_t n = *(uint64_t *)arg, s = 0;
    for (uint64_t i = 1; i <= n; i++)
        s += i;
    return (void *)(uintptr_t)s;
}

typedef struct job {
    WA_CORO;
    wa_blocking b;
    uint64_t n;
    uint64_t *out; /* the thread's */
} job;

WA_ASYNC(job, t, cx)
{
    WA_BEGIN(t, cx);
    WA_AWAIT(wa_blocking_init(&t->b, sum_to, &t->n, NULL));
    if (WA_STATUS < 0)
        WA_RETURN(WA_STATUS);
    *t->out = (uintptr_t)t->b.result;
    WA_END();
}

typedef struct client {
    wa_remote *r;   /* the thread's references */
    wa_event *done;
    int rc;
} client;

static void *client_main(void *arg)
{
    client *c = arg;
    for (uint64_t n = 1000; n <= 1000000 && c->rc == 0; n *= 10) {
        uint64_t sum = 0;
        job j = {.n = n, .out = &sum};
        job_init(&j);
        wa_remote_join *jh;
        c->rc = wa_remote_spawn(c->r, &j.wa.fut, sizeof j, &jh); /* the runtime's copy */
        if (c->rc == 0) {
            c->rc = wa_remote_join_wait(jh); /* blocks this thread only */
            wa_remote_join_drop(jh);
        }
        if (c->rc == 0)
            printf("sum to %llu = %llu\n", (unsigned long long)n, (unsigned long long)sum);
    }
    wa_event_set(c->done);
    wa_event_drop(c->done);
    wa_remote_drop(c->r);
    return NULL;
}

int main(void)
{
    wa_rt *rt;
    if (wa_rt_new(&rt) < 0)
        return 1;
    client c = {NULL, NULL, 0};
    wa_event *done = NULL;
    pthread_t th;
    int started = 0;
    int rc = wa_remote_new(rt, &c.r);
    if (rc == 0)
        rc = wa_event_new(rt, &done);
    if (rc == 0) {
        c.done = wa_event_clone(done);
        started = pthread_create(&th, NULL, client_main, &c) == 0;
        rc = started ? 0 : WA_ENOMEM;
    }
    if (rc == 0) {
        wa_event_wait w;
        rc = wa_block_on(rt, wa_event_wait_init(&w, done));
    }
    wa_event_drop(done);
    /* Before the thread is joined: if block_on failed, a job it waits for
     * may never have run, and ends its join with WA_ECANCELED here. */
    int down = wa_rt_shutdown(rt, WA_SEC(1));
    if (started) {
        pthread_join(th, NULL);
        if (rc == 0)
            rc = c.rc;
    } else {
        wa_event_drop(c.done);
        wa_remote_drop(c.r);
    }
    if (rc < 0 || down < 0) {
        fprintf(stderr, "offload: %s\n", wa_strerror(rc < 0 ? rc : down));
        return 1;
    }
    return 0;
}
