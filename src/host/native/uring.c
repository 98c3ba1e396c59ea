/* SPDX-License-Identifier: MIT */
/* Native Linux backend over io_uring (liburing), readiness-based: each fd
 * registration (regs.c) is one multishot IORING_OP_POLL_ADD for both
 * directions, edge-triggered, sent at its first wait, whose completions
 * feed readiness in as epoll's events do. The I/O itself stays the
 * callers' read and write calls, so fd streams, TCP and the HTTP client
 * run on it unchanged. The wait is io_uring_enter with the runtime's next
 * deadline (a timespec argument, no timeout request); notify is an
 * eventfd, polled the same way.
 *
 * Threads: a many-threads runtime's workers register, wait and deregister
 * while one of them waits in the ring. The submission queue is touched
 * only under the registration table's lock (the hooks run under it; the
 * wait takes it to feed completions in and send the polls they re-arm),
 * and a hook sends its request at once: the worker waiting in the ring
 * sends nothing for the others. The completion queue is the waiting
 * worker's alone (one at a time: mt.c's driver token). */
#define _GNU_SOURCE
#include <errno.h>
#include <liburing.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../reactor/regs.h"
#include "clock.h"

typedef struct wa__native_uring {
    wa_backend base;
    struct io_uring ring;
    int evfd;
    wa_regs regs;
} wa__native_uring;

/* A registration, with the key its poll request carries (to remove it). */
typedef struct wa__native_uring_reg {
    wa__reg g;
    uint64_t key;
    bool watched; /* its poll was sent (at its first wait) */
} wa__native_uring_reg;

/* user_data of what is not a registration (its keys have a nonzero tag in
 * bits 24-39, so are never below 2^24): the eventfd's poll, and the
 * removals' own completions. */
#define WA__NATIVE_URING_EVFD 0
#define WA__NATIVE_URING_REMOVAL 1
#define WA__NATIVE_URING_BATCH 64
/* Room for the completions of many ready fds between two waits: a
 * multishot poll that finds the queue full ends (and is armed again). */
#define WA__NATIVE_URING_SQ 64
#define WA__NATIVE_URING_CQ 4096

static uint64_t wa__native_uring_now(wa_backend *b)
{
    (void)b;
    return wa__native_now();
}

/* Sends what was queued (under the table's lock). A submission the kernel
 * refused stays queued and goes with the next. */
static void wa__native_uring_send(wa__native_uring *u)
{
    if (io_uring_sq_ready(&u->ring))
        io_uring_submit(&u->ring);
}

/* A request to queue (under the table's lock), or NULL when the queue is
 * full and stays so. */
static struct io_uring_sqe *wa__native_uring_sqe(wa__native_uring *u)
{
    struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);
    if (!sqe) {
        io_uring_submit(&u->ring);
        sqe = io_uring_get_sqe(&u->ring);
    }
    return sqe;
}

/* Queues the watch of fd until removed: multishot, edge-triggered
 * (io_uring's default for a poll), as epoll's EPOLLET; a registration for
 * both directions, the eventfd for POLLIN alone (always writable, its
 * every drain would wake a wait for POLLOUT). 0 or WA_ENOMEM. */
static int wa__native_uring_watch(wa__native_uring *u, int fd, uint64_t data)
{
    struct io_uring_sqe *sqe = wa__native_uring_sqe(u);
    if (!sqe)
        return WA_ENOMEM;
    io_uring_prep_poll_multishot(sqe, fd, data == WA__NATIVE_URING_EVFD ? POLLIN : POLLIN | POLLOUT | POLLRDHUP);
    io_uring_sqe_set_data64(sqe, data);
    return 0;
}

/* What a poll's mask is in WA_READABLE | WA_WRITABLE (HUP and errors are
 * both: the I/O call reports them), and WA__REG_HUP. */
static unsigned wa__native_uring_events(unsigned mask)
{
    return (mask & (POLLIN | POLLRDHUP | POLLHUP | POLLERR) ? WA_READABLE : 0) |
           (mask & (POLLOUT | POLLHUP | POLLERR) ? WA_WRITABLE : 0) |
           (mask & (POLLRDHUP | POLLHUP | POLLERR) ? WA__REG_HUP : 0);
}

/* One completion, under the table's lock. A multishot poll that ended
 * (no IORING_CQE_F_MORE: the completion queue was full, or the thread
 * that armed it exited, which cancels its requests) is queued again while
 * its registration lives; a removed one's key is stale by then and its
 * completions are ignored. */
