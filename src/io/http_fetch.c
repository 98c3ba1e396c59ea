/* SPDX-License-Identifier: MIT */
/* wa_http_fetch: a send, then its body read whole. The same on every host
 * (over the host's wa_http_send and its read of a fetch's body: see
 * http_send.h). */
#include "../core/rt.h"
#include "http_send.h"

static int wa__http_fetch_poll(wa_future *f, wa_cx *cx)
{
    wa_http_fetch *h = (wa_http_fetch *)f;
    int rc;
    switch (h->step) {
    case 0:
        if ((rc = wa_poll(&h->send.fut, cx)) == WA_PENDING)
            return WA_PENDING;
        wa_drop(&h->send.fut);
        if (rc < 0)
            return h->step = 2, rc;
        h->response = h->send.response;
        wa__http_fetch_body_start(h);
        h->step = 1;
        /* fallthrough */
    case 1:
        if ((rc = wa__http_fetch_body_poll(h, cx)) == WA_PENDING)
            return WA_PENDING;
        h->step = 2;
        if (rc < 0) {
            wa_http_response_free(h->response);
            h->response = NULL;
        }
        return rc;
    default:
        return wa__misuse_done(NULL, "HTTP fetch");
    }
}

static void wa__http_fetch_drop(wa_future *f)
{
    wa_http_fetch *h = (wa_http_fetch *)f;
    if (h->step == 0) {
        wa_drop(&h->send.fut);
    } else if (h->step == 1) { /* unfinished: the response goes too */
        wa__http_fetch_body_drop(h);
        wa_http_response_free(h->response);
        h->response = NULL;
    }
    h->step = 2;
}

const char *wa_http_fetch_reason(const wa_http_fetch *f) { return wa_http_send_reason(&f->send); }

static const wa_future_vt wa__http_fetch_vt = {wa__http_fetch_poll, wa__http_fetch_drop, "http_fetch"};

/* (the names in parentheses: http.h's macros of the JS host, whose check
 * of req the program's call to this made) */
wa_future *(wa_http_fetch_init)(wa_http_fetch *f, const wa_http_request *req, size_t max)
{
    *f = (wa_http_fetch){.fut = {&wa__http_fetch_vt}, .max = max};
    (wa_http_send_init)(&f->send, req);
    return &f->fut;
}
