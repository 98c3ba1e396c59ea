/* SPDX-License-Identifier: MIT */
/* wasync streams over non-blocking fds, readiness from the epoll backend
 * (edge-triggered: a stream waits once the kernel said EAGAIN). A
 * regular file, which epoll cannot watch, never says EAGAIN: it needs no
 * registration. A socket's read waits for readiness first, without a read
 * call that would say EAGAIN, when the socket is known to be empty: new,
 * or after a read that got less than it asked for (the backend reports
 * whatever comes after that, and a hang-up for good: regs.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

#include "../../io/stream_handle.h"
#include "../../reactor/regs.h"
#include "errno_map.h"
#include "fd_stream.h"
#include "wasync/runtime.h"

_Static_assert(sizeof(wa_fd_wait) <= WA_STREAM_WAIT_SIZE && sizeof(wa_yield) <= WA_STREAM_WAIT_SIZE,
               "readiness storage too small");

/* Sockets are written with send(MSG_NOSIGNAL), never raising SIGPIPE.
 * WASI 0.1 has no signals, and a stdio socket there is no WASI socket
 * (Node's WASI crashes on sock_send to one): write() it is. */
#if defined(__wasi__)
#define WA__FD_SEND 0
#define MSG_NOSIGNAL 0
#else
#define WA__FD_SEND 1
#endif

typedef struct wa__fd_stream {
    wa_stream base;
    wa_rt *rt;
    int fd, sock;   /* sock: send() with MSG_NOSIGNAL, never SIGPIPE */
    int registered; /* (not a regular file) */
    int flags;      /* the fd's flags to put back on close, or -1 */
    int borrowed;   /* the fd is not closed (WASI 0.1's stdio: no dup) */
    int blocking;   /* the host kept it blocking: read only once poll says so */
    int drained;    /* a registered socket known to be empty: no read call
                       until a wait for readiness (wa__fd_ready) */
    wa_fd_key key;
} wa__fd_stream;

/* st's direction dir failed in call with err: its reason; returns err's code. */
static int wa__fd_said(wa_stream *st, int dir, const char *call, int err)
{
    wa_stream_set_reason(st, dir, call, strerror(err));
    return wa__errno_map(err);
}

static int wa__fd_try_read(wa_stream *st, void *buf, size_t cap, size_t *n)
{
    wa__fd_stream *s = (wa__fd_stream *)st;
    ssize_t k;
    struct pollfd p = {.fd = s->fd, .events = POLLIN};
    if (s->blocking && poll(&p, 1, 0) == 0) /* (a read would wait for data) */
        return WA_EAGAIN;
    if (s->drained && !wa__regs_hung_up(s->rt, WA_CAP_FDS, s->key)) /* (else its end or error is there) */
        return WA_EAGAIN;
    while ((k = read(s->fd, buf, cap)) < 0 && errno == EINTR) {
    }
    if (k < 0)
        return errno == EAGAIN ? WA_EAGAIN : wa__fd_said(st, WA_STREAM_READ, "read", errno);
    *n = (size_t)k;
    s->drained = s->sock && s->registered && k > 0 && (size_t)k < cap;
    return k ? 0 : WA_ECLOSED;
}

static int wa__fd_try_write(wa_stream *st, const void *buf, size_t len, size_t *n)
{
    wa__fd_stream *s = (wa__fd_stream *)st;
    ssize_t k;
    while ((k = s->sock ? send(s->fd, buf, len, MSG_NOSIGNAL) : write(s->fd, buf, len)) < 0 && errno == EINTR) {
    }
    if (k < 0)
        return errno == EAGAIN ? WA_EAGAIN : wa__fd_said(st, WA_STREAM_WRITE, s->sock ? "send" : "write", errno);
    *n = (size_t)k;
    return 0;
}

/* The kernel has what was written: nothing to flush. */
static int wa__fd_try_flush(wa_stream *st)
{
    (void)st;
    return 0;
}

static wa_future *wa__fd_ready(wa_stream *st, int dir, void *storage)
{
    wa__fd_stream *s = (wa__fd_stream *)st;
    if (dir == WA_STREAM_READ) /* the read after this wait is a real one */
        s->drained = 0;
    if (!s->registered) /* (a regular file: never reached) */
        return wa_yield_init(storage);
    return wa_fd_wait_init(storage, s->key, dir == WA_STREAM_READ ? WA_READABLE : WA_WRITABLE);
}