static void wa__native_uring_dispatch(wa__native_uring *u, const struct io_uring_cqe *cqe)
{
    uint64_t data = io_uring_cqe_get_data64(cqe);
    int res = cqe->res;
    bool ended = !(cqe->flags & IORING_CQE_F_MORE), again = res >= 0 || res == -ECANCELED;
    if (data == WA__NATIVE_URING_EVFD) {
        uint64_t v;
        if (read(u->evfd, &v, sizeof v) < 0) { /* EAGAIN: already drained */
        }
        if (ended && again)
            wa__native_uring_watch(u, u->evfd, WA__NATIVE_URING_EVFD);
        return;
    }
    wa__reg *g = data == WA__NATIVE_URING_REMOVAL ? NULL : wa__regs_find(&u->regs, data);
    if (!g)
        return;
    if (res != -ECANCELED)
        wa__regs_ready(&u->regs, g,
                      res >= 0 ? wa__native_uring_events((unsigned)res) : WA_READABLE | WA_WRITABLE | WA__REG_HUP);
    /* (the wakes ran under the lock and touch no registration: g is still there) */
    if (ended && again && wa__native_uring_watch(u, (int)g->id, data) < 0) {
        /* unwatched: its I/O says, and its next wait tries again */
        ((wa__native_uring_reg *)g)->watched = false;
        wa__regs_ready(&u->regs, g, WA_READABLE | WA_WRITABLE);
    }
}

/* Every completion there (a batch at a time, so that the kernel reuses
 * their room), then what they queued sent in one submission. */
static void wa__native_uring_drain(wa__native_uring *u)
{
    struct io_uring_cqe *cqes[WA__NATIVE_URING_BATCH];
    unsigned n;
    wa__regs_lock(&u->regs);
    for (int round = 0; round < WA__NATIVE_URING_CQ / WA__NATIVE_URING_BATCH; round++) {
        if (!(n = io_uring_peek_batch_cqe(&u->ring, cqes, WA__NATIVE_URING_BATCH)))
            break;
        for (unsigned i = 0; i < n; i++)
            wa__native_uring_dispatch(u, cqes[i]);
        io_uring_cq_advance(&u->ring, n);
    }
    wa__native_uring_send(u);
    wa__regs_unlock(&u->regs);
}

static int wa__native_uring_wait(wa_backend *b, uint64_t deadline)
{
    wa__native_uring *u = (wa__native_uring *)b;
    struct io_uring_cqe *cqe;
    int rc;
    if (deadline == 0) {
        rc = io_uring_peek_cqe(&u->ring, &cqe);
    } else if (deadline == WA_NEVER) {
        rc = io_uring_wait_cqe(&u->ring, &cqe);
    } else {
        uint64_t ns = wa__native_ns_until(deadline);
        struct __kernel_timespec ts = {.tv_sec = (long long)(ns / 1000000000u), .tv_nsec = (long long)(ns % 1000000000u)};
        rc = io_uring_wait_cqe_timeout(&u->ring, &cqe, &ts);
    }
    if (rc < 0) /* (ETIME: the deadline; EAGAIN: nothing yet, not blocking) */
        return rc == -ETIME || rc == -EAGAIN || rc == -EINTR ? 0 : WA_EIO;
    wa__native_uring_drain(u);
    return 0;
}

static void wa__native_uring_notify(wa_backend *b)
{
    uint64_t one = 1;
    if (write(((wa__native_uring *)b)->evfd, &one, sizeof one) < 0) { /* counter full: a wake is pending anyway */
    }
}

static void wa__native_uring_free(wa_backend *b)
{
    wa__native_uring *u = (wa__native_uring *)b;
    wa__regs_free(&u->regs);
    io_uring_queue_exit(&u->ring);
    close(u->evfd);
    free(u);
}

static void *wa__native_uring_cap(wa_backend *b, unsigned cap)
{
    return cap == WA_CAP_FDS ? &((wa__native_uring *)b)->regs : NULL;
}

static void wa__native_uring_share(wa_backend *b) { wa__regs_share(&((wa__native_uring *)b)->regs); }

static const wa_backend_vt wa__native_uring_vt = {"uring",
                                                  wa__native_uring_now,
                                                  wa__native_uring_wait,
                                                  wa__native_uring_notify,
                                                  wa__native_uring_free,
                                                  wa__native_uring_cap,
                                                  wa__native_uring_share};

/* A poll request takes fds epoll refuses (a regular file, a directory:
 * always ready) and reports a bad one only in its completion: they are
 * refused here as epoll_ctl refuses them. */
static int wa__native_uring_add(wa_backend *b, wa__reg *g, uint64_t key)
{
    (void)b;
    struct stat st;
    if (fstat((int)g->id, &st) < 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))
        return WA_EINVAL;
    ((wa__native_uring_reg *)g)->key = key;
    return 0;
}

/* Watched from its first wait on, for good. Not at once: a poll's
 * completion carries the readiness of when it was sent, where epoll reads
 * it again when the wait harvests it, and a socket registered before its
 * connect (native tcp.c) is writable and hung up until then. */
