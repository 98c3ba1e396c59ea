/* Native Linux backend: epoll with the runtime's next deadline as timeout,
 * an eventfd for cross-thread notify, and fd registrations kept in a slab
 * whose keys carry a generation (stale keys are detected, never trusted). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "../core/keys.h"
#include "../core/rt.h"

typedef struct wa_reg {
    wa_keyslot slot;
    int fd;
    unsigned ready;     /* WA_READABLE | WA_WRITABLE seen and not yet taken */
    wa_waker rd, wr;
} wa_reg;

typedef struct wa_epoll {
    wa_backend base;
    int epfd, evfd;
    wa_keys regs;       /* key = generation << 32 | slot */
    int have_pwait2;
} wa_epoll;

static wa_reg *wa_epoll_lookup(wa_epoll *e, wa_fd_key key)
{
    return wa_keys_get(&e->regs, (uint32_t)key, (uint32_t)(key >> 32));
}

#define WA_EVFD_KEY UINT64_MAX
#define WA_EPOLL_BATCH 64

static uint64_t wa_epoll_now(wa_backend *b)
{
    (void)b;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void wa_epoll_dispatch(wa_epoll *e, const struct epoll_event *ev)
{
    if (ev->data.u64 == WA_EVFD_KEY) {
        uint64_t v;
        if (read(e->evfd, &v, sizeof v) < 0) { /* EAGAIN: already drained */
        }
        return;
    }
    wa_reg *r = wa_epoll_lookup(e, ev->data.u64);
    if (!r)
        return; /* deregistered while the event was in flight */
    if (ev->events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) {
        r->ready |= WA_READABLE;
        wa_waker_wake(&r->rd);
    }
    if (ev->events & (EPOLLOUT | EPOLLHUP | EPOLLERR)) {
        r->ready |= WA_WRITABLE;
        wa_waker_wake(&r->wr);
    }
}

static int wa_epoll_wait(wa_backend *b, uint64_t deadline)
{
    wa_epoll *e = (wa_epoll *)b;
    struct epoll_event evs[WA_EPOLL_BATCH];
    struct timespec ts, *tsp = NULL;
    if (deadline != WA_NEVER) {
        uint64_t now = wa_epoll_now(b);
        uint64_t ns = deadline > now ? deadline - now : 0;
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
    for (uint32_t i = 0; i < e->regs.n; i++) {
        wa_reg *r = (wa_reg *)wa_keys_at(&e->regs, i);
        if (r->slot.live) {
            wa_waker_drop(&r->rd);
            wa_waker_drop(&r->wr);
        }
    }
    close(e->epfd);
    close(e->evfd);
    wa_keys_free(&e->regs);
    free(e);
}

static const wa_backend_vt wa_epoll_vt = {"epoll", wa_epoll_now, wa_epoll_wait, wa_epoll_notify,
                                          wa_epoll_free};

wa_backend *wa_backend_epoll_new(int *err)
{
    wa_epoll *e = calloc(1, sizeof *e);
    if (!e) {
        if (err)
            *err = WA_ENOMEM;
        return NULL;
    }
    e->base.vt = &wa_epoll_vt;
    wa_keys_init(&e->regs, sizeof(wa_reg), UINT32_MAX);
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

static wa_epoll *wa_epoll_of(wa_rt *rt)
{
    return rt->backend->vt == &wa_epoll_vt ? (wa_epoll *)rt->backend : NULL;
}

int wa_fd_register(wa_rt *rt, int fd, wa_fd_key *key)
{
    wa_epoll *e = wa_epoll_of(rt);
    if (!e)
        return WA_ENOSYS;
    uint32_t idx;
    if (wa_keys_alloc(&e->regs, &idx) < 0)
        return WA_ENOMEM;
    wa_reg *r = (wa_reg *)wa_keys_at(&e->regs, idx);
    struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET,
                             .data.u64 = ((uint64_t)r->slot.gen << 32) | idx};
    if (epoll_ctl(e->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
        int err = errno;
        wa_keys_release(&e->regs, idx);
        return err == ENOMEM ? WA_ENOMEM : WA_EINVAL;
    }
    r->fd = fd;
    *key = ev.data.u64;
    e->base.sources++;
    return 0;
}

int wa_fd_deregister(wa_rt *rt, wa_fd_key key)
{
    wa_epoll *e = wa_epoll_of(rt);
    if (!e)
        return WA_ENOSYS;
    wa_reg *r = wa_epoll_lookup(e, key);
    if (!r)
        return wa_misuse(WA_ESTALE, "deregister of a stale fd key");
    epoll_ctl(e->epfd, EPOLL_CTL_DEL, r->fd, NULL);
    /* Whoever still waits is told (its next poll sees WA_ECLOSED) rather
     * than left waiting forever. */
    wa_waker_wake(&r->rd);
    wa_waker_wake(&r->wr);
    wa_keys_release(&e->regs, (uint32_t)key);
    e->base.sources--;
    return 0;
}

static int wa_fd_wait_poll(wa_future *f, wa_cx *cx)
{
    wa_fd_wait *w = (wa_fd_wait *)f;
    wa_epoll *e = wa_epoll_of(cx->rt);
    wa_reg *r = e ? wa_epoll_lookup(e, w->key) : NULL;
    if (!r) {
        if (!e)
            return WA_ENOSYS;
        /* Deregistered while we waited (closing a source is how another
         * task stops a wait): an error, not misuse. */
        if (w->rt)
            return WA_ECLOSED;
        return wa_misuse(WA_ESTALE, "wait on a stale fd key");
    }
    w->rt = cx->rt;
    unsigned got = r->ready & w->events;
    if (got) {
        r->ready &= ~got;
        w->ready = got;
        return WA_READY;
    }
    if (w->events & WA_READABLE)
        wa_waker_store(&r->rd, cx);
    if (w->events & WA_WRITABLE)
        wa_waker_store(&r->wr, cx);
    return WA_PENDING;
}

static void wa_fd_wait_drop(wa_future *f)
{
    wa_fd_wait *w = (wa_fd_wait *)f;
    wa_reg *r = w->rt ? wa_epoll_lookup(wa_epoll_of(w->rt), w->key) : NULL;
    if (r && (w->events & WA_READABLE))
        wa_waker_drop(&r->rd);
    if (r && (w->events & WA_WRITABLE))
        wa_waker_drop(&r->wr);
    w->rt = NULL;
}

static const wa_future_vt wa_fd_wait_vt = {wa_fd_wait_poll, wa_fd_wait_drop, "fd_wait"};

wa_future *wa_fd_wait_init(wa_fd_wait *w, wa_fd_key key, unsigned events)
{
    w->fut.vt = &wa_fd_wait_vt;
    w->key = key;
    w->events = events;
    w->ready = 0;
    w->rt = NULL;
    return &w->fut;
}
