/* SPDX-License-Identifier: MIT */
/* A response's body stream, made with its head, and a fetch's read of it
 * whole (http_send.h): every host's but the JS host's, which makes the
 * stream only when asked for it, and whose fetch takes the glue's chunks
 * itself (src/host/js/http.c). */
#include "../core/handles.h"
#include "http_send.h"

wa_stream *wa_http_response_body(wa_http_response *r)
{
    const wa__http_response_head *h = wa__handle_at(r, WA__HANDLE_HTTP_RESPONSE, "wa_http_response_body");
    return h ? h->body : NULL;
}

void wa__http_fetch_body_start(wa_http_fetch *f)
{
    wa_read_all_init(&f->body, wa_http_response_body(f->response), f->max);
}

int wa__http_fetch_body_poll(wa_http_fetch *f, wa_cx *cx)
{
    int rc = wa_poll(&f->body.fut, cx);
    if (rc == WA_PENDING)
        return WA_PENDING;
    wa_drop(&f->body.fut);
    if (rc < 0) { /* the body's words for it: the fetch's reason */
        const char *why = wa_stream_reason(f->body.s, WA_STREAM_READ);
        wa__reason_say(f->send.reason, NULL, why ? why : "");
        return rc;
    }
    f->data = f->body.data;
    f->len = f->body.len;
    return 0;
}

void wa__http_fetch_body_drop(wa_http_fetch *f) { wa_drop(&f->body.fut); }
