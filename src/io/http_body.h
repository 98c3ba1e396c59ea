/* SPDX-License-Identifier: MIT */
/* Internal: a response body whose bytes its response holds (http_body.c),
 * for the clients that fill the response themselves: native/http.c
 * (curl's callbacks) and js/http.c (the glue's chunks) in src/host/. The
 * host reads the bytes and waits for them (a try_read and a wait's
 * vtable); the stream that ties them to the response is here. */
#ifndef WASYNC_IO_HTTP_BODY_H
#define WASYNC_IO_HTTP_BODY_H

#include "http_send.h"

typedef struct wa__http_body {
    wa_stream base;
    wa_http_response *r;           /* NULL once the response is freed */
    const wa_future_vt *wait_vt;   /* of its readiness wait: a wa__http_body_wait */
} wa__http_body;

/* A read's readiness wait of body b, made by wa__http_body_ready. */
typedef struct wa__http_body_wait {
    wa_future fut;
    wa__http_body *b;
} wa__http_body_wait;

/* Opens r's body, r's head's body: a new wa__http_body over r (borrowed
 * until wa__http_body_detach) with the host's vt and wait_vt. 0 or
 * WA_ENOMEM. */
int wa__http_body_open(wa_http_response *r, const wa_stream_vt *vt, const wa_future_vt *wait_vt);

/* ready of such a body's vt: a wa__http_body_wait of its wait_vt in
 * storage; a write's is WA_EINVAL. */
wa_future *wa__http_body_ready(wa_stream *s, int dir, void *storage);

/* close of such a body's vt: its response has none any more. */
void wa__http_body_close(wa_stream *s);

/* In the release of r (every host's response begins with its head): r's
 * body, when still open, lets go of r and closes. */
void wa__http_body_detach(wa_http_response *r);

#endif
