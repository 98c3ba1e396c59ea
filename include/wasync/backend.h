/* SPDX-License-Identifier: MIT */
/* wasync/backend.h - the reactor interface, and the backends of this build.
 *
 * A backend is the runtime's view of one host: a monotonic clock and a way
 * to wait, until a deadline, for events that wake wakers. Timers are not the
 * backend's business: the runtime keeps them and passes only the earliest
 * deadline to wait().
 */
#ifndef WASYNC_BACKEND_H
#define WASYNC_BACKEND_H

#include "future.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wa_backend wa_backend;

#define WA_WAIT_EARLY 1

/* What a backend can do beyond its clock and its wait, asked of its
 * vtable's `cap` (wa_backend_cap): the host calls that need one check for
 * it, and a backend without it makes them fail with WA_ENOSYS or WA_EINVAL. */
enum {
    WA_CAP_FDS = 1,       /* fd registrations (wa_fd_register): its table of them */
    WA_CAP_POLLABLES,     /* pollable registrations (wa_pollable_register): its table */
    WA_CAP_SIM_CLOCK,     /* a virtual clock (wa_sim_advance): its uint64_t of ns */
    WA_CAP_WASIP2_STATS,  /* host calls counted (wa_wasip2_stats_get): its counters */
    WA_CAP_WAITABLES,     /* waitable registrations (wa_waitable_register): its table */
    WA_CAP_WASIP3_STATS,  /* host calls counted (wa_wasip3_stats_get): its counters */
};

typedef struct wa_backend_vt {
    const char *name;
    /* Monotonic time in nanoseconds. */
    uint64_t (*now)(wa_backend *b);
    /* Waits for events until the absolute deadline (0: do not block,
     * WA_NEVER: no deadline) and wakes their wakers. Returns 0, < 0, or
     * WA_WAIT_EARLY when it knows the deadline was not reached: the next
     * tick then skips the timers and their clock read (a host call). */
    int (*wait)(wa_backend *b, uint64_t deadline);
    /* Wakes a wait in progress; callable from any thread. NULL if the
     * backend has no other thread to be woken from. */
    void (*notify)(wa_backend *b);
    void (*free)(wa_backend *b);
    /* What the backend has for capability cap (a WA_CAP_*: the object
     * named there, internal), or NULL if it has not that capability; the
     * slot is NULL for a backend with none. */
    void *(*cap)(wa_backend *b, unsigned cap);
    /* Makes the backend's state safe for several threads at once: a
     * many-threads runtime's workers register, wait and drop waits on it
     * while one of them waits in it. Called once, before they start. NULL
     * for a backend that needs nothing for that (or is never shared: no
     * notify). */
    void (*share)(wa_backend *b);
} wa_backend_vt;


/* A wait queued on a backend's registration (an fd, a pollable): the
 * registration keeps any number of them in a list. Private. */
typedef struct wa__wait_link {
    wa__list_node node;
    wa_waker waker;
} wa__wait_link;

/* The future that waits on a registration, whatever the host registers:
 * wa_fd_wait and wa_pollable_wait are this one struct, one layout on every
 * host. key, events and ready are the caller's to read. */
typedef struct wa_reg_wait {
    wa_future fut;
    uint64_t key;
    unsigned events;      /* what it waits for (and two bits of its own) */
    unsigned ready;       /* what was ready, once it is */
    struct wa_regs *regs; /* private: set once polled */
    wa__wait_link link;    /* queued on the registration while pending */
} wa_reg_wait;

/* The common head of every backend. */
struct wa_backend {
    const wa_backend_vt *vt;
    size_t sources;   /* live registrations: the event sources held for
                         tasks (an fd, a pollable, a waitable, a JS operation or
                         promise), from register to deregister, waited on
                         or not. Only the registration table changes it
                         (src/reactor/regs.c; JS: its keys). While 0 and no
                         timer is armed, nothing outside the run queue can
                         wake a task. */
    uint64_t seed;    /* nonzero: order timers with equal deadlines by this
                         seed instead of FIFO (the sim backend) */
    uint64_t resolution; /* the host's timer granularity in ns (0: exact):
                            relative deadlines are rounded up to it, so
                            timers armed close together wake together */
};

/* What b has for capability cap (WA_CAP_*), or NULL. */
static inline void *wa_backend_cap(wa_backend *b, unsigned cap)
{
    return b->vt->cap ? b->vt->cap(b, cap) : NULL;
}

/* The simulated host: a virtual clock starting at 0 that jumps to the next
 * deadline when the runtime is idle, so timer tests are exact and instant.
 * seed: 0 fires timers with equal deadlines in FIFO order; other values pick
 * a reproducible pseudo-random order. Returns NULL on ENOMEM. */
wa_backend *wa_backend_sim_new(uint64_t seed);

/* Advances the sim clock by ns (the runtime fires what became due).
 * Returns 0, or WA_EINVAL (misuse) if sim is not the sim backend. */
int wa_sim_advance(wa_backend *sim, uint64_t ns);

#if defined(__linux__)
/* Native Linux: epoll_wait with the next deadline, an eventfd for notify.
 * Returns NULL and sets *err (if not NULL) on failure. */
wa_backend *wa_backend_epoll_new(int *err);

/* Native Linux: io_uring (kernel 5.13 or later), readiness by one
 * multishot poll per fd, the same fd calls as epoll's. Returns a new
 * backend for wa_rt_new_on to take, or NULL and sets *err (if not NULL):
 * WA_ENOSYS where the kernel, its io_uring_disabled sysctl or a seccomp
 * filter refuses io_uring (no fallback here: wa_rt_new's, with
 * WASYNC_BACKEND=uring in the environment, falls back to epoll). */
wa_backend *wa_backend_uring_new(int *err);
#endif

#if defined(WASYNC_HOST_WASIP1)
/* WASI 0.1: poll_oneoff with one clock subscription for the next deadline
 * and one per fd direction waited on. NULL and *err on failure. */
wa_backend *wa_backend_wasip1_new(int *err);
#endif

#if defined(__linux__) || defined(WASYNC_HOST_WASIP1)
/* Registers fd for readiness events with the backend of rt (epoll, or
 * WASI 0.1's poll_oneoff). A registration is a key with a generation:
 * stale keys are detected. */
typedef uint64_t wa_fd_key;
enum { WA_READABLE = 1, WA_WRITABLE = 2 };

/* Registers fd (borrowed: the caller closes it after deregistering).
 * Returns 0 and the key in *key, or a negative code. */
int wa_fd_register(wa_rt *rt, int fd, wa_fd_key *key);

/* Deregisters key. Returns 0, or WA_ESTALE for a key already deregistered. */
int wa_fd_deregister(wa_rt *rt, wa_fd_key key);

/* A future that is ready (status 0) when the registered fd has one of
 * `events` (a WA_READABLE | WA_WRITABLE mask) ready, which it then leaves in
 * `ready`; WA_ECLOSED if the fd is deregistered while it waits, WA_ESTALE
 * (misuse) for a key that is stale or another runtime's. Readiness is
 * edge-triggered: do the I/O until EAGAIN before awaiting again. Any number
 * of waits may wait on one fd (two accepts on a listener): readiness wakes
 * every one waiting for it, and each tries its I/O again. Readiness handed
 * to a wait that is dropped before it is polled again stays for the next
 * wait. */
typedef wa_reg_wait wa_fd_wait;
/* Initialises w to wait for events on key; returns the future. */
wa_future *wa_fd_wait_init(wa_fd_wait *w, wa_fd_key key, unsigned events);

#endif

#ifdef __cplusplus
}
#endif
#endif
