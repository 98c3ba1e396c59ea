/* SPDX-License-Identifier: MIT */
/* Internal: the JS host's HTTP client (http.c) and what reads its
 * requests' body streams (stream_bodies.c). */
#ifndef WASYNC_HOST_JS_HTTP_H
#define WASYNC_HOST_JS_HTTP_H

#include "ops.h"
#include "wasync/http.h"

/* What a send holds while it runs. */
struct wa_http_call {
    wa_http_response *r;
    const char *method;
    int reading; /* the request body's stream is being read */
    wa_read_all all;
    wa_http_request sent; /* the request as the glue reads it (http.c's wa__js_send) */
    wa_js_op op;
};

/* The read of a request's body stream (q->body_stream) to its end into
 * k->all: poll gives WA_PENDING, 0, or an error (its first poll starts
 * the read); drop ends it unfinished. stream_bodies.c's, which http.h's
 * inits link where a request may have a body stream (there its address
 * is not NULL: weak). */
typedef struct wa__js_body_reader {
    int (*poll)(struct wa_http_call *k, const wa_http_request *q, wa_cx *cx);
    void (*drop)(struct wa_http_call *k);
} wa__js_body_reader;
extern const wa__js_body_reader wa__js_stream_body __attribute__((weak));

#endif
