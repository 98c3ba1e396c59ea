/* SPDX-License-Identifier: MIT */
/* Internal: what the WASI hosts' sends share (http_call.c), for
 * http_client.c of src/host/wasip2 and of src/host/wasip3: the request
 * body going out through a stream the host opened, the response made, and
 * the two at once handed over as the send's result. */
#ifndef WASYNC_WASI_HTTP_CALL_H
#define WASYNC_WASI_HTTP_CALL_H

#include "../io/http_send.h"

/* The request body going out: a write of its bytes or a copy of its
 * stream into out. Last in its host's call, which is allocated for the
 * one of w and c it holds (wa__http_call_new). */
typedef struct wa__http_body_out {
    wa_stream *out; /* the request body's stream, opened by the host */
    int sending;
    union {
        wa_write w;
        wa_copy c;
    } tx;
} wa__http_body_out;

/* A version's fields.from-list (wa__wasip2_fields_from_list, wa__wasip3_...). */
typedef int (*wa__http_fields_from)(const wa_http_header *h, size_t n, uint32_t *fields);

/* The fields q (checked, borrowed) goes with, made by from: its headers,
 * and "content-length: 0" when it is to say so (wa__http_empty_content_length:
 * a host sends what the fields say). 0, or from's error, or WA_ENOMEM. */
int wa__http_call_fields(const wa_http_request *q, const char *method, wa__http_fields_from from, uint32_t *fields);

/* Returns a new zeroed call whose wa__http_body_out is at offset at, sized
 * for q's body (borrowed), or NULL. */
void *wa__http_call_new(size_t at, const wa_http_request *q);

/* Starts writing or copying q's body (borrowed) into b->out. */
void wa__http_body_out_start(wa__http_body_out *b, const wa_http_request *q);

/* Polls the body going out: WA_PENDING, an error, or 0 once it is all
 * written and b->out closed. */
int wa__http_body_out_poll(wa__http_body_out *b, wa_cx *cx);

/* Drops what b still holds: its write or copy, then its stream. */
void wa__http_body_out_drop(wa__http_body_out *b);

/* Ends a host's response constructor: takes r (its head filled, rc what
 * opening its body said). With rc < 0 frees r and returns rc; else hands
 * r out in *out and returns 0. (Inline: the free is the host's, a layer
 * above this file's.) */
static inline int wa__http_response_made(wa_http_response *r, int rc, wa_http_response **out)
{
    if (rc < 0) {
        wa__http_response_release(r);
        return rc;
    }
    *out = r;
    return 0;
}

/* Ends a poll of a send that drives two things at once, first and second
 * (their statuses: first's error wins): an error, WA_PENDING while either
 * is, else 0 with *response handed over to s->response. */
int wa__http_call_settle(wa_http_send *s, int first, int second, wa_http_response **response);

#endif
