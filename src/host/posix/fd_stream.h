/* SPDX-License-Identifier: MIT */
/* Internal: a stream over a non-blocking socket the library made (taken,
 * also on failure), with its registration with rt's epoll backend (taken;
 * NULL: registered here). For the sockets the TCP code makes, and their
 * options. */
#ifndef WASYNC_HOST_POSIX_FD_STREAM_H
#define WASYNC_HOST_POSIX_FD_STREAM_H

#include "wasync/backend.h"
#include "wasync/stream.h"

int wa__fd_stream_socket(wa_rt *rt, int fd, const wa_fd_key *key, wa_stream **s);

/* The fd of s (a stream's head, borrowed) if it is a stream over an fd,
 * else -1: for the TCP options of a connection. */
int wa__fd_stream_fd(wa_stream *s);

#endif
