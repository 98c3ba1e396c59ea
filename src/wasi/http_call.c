/* SPDX-License-Identifier: MIT */
/* What the WASI hosts' sends share (see http_call.h). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "http_call.h"

void *wa__http_call_new(size_t at, const wa_http_request *q)
{
    size_t tx = offsetof(wa__http_body_out, tx) + (q->body_stream ? sizeof(wa_copy) : sizeof(wa_write));
    return calloc(1, at + tx);
}

int wa__http_call_fields(const wa_http_request *q, const char *method, wa__http_fields_from from, uint32_t *fields)
{
    if (!wa__http_empty_content_length(q, method))
        return from(q->headers, q->nheaders, fields);
    wa_http_header *h = malloc((q->nheaders + 1) * sizeof *h);
    if (!h)
        return WA_ENOMEM;
    if (q->nheaders)
        memcpy(h, q->headers, q->nheaders * sizeof *h);
    h[q->nheaders] = (wa_http_header){"content-length", "0"};
    int rc = from(h, q->nheaders + 1, fields);
    free(h);
    return rc;
}

void wa__http_body_out_start(wa__http_body_out *b, const wa_http_request *q)
{
    if (q->body_stream)
        wa_copy_init(&b->tx.c, q->body_stream, b->out);
    else
        wa_write_init(&b->tx.w, b->out, q->body, q->body_len);
    b->sending = 1;
}

int wa__http_body_out_poll(wa__http_body_out *b, wa_cx *cx)
{
    int rc;
    if (b->sending && ((rc = wa_poll_held(&b->tx.w.fut, &b->sending, cx)) == WA_PENDING || rc < 0))
        return rc;
    if (b->out)
        wa_stream_close(&b->out); /* the stream goes before what the host ends after it */
    return 0;
}

void wa__http_body_out_drop(wa__http_body_out *b)
{
    wa_drop_held(&b->tx.w.fut, &b->sending); /* (w and c begin alike: a future) */
    if (b->out)
        wa_stream_close(&b->out);
}

int wa__http_call_settle(wa_http_send *s, int first, int second, wa_http_response **response)
{
    if (first < 0 || second < 0)
        return first < 0 ? first : second;
    if (first == WA_PENDING || second == WA_PENDING)
        return WA_PENDING;
    s->response = *response; /* handed over */
    *response = NULL;
    return 0;
}
