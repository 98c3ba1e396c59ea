/* SPDX-License-Identifier: MIT */
/* Signals as futures on native Linux (wasync/signals.h): a watch blocks
 * its signals and reads them from a signalfd registered with the runtime's
 * backend (wa_fd_register: epoll or io_uring alike).
 *
 * A signal read is counted in the watch, and each wait compares the counts
 * with those it started from (the counts the previous wait reported), so
 * that every wait pending gets a signal read by any of them, and a wait
 * after it gets what came in between. The waits of a many-threads runtime
 * read and wait from several workers: the watch's lock covers its fd, its
 * counts and its list of waits, and a wait that found nothing is on that
 * list before it lets go of the lock, so that a signal read meanwhile by
 * another wakes it. Only one watch per signal in the process: two
 * signalfds of one signal race for it, and one of them would miss it. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "../../core/handles.h"
#include "../../core/list.h"
#include "../../core/rt.h"
#include "../posix/errno_map.h"
#include "../posix/sigmask.h"

struct wa_signals {
    wa_rt *rt;
    uintptr_t h;
    unsigned which;
    int fd, registered, closed, refs;
    wa_fd_key key;
    pthread_mutex_t lock;
    uint64_t count[3];     /* signals read, by WA_SIGNAL_* bit */
    uint64_t delivered[3]; /* the counts a wait last reported */
    wa__list waits;        /* waits that found nothing (wa_signals_wait.link) */
    sigset_t unblock;      /* what the open blocked, put back by a close on its thread */
    pthread_t opener;
};

/* The signals watched in the process (WA_SIGNAL_* bits). */
static pthread_mutex_t wa__signals_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned wa__signals_taken;

/* Takes the signals of which for one watch: 0, or WA_EBUSY. */
static int wa__signals_take(unsigned which)
{
    pthread_mutex_lock(&wa__signals_lock);
    int busy = (wa__signals_taken & which) != 0;
    if (!busy)
        wa__signals_taken |= which;
    pthread_mutex_unlock(&wa__signals_lock);
    return busy ? WA_EBUSY : 0;
}

static void wa__signals_unref(wa_signals *s)
{
    if (__atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL) == 0) {
        pthread_mutex_destroy(&s->lock);
        free(s);
    }
}

/* Under s's lock: wakes every wait on the list (each finds what it
 * waited for, or waits again). */
static void wa__signals_wake_all(wa_signals *s)
{
    wa__list_node *n;
    while ((n = wa__list_first(&s->waits))) {
        wa_signals_wait *w = WA__LIST_ITEM(n, wa_signals_wait, link.node);
        wa__list_remove(&s->waits, n);
        w->linked = 0;
        wa_waker_wake(&w->link.waker);
    }
}

/* Lets go of what the watch holds of the process, once: its registration
 * (which ends the waits on it), its fd, its signals (another watch may
 * take them), and on the opener's thread the mask. */
static void wa__signals_release(wa_signals *s)
{
    pthread_mutex_lock(&s->lock);
    s->closed = 1;
    if (s->registered)
        wa_fd_deregister(s->rt, s->key);
    s->registered = 0;
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
    wa__signals_wake_all(s);
    pthread_mutex_unlock(&s->lock);
    if (pthread_equal(pthread_self(), s->opener))
        pthread_sigmask(SIG_UNBLOCK, &s->unblock, NULL);
    pthread_mutex_lock(&wa__signals_lock);
    wa__signals_taken &= ~s->which;
    pthread_mutex_unlock(&wa__signals_lock);
}

int wa_signals_open(wa_rt *rt, unsigned which, wa_signals **out)
{
    if (out)
        *out = NULL;
    if (!rt || !out || !which || (which & ~(unsigned)(WA_SIGNAL_INT | WA_SIGNAL_TERM | WA_SIGNAL_HUP)))
        return wa__misuse_in(WA_EINVAL, "wa_signals_open", "a NULL argument, or a mask of no WA_SIGNAL_* or of others");
    wa_signals *s = calloc(1, sizeof *s);
    if (!s)
        return WA_ENOMEM;
    int rc = wa__signals_take(which);
    if (rc < 0) {
        free(s);
        return rc;
    }
    *s = (wa_signals){.rt = rt, .which = which, .fd = -1, .refs = 1, .opener = pthread_self()};
    pthread_mutex_init(&s->lock, NULL);
    wa__list_init(&s->waits);
    sigset_t set, old;
    wa__sigmask_set(&set, which);
    pthread_sigmask(SIG_BLOCK, &set, &old);
    sigemptyset(&s->unblock);
    for (unsigned i = 0; i < 3; i++)
        if ((which & (1u << i)) && !sigismember(&old, wa__sigmask_num(i)))
            sigaddset(&s->unblock, wa__sigmask_num(i));
    /* (a signal that came since the block waits for the signalfd) */
    if ((s->fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC)) < 0)
        rc = wa__errno_map(errno);
    else if ((rc = wa_fd_register(rt, s->fd, &s->key)) == 0) {
        s->registered = 1;
        rc = wa__handle_new(s, WA__HANDLE_SIGNALS, &s->h);
    }
    if (rc < 0) {
        wa__signals_release(s);
        wa__signals_unref(s);
        return rc;
    }
    *out = (wa_signals *)s->h;
    return 0;
}

