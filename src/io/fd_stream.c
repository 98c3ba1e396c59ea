/* wasync streams over non-blocking fds, readiness from the epoll backend
 * (edge-triggered: a stream waits only after the kernel said EAGAIN). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fd_stream.h"

_Static_assert(sizeof(wa_fd_wait) <= WA_STREAM_WAIT_SIZE, "readiness storage too small");

typedef struct wa_fd_stream {
    wa_stream base;
    wa_rt *rt;
    int fd, sock; /* sock: send() with MSG_NOSIGNAL, never SIGPIPE */
    wa_fd_key key;
} wa_fd_stream;

/* An errno of read or write as a wasync code. */
static int wa_fd_error(int err)
{
    switch (err) {
    case EAGAIN:
        return WA_EAGAIN;
    case EPIPE:
        return WA_ECLOSED;
    case ECONNRESET:
        return WA_ECONNRESET;
    case ENOMEM:
    case ENOBUFS:
        return WA_ENOMEM;
    default:
        return WA_EIO;
    }
}

static int wa_fd_try_read(wa_stream *st, void *buf, size_t cap, size_t *n)
{
    wa_fd_stream *s = (wa_fd_stream *)st;
    ssize_t k;
    while ((k = read(s->fd, buf, cap)) < 0 && errno == EINTR) {
    }
    if (k < 0)
        return wa_fd_error(errno);
    *n = (size_t)k;
    return k ? 0 : WA_ECLOSED;
}

static int wa_fd_try_write(wa_stream *st, const void *buf, size_t len, size_t *n)
{
    wa_fd_stream *s = (wa_fd_stream *)st;
    ssize_t k;
    while ((k = s->sock ? send(s->fd, buf, len, MSG_NOSIGNAL) : write(s->fd, buf, len)) < 0 && errno == EINTR) {
    }
    if (k < 0)
        return wa_fd_error(errno);
    *n = (size_t)k;
    return 0;
}

/* The kernel has what was written: nothing to flush. */
static int wa_fd_try_flush(wa_stream *st)
{
    (void)st;
    return 0;
}

static wa_future *wa_fd_ready(wa_stream *st, int dir, void *storage)
{
    wa_fd_stream *s = (wa_fd_stream *)st;
    return wa_fd_wait_init(storage, s->key, dir == WA_STREAM_READ ? WA_READABLE : WA_WRITABLE);
}

static void wa_fd_close(wa_stream *st)
{
    wa_fd_stream *s = (wa_fd_stream *)st;
    wa_fd_deregister(s->rt, s->key);
    close(s->fd);
    free(s);
}

static const wa_stream_vt wa_fd_stream_vt = {wa_fd_try_read, wa_fd_try_write, wa_fd_try_flush, wa_fd_ready,
                                             wa_fd_close};

int wa_fd_stream_adopt(wa_rt *rt, int fd, const wa_fd_key *key, wa_stream **out)
{
    wa_fd_stream *s = malloc(sizeof *s);
    int rc = s ? 0 : WA_ENOMEM;
    wa_fd_key k = key ? *key : 0;
    if (rc == 0 && !key)
        rc = wa_fd_register(rt, fd, &k);
    if (rc < 0) {
        if (key)
            wa_fd_deregister(rt, *key);
        close(fd);
        free(s);
        return rc;
    }
    struct stat st;
    *s = (wa_fd_stream){.base = {&wa_fd_stream_vt}, .rt = rt, .fd = fd, .key = k};
    s->sock = fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode);
    *out = &s->base;
    return 0;
}

int wa_fd_stream_open(wa_rt *rt, int fd, wa_stream **out)
{
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) {
        close(fd);
        return WA_EINVAL;
    }
    return wa_fd_stream_adopt(rt, fd, NULL, out);
}
