/* SPDX-License-Identifier: MIT */
/* The HTTP client on WASI 0.3: client.send is an async-lowered call
 * awaited as a wa_subtask, which holds its result area (kept from the host
 * past a cancel: subtask.c). A send drives two things at once: the
 * request body going out (a write or a copy into a stream<u8> whose
 * readable end the request took, then its trailers future written ok) and
 * the subtask. It completes when both are done. */
#include <stdlib.h>

#include "../../wasi/http_call.h"
#include "http.h"
#include "stream.h"
#include "wasync/component.h"
#include "wasync/http.h"

struct wa_http_response {
    wa__http_response_head h; /* fields read before consume-body took the response */
    uint32_t result;         /* the writable end of consume-body's result */
    uint32_t sent;           /* the readable end of request.new's result (not read) */
};

/* What a send holds while it runs (one allocation, sized for its body). */
struct wa_http_call {
    wa_rt *rt;
    uint32_t trailers; /* the writable end of the request's trailers */
    uint32_t sent;     /* the readable end of request.new's result, until the response has it */
    int writing, waiting;
    wa_subtask send; /* its area: the result, a wa__wasip3_http_value */
    wa__wasip3_http_value value;
    wa_wasip3_future_write write;
    wa_http_response *response;
    wa__http_body_out body; /* (last: sized for its write or copy) */
};

/* Drops the readable end of request.new's result, not read. It is kept
 * while the response lives: wasmtime 49.0.3 aborts the connection when it
 * goes, and the response body then ends early as if whole (1 MiB read as
 * its first 8 KiB). Nothing in wasi:http@0.3.0 (types.wit, request.new:
 * "the returned future resolves to result of transmission of this
 * request") asks a reader to keep it, and a dropped readable end only
 * tells the writer that nobody reads (the Component Model's
 * future.drop-readable). */
static void wa__http_drop_sent(uint32_t *sent)
{
    if (*sent) {
        wa__wasip3_http_result.drop_readable(*sent);
        wa__wasip3_live_ends--;
    }
    *sent = 0;
}

/* Ends a future's writable end that the library holds, once written. */
static void wa__http_end_future(const wa_wasip3_future_type *t, uint32_t *end, int failed)
{
    if (*end && wa__wasip3_future_finish(t, *end, failed) == 0)
        wa__wasip3_live_ends--;
    *end = 0;
}

void wa__http_response_release(wa_http_response *r)
{
    if (!r)
        return;
    if (r->h.body)
        wa_stream_close(&r->h.body);
    wa__http_end_future(&wa__wasip3_http_result, &r->result, 0);
    wa__http_drop_sent(&r->sent);
    wa__http_fields_free(&r->h.fields);
    free(r);
}

/* Takes resp: its status and headers read, its body open as a stream;
 * and *sent, which goes with it. */
static int wa__http_response_new(wa_rt *rt, uint32_t resp, uint32_t *sent, wa_http_response **out)
{
    wa_http_response *r = calloc(1, sizeof *r);
    if (!r) {
        wa__wasip3_response_drop(resp);
        return WA_ENOMEM;
    }
    r->sent = *sent;
    *sent = 0;
    r->h.status = wa__wasip3_response_status(resp);
    wa__wasip3_response_header_list(resp, &r->h.fields.list, &r->h.fields.n); /* (none without memory) */
    r->h.fields.loaded = 1;
    uint64_t res = wa__wasip3_http_result.new_();
    uint32_t stream, trailers;
    wa__wasip3_response_consume_body(resp, (uint32_t)res, &stream, &trailers);
    r->result = (uint32_t)(res >> 32);
    /* (the trailers' future read when the body ends: a body the server
     * cut short fails the read) */
    wa__wasip3_live_ends += 3;
    int rc = wa__wasip3_stream_open_owned(rt, &wa__wasip3_http_bytes, stream, 0, &wa__wasip3_http_trailers,
                                         (uint32_t[2]){trailers, 0}, wa__wasip3_http_trailers_error, 0, NULL,
                                         &r->h.body);
    return wa__http_response_made(r, rc, out);
}

/* Releases what the call still holds, children before parents, and frees
 * it; the response goes too unless it was handed over. */
