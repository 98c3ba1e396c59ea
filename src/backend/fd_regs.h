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

typedef struct wa_fd_reg {
    wa_keyslot slot;
    int fd;
    unsigned ready; /* WA_READABLE | WA_WRITABLE seen and not yet taken */
    wa_waker rd, wr;
} wa_fd_reg;

typedef struct wa_fd_regs {
    wa_keys keys; /* key = generation << 32 | slot */
    /* Tell the host (NULL: nothing to tell). add returns 0 or an error. */
    int (*add)(wa_backend *b, int fd, wa_fd_key key);
    void (*del)(wa_backend *b, int fd);
} wa_fd_regs;

void wa_fd_regs_init(wa_fd_regs *r, int (*add)(wa_backend *, int, wa_fd_key), void (*del)(wa_backend *, int));
/* Drops the wakers still held and frees the table. */
void wa_fd_regs_free(wa_fd_regs *r);

static inline wa_fd_reg *wa_fd_regs_lookup(wa_fd_regs *r, wa_fd_key key)
{
    return wa_keys_get(&r->keys, (uint32_t)key, (uint32_t)(key >> 32));
}

/* The host says events (WA_READABLE | WA_WRITABLE) are ready on g. */
void wa_fd_regs_ready(wa_fd_reg *g, unsigned events);

#endif
