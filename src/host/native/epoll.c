/* SPDX-License-Identifier: MIT */
/* Native Linux backend: epoll with the runtime's next deadline as timeout,
 * an eventfd for cross-thread notify, and fd registrations (regs.c)
 * added to the epoll set edge-triggered. On a many-threads runtime one
 * worker at a time waits (mt.c), while the others register and wait on
 * fds: the table's lock covers both. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "../../reactor/regs.h"
#include "clock.h"

typedef struct wa_epoll {
    wa_backend base;
    int epfd, evfd;
    wa_regs regs;
    int have_pwait2;
} wa_epoll;

#define WA_EVFD_KEY 0 /* (no registration's key: tags are never 0) */
#define WA_EPOLL_BATCH 64

static uint64_t wa_epoll_now(wa_backend *b)
{
    (void)b;
    return wa__native_now();
}

static void wa_epoll_dispatch(wa_epoll *e, const struct epoll_event *ev)
{
    if (ev->data.u64 == WA_EVFD_KEY) {
        uint64_t v;
        if (read(e->evfd, &v, sizeof v) < 0) { /* EAGAIN: already drained */
        }
        return;
    }
    wa_regs_lock(&e->regs);
    wa_reg *g = wa_regs_find(&e->regs, ev->data.u64);
    if (g) /* (else deregistered while the event was in flight) */
        /* HUP and errors are both: the I/O call reports them */
        wa_regs_ready(&e->regs, g,
                      (ev->events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR) ? WA_READABLE : 0) |
                          (ev->events & (EPOLLOUT | EPOLLHUP | EPOLLERR) ? WA_WRITABLE : 0));
    wa_regs_unlock(&e->regs);
}

static int wa_epoll_wait(wa_backend *b, uint64_t deadline)
{
    wa_epoll *e = (wa_epoll *)b;
    struct epoll_event evs[WA_EPOLL_BATCH];
    struct timespec ts, *tsp = NULL;
    if (deadline != WA_NEVER) {
        uint64_t ns = wa__native_ns_until(deadline);
        ts.tv_sec = (time_t)(ns / 1000000000u);
        ts.tv_nsec = (long)(ns % 1000000000u);
        tsp = &ts;
    }
    int n = -1;
    if (e->have_pwait2) {
        n = epoll_pwait2(e->epfd, evs, WA_EPOLL_BATCH, tsp, NULL);
        if (n < 0 && errno == ENOSYS)
            e->have_pwait2 = 0;
    }
    if (!e->have_pwait2) { /* millisecond timeout, rounded up so we never wake early */
        int ms = tsp ? (int)((uint64_t)ts.tv_sec * 1000u + ((uint64_t)ts.tv_nsec + 999999u) / 1000000u) : -1;
        n = epoll_wait(e->epfd, evs, WA_EPOLL_BATCH, ms);
    }
    if (n < 0)
        return errno == EINTR ? 0 : WA_EIO;
    for (int i = 0; i < n; i++)
        wa_epoll_dispatch(e, &evs[i]);
    return 0;
}

static void wa_epoll_notify(wa_backend *b)
{
    uint64_t one = 1;
    if (write(((wa_epoll *)b)->evfd, &one, sizeof one) < 0) { /* counter full: a wake is pending anyway */
    }
}

static void wa_epoll_free(wa_backend *b)
{
    wa_epoll *e = (wa_epoll *)b;
    wa_regs_free(&e->regs);
    close(e->epfd);
    close(e->evfd);
    free(e);
}

static void *wa_epoll_cap(wa_backend *b, unsigned cap) { return cap == WA_CAP_FDS ? &((wa_epoll *)b)->regs : NULL; }

static void wa_epoll_share(wa_backend *b) { wa_regs_share(&((wa_epoll *)b)->regs); }

static const wa_backend_vt wa_epoll_vt = {"epoll", wa_epoll_now, wa_epoll_wait, wa_epoll_notify,
                                          wa_epoll_free, wa_epoll_cap, wa_epoll_share};

/* Both directions, edge-triggered: the registration keeps what was seen,
 * so the set changes only when an fd comes or goes. */
static int wa_epoll_add(wa_backend *b, wa_reg *g, uint64_t key)
{
    struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, .data.u64 = key};
    if (epoll_ctl(((wa_epoll *)b)->epfd, EPOLL_CTL_ADD, (int)g->id, &ev) < 0)
        return errno == ENOMEM ? WA_ENOMEM : WA_EINVAL;
    return 0;
}

static void wa_epoll_del(wa_backend *b, wa_reg *g) { epoll_ctl(((wa_epoll *)b)->epfd, EPOLL_CTL_DEL, (int)g->id, NULL); }

static const wa_regs_hooks wa_epoll_hooks = {wa_epoll_add, wa_epoll_del, NULL, NULL};

wa_backend *wa_backend_epoll_new(int *err)
{
    wa_epoll *e = calloc(1, sizeof *e);
    if (!e) {
        if (err)
            *err = WA_ENOMEM;
        return NULL;
    }
    e->base.vt = &wa_epoll_vt;
    wa_regs_init(&e->regs, &e->base, sizeof(wa_reg), &wa_epoll_hooks);
    e->have_pwait2 = 1;
    e->epfd = epoll_create1(EPOLL_CLOEXEC);
    e->evfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = WA_EVFD_KEY};
    if (e->epfd < 0 || e->evfd < 0 || epoll_ctl(e->epfd, EPOLL_CTL_ADD, e->evfd, &ev) < 0) {
        if (e->epfd >= 0)
            close(e->epfd);
        if (e->evfd >= 0)
            close(e->evfd);
        free(e);
        if (err)
            *err = WA_EIO;
        return NULL;
    }
    return &e->base;
}
