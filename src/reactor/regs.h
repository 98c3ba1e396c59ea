/* SPDX-License-Identifier: MIT */
/* Internal: a backend's registrations, one mechanism for every host. A
 * registration is an event source held for tasks: an fd (epoll, WASI 0.1's
 * poll_oneoff), a pollable (WASI 0.2), and as well a WASI 0.3 waitable or
 * an io_uring fd, since the table knows the host's id only as an opaque
 * integer. Tasks name it by a key (keys.h: stale and foreign keys are
 * detected), wait on it for a direction (fds) or for "ready" (pollables),
 * any number at once (waits.h), and are woken when the backend feeds the
 * host's readiness in with wa__regs_ready. What the host must be told (a
 * source added or removed, watched or not) goes through the backend's
 * hooks. The table alone keeps wa_backend.sources. */
#ifndef WASYNC_REACTOR_REGS_H
#define WASYNC_REACTOR_REGS_H

#include "../core/keys.h"
#include "../core/rt.h"
#include "waits.h"

/* The readiness of a source that has no directions (a pollable). */
#define WA__REG_READY 1u

/* With the events a backend feeds in (wa__regs_ready): the host says the
 * source hung up (the peer closed, or an error), for good. A read there
 * never waits again, and no edge may follow the last one: the
 * registration keeps it (hup) for the I/O that would otherwise await
 * readiness before trying (fd_stream.c after a short read). */
#define WA__REG_HUP (1u << 29)

/* One registration; a backend may make its slots larger, starting with it. */
typedef struct wa__reg {
    wa__keyslot slot;
    uint64_t id;         /* the host's: an fd, a pollable handle */
    unsigned ready;      /* readiness reported and not yet taken */
    bool hup;            /* the host said it hung up (WA__REG_HUP) */
    wa__list waits;       /* pending waits (wa_reg_wait) */
} wa__reg;

/* What the host is told; any hook may be NULL (nothing to tell). */
typedef struct wa__regs_hooks {
    /* g, named key, was added: 0, or an error that undoes it. */
    int (*add)(wa_backend *b, wa__reg *g, uint64_t key);
    /* g goes (deregistered, or the table freed). */
    void (*del)(wa_backend *b, wa__reg *g);
    /* The first wait queues on g, slot i: watch it. 0, or an error that
     * the wait returns. */
    int (*arm)(wa_backend *b, wa__reg *g, uint32_t i);
    /* The last wait left g (woken, dropped, or g deregistered). */
    void (*disarm)(wa_backend *b, wa__reg *g);
    /* What a trace calls the sources ("fd "), and the words of their
     * readiness's bits 0 and 1 (wa__regs_dirs), or NULL: a source that is
     * only ready. */
    const char *noun;
    const char *const *dirs;
} wa__regs_hooks;

/* The directions of an fd: " readable", " writable". */
extern const char *const wa__regs_dirs[2];

typedef struct wa_regs {
    wa__keys keys;  /* 64-bit keys (keys.h) */
    wa_backend *b; /* whose table it is */
    const wa__regs_hooks *hooks;
#if WA__MT
    /* The workers of a many-threads runtime register, wait and drop waits
     * while one of them feeds readiness in: every look at the table, its
     * registrations and their waits is under this lock, once shared is
     * set (wa__regs_share, before any worker runs; a local runtime's
     * table is its thread's alone and takes no lock). */
    pthread_mutex_t lock;
    bool shared;
#endif
} wa_regs;

/* The table's lock (nothing where there are no threads, or one thread).
 * The wakes of wa__regs_ready run under it: a waker must not call into the
 * table. */
#if WA__MT
static inline void wa__regs_lock(wa_regs *r)
{
    if (r->shared)
        pthread_mutex_lock(&r->lock);
}
static inline void wa__regs_unlock(wa_regs *r)
{
    if (r->shared)
        pthread_mutex_unlock(&r->lock);
}
#else
static inline void wa__regs_lock(wa_regs *r) { (void)r; }
static inline void wa__regs_unlock(wa_regs *r) { (void)r; }
#endif

/* An empty table of b (borrowed: b owns the table) with slots of size
 * bytes (at least a wa__reg), telling the host through hooks (borrowed). */
void wa__regs_init(wa_regs *r, wa_backend *b, size_t size, const wa__regs_hooks *hooks);

/* Frees the table, each registration still live given to the del hook
 * (the runtime dropped every wait before). */
void wa__regs_free(wa_regs *r);

#if WA__MT
/* Takes the table's lock from now on (its backend's share: a many-threads
 * runtime's workers use it together). Before any worker runs. */
void wa__regs_share(wa_regs *r);
#endif

static inline wa__reg *wa__regs_at(const wa_regs *r, uint32_t i) { return (wa__reg *)wa__keys_at(&r->keys, i); }

/* The live registration key names, or NULL (stale or another table's). */
static inline wa__reg *wa__regs_find(const wa_regs *r, uint64_t key) { return wa__keys_find(&r->keys, key); }

/* What someone waits for on g. */
static inline unsigned wa__reg_wanted(const wa__reg *g)
{
    unsigned want = 0;
    for (const wa__list_node *n = wa__list_first(&g->waits); n; n = wa__list_next(n))
        want |= WA__WAIT_OF(n, const wa_reg_wait)->events;
    return want & ~(WA__WAIT_QUEUED | WA__WAIT_HANDED);
}

/* The host says events are ready on g (and WA__REG_HUP, if it hung up):
 * each wait that wants some is handed them and woken; what nobody took
 * stays for the next wait. The caller holds the table's lock (it found g
 * under it). */
void wa__regs_ready(wa_regs *r, wa__reg *g, unsigned events);

/* Whether the host said the source of key (in the table of rt's backend
 * for cap) hung up; true for a stale key, whose I/O call will tell. */
bool wa__regs_hung_up(wa_rt *rt, unsigned cap, uint64_t key);

/* The public calls' part (backend.h, wasi.h), for the table of rt's
 * backend for cap (WA_CAP_FDS, WA_CAP_POLLABLES); WA_ENOSYS without one.
 * Registers the host's id: 0 and the key in *key, or a negative code. */
int wa__regs_register(wa_rt *rt, unsigned cap, uint64_t id, uint64_t *key);

/* Deregisters key: its waits are woken to WA_ECLOSED. fn names the
 * public call in the misuse report of a stale key (WA_ESTALE). */
int wa__regs_deregister(wa_rt *rt, unsigned cap, uint64_t key, const char *fn);

/* Initialises w (the caller's) as a wait of vt for events on key. */
wa_future *wa__reg_wait_init(wa_reg_wait *w, const wa_future_vt *vt, uint64_t key, unsigned events);

/* A wait's describe (future.h) after noun ("fd "): the host's id of its
 * source and, with dirs (an fd's: the words of its events' bits 0 and
 * 1), what it waits for. */
size_t wa__reg_wait_describe(const wa_future *f, const char *noun, const char *const *dirs, char *buf, size_t len);

/* The poll of a wait on the table of cx's backend for cap, and its drop. */
int wa__reg_wait_poll(wa_future *f, wa_cx *cx, unsigned cap);
void wa__reg_wait_drop(wa_future *f);

/* The drop of a wait on edge-triggered readiness (an fd): readiness it was
 * handed and never saw (dropped between its wake and its poll: a race
 * lost, a task aborted) goes back to the registration, since no other
 * edge may come for it. Not for a WASI 0.3 waitable, whose event is a
 * completion with its payload, seen once. */
void wa__reg_wait_drop_edge(wa_future *f);

#endif
