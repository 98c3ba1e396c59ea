/* SPDX-License-Identifier: MIT */
/* The send future and the response's getters of every host's HTTP client
 * (see http_send.h): the request is checked here, the same everywhere,
 * then the host's ops build, drive and free the call. */
#include <string.h>

#include "../core/handles.h"
#include "../core/rt.h"
#include "http_send.h"

/* The head of the response whose handle is r (every host's response
 * begins with it), or NULL, reported as misuse of call. */
static wa__http_response_head *wa__http_head(const wa_http_response *r, const char *call)
{
    return wa__handle_at(r, WA__HANDLE_HTTP_RESPONSE, call);
}

int wa_http_response_status(const wa_http_response *r)
{
    const wa__http_response_head *h = wa__http_head(r, "wa_http_response_status");
    return h ? h->status : WA_EMISUSE;
}

const char *wa_http_response_header(wa_http_response *r, const char *name)
{
    wa__http_response_head *h = wa__http_head(r, "wa_http_response_header");
    return h ? wa__http_fields_find(&h->fields, h->load, h->owner, name) : NULL;
}

const wa_http_header *wa_http_response_headers(wa_http_response *r, size_t *n)
{
    wa__http_response_head *h = wa__http_head(r, "wa_http_response_headers");
    if (!h) {
        *n = 0;
        return NULL;
    }
    return wa__http_fields_all(&h->fields, h->load, h->owner, n);
}

void wa_http_response_free(wa_http_response *r)
{
    if (!r)
        return;
    wa__http_response_head *h = wa__http_head(r, "wa_http_response_free");
    if (!h)
        return;
    wa__handle_release((uintptr_t)r); /* every copy of the handle goes stale */
    wa__http_response_release((wa_http_response *)h);
}

/* s's new response (the host's, taken) as a handle for the user; 0, or
 * WA_ENOMEM with the response freed. */
static int wa__http_response_publish(wa_http_send *s)
{
    uintptr_t key;
    if (wa__handle_new(s->response, WA__HANDLE_HTTP_RESPONSE, &key) < 0) {
        wa__http_response_release(s->response);
        s->response = NULL;
        return WA_ENOMEM;
    }
    s->response = (wa_http_response *)key;
    return 0;
}

/* Ends s: its call freed (the response too, unless it was handed over). */
static void wa__http_send_end(wa_http_send *s)
{
    if (s->call)
        wa__http_client_host.call_free(s);
    s->call = NULL;
    s->step = WA__SEND_DONE;
}

static int wa__http_send_poll(wa_future *f, wa_cx *cx)
{
    wa_http_send *s = (wa_http_send *)f;
    int rc = 0;
    if (s->step == WA__SEND_DONE)
        return wa__misuse_done(NULL, "HTTP send");
    if (s->step == WA__SEND_START) {
        static const char too_big[] = "request headers over 64 KiB (WA_HTTP_HEAD_MAX)";
        const char *method;
        wa__http_url u;
        s->step = WA__SEND_RUN;
        if ((rc = wa__http_request_check(s->req, &u, &method)) == 0)
            rc = wa__http_client_host.start(s, cx->rt, &u, method);
        else if (rc == WA_E2BIG)
            wa__http_reason_set(s, too_big, sizeof too_big - 1);
    }
    if (rc == 0 && (rc = wa__http_client_host.run(s, cx)) == 0)
        rc = wa__http_response_publish(s);
    if (rc != WA_PENDING)
        wa__http_send_end(s);
    return rc;
}

const char *wa_http_send_reason(const wa_http_send *s) { return s->reason; }


static void wa__http_send_drop(wa_future *f) { wa__http_send_end((wa_http_send *)f); }

static const wa_future_vt wa__http_send_vt = {wa__http_send_poll, wa__http_send_drop, "http_send"};

/* (the name in parentheses: http.h's macro of the JS host) */
wa_future *(wa_http_send_init)(wa_http_send *s, const wa_http_request *req)
{
    *s = (wa_http_send){.fut = {&wa__http_send_vt}, .req = req};
    return &s->fut;
}