static int wa__native_uring_arm(wa_backend *b, wa__reg *g, uint32_t i)
{
    (void)i;
    wa__native_uring_reg *r = (wa__native_uring_reg *)g;
    if (r->watched)
        return 0;
    wa__native_uring *u = (wa__native_uring *)b;
    int rc = wa__native_uring_watch(u, (int)g->id, r->key);
    r->watched = rc == 0;
    wa__native_uring_send(u);
    return rc;
}

/* The removal goes at once: the poll holds the fd's file, which the
 * caller's close would otherwise leave open (a socket's FIN unsent) until
 * the next wait. */
static void wa__native_uring_del(wa_backend *b, wa__reg *g)
{
    wa__native_uring *u = (wa__native_uring *)b;
    struct io_uring_sqe *sqe;
    if (!((wa__native_uring_reg *)g)->watched || !(sqe = wa__native_uring_sqe(u)))
        return;
    io_uring_prep_poll_remove(sqe, ((wa__native_uring_reg *)g)->key);
    io_uring_sqe_set_data64(sqe, WA__NATIVE_URING_REMOVAL);
    wa__native_uring_send(u);
}

static const wa__regs_hooks wa__native_uring_hooks = {wa__native_uring_add, wa__native_uring_del, wa__native_uring_arm,
                                                      NULL, "fd ", wa__regs_dirs};

/* The ring, its eventfd watched, and proof that this kernel answers a
 * multishot poll (5.13) and waits with a timespec argument (5.11): the
 * eventfd starts at 1, so its poll completes at once. Returns 0, or
 * WA_ENOSYS where io_uring is refused or too old (seccomp, a disabled
 * sysctl, an old kernel), WA_ENOMEM or WA_EIO. */
static int wa__native_uring_open(wa__native_uring *u)
{
    /* A poll's completion is posted by the thread that sent it, as task
     * work. By default the kernel interrupts that thread (an IPI) at each
     * one: on a loaded server, an interrupt per request, which in a VM
     * cost 2.6x the hello's throughput. Cooperative task run (5.19) posts
     * them at the thread's next entry into the kernel (a sleeping one is
     * woken, a running one is at its next system call or tick), and the
     * flag tells a peek to enter for them. Older kernels refuse the flags. */
    struct io_uring_params p = {.flags = IORING_SETUP_CQSIZE | IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG,
                                .cq_entries = WA__NATIVE_URING_CQ};
    int rc = io_uring_queue_init_params(WA__NATIVE_URING_SQ, &u->ring, &p);
    if (rc == -EINVAL) {
        p = (struct io_uring_params){.flags = IORING_SETUP_CQSIZE, .cq_entries = WA__NATIVE_URING_CQ};
        rc = io_uring_queue_init_params(WA__NATIVE_URING_SQ, &u->ring, &p);
    }
    if (rc < 0)
        return rc == -ENOMEM ? WA_ENOMEM : rc == -ENOSYS || rc == -EPERM || rc == -EACCES ? WA_ENOSYS : WA_EIO;
    struct io_uring_cqe *cqe;
    uint64_t v;
    rc = p.features & IORING_FEAT_EXT_ARG ? wa__native_uring_watch(u, u->evfd, WA__NATIVE_URING_EVFD) : WA_ENOSYS;
    if (rc == 0) {
        wa__native_uring_send(u);
        if (io_uring_wait_cqe(&u->ring, &cqe) < 0) {
            rc = WA_EIO;
        } else {
            rc = cqe->res > 0 && (cqe->flags & IORING_CQE_F_MORE) ? 0 : WA_ENOSYS;
            io_uring_cqe_seen(&u->ring, cqe);
        }
    }
    if (rc == 0 && read(u->evfd, &v, sizeof v) != sizeof v)
        rc = WA_EIO;
    if (rc < 0)
        io_uring_queue_exit(&u->ring);
    return rc;
}

wa_backend *wa_backend_uring_new(int *err)
{
    wa__native_uring *u = calloc(1, sizeof *u);
    int rc = u ? 0 : WA_ENOMEM;
    if (u && (u->evfd = eventfd(1, EFD_CLOEXEC | EFD_NONBLOCK)) < 0)
        rc = errno == ENOMEM ? WA_ENOMEM : WA_EIO;
    if (rc == 0 && (rc = wa__native_uring_open(u)) < 0)
        close(u->evfd);
    if (rc < 0) {
        free(u);
        if (err)
            *err = rc;
        return NULL;
    }
    u->base.vt = &wa__native_uring_vt;
    wa__regs_init(&u->regs, &u->base, sizeof(wa__native_uring_reg), &wa__native_uring_hooks);
    return &u->base;
}
