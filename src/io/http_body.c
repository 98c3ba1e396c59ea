/* SPDX-License-Identifier: MIT */
/* A response body whose bytes its response holds (see http_body.h). */
#include <stdlib.h>

#include "http_body.h"

_Static_assert(sizeof(wa__http_body_wait) <= WA_STREAM_WAIT_SIZE, "readiness storage too small");

int wa__http_body_open(wa_http_response *r, const wa_stream_vt *vt, const wa_future_vt *wait_vt)
{
    wa__http_body *b = malloc(sizeof *b);
    if (!b)
        return WA_ENOMEM;
    *b = (wa__http_body){WA_STREAM_INIT(vt), r, wait_vt};
    ((wa__http_response_head *)r)->body = &b->base;
    return 0;
}

wa_future *wa__http_body_ready(wa_stream *s, int dir, void *storage)
{
    if (dir != WA_STREAM_READ)
        return wa_stream_error_init(storage, WA_EINVAL);
    wa__http_body *b = (wa__http_body *)s;
    wa__http_body_wait *w = storage;
    *w = (wa__http_body_wait){{b->wait_vt}, b};
    return &w->fut;
}

void wa__http_body_close(wa_stream *s)
{
    wa__http_body *b = (wa__http_body *)s;
    if (b->r)
        ((wa__http_response_head *)b->r)->body = NULL;
    free(b);
}

void wa__http_body_detach(wa_http_response *r)
{
    wa__http_response_head *h = (wa__http_response_head *)r;
    if (h->body) {
        ((wa__http_body *)h->body)->r = NULL;
        wa_stream_close(&h->body);
    }
}
