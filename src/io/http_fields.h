/* SPDX-License-Identifier: MIT */
/* Internal: the headers of a received request or response, fetched from the
 * host on first use (one call) and kept as NUL-terminated strings; a
 * header's lookup by name in any list of them. */
#ifndef WASYNC_IO_HTTP_FIELDS_H
#define WASYNC_IO_HTTP_FIELDS_H

#include <stdint.h>

#include "wasync/http.h"

/* The first of n headers (borrowed) named name, case-insensitively, or
 * NULL. */
const char *wa__http_headers_find(const wa_http_header *h, size_t n, const char *name);

typedef struct wa__http_fields {
    wa_http_header *list; /* one malloc'd block, strings included */
    size_t n;
    int loaded;
} wa__http_fields;

/* A host's loader of owner's headers: one malloc'd block of *n headers in
 * *list (the bindings' wa__wasip2_request_header_list and the like): 0,
 * WA_ENOMEM (tried again next time), another error (no headers). */
typedef int (*wa__http_fields_load)(uint32_t owner, wa_http_header **list, size_t *n);

/* The headers of owner, loaded once by load. *n of them; NULL, 0 when
 * there are none or no memory. */
const wa_http_header *wa__http_fields_all(wa__http_fields *f, wa__http_fields_load load, uint32_t owner, size_t *n);
/* The first header named name, case-insensitively, or NULL. */
const char *wa__http_fields_find(wa__http_fields *f, wa__http_fields_load load, uint32_t owner, const char *name);
void wa__http_fields_free(wa__http_fields *f);

#endif
