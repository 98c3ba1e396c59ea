/* SPDX-License-Identifier: MIT */
/* Received headers, fetched once, and a lookup by name (see http_fields.h). */
#include <stdlib.h>
#include <strings.h>

#include "http_fields.h"

const char *wa__http_headers_find(const wa_http_header *h, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcasecmp(h[i].name, name))
            return h[i].value;
    return NULL;
}

const wa_http_header *wa__http_fields_all(wa__http_fields *f, wa__http_fields_load load, uint32_t owner, size_t *n)
{
    if (!f->loaded && load(owner, &f->list, &f->n) != WA_ENOMEM)
        f->loaded = 1; /* (out of memory: try again next time) */
    *n = f->n;
    return f->n ? f->list : NULL;
}

const char *wa__http_fields_find(wa__http_fields *f, wa__http_fields_load load, uint32_t owner, const char *name)
{
    size_t n;
    const wa_http_header *h = wa__http_fields_all(f, load, owner, &n);
    return wa__http_headers_find(h, n, name);
}

void wa__http_fields_free(wa__http_fields *f)
{
    free(f->list);
    *f = (wa__http_fields){0};
}