static void wa__fd_close(wa_stream *st)
{
    wa__fd_stream *s = (wa__fd_stream *)st;
    if (s->registered)
        wa_fd_deregister(s->rt, s->key);
    if (s->flags >= 0) /* shared with others (a dup of stdin): as it was */
        fcntl(s->fd, F_SETFL, s->flags);
    if (!s->borrowed)
        close(s->fd);
    free(s);
}

static const wa_stream_vt wa__fd_stream_vt = {wa__fd_try_read, wa__fd_try_write, wa__fd_try_flush, wa__fd_ready,
                                             wa__fd_close};

/* The stream over fd (taken, unless borrowed) of kind (S_IFSOCK...; 0:
 * fstat's), with its registration (taken; NULL: made here unless fd is a
 * regular file), putting flags back on close. */
static int wa__fd_stream_new(wa_rt *rt, int fd, int kind, const wa_fd_key *key, int flags, int borrowed,
                             wa_stream **out)
{
    wa__fd_stream *s = malloc(sizeof *s);
    struct stat st;
    int rc = s ? 0 : WA_ENOMEM;
    if (!kind)
        kind = fstat(fd, &st) == 0 ? (int)(st.st_mode & S_IFMT) : 0;
    wa_fd_key k = key ? *key : 0;
    if (rc == 0 && !key && kind != S_IFREG)
        rc = wa_fd_register(rt, fd, &k);
    if (rc < 0) {
        if (key)
            wa_fd_deregister(rt, *key);
        if (flags >= 0)
            fcntl(fd, F_SETFL, flags);
        if (!borrowed)
            close(fd);
        free(s);
        return rc;
    }
    int sock = WA__FD_SEND && kind == S_IFSOCK, registered = key || kind != S_IFREG;
    *s = (wa__fd_stream){.base = WA_STREAM_INIT(&wa__fd_stream_vt), .rt = rt, .fd = fd, .sock = sock,
                        .registered = registered, .flags = flags, .borrowed = borrowed,
                        .drained = sock && registered, /* (new: whatever is there, the backend reports) */
                        .key = k};
    *out = &s->base;
    return 0;
}

int wa__fd_stream_fd(wa_stream *s) { return s->vt == &wa__fd_stream_vt ? ((wa__fd_stream *)s)->fd : -1; }

int wa__fd_stream_socket(wa_rt *rt, int fd, const wa_fd_key *key, wa_stream **out)
{
    return wa__fd_stream_new(rt, fd, S_IFSOCK, key, -1, 0, out);
}

/* Makes fd non-blocking; returns its flags before, or -1 (fd closed). */
static int wa__fd_nonblock(int fd)
{
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) {
        close(fd);
        return -1;
    }
    return flags;
}

int wa_fd_stream_open(wa_rt *rt, int fd, wa_stream **out)
{
    return wa__fd_nonblock(fd) < 0 ? WA_EINVAL : wa__stream_handle(wa__fd_stream_new(rt, fd, 0, NULL, -1, 0, out), out);
}

int wa_stdio_open(wa_rt *rt, int fd, wa_stream **out)
{
    if (fd < 0 || fd > 2)
        return WA_EINVAL;
#ifdef F_DUPFD_CLOEXEC
    /* A duplicate, so closing the stream leaves the process's fd; the two
     * share their flags, so the original ones go back on close. */
    int d = fcntl(fd, F_DUPFD_CLOEXEC, 3), flags = d < 0 ? -1 : wa__fd_nonblock(d);
    return flags < 0 ? WA_EIO : wa__stream_handle(wa__fd_stream_new(rt, d, 0, NULL, flags, 0, out), out);
#else
    /* WASI 0.1 has no dup: the stream borrows the fd itself. A host may
     * keep stdio blocking: wasmtime 49 says EBADF to fd_fdstat_set_flags on
     * it (its WASI 0.1 keeps fdflags for files only), where
     * wasi_snapshot_preview1 has the flag for any fd and EBADF means no such
     * fd. Such a stream reads only once poll says it can (its writes just
     * take their time). */
    int flags = fcntl(fd, F_GETFL), blocking = flags >= 0 && fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0;
    if (flags < 0)
        return WA_EIO;
    int rc = wa__fd_stream_new(rt, fd, 0, NULL, blocking ? -1 : flags, 1, out);
    if (rc == 0)
        ((wa__fd_stream *)*out)->blocking = blocking;
    return wa__stream_handle(rc, out);
#endif
}