int wa_signals_close(wa_signals **sp)
{
    if (!sp)
        return wa__misuse_in(WA_EMISUSE, "wa_signals_close", "NULL");
    pthread_mutex_lock(&wa__signals_lock); /* (a wait's first poll on another thread takes its reference under it) */
    wa_signals *s = wa__handle_at(*sp, WA__HANDLE_SIGNALS, "wa_signals_close");
    if (s)
        wa__handle_release(s->h); /* every copy of the handle goes stale */
    pthread_mutex_unlock(&wa__signals_lock);
    *sp = NULL;
    if (!s)
        return WA_EMISUSE;
    wa__signals_release(s);
    wa__signals_unref(s);
    return 0;
}

/* A wait's states: not yet polled, holding its watch, finished. */
enum { WA__SIGNALS_NEW, WA__SIGNALS_HOLDING, WA__SIGNALS_DONE };

/* Ends w with rc, under its watch's lock, which it lets go of with the
 * watch. */
static int wa__signals_wait_end(wa_signals_wait *w, int rc)
{
    wa_signals *s = w->s;
    wa_drop_held(&w->fd.fut, &w->waiting);
    if (w->linked) {
        wa__list_remove(&s->waits, &w->link.node);
        w->linked = 0;
    }
    wa_waker_drop(&w->link.waker);
    w->state = WA__SIGNALS_DONE;
    pthread_mutex_unlock(&s->lock);
    wa__signals_unref(s);
    return rc;
}

/* Under s's lock: reads every signal pending, and wakes the waits when
 * one came. */
static void wa__signals_read(wa_signals *s)
{
    struct signalfd_siginfo si;
    int got = 0;
    while (s->fd >= 0 && read(s->fd, &si, sizeof si) == (ssize_t)sizeof si) {
        for (unsigned i = 0; i < 3; i++)
            if ((int)si.ssi_signo == wa__sigmask_num(i))
                s->count[i]++;
        got = 1;
    }
    if (got)
        wa__signals_wake_all(s);
}

static int wa__signals_wait_poll(wa_future *f, wa_cx *cx)
{
    wa_signals_wait *w = (wa_signals_wait *)f;
    if (w->state == WA__SIGNALS_DONE)
        return wa__misuse_in(WA_EMISUSE, "wa_signals_wait", "polled after its end");
    if (w->state == WA__SIGNALS_NEW) {
        /* (the look-up and the reference under the lock a close on
         * another thread releases the handle under: never a freed watch) */
        pthread_mutex_lock(&wa__signals_lock);
        wa_signals *s = wa__handle_at(w->s, WA__HANDLE_SIGNALS, "wa_signals_wait");
        if (s)
            __atomic_add_fetch(&s->refs, 1, __ATOMIC_RELAXED);
        pthread_mutex_unlock(&wa__signals_lock);
        w->state = WA__SIGNALS_DONE;
        if (!s)
            return WA_EMISUSE;
        w->s = s; /* (its object from now on: a close leaves it to the wait) */
        w->state = WA__SIGNALS_HOLDING;
        pthread_mutex_lock(&s->lock);
        for (unsigned i = 0; i < 3; i++)
            w->seen[i] = s->delivered[i];
    } else {
        pthread_mutex_lock(&w->s->lock);
    }
    wa_signals *s = w->s;
    for (;;) {
        if (s->closed)
            return wa__signals_wait_end(w, WA_ECLOSED);
        wa__signals_read(s);
        for (unsigned i = 0; i < 3; i++) {
            if ((s->which & (1u << i)) && s->count[i] != w->seen[i]) {
                w->signo = wa__sigmask_num(i);
                s->delivered[i] = s->count[i];
                return wa__signals_wait_end(w, 0);
            }
        }
        if (!w->linked) {
            wa__list_push(&s->waits, &w->link.node);
            w->linked = 1;
        }
        wa_waker_store(&w->link.waker, cx);
        if (!w->waiting) {
            wa_fd_wait_init(&w->fd, s->key, WA_READABLE);
            w->waiting = 1;
        }
        int rc = wa_poll_held(&w->fd.fut, &w->waiting, cx);
        if (rc == WA_PENDING) {
            pthread_mutex_unlock(&s->lock);
            return WA_PENDING;
        }
        if (rc < 0 && !s->closed)
            return wa__signals_wait_end(w, rc);
    }
}

static void wa__signals_wait_drop(wa_future *f)
{
    wa_signals_wait *w = (wa_signals_wait *)f;
    if (w->state == WA__SIGNALS_HOLDING) {
        pthread_mutex_lock(&w->s->lock);
        wa__signals_wait_end(w, 0);
    }
}

static const wa_future_vt wa__signals_wait_vt = {wa__signals_wait_poll, wa__signals_wait_drop, "signals_wait"};

wa_future *wa_signals_wait_init(wa_signals_wait *w, wa_signals *s)
{
    *w = (wa_signals_wait){.fut = {&wa__signals_wait_vt}, .s = s};
    return &w->fut;
}
