/* SPDX-License-Identifier: MIT */
/* Internal: text built without stdio (text.c), for dumps, reports,
 * describes and traces. */
#ifndef WASYNC_CORE_TEXT_H
#define WASYNC_CORE_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "wasync/future.h"

/* Text built into a buffer of len bytes, always NUL-terminated; need counts
 * what the whole text takes (as snprintf). */
typedef struct wa__text {
    char *buf;
    size_t len, need;
} wa__text;
void wa__text_str(wa__text *d, const char *s);
void wa__text_uint(wa__text *d, uint64_t v);
/* Appends a duration of ns: ns, us, ms or s, whole. */
void wa__text_ns(wa__text *d, uint64_t ns);
/* Appends s as the inside of a JSON string (escaped). */
void wa__text_json(wa__text *d, const char *s);

#endif
