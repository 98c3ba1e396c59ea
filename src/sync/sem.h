/* SPDX-License-Identifier: MIT */
/* Internal: the semaphore's acquire and release for the primitives built
 * on it (rwlock.c), so that their futures and unlocks name their own call
 * in a misuse report. */
#ifndef WASYNC_SYNC_SEM_H
#define WASYNC_SYNC_SEM_H

#include "wasync/sync.h"

/* The poll of an acquire (a wa_acquire at f) whose misuse reports name
 * call ("wa_read_lock_init"). */
int wa__acquire_poll_in(wa_future *f, wa_cx *cx, const char *call);

/* The drop of an acquire: leaves the queue, passes on permits it was
 * granted and never took. */
void wa__acquire_drop(wa_future *f);

/* Returns n permits to s, unless s has fewer free than least or n would
 * exceed its maximum: then reports misuse (the full text, naming the call)
 * and returns WA_EMISUSE. */
int wa__sem_release_if(wa_sem *s, size_t n, size_t least, const char *misuse);

#endif
