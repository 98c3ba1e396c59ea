/* SPDX-License-Identifier: MIT */
/* The fd calls (backend.h): fds in the registration table (regs.h) of a
 * backend with WA_CAP_FDS (epoll, WASI 0.1). */
#include "../../reactor/regs.h"

int wa_fd_register(wa_rt *rt, int fd, wa_fd_key *key) { return wa__regs_register(rt, WA_CAP_FDS, (uint64_t)fd, key); }

int wa_fd_deregister(wa_rt *rt, wa_fd_key key)
{
    return wa__regs_deregister(rt, WA_CAP_FDS, key, "wa_fd_deregister");
}

static int wa__fd_wait_poll(wa_future *f, wa_cx *cx) { return wa__reg_wait_poll(f, cx, WA_CAP_FDS); }

static size_t wa__fd_wait_describe(const wa_future *f, uint64_t now, char *buf, size_t len)
{
    _Static_assert(WA_READABLE == 1 && WA_WRITABLE == 2, "the directions are bits 0 and 1");
    (void)now;
    return wa__reg_wait_describe(f, "fd ", wa__regs_dirs, buf, len);
}

static const wa_future_vt wa__fd_wait_vt = {wa__fd_wait_poll, wa__reg_wait_drop_edge, "fd_wait", NULL,
                                          wa__fd_wait_describe};

wa_future *wa_fd_wait_init(wa_fd_wait *w, wa_fd_key key, unsigned events)
{
    return wa__reg_wait_init(w, &wa__fd_wait_vt, key, events & (WA_READABLE | WA_WRITABLE));
}
