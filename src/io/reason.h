/* SPDX-License-Identifier: MIT */
/* Internal: the reason text of a failure, in the host's words, as every
 * host's TCP, DNS, UDP, streams and HTTP keep it (WA_REASON_MAX bytes with
 * its NUL). One writer for all, so that each host only names its call and
 * gives its text. */
#ifndef WASYNC_IO_REASON_H
#define WASYNC_IO_REASON_H

#include <stddef.h>

#include "wasync/error.h"

/* Sets reason (WA_REASON_MAX bytes) to "call: text" (call NULL: the text
 * alone), text being len bytes (not NUL-terminated: a host's string), cut
 * to fit between UTF-8 characters; a control byte becomes a space (a
 * reason is one line). Without printf, which would bring stdio into a JS
 * host module. Failure paths only: a success leaves the reason alone. */
void wa__reason_set(char *reason, const char *call, const char *text, size_t len);

/* wa__reason_set of a NUL-terminated text. */
void wa__reason_say(char *reason, const char *call, const char *text);

#endif
