/* SPDX-License-Identifier: MIT */
/* The HTTP server API under `jco serve`, driven by http_server.test.mjs:
 *   /echo     the request body streamed back, with its content-type
 *   /info     method, path, authority and a request header
 *   /fail     fails before responding: the server answers 500
 *   /stuck    waits for what never comes: the deadlock ends the request
 *             (500) and the task is aborted, not left behind
 *   /abort    fails halfway through its body: the body is aborted, so the
 *             client sees an error, never a body that looks whole
 *   /misuse   a bad header, then two responses: WA_EINVAL, WA_EMISUSE
 *   /length   says content-length 10, writes 3, finishes: WA_EIO
 *   /stats    live tasks, sources, WASI handles, misuse reports, wasm
 *             memory pages
 *   /calls    the host calls the backend made so far (make bench's count
 *             per request, bench/wasip2/http_load.mjs)
 *   other     a short text answer, as examples/http_hello.c's (make
 *             bench's hello) */
#include <stdio.h>
#include <string.h>

#include "wasync.h"
#include "wasync/http.h"
#include "wasync/wasi.h"

/* The backend's event-loop host calls so far, as "loop=N streams=N" (the
 * calls of stream<u8> copies and ends: counted on 0.3 only). */
static size_t host_calls(wa_rt *rt, char *buf, size_t n)
{
#if defined(WASYNC_HOST_WASIP3)
    wa_wasip3_stats s;
    wa_wasip3_stats_get(rt, &s);
    return (size_t)snprintf(buf, n, "loop=%llu streams=%llu",
                            (unsigned long long)(s.async_calls + s.waits + s.polls + s.joins + s.cancels + s.drops +
                                                 s.nows),
                            (unsigned long long)(s.copies + s.copy_cancels + s.end_drops));
#else
    wa_wasip2_stats s;
    wa_wasip2_stats_get(rt, &s);
    return (size_t)snprintf(buf, n, "loop=%llu streams=-",
                            (unsigned long long)(s.polls + s.subscribes + s.drops + s.nows));
#endif
}

static int misuses;
static void count_misuse(const char *what)
{
    (void)what;
    misuses++;
}

typedef struct handler {
    WA_CORO;
    wa_http_incoming *in;
    wa_stream *in_body, *out_body;
    wa_copy copy;
    wa_write w;
    wa_notify never;
    wa_notified wait;
    char msg[512];
    size_t len;
} handler;

/* Responds 200 with msg and its length (the body written by the caller). */
static int answer(handler *t, const char *type)
{
    const wa_http_header h[] = {{"content-type", type}};
    return wa_http_incoming_respond(t->in, 200, h, 1, &t->out_body);
}

static int handler_poll(wa_future *f, wa_cx *cx)
{
    handler *t = (handler *)f;
    const char *path = wa_http_incoming_path(t->in);
    int rc;
    WA_BEGIN(t, cx);
    if (!strcmp(path, "/echo")) {
        const char *type = wa_http_incoming_header(t->in, "content-type");
        if ((rc = wa_http_incoming_body(t->in, &t->in_body)) < 0 || (rc = answer(t, type ? type : "none")) < 0)
            WA_RETURN(rc);
        WA_AWAIT(wa_copy_init(&t->copy, t->in_body, t->out_body));
        WA_RETURN(WA_STATUS);
    }
    if (!strcmp(path, "/fail"))
        WA_RETURN(WA_EIO);
    if (!strcmp(path, "/stuck")) {
        wa_notify_init(&t->never);
        WA_AWAIT(wa_notified_init(&t->wait, &t->never));
    }
    if (!strcmp(path, "/info")) {
        const char *v = wa_http_incoming_header(t->in, "X-Wasync");
        size_t n;
        wa_http_incoming_headers(t->in, &n);
        t->len = (size_t)snprintf(t->msg, sizeof t->msg, "%s %s %s x-wasync=%s headers>0=%d", wa_http_incoming_method(t->in),
                                  path, wa_http_incoming_authority(t->in), v ? v : "(none)", n > 0);
    } else if (!strcmp(path, "/misuse")) {
        const wa_http_header bad[] = {{"bad name", "x"}};
        int a = wa_http_incoming_respond(t->in, 200, bad, 1, &t->out_body);
        int b = wa_http_incoming_respond(t->in, 1000, NULL, 0, &t->out_body);
        if ((rc = answer(t, "text/plain")) < 0)
            WA_RETURN(rc);
        int c = wa_http_incoming_respond(t->in, 200, NULL, 0, &t->out_body);
        t->len = (size_t)snprintf(t->msg, sizeof t->msg, "%s / %s / %s", wa_strerror(a), wa_strerror(b),
                                  wa_strerror(c));
    } else if (!strcmp(path, "/stats")) {
        wa_rt_stats st;
        wa_rt_stats_get(cx->rt, &st);
        t->len = (size_t)snprintf(t->msg, sizeof t->msg, "tasks=%zu sources=%zu handles=%ld misuses=%d memory=%zu",
                                  st.tasks, st.sources, wa_wasi_live_handles(), misuses, __builtin_wasm_memory_size(0));
    } else if (!strcmp(path, "/calls")) {
        t->len = host_calls(cx->rt, t->msg, sizeof t->msg);
    } else if (!strcmp(path, "/length")) {
        const wa_http_header h[] = {{"content-length", "10"}};
        if ((rc = wa_http_incoming_respond(t->in, 200, h, 1, &t->out_body)) < 0)
            WA_RETURN(rc);
        WA_AWAIT(wa_write_init(&t->w, t->out_body, "abc", 3));
        fprintf(stderr, "length: %s\n", wa_strerror(wa_http_incoming_finish(t->in)));
        WA_RETURN(0);
    } else {
        t->len = (size_t)snprintf(t->msg, sizeof t->msg, "no route");
    }
    if (strcmp(path, "/misuse") && (rc = answer(t, "text/plain")) < 0)
        WA_RETURN(rc);
    WA_AWAIT(wa_write_init(&t->w, t->out_body, t->msg, t->len));
    if (!strcmp(path, "/abort"))
        WA_RETURN(WA_EIO);
    WA_RETURN(WA_STATUS);
    WA_END();
}
static const wa_future_vt handler_vt = {handler_poll, wa_coro_drop, "handler"};

static int serve(wa_rt *rt, wa_http_incoming *in, wa_join *task)
{
    wa_misuse_set_hook(count_misuse);
    handler h = {.in = in};
    wa_coro_init(&h.wa, &handler_vt);
    return wa_spawn_of(rt, &h, task);
}

WA_HTTP_SERVE(serve)
