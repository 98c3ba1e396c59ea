/* SPDX-License-Identifier: MIT */
/* A received request's head and its getters, the same on both WASI
 * servers (see http_incoming.h). */
#include <stdlib.h>

#include "http_incoming.h"

static wa__http_incoming_head *wa__http_head(wa_http_incoming *in)
{
    return (wa__http_incoming_head *)in; /* (both hosts' begin with it) */
}

int wa__http_incoming_head_read(wa__http_incoming_head *h, const wa__http_request_ops *ops, uint32_t req)
{
    int rc;
    h->ops = ops;
    h->req = req;
    if ((rc = ops->method(req, &h->method, &h->method_owned)) < 0 || (rc = ops->path(req, &h->path)) < 0)
        return rc;
    return ops->authority(req, &h->authority);
}

void wa__http_incoming_head_free(wa__http_incoming_head *h)
{
    wa__http_fields_free(&h->fields);
    free(h->method_owned);
    free(h->path);
    free(h->authority);
}

const char *wa_http_incoming_method(wa_http_incoming *in) { return wa__http_head(in)->method; }

const char *wa_http_incoming_path(wa_http_incoming *in)
{
    const char *path = wa__http_head(in)->path;
    return path ? path : "/";
}

const char *wa_http_incoming_authority(wa_http_incoming *in)
{
    const char *authority = wa__http_head(in)->authority;
    return authority ? authority : "";
}

const char *wa_http_incoming_header(wa_http_incoming *in, const char *name)
{
    wa__http_incoming_head *h = wa__http_head(in);
    return wa__http_fields_find(&h->fields, h->ops->headers, h->req, name);
}

const wa_http_header *wa_http_incoming_headers(wa_http_incoming *in, size_t *n)
{
    wa__http_incoming_head *h = wa__http_head(in);
    return wa__http_fields_all(&h->fields, h->ops->headers, h->req, n);
}
