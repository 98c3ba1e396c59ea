/* SPDX-License-Identifier: MIT */
/* wasync/signals.h - SIGINT, SIGTERM and SIGHUP as futures (native Linux):
 * a watch of some of them, and waits that finish when one arrives, saying
 * which. The pattern of a graceful shutdown: serve in a scope until a
 * wait says SIGINT or SIGTERM, then cancel the scope and wait for it
 * (examples/graceful_shutdown.c).
 *
 * A watch blocks its signals in the calling thread and reads them from a
 * signalfd registered with the runtime's backend (epoll or io_uring). A
 * signal the kernel delivers to a thread that does not block it takes its
 * default action (for these three: the process ends), so every thread of
 * the program must block them: the runtime's own threads (a many-threads
 * runtime's workers, the blocking pool) start with them blocked, and a
 * thread created after wa_signals_open by the thread that called it
 * inherits its mask; threads the program made before must block them
 * themselves (pthread_sigmask). A signal sent to one thread (raise,
 * pthread_kill) is read only by a wait polled on that thread: send a
 * process kill(getpid(), sig) where waits run on workers. On a host
 * without signals (WASI, JS) these calls fail to compile.
 */
#ifndef WASYNC_SIGNALS_H
#define WASYNC_SIGNALS_H

#include "backend.h"
#include "runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The calls below, on a host that has no signals. */
#if defined(WASYNC_HOST_NATIVE) && defined(__linux__)
#define WA__SIGNALS
#else
#define WA__SIGNALS WA__UNAVAILABLE("wasync: no signals on the " WASYNC_HOST " host (signals.h is native Linux's)")
#endif

/* The signals a watch may take, a mask of: */
enum { WA_SIGNAL_INT = 1, WA_SIGNAL_TERM = 2, WA_SIGNAL_HUP = 4 };

typedef struct wa_signals wa_signals; /* a watch */

/* Starts watching the signals of mask which (WA_SIGNAL_*) on rt: they are
 * blocked in the calling thread and, from now on, kept for the watch's
 * waits instead of ending the process; one that arrives while no wait is
 * pending stays pending (once per signal, as the kernel keeps it) for the
 * next wait. *out is a new watch, the caller's to close with
 * wa_signals_close. One watch per signal at a time in the process: a
 * signal watched already is WA_EBUSY. Returns 0, WA_EINVAL (misuse: NULL,
 * an empty or unknown mask), WA_EBUSY, WA_ENOSYS (a backend without fds:
 * sim), WA_ENOMEM or WA_EMFILE. */
WA__SIGNALS int wa_signals_open(wa_rt *rt, unsigned which, wa_signals **out);

/* Closes the watch *s (takes it) and clears *s: its waits in flight end
 * with WA_ECLOSED. On the thread that opened it, the signals that
 * wa_signals_open blocked are unblocked again, and one still pending
 * (arrived, never waited for) then takes its default action: so a program
 * that closes its watch once a wait said SIGINT ends at a second Ctrl-C,
 * however long its drain. Elsewhere the opener's mask is left as it is.
 * Returns 0, or WA_EMISUSE (NULL, or closed already through any copy of
 * the handle). */
WA__SIGNALS int wa_signals_close(wa_signals **s);

/* Waits for one of the watch's signals: status 0 with signo (SIGINT,
 * SIGTERM or SIGHUP), WA_ECLOSED when the watch is closed meanwhile, or
 * the host's error. Every wait pending when a signal is read gets it (any
 * number of tasks may wait on one watch), and a watch's waits one after
 * another miss nothing: a signal that arrived since the previous wait
 * finished (or two different ones at once) is the next wait's at once. A
 * dropped wait (cancelled, timed out) takes no signal. A NULL or closed
 * watch is misuse, reported at the first poll (WA_EMISUSE). */
typedef struct wa_signals_wait {
    wa_future fut;
    wa_signals *s;
    int state, waiting, linked;
    int signo;
    uint64_t seen[3];
    wa__wait_link link;
    wa_reg_wait fd;
} wa_signals_wait;
/* Initialises w to wait on the watch s (borrowed; the wait keeps it alive
 * until it ends); returns the future. */
WA__SIGNALS wa_future *wa_signals_wait_init(wa_signals_wait *w, wa_signals *s);

#ifdef __cplusplus
}
#endif
#endif
