/* Internal: fd registrations, shared by the backends that wait on fds
 * (epoll natively, poll_oneoff on WASI 0.1). A registration records the
 * readiness the host reported (taken by a wait) and the waker of each
 * direction; the backend only tells its host about fds being added and
 * removed, and feeds readiness in with wa_fd_regs_ready. The public API
 * (wa_fd_register, wa_fd_deregister, wa_fd_wait_init: backend.h) is here. */
#ifndef WASYNC_BACKEND_FD_REGS_H
#define WASYNC_BACKEND_FD_REGS_H

#include "../core/keys.h"
#include "../core/rt.h"
#include "waits.h"

typedef struct wa_fd_reg {
    wa_keyslot slot;
    int fd;
    unsigned ready; /* WA_READABLE | WA_WRITABLE seen and not yet taken */
    wa_wait_link *waits; /* pending waits (wa_fd_wait), either direction */
} wa_fd_reg;

typedef struct wa_fd_regs {
    wa_keys keys; /* 64-bit keys (keys.h) */
    /* Tell the host (NULL: nothing to tell). add returns 0 or an error. */
    int (*add)(wa_backend *b, int fd, wa_fd_key key);
    void (*del)(wa_backend *b, int fd);
} wa_fd_regs;

void wa_fd_regs_init(wa_fd_regs *r, int (*add)(wa_backend *, int, wa_fd_key), void (*del)(wa_backend *, int));
/* Frees the table (the runtime dropped every wait before). */
void wa_fd_regs_free(wa_fd_regs *r);

static inline wa_fd_reg *wa_fd_regs_lookup(wa_fd_regs *r, wa_fd_key key)
{
    return wa_keys_find(&r->keys, key);
}

/* The directions someone waits for on g. */
static inline unsigned wa_fd_reg_wanted(const wa_fd_reg *g)
{
    unsigned want = 0;
    for (const wa_wait_link *l = g->waits; l; l = l->next)
        want |= WA_WAIT_OF(l, const wa_fd_wait)->events & (WA_READABLE | WA_WRITABLE);
    return want;
}

/* The host says events (WA_READABLE | WA_WRITABLE) are ready on g. */
void wa_fd_regs_ready(wa_fd_reg *g, unsigned events);

#endif
