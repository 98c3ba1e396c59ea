/* SPDX-License-Identifier: MIT */
/* The HTTP server on WASI 0.3: wasi:http/handler#handle is an async export
 * on the callback driver (WA_EXPORT_ASYNC, export.c). A call runs one
 * task, its serve task here: the handler spawns the request's task, and
 * the serve task waits for it, then settles the response. The
 * response goes out (task.return, asked of the driver with
 * wa__export_resolve) as soon as the request's task responds; its body is
 * a stream<u8> the task writes after that, and its trailers future is
 * written when the task ends: ok(none), or an error when the task failed,
 * which aborts the body for the client. A task that fails before responding
 * gets a 500 (see http.h). */
#include <stdlib.h>

#include "../../io/http_url.h"
#include "../../wasi/http_incoming.h"
#include "http.h"
#include "stream.h"
#include "wasync/component.h"
#include "wasync/http.h"

enum { WA__SERVE_TASK, WA__SERVE_TRAILERS, WA__SERVE_RESULT, WA__SERVE_DONE };

struct wa_http_incoming {
    wa__http_incoming_head h; /* req: until the body is consumed or the request ends */
    wa_rt *rt;
    wa_join *call;     /* the export call's: its early task.return */
    uint32_t resp;     /* made, until task.return takes it */
    uint32_t trailers; /* the writable end of the response's trailers */
    uint32_t result;   /* the writable end of consume-body's result */
    int responded, status, step, writing, tasked;
    wa_stream *in, *out; /* the bodies: the request's, the response's */
    wa_join task;        /* the request's task, while tasked */
    wa__wasip3_http_value value;
    wa_wasip3_future_write write;
};

static const wa__http_request_ops wa__http_request_p3 = {wa__wasip3_request_method, wa__wasip3_request_path,
                                                        wa__wasip3_request_authority, wa__wasip3_request_header_list};

int wa_http_incoming_body(wa_http_incoming *in, wa_stream **body)
{
    if (!in->in) {
        if (!in->h.req)
            return WA_EIO;
        size_t n;
        wa_http_incoming_headers(in, &n); /* consume-body takes the request */
        uint64_t ends = wa__wasip3_http_result.new_();
        uint32_t stream, trailers;
        wa__wasip3_request_consume_body(in->h.req, (uint32_t)ends, &stream, &trailers);
        in->h.req = 0;
        in->result = (uint32_t)(ends >> 32);
        /* the trailers' future is read when the body ends: an error there
         * (a client gone midway) fails the read, not a short body */
        wa__wasip3_live_ends += 2;
        int rc = wa__wasip3_stream_open_owned(in->rt, &wa__wasip3_http_bytes, stream, 0, &wa__wasip3_http_trailers,
                                             (uint32_t[2]){trailers, 0}, wa__wasip3_http_trailers_error, 0, NULL,
                                             &in->in);
        if (rc < 0)
            return rc;
    }
    *body = in->in;
    return 0;
}

/* The driver's early task.return, in the call's own task. */
static void wa__http_resolve(void *arg)
{
    wa_http_incoming *in = arg;
    wa__wasip3_handler_return(in->resp);
    in->resp = 0;
}

int wa_http_incoming_respond(wa_http_incoming *in, int status, const wa_http_header *headers, size_t n, wa_stream **body)
{
    if (in->responded)
        return wa_misuse(WA_EMISUSE, "a second response to one HTTP request");
    uint32_t fields, result;
    int rc;
    if ((n && !headers) || status < 100 || status > 999 || wa__http_headers_check(headers, n) < 0)
        return WA_EINVAL;
    if ((rc = wa__wasip3_fields_from_list(headers, n, &fields)) < 0)
        return rc;
    /* Always a body stream (empty when body is NULL): a host reads one. */
    uint64_t bytes = wa__wasip3_http_bytes.new_(), trailers = wa__wasip3_http_trailers.new_();
    in->trailers = (uint32_t)(trailers >> 32); /* written at the end, whatever happens */
    if ((rc = wa__wasip3_response_new(fields, (uint32_t)bytes, (uint32_t)trailers, status, &in->resp, &result)) < 0) {
        wa__wasip3_http_bytes.drop_writable((uint32_t)(bytes >> 32));
        return rc;
    }
    wa__wasip3_http_result.drop_readable(result); /* (how the host sent it: not asked) */
    in->responded = 1;
    wa__export_resolve(in->call, wa__http_resolve, in);
    if ((rc = wa__wasip3_stream_open(in->rt, &wa__wasip3_http_bytes, 0, (uint32_t)(bytes >> 32), &in->out)) < 0)
        return rc;
    if (body)
        *body = in->out;
    return 0;
}

