/* HTTP GET over wasi:http/outgoing-handler: send, await the response on
 * its future's pollable, then read the body through a wasync stream. */
#include <stdlib.h>

#include "../wasi/http.h"
#include "../wasi/io.h"
#include "wasync/http.h"

enum { WA_HTTP_SEND, WA_HTTP_RESPONSE, WA_HTTP_BODY, WA_HTTP_DONE };

/* Releases everything still held, children before parents. */
static void wa_http_release(wa_http_get *g)
{
    if (g->reading) {
        wa_drop(&g->rd.fut);
        g->reading = 0;
    }
    if (g->waiting) {
        wa_drop(&g->wait.fut);
        g->waiting = 0;
    }
    if (g->in) {
        wa_stream_close(g->in);
        g->in = NULL;
    }
    if (g->body != WA_NO_HANDLE) {
        wa_p2_incoming_body_drop(g->body);
        g->body = WA_NO_HANDLE;
    }
    if (g->resp != WA_NO_HANDLE) {
        wa_p2_incoming_response_drop(g->resp);
        g->resp = WA_NO_HANDLE;
    }
    if (g->registered) {
        wa_pollable_deregister(g->rt, g->key);
        g->registered = 0;
    }
    if (g->future != WA_NO_HANDLE) {
        wa_p2_future_drop(g->future);
        g->future = WA_NO_HANDLE;
    }
}

static int wa_http_fail(wa_http_get *g, int rc)
{
    wa_http_release(g);
    free(g->data);
    g->data = NULL;
    g->len = 0;
    g->step = WA_HTTP_DONE;
    return rc;
}

static int wa_http_get_poll(wa_future *f, wa_cx *cx)
{
    wa_http_get *g = (wa_http_get *)f;
    int rc;
    switch (g->step) {
    case WA_HTTP_SEND: {
        uint32_t req;
        if ((rc = wa_p2_request_get(g->authority, g->path, &req)) < 0 || (rc = wa_p2_http_send(req, &g->future)) < 0)
            return wa_http_fail(g, rc);
        if ((rc = wa_pollable_register(g->rt, wa_p2_future_subscribe(g->future), &g->key)) < 0)
            return wa_http_fail(g, rc);
        g->registered = 1;
        g->step = WA_HTTP_RESPONSE;
    }
        /* fallthrough */
    case WA_HTTP_RESPONSE:
        for (;;) {
            if (g->waiting) {
                if ((rc = wa_poll(&g->wait.fut, cx)) == WA_PENDING)
                    return WA_PENDING;
                wa_drop(&g->wait.fut);
                g->waiting = 0;
                if (rc < 0)
                    return wa_http_fail(g, rc);
            }
            if ((rc = wa_p2_future_get(g->future, &g->resp)) < 0)
                return wa_http_fail(g, rc);
            if (rc == 1)
                break;
            wa_pollable_wait_init(&g->wait, g->key);
            g->waiting = 1;
        }
        g->status = wa_p2_response_status(g->resp);
        uint32_t stream;
        if ((rc = wa_p2_response_consume(g->resp, &g->body, &stream)) < 0 ||
            (rc = wa_wasi_stream_open(g->rt, stream, WA_NO_HANDLE, &g->in)) < 0)
            return wa_http_fail(g, rc);
        g->step = WA_HTTP_BODY;
        /* fallthrough */
    case WA_HTTP_BODY:
        for (;;) {
            if (!g->reading) {
                if (g->cap - g->len < 16384) {
                    size_t cap = g->cap ? g->cap * 2 : 32768;
                    unsigned char *d = realloc(g->data, cap);
                    if (!d)
                        return wa_http_fail(g, WA_ENOMEM);
                    g->data = d;
                    g->cap = cap;
                }
                wa_read_init(&g->rd, g->in, g->data + g->len, g->cap - g->len);
                g->reading = 1;
            }
            if ((rc = wa_poll(&g->rd.fut, cx)) == WA_PENDING)
                return WA_PENDING;
            wa_drop(&g->rd.fut);
            g->reading = 0;
            if (rc == WA_ECLOSED)
                break; /* the end of the body */
            if (rc < 0)
                return wa_http_fail(g, rc);
            g->len += g->rd.n;
        }
        wa_http_release(g);
        g->step = WA_HTTP_DONE;
        return 0;
    default:
        return wa_misuse(WA_EMISUSE, "poll of a finished HTTP GET");
    }
}

static void wa_http_get_drop(wa_future *f)
{
    wa_http_get *g = (wa_http_get *)f;
    if (g->step != WA_HTTP_DONE)
        wa_http_fail(g, 0); /* cancelled: its partial body goes too */
}

static const wa_future_vt wa_http_get_vt = {wa_http_get_poll, wa_http_get_drop, "http_get"};

wa_future *wa_http_get_init(wa_http_get *g, wa_rt *rt, const char *authority, const char *path)
{
    *g = (wa_http_get){.fut = {&wa_http_get_vt}, .rt = rt, .authority = authority, .path = path,
                       .future = WA_NO_HANDLE, .resp = WA_NO_HANDLE, .body = WA_NO_HANDLE};
    return &g->fut;
}
