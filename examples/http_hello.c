/* SPDX-License-Identifier: MIT */
/* http-hello: one source for every host that serves HTTP. As a
 * wasi:http/proxy component it is deployable unchanged on any proxy host
 * (jco serve, wasmtime serve, Spin, wasmCloud); natively WA_HTTP_SERVE is
 * main, serving on WASYNC_LISTEN (127.0.0.1:8080 when unset). Each request
 * runs as a task that writes its answer through a stream with backpressure.
 * GET /stats answers the runtime's live tasks and sources, and what the
 * host holds (the tests check that nothing grows): on WASI the handles and
 * the wasm memory's pages, natively the fds open.
 *   jco serve --port 8080 http_hello.component.wasm
 *   WASYNC_LISTEN=127.0.0.1:8080 ./http_hello */
#include <stdio.h>
#include <string.h>

#include "wasync.h"
#include "wasync/http.h"
#if defined(__wasm__)
#include "wasync/wasi.h"
/* the WASI handles held, the memory's pages */
#define HOST_STATS "handles=%ld memory=%zu", wa_wasi_live_handles(), __builtin_wasm_memory_size(0)
#else
#include <dirent.h>
/* the process's open fds (one of them the listing's own) */
static long fds_open(void)
{
    long n = 0;
    DIR *d = opendir("/proc/self/fd");
    for (; d && readdir(d); n++) {
    }
    if (d)
        closedir(d);
    return n - 2; /* (. and ..) */
}
#define HOST_STATS "fds=%ld", fds_open()
#endif

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
        int n = snprintf(t->msg, sizeof t->msg, "tasks=%zu sources=%zu ", st.tasks, st.sources);
        n += snprintf(t->msg + n, sizeof t->msg - (size_t)n, HOST_STATS);
        t->len = (size_t)n + (size_t)snprintf(t->msg + n, sizeof t->msg - (size_t)n, "\n");
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
