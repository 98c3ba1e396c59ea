/* SPDX-License-Identifier: MIT */
/* A response body whose bytes its response holds (see http_body.h). */
#include <stdlib.h>

#include "http_body.h"

_Static_assert(sizeof(wa_http_body_wait) <= WA_STREAM_WAIT_SIZE, "readiness storage too small");

int wa_http_body_open_(wa_http_response *r, const wa_stream_vt *vt, const wa_future_vt *wait_vt)
{
    wa_http_body *b = malloc(sizeof *b);
    if (!b)
        return WA_ENOMEM;
    *b = (wa_http_body){WA_STREAM_INIT(vt), r, wait_vt};
    ((wa_http_response_head *)r)->body = &b->base;
    return 0;
}

wa_future *wa_http_body_ready_(wa_stream *s, int dir, void *storage)
{
    if (dir != WA_STREAM_READ)
        return wa_stream_error_init(storage, WA_EINVAL);
    wa_http_body *b = (wa_http_body *)s;
    wa_http_body_wait *w = storage;
    *w = (wa_http_body_wait){{b->wait_vt}, b};
    return &w->fut;
}

void wa_http_body_close_(wa_stream *s)
{
    wa_http_body *b = (wa_http_body *)s;
    if (b->r)
        ((wa_http_response_head *)b->r)->body = NULL;
    free(b);
}

void wa_http_body_detach_(wa_http_response *r)
{
    wa_http_response_head *h = (wa_http_response_head *)r;
    if (h->body) {
        ((wa_http_body *)h->body)->r = NULL;
        wa_stream_close(&h->body);
    }
}
