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

typedef struct wa__epoll {
    wa_backend base;
    int epfd, evfd;
    wa_regs regs;
    int have_pwait2;
} wa__epoll;

#define WA__EVFD_KEY 0 /* (no registration's key: tags are never 0) */
#define WA__EPOLL_BATCH 64

static uint64_t wa__epoll_now(wa_backend *b)
{
    (void)b;
    return wa__native_now();
}

static void wa__epoll_dispatch(wa__epoll *e, const struct epoll_event *ev)
{
    if (ev->data.u64 == WA__EVFD_KEY) {
        uint64_t v;
        if (read(e->evfd, &v, sizeof v) < 0) { /* EAGAIN: already drained */
        }
        return;
    }
    wa__regs_lock(&e->regs);
    wa__reg *g = wa__regs_find(&e->regs, ev->data.u64);
    if (g) /* (else deregistered while the event was in flight) */
        /* HUP and errors are both: the I/O call reports them */
        wa__regs_ready(&e->regs, g,
                      (ev->events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR) ? WA_READABLE : 0) |
                          (ev->events & (EPOLLOUT | EPOLLHUP | EPOLLERR) ? WA_WRITABLE : 0) |
                          (ev->events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR) ? WA__REG_HUP : 0));
    wa__regs_unlock(&e->regs);
}

static int wa__epoll_wait(wa_backend *b, uint64_t deadline)
{
    wa__epoll *e = (wa__epoll *)b;
    struct epoll_event evs[WA__EPOLL_BATCH];
    struct timespec ts, *tsp = NULL;
    if (deadline != WA_NEVER) {
        uint64_t ns = wa__native_ns_until(deadline);
        ts.tv_sec = (time_t)(ns / 1000000000u);
        ts.tv_nsec = (long)(ns % 1000000000u);
        tsp = &ts;
    }
    int n = -1;
    if (e->have_pwait2) {
        n = epoll_pwait2(e->epfd, evs, WA__EPOLL_BATCH, tsp, NULL);
        if (n < 0 && errno == ENOSYS)
            e->have_pwait2 = 0;
    }
    if (!e->have_pwait2) { /* millisecond timeout, rounded up so we never wake early */
        int ms = tsp ? (int)((uint64_t)ts.tv_sec * 1000u + ((uint64_t)ts.tv_nsec + 999999u) / 1000000u) : -1;
        n = epoll_wait(e->epfd, evs, WA__EPOLL_BATCH, ms);
    }
    if (n < 0)
        return errno == EINTR ? 0 : WA_EIO;
    for (int i = 0; i < n; i++)
        wa__epoll_dispatch(e, &evs[i]);
    return 0;
}

static void wa__epoll_notify(wa_backend *b)
{
    uint64_t one = 1;
    if (write(((wa__epoll *)b)->evfd, &one, sizeof one) < 0) { /* counter full: a wake is pending anyway */
    }
}

static void wa__epoll_free(wa_backend *b)
{
    wa__epoll *e = (wa__epoll *)b;
    wa__regs_free(&e->regs);
    close(e->epfd);
    close(e->evfd);
    free(e);
}

static void *wa__epoll_cap(wa_backend *b, unsigned cap) { return cap == WA_CAP_FDS ? &((wa__epoll *)b)->regs : NULL; }

static void wa__epoll_share(wa_backend *b) { wa__regs_share(&((wa__epoll *)b)->regs); }

static const wa_backend_vt wa__epoll_vt = {"epoll", wa__epoll_now, wa__epoll_wait, wa__epoll_notify,
                                          wa__epoll_free, wa__epoll_cap, wa__epoll_share};

/* Both directions, edge-triggered: the registration keeps what was seen,
 * so the set changes only when an fd comes or goes. */
static int wa__epoll_add(wa_backend *b, wa__reg *g, uint64_t key)
{
    struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, .data.u64 = key};
    if (epoll_ctl(((wa__epoll *)b)->epfd, EPOLL_CTL_ADD, (int)g->id, &ev) < 0)
        return errno == ENOMEM ? WA_ENOMEM : WA_EINVAL;
    return 0;
}

static void wa__epoll_del(wa_backend *b, wa__reg *g) { epoll_ctl(((wa__epoll *)b)->epfd, EPOLL_CTL_DEL, (int)g->id, NULL); }

static const wa__regs_hooks wa__epoll_hooks = {wa__epoll_add, wa__epoll_del, NULL, NULL, "fd ", wa__regs_dirs};

wa_backend *wa_backend_epoll_new(int *err)
{
    wa__epoll *e = calloc(1, sizeof *e);
    if (!e) {
        if (err)
            *err = WA_ENOMEM;
        return NULL;
    }
    e->base.vt = &wa__epoll_vt;
    wa__regs_init(&e->regs, &e->base, sizeof(wa__reg), &wa__epoll_hooks);
    e->have_pwait2 = 1;
    e->epfd = epoll_create1(EPOLL_CLOEXEC);
    e->evfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = WA__EVFD_KEY};
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
