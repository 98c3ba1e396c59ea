/* SPDX-License-Identifier: MIT */
/* Internal: a POSIX errno of a socket, pipe or file call as a wasync code
 * (native hosts). */
#ifndef WASYNC_HOST_POSIX_ERRNO_MAP_H
#define WASYNC_HOST_POSIX_ERRNO_MAP_H

#include <errno.h>

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

#endif
