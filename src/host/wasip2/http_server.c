/* SPDX-License-Identifier: MIT */
/* The HTTP server: wasi:http/incoming-handler's handle runs one request as
 * a task on the server's runtime and drives it to its end, then settles the
 * response: a 500 if none was sent, the body finished if the task
 * succeeded, aborted if it failed (see http.h). */
#include <stdlib.h>

#include "../../io/http_url.h"
#include "../../wasi/http_incoming.h"
#include "http.h"
#include "stream.h"
#include "wasync/http.h"

struct wa_http_incoming {
    wa__http_incoming_head h;
    wa_rt *rt;
    uint32_t outparam, out_body; /* WA_NO_HANDLE once given up */
    int responded;
    wa_stream *in, *out; /* the bodies: the request's, the response's */
};

static wa_rt *wa__http_rt; /* one runtime for every request */

static const wa__http_request_ops wa__http_request_p2 = {wa__wasip2_request_method, wa__wasip2_request_path,
                                                        wa__wasip2_request_authority, wa__wasip2_request_header_list};

int wa_http_incoming_body(wa_http_incoming *in, wa_stream **body)
{
    uint32_t b, stream;
    int rc = 0;
    if (!in->in && ((rc = wa__wasip2_request_consume(in->h.req, &b, &stream)) < 0 ||
                    (rc = wa__wasi_stream_open_owned(in->rt, stream, WA_NO_HANDLE, b, wa__wasip2_incoming_body_drop,
                                                    &in->in)) < 0))
        return rc == WA_ENOMEM ? rc : WA_EIO;
    *body = in->in;
    return 0;
}

int wa_http_incoming_respond(wa_http_incoming *in, int status, const wa_http_header *headers, size_t n, wa_stream **body)
{
    if (in->responded)
        return wa_misuse(WA_EMISUSE, "a second response to one HTTP request");
    uint32_t fields, resp, stream;
    int rc;
    if ((n && !headers) || wa__http_headers_check(headers, n) < 0)
        return WA_EINVAL;
    if ((rc = wa__wasip2_fields_from_list(headers, n, &fields)) < 0 ||
        (rc = wa__wasip2_response_new(fields, status, &resp, &in->out_body)) < 0)
        return rc;
    wa__wasip2_outparam_set_ok(in->outparam, resp);
    in->responded = 1;
    if (!body)
        return 0; /* no body to write: finished at the end */
    if ((rc = wa__wasip2_body_write(in->out_body, &stream)) < 0 ||
        (rc = wa__wasi_stream_open_owned(in->rt, WA_NO_HANDLE, stream, 0, NULL, &in->out)) < 0)
        return rc;
    wa__wasi_stream_flush_writes(in->out);
    *body = in->out;
    return 0;
}

/* Ends the response body: finished, or (abort) dropped unfinished. */
static int wa__http_end_body(wa_http_incoming *in, int abort)
{
    if (in->out)
        wa_stream_close(&in->out); /* the stream goes before its body */
    uint32_t body = in->out_body;
    in->out_body = WA_NO_HANDLE;
    if (abort)
        return wa__wasip2_outgoing_body_drop(body), 0;
    return wa__wasip2_body_finish(body, NULL);
}

int wa_http_incoming_finish(wa_http_incoming *in)
{
    if (!in->responded || in->out_body == WA_NO_HANDLE)
        return wa_misuse(WA_EMISUSE, in->responded ? "HTTP response finished twice" : "HTTP finish before respond");
    return wa__http_end_body(in, 0);
}

/* Settles the response once the task ended with status rc, then releases
 * the request (children first). */
static void wa__http_settle(wa_http_incoming *in, int rc)
{
    if (!in->responded) {
        rc = 0; /* our 500 is whole */
        if (wa_http_incoming_respond(in, 500, NULL, 0, NULL) < 0)
            wa__wasip2_outparam_drop(in->outparam); /* not even a 500: the host answers */
    }
    if (in->out_body != WA_NO_HANDLE)
        wa__http_end_body(in, rc < 0);
    if (in->in)
        wa_stream_close(&in->in); /* and with it the incoming-body */
    wa__http_incoming_head_free(&in->h);
    wa__wasip2_request_drop(in->h.req);
}

/* block_on's root: the request's task, awaited without consuming its
 * handle, so that a task block_on gave up on (a deadlock) can be aborted:
 * it must not outlive the request it points to. */
typedef struct wa__http_wait {
    wa_future fut;
    wa_join *task;
} wa__http_wait;

static int wa__http_wait_poll(wa_future *f, wa_cx *cx) { return wa_poll(&((wa__http_wait *)f)->task->fut, cx); }
static const wa_future_vt wa__http_wait_vt = {wa__http_wait_poll, NULL, "http_request"};

void wa__http_serve(uint32_t req, uint32_t outparam, wa_http_handler handler)
{
    wa__wasip2_adopt(2); /* the request and the outparam are ours now */
    /* on the stack: this call lasts as long as the request's task */
    wa_http_incoming in = {.h.req = req, .outparam = outparam, .out_body = WA_NO_HANDLE};
    wa_join task;
    int rc = wa__http_rt ? 0 : wa_rt_new(&wa__http_rt);
    in.rt = wa__http_rt;
    if (rc == 0 && (rc = wa__http_incoming_head_read(&in.h, &wa__http_request_p2, req)) == WA_EINVAL)
        rc = wa_http_incoming_respond(&in, 400, NULL, 0, NULL); /* the handler could not tell what was asked */
    else if (rc == 0 && (rc = handler(wa__http_rt, &in, &task)) == 0) {
        wa__http_wait w = {{&wa__http_wait_vt}, &task};
        rc = wa_block_on(wa__http_rt, &w.fut);
        if (!wa_join_done(&task))
            wa_join_abort(&task);
        wa_join_drop(&task);
    }
    wa__http_settle(&in, rc);
}