static void wa__http_call_free(wa_http_send *s)
{
    struct wa_http_call *c = s->call;
    wa__http_body_out_drop(&c->body);
    wa_drop_held(&c->write.fut, &c->writing);
    wa__http_end_future(&wa__wasip3_http_trailers, &c->trailers, 1);
    wa__http_drop_sent(&c->sent);
    if (c->waiting) { /* cancelled: a response it still gave is ours to drop */
        wa_drop_held(&c->send.fut, &c->waiting);
        uint32_t resp;
        if (c->send.state == WA_SUBTASK_RETURNED && wa__wasip3_client_result(c->send.area, &resp, NULL) == 0)
            wa__wasip3_response_drop(resp);
    }
    wa_subtask_area_free(c->send.area); /* (NULL if kept from the host) */
    wa__http_response_release(c->response);
    free(c);
}

/* Builds and sends the request, then starts its body. */
static int wa__http_start(wa_http_send *s, wa_rt *rt, const wa__http_url *u, const char *method)
{
    const wa_http_request *q = s->req;
    struct wa_http_call *c = wa__http_call_new(offsetof(struct wa_http_call, body), q);
    if (!c)
        return WA_ENOMEM;
    c->rt = rt;
    s->call = c;
    uint32_t fields, req, result, contents = 0;
    int rc, body = q->body_stream || q->body_len;
    void *ret = wa_subtask_area_new(sizeof(wa__wasip3_http_value), wa__wasip3_client_late);
    if (!ret)
        return WA_ENOMEM;
    c->send.area = ret; /* (freed with the call until the send takes it) */
    if (body) {
        uint64_t ends = wa__wasip3_http_bytes.new_();
        contents = (uint32_t)ends;
        if ((rc = wa__wasip3_stream_open(rt, &wa__wasip3_http_bytes, 0, (uint32_t)(ends >> 32), &c->body.out)) < 0) {
            wa__wasip3_http_bytes.drop_readable(contents);
            return rc;
        }
    }
    if ((rc = wa__http_call_fields(q, method, wa__wasip3_fields_from_list, &fields)) < 0) {
        if (contents)
            wa__wasip3_http_bytes.drop_readable(contents);
        return rc;
    }
    uint64_t trailers = wa__wasip3_http_trailers.new_();
    c->trailers = (uint32_t)(trailers >> 32);
    wa__wasip3_live_ends++;
    if ((rc = wa__wasip3_request_new(fields, contents, (uint32_t)trailers, method, u, &req, &result)) < 0)
        return rc;
    c->sent = result; /* (how the host sent it: not asked; wa__http_drop_sent) */
    wa__wasip3_live_ends++;
    wa_subtask_init_area(&c->send, wa__wasip3_client_send(req, ret), ret);
    c->waiting = 1;
    if (body)
        wa__http_body_out_start(&c->body, q);
    return 0;
}

/* Polls the body going out, then its trailers. */
static int wa__http_send_body(struct wa_http_call *c, wa_cx *cx)
{
    int rc = wa__http_body_out_poll(&c->body, cx); /* the body ends... */
    if (rc != 0)
        return rc;
    if (c->trailers) { /* ...and its trailers say ok */
        wa__wasip3_http_value_set(&c->value, 0);
        wa__wasip3_live_ends--; /* (the write takes the end) */
        wa_wasip3_future_write_init(&c->write, &wa__wasip3_http_trailers, c->trailers, &c->value);
        c->trailers = 0;
        c->writing = 1;
    }
    if (c->writing && (rc = wa_poll_held(&c->write.fut, &c->writing, cx)) == WA_PENDING)
        return rc;
    return 0; /* (a reader gone is the host's business: the response says how it went) */
}

/* Polls the response coming in (why it failed into why). */
static int wa__http_receive(struct wa_http_call *c, wa_cx *cx, char *why)
{
    if (c->response)
        return 0;
    int rc = wa_poll_held(&c->send.fut, &c->waiting, cx);
    if (rc == WA_PENDING || rc < 0)
        return rc;
    uint32_t resp;
    rc = wa__wasip3_client_result(c->send.area, &resp, why);
    wa_subtask_area_free(c->send.area);
    c->send.area = NULL;
    if (rc < 0)
        return rc;
    return wa__http_response_new(c->rt, resp, &c->sent, &c->response);
}

/* Drives the response in, then the body out. */
static int wa__http_run(wa_http_send *s, wa_cx *cx)
{
    struct wa_http_call *c = s->call;
    int in = wa__http_receive(c, cx, s->reason);
    int out = in < 0 ? 0 : wa__http_send_body(c, cx);
    return wa__http_call_settle(s, in, out, &c->response);
}

const wa__http_client_ops wa__http_client_host = {wa__http_start, wa__http_run, wa__http_call_free};
