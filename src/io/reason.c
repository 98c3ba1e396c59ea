/* SPDX-License-Identifier: MIT */
/* The reason text of a failure (reason.h). */
#include <stdlib.h>
#include <string.h>

#include "reason.h"
#include "wasync/stream.h"

/* Appends len bytes of s to reason's first *n, one line, stopping where
 * the next character would not fit whole. */
static void wa__reason_add(char *reason, size_t *n, const char *s, size_t len)
{
    if (len > WA_REASON_MAX - 1 - *n) {
        len = WA_REASON_MAX - 1 - *n;
        while (len && ((unsigned char)s[len] & 0xc0) == 0x80) /* (no UTF-8 character cut in two) */
            len--;
    }
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        reason[(*n)++] = (char)(c < ' ' || c == 0x7f ? ' ' : c);
    }
}

void wa__reason_set(char *reason, const char *call, const char *text, size_t len)
{
    size_t n = 0;
    if (call) {
        wa__reason_add(reason, &n, call, strlen(call));
        wa__reason_add(reason, &n, ": ", 2);
    }
    wa__reason_add(reason, &n, text, len);
    reason[n] = 0;
}

void wa__reason_say(char *reason, const char *call, const char *text) { wa__reason_set(reason, call, text, strlen(text)); }

/* (the two reasons are made at a stream's first failure: most streams
 * never fail, and 256 bytes in each would be most of its size) */
void wa_stream_set_reason(wa_stream *s, int dir, const char *call, const char *text)
{
    if (!s->reason && !(s->reason = calloc(2, WA_REASON_MAX)))
        return; /* (out of memory: no words) */
    wa__reason_say(s->reason + (dir == WA_STREAM_WRITE) * WA_REASON_MAX, call, text);
}
