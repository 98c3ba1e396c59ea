/* SPDX-License-Identifier: MIT */
/* Internal: the handle a user gets for a stream the library made (a key of
 * the handle table, core/handles.h), so that a copy of it used after its
 * close is reported rather than a use after free. An implementer's own
 * stream stays its address. */
#ifndef WASYNC_IO_STREAM_HANDLE_H
#define WASYNC_IO_STREAM_HANDLE_H

#include "wasync/stream.h"

/* After a constructor's status rc: a failure (rc < 0) is passed on;
 * otherwise the new stream *s (taken) is replaced by a new handle to it,
 * and 0 returned, or WA_ENOMEM (the stream closed, *s NULL). So that
 * `return wa_stream_handle_(make(..., s), s);` publishes what make made. */
int wa_stream_handle_(int rc, wa_stream **s);

#endif
