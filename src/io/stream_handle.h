/* SPDX-License-Identifier: MIT */
/* Internal: what the library's own streams share. The handle a user gets
 * for a stream the library made (a key of the handle table,
 * core/handles.h), so that a copy of it used after its close is reported
 * rather than a use after free (an implementer's own stream stays its
 * address); and the vtable slots that streams of one direction fill
 * alike. */
#ifndef WASYNC_IO_STREAM_HANDLE_H
#define WASYNC_IO_STREAM_HANDLE_H

#include "wasync/stream.h"

#include "../core/handles.h"

/* After a constructor's status rc: a failure (rc < 0) is passed on;
 * otherwise the new stream *s (taken) is replaced by a new handle to it,
 * and 0 returned, or WA_ENOMEM (the stream closed, *s NULL). So that
 * `return wa__stream_handle(make(..., s), s);` publishes what make made. */
int wa__stream_handle(int rc, wa_stream **s);

/* The stream of handle h (borrowed): an implementer's stream is its
 * address; one the library made is looked up (NULL: closed through a copy
 * of the handle). */
static inline wa_stream *wa__stream_at(wa_stream *h)
{
    return wa__handle_is((uintptr_t)h) ? wa__handle_get((uintptr_t)h, WA__HANDLE_STREAM) : h;
}

/* try_write of a stream that is only read (a response body): WA_EINVAL. */
int wa__stream_write_refused(wa_stream *s, const void *buf, size_t len, size_t *n);

/* try_flush of a stream that buffers nothing it writes, or writes
 * nothing: 0. */
int wa__stream_flush_none(wa_stream *s);

#endif
