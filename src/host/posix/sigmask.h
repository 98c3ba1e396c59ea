/* SPDX-License-Identifier: MIT */
/* Internal: the signals a watch may take (wasync/signals.h) as a sigset,
 * and the start of the runtime's own threads with them blocked. A
 * process-directed signal goes to any thread that does not block it, and
 * there takes its default action (the process ends) rather than waiting
 * in the kernel for a watch's signalfd: so no thread of the runtime (a
 * many-threads runtime's workers, made before any watch; the blocking
 * pool's) may take one, watched or not. */
#ifndef WASYNC_HOST_POSIX_SIGMASK_H
#define WASYNC_HOST_POSIX_SIGMASK_H

#include <pthread.h>
#include <signal.h>

#include "wasync/signals.h"

/* The signal number of WA_SIGNAL_* bit i (0, 1, 2). */
static inline int wa__sigmask_num(unsigned i) { return i == 0 ? SIGINT : i == 1 ? SIGTERM : SIGHUP; }

/* *set: the signals of mask which (WA_SIGNAL_*). */
static inline void wa__sigmask_set(sigset_t *set, unsigned which)
{
    sigemptyset(set);
    for (unsigned i = 0; i < 3; i++)
        if (which & (1u << i))
            sigaddset(set, wa__sigmask_num(i));
}

/* pthread_create(t, NULL, fn, arg), the new thread starting with every
 * signal a watch may take blocked (it inherits the mask of its creator,
 * whose own is put back). */
static inline int wa__sigmask_thread(pthread_t *t, void *(*fn)(void *), void *arg)
{
    sigset_t set, old;
    wa__sigmask_set(&set, WA_SIGNAL_INT | WA_SIGNAL_TERM | WA_SIGNAL_HUP);
    pthread_sigmask(SIG_BLOCK, &set, &old);
    int rc = pthread_create(t, NULL, fn, arg);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

#endif
