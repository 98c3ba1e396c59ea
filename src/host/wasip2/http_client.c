/* SPDX-License-Identifier: MIT */
/* The HTTP client over wasi:http/outgoing-handler. A send drives two
 * things at once: the request body going out (a write or a copy into the
 * outgoing-body's stream) and the response coming in (a wait on the
 * future's pollable, registered once). It completes when both are done. */
#include <stdlib.h>
#include <string.h>

#include "../../wasi/http_call.h"
#include "http.h"
#include "stream.h"
#include "wasync/http.h"

struct wa_http_response {
    wa__http_response_head h; /* owner: the incoming-response, whose body belongs to the stream */
};

/* What a send holds while it runs (one allocation, sized for its body). */
struct wa_http_call {
    wa_rt *rt;
    uint32_t future, out_body;
    wa_pollable_key key;
    int registered, waiting;
    wa_pollable_wait wait;
    wa_http_response *response;
    wa__http_body_out body; /* (last: sized for its write or copy) */
};

void wa__http_response_release(wa_http_response *r)
{
    if (!r)
        return;
    if (r->h.body)
        wa_stream_close(&r->h.body); /* the stream, then its incoming-body */
    wa__http_fields_free(&r->h.fields);
    wa__wasip2_incoming_response_drop(r->h.owner);
    free(r);
}

/* Takes resp: a response with its body open as a stream. */
static int wa__http_response_new(wa_rt *rt, uint32_t resp, wa_http_response **out)
{
    wa_http_response *r = calloc(1, sizeof *r);
    if (!r) {
        wa__wasip2_incoming_response_drop(resp);
        return WA_ENOMEM;
    }
    r->h.owner = resp;
    r->h.load = wa__wasip2_response_header_list;
    r->h.status = wa__wasip2_response_status(resp);
    uint32_t body, stream;
    int rc = wa__wasip2_response_consume(resp, &body, &stream);
    if (rc == 0)
        rc = wa__wasi_stream_open_owned(rt, stream, WA_NO_HANDLE, body, wa__wasip2_incoming_body_drop, &r->h.body);
    return wa__http_response_made(r, rc, out);
}

/* Releases what the call still holds, children before parents, and frees
 * it; the response goes too unless it was handed over. */
static void wa__http_call_free(wa_http_send *s)
{
    struct wa_http_call *c = s->call;
    wa__http_body_out_drop(&c->body);
    if (c->out_body != WA_NO_HANDLE)
        wa__wasip2_outgoing_body_drop(c->out_body); /* unfinished: aborted */
    wa_drop_held(&c->wait.fut, &c->waiting);
    if (c->registered)
        wa_pollable_deregister(c->rt, c->key);
    if (c->future != WA_NO_HANDLE)
        wa__wasip2_future_drop(c->future);
    wa__http_response_release(c->response);
    free(c);
}

/* Builds and sends the request, then starts its body and the wait. */
static int wa__http_start(wa_http_send *s, wa_rt *rt, const wa__http_url *u, const char *method)
{
    const wa_http_request *q = s->req;
    struct wa_http_call *c = wa__http_call_new(offsetof(struct wa_http_call, body), q);
    if (!c)
        return WA_ENOMEM;
    c->rt = rt; /* (no struct assignment: the block may end before body.tx.c) */
    c->future = c->out_body = WA_NO_HANDLE;
    s->call = c;
    uint32_t fields, req, stream;
    int rc;
    if ((rc = wa__http_call_fields(q, method, wa__wasip2_fields_from_list, &fields)) < 0 ||
        (rc = wa__wasip2_request_new(fields, method, u, &req, &c->out_body)) < 0 ||
        (rc = wa__wasip2_http_send(req, &c->future, s->reason)) < 0 ||
        (rc = wa_pollable_register(rt, wa__wasip2_future_subscribe(c->future), &c->key)) < 0)
        return rc;
    c->registered = 1;
    wa_pollable_wait_init(&c->wait, c->key);
    c->waiting = 1;
    if (!q->body_stream && !q->body_len)
        return 0; /* no body: finished below, no stream needed */
    if ((rc = wa__wasip2_body_write(c->out_body, &stream)) < 0 ||
        (rc = wa__wasi_stream_open_owned(rt, WA_NO_HANDLE, stream, 0, NULL, &c->body.out)) < 0)
        return rc;
    wa__http_body_out_start(&c->body, q);
    return 0;
}

/* Polls the body going out; once it is all written, finishes it (why it
 * failed into why). */
static int wa__http_send_body(struct wa_http_call *c, wa_cx *cx, char *why)
{
    int rc = wa__http_body_out_poll(&c->body, cx); /* (its stream closed before its body ends) */
    if (rc != 0)
        return rc;
    if (c->out_body != WA_NO_HANDLE) {
        uint32_t body = c->out_body;
        c->out_body = WA_NO_HANDLE;
        return wa__wasip2_body_finish(body, why);
    }
    return 0;
}

/* Polls the response coming in (why it failed into why). */
static int wa__http_receive(struct wa_http_call *c, wa_cx *cx, char *why)
{
    while (!c->response) {
        int rc;
        if (c->waiting && ((rc = wa_poll_held(&c->wait.fut, &c->waiting, cx)) == WA_PENDING || rc < 0))
            return rc;
        uint32_t resp;
        if ((rc = wa__wasip2_future_get(c->future, &resp, why)) < 0)
            return rc;
        if (rc == 0) { /* a spurious wakeup */
            wa_pollable_wait_init(&c->wait, c->key);
            c->waiting = 1;
        } else if ((rc = wa__http_response_new(c->rt, resp, &c->response)) < 0) {
            return rc;
        }
    }
    return 0;
}

/* Drives the body out, then the response in. */
static int wa__http_run(wa_http_send *s, wa_cx *cx)
{
    struct wa_http_call *c = s->call;
    int out = wa__http_send_body(c, cx, s->reason);
    int in = out < 0 ? 0 : wa__http_receive(c, cx, s->reason);
    return wa__http_call_settle(s, out, in, &c->response);
}

const wa__http_client_ops wa__http_client_host = {wa__http_start, wa__http_run, wa__http_call_free};
