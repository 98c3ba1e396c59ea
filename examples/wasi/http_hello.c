/* http-hello: a wasi:http/proxy component, deployable unchanged on any
 * proxy host (jco serve, wasmtime serve, Spin, wasmCloud). Each request
 * runs as a task on the runtime, which writes the body through a wasync
 * stream with backpressure. GET /stats answers the runtime's live tasks and
 * sources and the WASI handles held (the tests check nothing grows).
 *   jco serve --port 8080 http_hello.component.wasm */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasync.h"
#include "wasync/wasi.h"
#include "../../src/wasi/http.h"

static wa_rt *rt;

typedef struct reply {
    WA_CORO;
    uint32_t req, outparam, body;
    wa_stream *out;
    wa_write w;
    char msg[128];
    size_t len;
} reply;

static int reply_poll(wa_future *f, wa_cx *cx)
{
    reply *t = (reply *)f;
    WA_BEGIN(t, cx);
    uint32_t len = 0, resp = wa_p2_response_new(wa_p2_fields_new()), stream;
    char *path = wa_p2_request_path(t->req, &len);
    wa_rt_stats st;
    wa_rt_stats_get(cx->rt, &st);
    if (path && len == 6 && !memcmp(path, "/stats", 6))
        t->len = (size_t)snprintf(t->msg, sizeof t->msg, "tasks=%zu sources=%zu handles=%ld\n", st.tasks,
                                  st.sources, wa_wasi_live_handles());
    else
        t->len = (size_t)snprintf(t->msg, sizeof t->msg, "hello from wasync\n");
    free(path);
    wa_p2_request_drop(t->req);
    if (wa_p2_response_set_status(resp, 200) < 0 || wa_p2_response_body(resp, &t->body) < 0)
        WA_RETURN(WA_EIO);
    wa_p2_outparam_set_ok(t->outparam, resp);
    if (wa_p2_body_write(t->body, &stream) < 0 || wa_wasi_stream_open(cx->rt, WA_NO_HANDLE, stream, &t->out) < 0)
        WA_RETURN(WA_EIO);
    WA_AWAIT(wa_write_init(&t->w, t->out, t->msg, t->len));
    wa_stream_close(t->out); /* the stream goes before the body is finished */
    if (wa_p2_body_finish(t->body) < 0)
        WA_RETURN(WA_EIO);
    WA_END();
}
static const wa_future_vt reply_vt = {reply_poll, wa_coro_drop, "reply"};

/* The 0.2 handler runs to the end of the request: the runtime drives the
 * request's task (and any it spawns) until it finishes. */
__attribute__((export_name("wasi:http/incoming-handler@0.2.12#handle"))) void handle(uint32_t req, uint32_t outparam);
void handle(uint32_t req, uint32_t outparam)
{
    if (!rt && wa_rt_new(&rt, NULL) < 0)
        abort();
    wa_p2_adopt(2); /* the request and the outparam are ours now */
    reply r = {.req = req, .outparam = outparam};
    wa_coro_init(&r.wa, &reply_vt);
    int rc = wa_block_on(rt, &r.wa.fut);
    if (rc < 0)
        fprintf(stderr, "http-hello: %s\n", wa_strerror(rc));
}
