/* SPDX-License-Identifier: MIT */
/* A trace's sink natively and on WASI (src/core/trace.h): a file through
 * the C library (wasi-libc's opens it in a directory the host preopened:
 * wasmtime's --dir), or stderr for "-"; WASYNC_TRACE from the
 * environment (wasmtime's --env, node:wasi's and jco's process env). */
#define _GNU_SOURCE /* (O_CLOEXEC) */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../core/trace.h"

int wa__trace_sink_open(const char *path)
{
    if (strcmp(path, "-") == 0)
        return STDERR_FILENO;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    return fd >= 0 ? fd : WA_EIO;
}

int wa__trace_sink_write(int sink, const char *p, size_t n)
{
    while (n) {
        ssize_t k = write(sink, p, n);
        if (k <= 0)
            return WA_EIO;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

int wa__trace_sink_close(int sink)
{
    /* (stderr stays open: a file opened as fd 2, stderr being closed, too) */
    return sink == STDERR_FILENO || close(sink) == 0 ? 0 : WA_EIO;
}

const char *wa__trace_sink_env(void) { return getenv("WASYNC_TRACE"); }
