/* SPDX-License-Identifier: MIT */
/* What reads a request's body stream (http.h), linked by http.h's inits
 * for a request that may have one: a module whose requests have none
 * carries no stream reads. */
#include "http.h"

void wa__js_http_stream_bodies(void) {}

static int wa__js_body_poll(struct wa_http_call *k, const wa_http_request *q, wa_cx *cx)
{
    if (!k->all.fut.vt) { /* (k was zeroed) */
        wa_read_all_init(&k->all, q->body_stream, 0);
        k->reading = 1;
    }
    return wa_poll_held(&k->all.fut, &k->reading, cx);
}

static void wa__js_body_drop(struct wa_http_call *k) { wa_drop_held(&k->all.fut, &k->reading); }

const wa__js_body_reader wa__js_stream_body = {wa__js_body_poll, wa__js_body_drop};
