/* SPDX-License-Identifier: MIT */
/* Internal: a POSIX errno of a socket, pipe or file call as a wasync code
 * (native hosts). */
#ifndef WASYNC_HOST_POSIX_ERRNO_MAP_H
#define WASYNC_HOST_POSIX_ERRNO_MAP_H

#include <errno.h>
#include <string.h>

#include "../../io/reason.h"
#include "wasync/error.h"

static inline int wa__errno_map(int err)
{
    switch (err) {
    case EAGAIN:
        return WA_EAGAIN;
    case EPIPE:
        return WA_ECLOSED;
    case ECONNRESET:
        return WA_ECONNRESET;
    case ECONNREFUSED:
        return WA_ECONNREFUSED;
    case EADDRINUSE:
        return WA_EADDRINUSE;
    case ETIMEDOUT:
        return WA_ETIMEDOUT;
    case ENOMEM:
    case ENOBUFS:
        return WA_ENOMEM;
    case EMFILE: /* the process's limit */
    case ENFILE: /* the system's */
        return WA_EMFILE;
    case EMSGSIZE: /* a datagram too large */
        return WA_E2BIG;
    case ENOENT: /* a Unix socket's path */
        return WA_ENOTFOUND;
    case EADDRNOTAVAIL:
    case EINVAL:
        return WA_EINVAL;
    default:
        return WA_EIO;
    }
}

/* Sets reason (WA_REASON_MAX bytes) to the host's words for call's
 * failure with err ("connect: Connection refused"); returns err's code.
 * (strerror's strings are glibc's and wasi-libc's constants.) */
static inline int wa__errno_reason(char *reason, const char *call, int err)
{
    wa__reason_say(reason, call, strerror(err));
    return wa__errno_map(err);
}

#endif
