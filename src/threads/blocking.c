/* SPDX-License-Identifier: MIT */
/* The blocking pool (native): functions that block run on a bounded set of
 * threads, started when queued jobs outnumber idle threads and exiting
 * after keep_alive idle; a job's future is woken through the runtime's
 * cross-thread state (remote.c), whose lock guards the pool too. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "../host/posix/sigmask.h"
#include "remote.h"
#include "../core/task.h"

/* What a job is at: queued, running, done (its result waits for its
 * future), or running for nobody (its future was dropped). */
enum { WA__JOB_QUEUED, WA__JOB_RUNNING, WA__JOB_DONE, WA__JOB_DETACHED };

typedef struct wa_job {
    struct wa_job *next; /* the pool's queue */
    wa_remote *hub;
    wa__xwake wake;       /* its future's waker */
    wa_blocking_fn fn;
    void *arg;
    wa_blocking_release_fn release;
    void *result;
    int state;
} wa_job;

typedef struct wa__pool_thread {
    pthread_t tid;
    struct wa__pool_thread *next; /* on the exited list */
    wa_remote *hub;
} wa__pool_thread;

/* A wa_blocking's state. */
enum { WA__B_NEW, WA__B_QUEUED, WA__B_READY, WA__B_FAILED };

/* Under the lock: joins the threads that exited (the lock dropped
 * meanwhile: each has only its return left). */
static void wa__pool_reap(wa_remote *h)
{
    while (h->pool.exited) {
        wa__pool_thread *t = h->pool.exited;
        h->pool.exited = NULL;
        pthread_mutex_unlock(&h->lock);
        while (t) {
            wa__pool_thread *next = t->next;
            pthread_join(t->tid, NULL);
            free(t);
            t = next;
        }
        pthread_mutex_lock(&h->lock);
    }
}

/* The idle deadline keep_alive from now, on the condition's clock. */
static struct timespec wa__pool_until(uint64_t keep_alive)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    if (keep_alive > WA_SEC(86400))
        keep_alive = WA_SEC(86400);
    uint64_t ns = (uint64_t)ts.tv_nsec + keep_alive % 1000000000u;
    ts.tv_sec += (time_t)(keep_alive / 1000000000u + ns / 1000000000u);
    ts.tv_nsec = (long)(ns % 1000000000u);
    return ts;
}

static void *wa__pool_main(void *arg)
{
    wa__pool_thread *self = arg;
    wa_remote *h = self->hub;
    wa__pool *p = &h->pool;
    pthread_mutex_lock(&h->lock);
    for (;;) {
        wa_job *j = p->head;
        if (!j) {
            if (p->stopping)
                break;
            struct timespec until = wa__pool_until(p->keep_alive);
            p->idle++;
            int rc = pthread_cond_timedwait(&p->work, &h->lock, &until);
            p->idle--;
            if (rc == ETIMEDOUT && !p->head)
                break;
            continue;
        }
        p->head = j->next;
        if (!p->head)
            p->tail = NULL;
        p->queued--;
        j->state = WA__JOB_RUNNING;
        pthread_mutex_unlock(&h->lock);
        void *result = j->fn(j->arg);
        pthread_mutex_lock(&h->lock);
        if (j->state == WA__JOB_DETACHED) {
            __atomic_sub_fetch(&p->jobs, 1, __ATOMIC_ACQ_REL);
            wa__remote_kick(h); /* maybe the last job a wait was kept for */
            pthread_mutex_unlock(&h->lock);
            if (j->release)
                j->release(j->arg, result);
            free(j);
            pthread_mutex_lock(&h->lock);
            continue;
        }
        j->state = WA__JOB_DONE;
        j->result = result;
        wa__remote_fire(h, &j->wake);
        /* (after the wake is posted: a runtime that sees no job in flight
         * sees the post, wa__remote_busy) */
        __atomic_sub_fetch(&p->jobs, 1, __ATOMIC_ACQ_REL);
        if (!h->backend) /* many threads: block_on may have seen the workers idle with it in flight */
            wa__remote_kick(h);
    }
    p->threads--;
    self->next = p->exited;
    p->exited = self;
    pthread_cond_broadcast(&p->gone);
    pthread_mutex_unlock(&h->lock);
    return NULL;
}

/* Under the lock: queues j, starting a thread when the queued jobs
 * outnumber the idle threads and the bound allows. Returns 0, or
 * WA_ENOMEM when no thread exists nor could start (j is not queued). */
static int wa__pool_queue(wa_remote *h, wa_job *j)
{
    wa__pool *p = &h->pool;
    if (p->queued + 1 > p->idle && p->threads < p->max) {
        wa__pool_thread *t = malloc(sizeof *t);
        if (t) {
            t->hub = h;
            if (wa__sigmask_thread(&t->tid, wa__pool_main, t) == 0) {
                p->threads++;
            } else {
                free(t);
                t = NULL;
            }
        }
        if (!t && p->threads == 0)
            return WA_ENOMEM;
    }
    j->next = NULL;
    if (p->tail)
        p->tail->next = j;
    else
        p->head = j;
    p->tail = j;
    p->queued++;
    __atomic_add_fetch(&p->jobs, 1, __ATOMIC_ACQ_REL);
    pthread_cond_signal(&p->work);
    return 0;
}

