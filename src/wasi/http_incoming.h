/* SPDX-License-Identifier: MIT */
/* Internal: what the WASI 0.2 and 0.3 servers' requests share
 * (http_incoming.c): the head every struct wa_http_incoming begins with,
 * read through the host's bindings, and the getters over it. */
#ifndef WASYNC_WASI_HTTP_INCOMING_H
#define WASYNC_WASI_HTTP_INCOMING_H

#include "../io/http_fields.h"

/* A host's bindings of a received request (src/host/wasip2/http.h,
 * src/host/wasip3/http.h). */
typedef struct wa__http_request_ops {
    /* The method's name: static, or a malloc'd string also in *owned. */
    int (*method)(uint32_t req, const char **method, char **owned);
    /* The path with query and the authority: malloc'd, NULL when absent. */
    int (*path)(uint32_t req, char **path);
    int (*authority)(uint32_t req, char **authority);
    wa__http_fields_load headers;
} wa__http_request_ops;

/* What both hosts' wa_http_incoming begins with. */
typedef struct wa__http_incoming_head {
    const wa__http_request_ops *ops;
    uint32_t req; /* the request (0.3: 0 once its body took it) */
    const char *method; /* these three read before the handler runs */
    char *method_owned, *path, *authority;
    wa__http_fields fields; /* loaded from req on first use */
} wa__http_incoming_head;

/* Sets h up for req (borrowed) and reads its method, path and authority:
 * 0, WA_ENOMEM, or WA_EINVAL when one holds a NUL byte (no C string can
 * hold it). */
int wa__http_incoming_head_read(wa__http_incoming_head *h, const wa__http_request_ops *ops, uint32_t req);

/* Frees what h holds (its strings and headers; not the request). */
void wa__http_incoming_head_free(wa__http_incoming_head *h);

#endif
