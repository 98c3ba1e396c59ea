/* SPDX-License-Identifier: MIT */
/* http-hello: a wasi:http/proxy component, deployable unchanged on any
 * proxy host (jco serve, wasmtime serve, Spin, wasmCloud). Each request
 * runs as a task that writes its answer through a stream with backpressure.
 * GET /stats answers the runtime's live tasks and sources, the WASI
 * handles held and the wasm memory's pages (the tests check that nothing
 * grows).
 *   jco serve --port 8080 http_hello.component.wasm */
#include <stdio.h>
#include <string.h>

#include "wasync.h"
#include "wasync/http.h"
#include "wasync/wasi.h"

typedef struct hello {
    WA_CORO;
    wa_http_incoming *in;
    wa_stream *body;
    wa_write w;
    char msg[128];
    size_t len;
} hello;

WA_ASYNC(hello, t, cx)
{
    WA_BEGIN(t, cx);
    if (!strcmp(wa_http_incoming_path(t->in), "/stats")) {
        wa_rt_stats st;
        wa_rt_stats_get(cx->rt, &st);
        t->len = (size_t)snprintf(t->msg, sizeof t->msg, "tasks=%zu sources=%zu handles=%ld memory=%zu\n",
                                  st.tasks, st.sources, wa_wasi_live_handles(), __builtin_wasm_memory_size(0));
    } else {
        t->len = (size_t)snprintf(t->msg, sizeof t->msg, "hello from wasync\n");
    }
    static const wa_http_header type[] = {{"content-type", "text/plain"}};
    int rc = wa_http_incoming_respond(t->in, 200, type, 1, &t->body);
    if (rc < 0)
        WA_RETURN(rc);
    WA_AWAIT(wa_write_init(&t->w, t->body, t->msg, t->len));
    WA_RETURN(WA_STATUS); /* the server finishes the body, or aborts it on an error */
    WA_END();
}

static int serve(wa_rt *rt, wa_http_incoming *in, wa_join *task)
{
    hello h = {.in = in};
    hello_init(&h);
    return wa_spawn_of(rt, &h, task);
}

WA_HTTP_SERVE(serve)
