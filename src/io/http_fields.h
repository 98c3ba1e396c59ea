/* Internal: the headers of a received request or response, fetched from the
 * host on first use (one call) and kept as NUL-terminated strings. */
#ifndef WASYNC_IO_HTTP_FIELDS_H
#define WASYNC_IO_HTTP_FIELDS_H

#include <stdint.h>

#include "wasync/http.h"

typedef struct wa_http_fields {
    wa_http_header *list; /* one malloc'd block, strings included */
    size_t n;
    int loaded;
} wa_http_fields;

/* The headers of owner, whose headers() (a child handle, dropped here) is
 * headers_of. *n of them; NULL, 0 when there are none or no memory. */
const wa_http_header *wa_http_fields_all(wa_http_fields *f, uint32_t (*headers_of)(uint32_t), uint32_t owner,
                                         size_t *n);
/* The first header named name, case-insensitively, or NULL. */
const char *wa_http_fields_find(wa_http_fields *f, uint32_t (*headers_of)(uint32_t), uint32_t owner,
                                const char *name);
void wa_http_fields_free(wa_http_fields *f);

#endif