int wa_http_incoming_finish(wa_http_incoming *in)
{
    if (!in->responded || !in->out)
        return wa_misuse(WA_EMISUSE, in->responded ? "HTTP response finished twice" : "HTTP finish before respond");
    wa_stream_close(&in->out); /* the body ends; its trailers say ok at the end */
    return 0;
}

/* Starts writing a future's writable end *end (of type t) with in->value. */
static void wa__http_write(wa_http_incoming *in, const wa_wasip3_future_type *t, uint32_t *end, int failed)
{
    wa__wasip3_http_value_set(&in->value, failed);
    wa_wasip3_future_write_init(&in->write, t, *end, &in->value);
    *end = 0;
    in->writing = 1;
}

/* Frees in with whatever it still holds. */
static void wa__http_release(wa_http_incoming *in)
{
    if (in->tasked) {
        wa_join_abort(&in->task);
        wa_join_drop(&in->task);
    }
    if (in->resp) /* not returned yet: the driver must not call back */
        wa__export_resolve(in->call, NULL, NULL);
    wa_drop_held(&in->write.fut, &in->writing);
    if (in->out)
        wa_stream_close(&in->out);
    if (in->in)
        wa_stream_close(&in->in);
    if (in->resp)
        wa__wasip3_response_drop(in->resp);
    if (in->h.req)
        wa__wasip3_request_drop(in->h.req);
    wa__http_incoming_head_free(&in->h);
    free(in);
}

/* The call's task: the request's task, then the response settled, then
 * the futures written (a writable end goes only once written). */
static int wa__http_serve_poll(void *arg, wa_cx *cx)
{
    wa_http_incoming *in = arg;
    if (!cx) { /* dropped: the runtime or the call goes */
        wa__http_release(in);
        return 0;
    }
    int rc;
    switch (in->step) {
    case WA__SERVE_TASK:
        if (in->tasked) {
            if ((rc = wa_poll(&in->task.fut, cx)) == WA_PENDING)
                return WA_PENDING;
            wa_join_drop(&in->task);
            in->tasked = 0;
            in->status = rc;
        }
        if (!in->responded) {
            in->status = 0; /* our 500 is whole */
            wa_http_incoming_respond(in, 500, NULL, 0, NULL);
        }
        if (in->out)
            wa_stream_close(&in->out); /* the body ends... */
        if (in->in)
            wa_stream_close(&in->in);
        in->step = WA__SERVE_TRAILERS;
        if (in->trailers) /* ...and its trailers say how */
            wa__http_write(in, &wa__wasip3_http_trailers, &in->trailers, in->status < 0);
        /* fallthrough */
    case WA__SERVE_TRAILERS:
        if (in->writing && wa_poll_held(&in->write.fut, &in->writing, cx) == WA_PENDING)
            return WA_PENDING;
        in->step = WA__SERVE_RESULT;
        if (in->result)
            wa__http_write(in, &wa__wasip3_http_result, &in->result, 0);
        /* fallthrough */
    case WA__SERVE_RESULT:
        if (in->writing && wa_poll_held(&in->write.fut, &in->writing, cx) == WA_PENDING)
            return WA_PENDING;
        in->step = WA__SERVE_DONE;
        wa__http_release(in);
        return 0;
    default:
        return wa_misuse(WA_EMISUSE, "poll of a finished HTTP request");
    }
}

int wa__http_serve(wa_rt *rt, wa_join *join, uint32_t req, wa_http_handler handler)
{
    wa_http_incoming *in = calloc(1, sizeof *in);
    if (!in) {
        wa__wasip3_resources++; /* (taken, and dropped) */
        wa__wasip3_request_drop(req);
        return WA_ENOMEM;
    }
    wa__wasip3_resources++; /* the request is ours now */
    in->rt = rt;
    in->call = join;
    int rc;
    if ((rc = wa__http_incoming_head_read(&in->h, &wa__http_request_p3, req)) < 0)
        in->status = rc == WA_EINVAL ? wa_http_incoming_respond(in, 400, NULL, 0, NULL) : rc; /* a NUL byte: the handler could not tell what was asked */
    else if ((in->status = handler(rt, in, &in->task)) == 0)
        in->tasked = 1;
    if ((rc = wa_spawn_fn(rt, wa__http_serve_poll, in, join)) < 0)
        wa__http_release(in);
    return rc;
}

void wa__http_return(wa_future *done, int status)
{
    (void)done;
    (void)status;
    wa__wasip3_handler_return_error(); /* no response was made: the host answers */
}