void wa__pool_stop(wa_rt *rt)
{
    wa_remote *h = rt->xt;
    if (!h)
        return;
    pthread_mutex_lock(&h->lock);
    h->pool.stopping = 1;
    pthread_cond_broadcast(&h->pool.work);
    while (h->pool.threads)
        pthread_cond_wait(&h->pool.gone, &h->lock);
    wa__pool_reap(h);
    pthread_mutex_unlock(&h->lock);
}

int wa_rt_set_blocking(wa_rt *rt, unsigned max_threads, uint64_t keep_alive)
{
    if (max_threads == 0 || max_threads > 1024)
        return wa__misuse_in(WA_EINVAL, "wa_rt_set_blocking", "max_threads must be 1 to 1024");
    int err = 0;
    wa_remote *h = wa__remote_get(rt, "wa_rt_set_blocking", &err);
    if (!h)
        return err;
    pthread_mutex_lock(&h->lock);
    h->pool.max = max_threads;
    h->pool.keep_alive = keep_alive;
    pthread_mutex_unlock(&h->lock);
    return 0;
}

/* The future. */

/* The first poll: queues b's job. */
static int wa__blocking_start(wa_blocking *b, wa_cx *cx)
{
    int rc = 0;
    wa_remote *h = b->fn ? wa__remote_get(cx->rt, "wa_blocking", &rc) : NULL;
    if (!b->fn)
        rc = wa__misuse_in(WA_EINVAL, "wa_blocking", "no function (NULL)");
    wa_job *j = h ? calloc(1, sizeof *j) : NULL;
    if (h && !j)
        rc = WA_ENOMEM;
    if (j) {
        j->hub = h;
        j->fn = b->fn;
        j->arg = b->arg;
        j->release = b->release;
        pthread_mutex_lock(&h->lock);
        wa__pool_reap(h);
        rc = h->refusing ? WA_ECLOSED : wa__pool_queue(h, j);
        if (rc == 0)
            wa_waker_store(&j->wake.waker, cx);
        pthread_mutex_unlock(&h->lock);
    }
    if (rc < 0) {
        free(j);
        b->state = WA__B_FAILED;
        return rc;
    }
    b->job = j;
    b->state = WA__B_QUEUED;
    return WA_PENDING;
}

static int wa__blocking_poll(wa_future *f, wa_cx *cx)
{
    wa_blocking *b = (wa_blocking *)f;
    if (b->state == WA__B_NEW)
        return wa__blocking_start(b, cx);
    if (b->state != WA__B_QUEUED)
        return wa__misuse_in(WA_EMISUSE, "wa_blocking", "poll of a finished blocking future");
    wa_job *j = b->job;
    wa_remote *h = j->hub;
    pthread_mutex_lock(&h->lock);
    int done = j->state == WA__JOB_DONE;
    if (done)
        wa__remote_forget(h, &j->wake);
    else
        wa_waker_store(&j->wake.waker, cx);
    pthread_mutex_unlock(&h->lock);
    if (!done)
        return WA_PENDING;
    b->result = j->result;
    b->job = NULL;
    b->state = WA__B_READY;
    free(j);
    return 0;
}

/* A future dropped before its job ran cancels it; while it runs, detaches
 * it (the pool thread releases what it owns); after, releases the result. */
static void wa__blocking_drop(wa_future *f)
{
    wa_blocking *b = (wa_blocking *)f;
    int state = b->state;
    b->state = WA__B_READY; /* (released once) */
    if (state == WA__B_READY)
        return;
    void *result = NULL;
    wa_job *j = b->job;
    if (j) {
        wa_remote *h = j->hub;
        pthread_mutex_lock(&h->lock);
        wa__remote_forget(h, &j->wake);
        if (j->state == WA__JOB_QUEUED) {
            wa_job **at = &h->pool.head, *prev = NULL;
            while (*at != j) {
                prev = *at;
                at = &(*at)->next;
            }
            *at = j->next;
            if (h->pool.tail == j)
                h->pool.tail = prev;
            h->pool.queued--;
            __atomic_sub_fetch(&h->pool.jobs, 1, __ATOMIC_ACQ_REL);
        } else if (j->state == WA__JOB_RUNNING) {
            j->state = WA__JOB_DETACHED;
            j = NULL;
        } else {
            result = j->result;
        }
        pthread_mutex_unlock(&h->lock);
        b->job = NULL;
        if (!j)
            return;
        free(j);
    }
    if (b->release)
        b->release(b->arg, result);
}

static const wa_future_vt wa__blocking_vt = {wa__blocking_poll, wa__blocking_drop, "blocking"};

wa_future *wa_blocking_init(wa_blocking *b, wa_blocking_fn fn, void *arg, wa_blocking_release_fn release)
{
    b->fut.vt = &wa__blocking_vt;
    b->result = NULL;
    b->fn = fn;
    b->arg = arg;
    b->release = release;
    b->job = NULL;
    b->state = WA__B_NEW;
    return &b->fut;
}
