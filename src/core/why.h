/* SPDX-License-Identifier: MIT */
/* Internal: what a trace says below a traced task's polls (why.c): why
 * each wake came (a timer, a source's readiness, another thread, which
 * the waking code sets here around the wake, read by the wake's note),
 * the instants noted on the track of the task being polled (a timer
 * armed, an I/O wait begun, a WASI 0.3 subtask started, returned or
 * cancelled), and the runtime's host waits. Every call is made only
 * while a runtime is traced, behind one load and test: the runtime's
 * hooks (rt->why, rt.h: the backend wait and the timers, which every
 * program links, call through it; another thread's wakes test it), or
 * this thread-local (the reactor's table, the 0.3 host). */
#ifndef WASYNC_CORE_WHY_H
#define WASYNC_CORE_WHY_H

#include "rt.h"

struct wa__diag;

/* This thread's part in a trace. */
typedef struct wa__why {
    struct wa__diag *polling; /* the traced task being polled here (diag.c), or NULL */
    wa_rt *ended_rt;          /* the traced task whose poll here just ended it (its runtime */
    uint32_t ended;           /* and id: freed by then), whose end wakes its joiner and scope,
                                 until the next traced poll or wait; else 0 */
    wa_rt *waiting;           /* the traced runtime whose backend wait runs here, or NULL */
    unsigned kind;            /* what the wakes under way are for (why.c), or 0: not known */
    const char *detail;       /* what a host says of the readiness it feeds in next (WASI
                                 0.3: "subtask returned"), or NULL */
    const wa__timer *timer;   /* a timer's wakes: which, and its deadline */
    uint64_t due;
    unsigned ready;           /* sources' wakes during the backend wait (its "ready") */
    char source[80];          /* a source's wakes: "fd 5 readable" */
} wa__why;

extern _Thread_local wa__why wa__why_now;

/* The hooks that wa_trace_start sets in rt->why. */
extern const wa__why_hooks wa__why_hooks_traced;

/* Wakes w (taken) from another thread than the runtime's. */
void wa__why_thread(wa_waker *w);

/* The wakes until wa__why_clear are for the readiness events of the
 * source noun id ("fd " 5; dirs: the words of the events' bits 0 and 1,
 * NULL for a source that is only "ready"). Called while waiting. */
void wa__why_source(const char *noun, uint64_t id, const char *const *dirs, unsigned events);
void wa__why_clear(void);

/* An instant named name, with args (JSON members, or NULL), on the track
 * of the traced task being polled here (polling set). */
void wa__why_note(const char *name, const char *args);

/* regs.c: the wait f (a registration's) has begun: an "io wait" instant
 * with its describe. */
void wa__why_io_wait(const wa_future *f);

/* diag.c: the wake of g (traced, not ended): its cause's instant, if
 * set, and a "wake" instant saying who or what woke it. */
void wa__why_wake(struct wa__diag *g);

#endif
