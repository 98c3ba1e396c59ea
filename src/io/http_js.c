/* The HTTP client on the JS host: http.h over the glue's fetch
 * (js/fetch.mjs), as host operations (js_ops.c). A send is one operation
 * (HTTP_SEND: the whole request, answered with the response's head); the
 * response is a key the glue keeps its Response under (a handle: freeing
 * it aborts the fetch), and its body is read one chunk of the Response's
 * stream per operation (HTTP_READ), only when the reader has taken the
 * last one: nothing is read ahead of the reader.
 *
 * The request goes to the glue as one buffer: method, URL, then each
 * header's name and value, each ending with a NUL, an empty name, then the
 * body. A body that is a stream is read to its end first: a fetch can
 * stream a request body only over HTTP/2 in Chromium (not over HTTP/1.1),
 * and it would need the glue to pull from wasm while the fetch runs. The
 * head comes back as names and values, each ending with a NUL. */
#include <stdlib.h>
#include <string.h>

#include "http_url.h"
#include "js_ops.h"
#include "wasync/http.h"

typedef struct wa_js_body {
    wa_stream base;
    wa_http_response *r; /* NULL once the response is freed */
} wa_js_body;

struct wa_http_response {
    uint32_t key; /* the glue's handle of the fetch and its Response */
    int status;
    char *head; /* the headers' bytes, which headers point into */
    wa_http_header *headers;
    size_t nheaders;
    wa_js_body *body;
    int reading;        /* rd is in flight */
    wa_js_op rd;        /* the body's read of one chunk */
    unsigned char *buf; /* the chunk read, buf[off..len) not taken yet */
    size_t off, len;
    int end; /* WA_ECLOSED, or the error that ended the body; 0 before */
};

/* What a send holds while it runs. */
struct wa_http_call {
    wa_http_response *r;
    int reading; /* the request body's stream is being read */
    wa_read_all all;
    char *req; /* the request for the glue */
    size_t req_len;
    wa_js_op op;
};

enum { WA_SEND_START, WA_SEND_BODY, WA_SEND_RUN, WA_SEND_DONE };

/* ---- the response and its body stream ---- */

static int wa_js_body_try_read(wa_stream *s, void *buf, size_t cap, size_t *n)
{
    wa_http_response *r = ((wa_js_body *)s)->r;
    if (!r)
        return WA_ECLOSED;
    if (r->off == r->len)
        return r->end ? r->end : WA_EAGAIN;
    size_t m = r->len - r->off < cap ? r->len - r->off : cap;
    memcpy(buf, r->buf + r->off, m);
    r->off += m;
    *n = m;
    if (r->off == r->len) { /* taken: the next read asks for the next chunk */
        free(r->buf);
        r->buf = NULL;
        r->off = r->len = 0;
    }
    return 0;
}

static int wa_js_body_try_write(wa_stream *s, const void *buf, size_t len, size_t *n)
{
    (void)s, (void)buf, (void)len, (void)n;
    return WA_EINVAL; /* a response body is read */
}

static int wa_js_body_try_flush(wa_stream *s)
{
    (void)s;
    return 0;
}

typedef struct wa_js_body_wait {
    wa_future fut;
    wa_js_body *b;
} wa_js_body_wait;

/* Ready once a chunk is there or the body ended: asks the glue for the
 * next chunk (the read stays with the response if this wait is dropped). */
static int wa_js_body_wait_poll(wa_future *f, wa_cx *cx)
{
    wa_http_response *r = ((wa_js_body_wait *)f)->b->r;
    if (!r || r->len || r->end)
        return WA_READY;
    if (!r->reading) {
        wa_js_op_init_(&r->rd, WA_JS_HTTP_READ, r->key, NULL, 0);
        r->reading = 1;
    }
    int rc = wa_poll_held(&r->rd.fut, &r->reading, cx);
    if (rc == WA_PENDING)
        return WA_PENDING;
    if (rc == 0 && r->rd.len) {
        r->buf = r->rd.data; /* taken */
        r->len = r->rd.len;
    } else {
        free(r->rd.data); /* a failure's message, or an empty chunk */
        r->end = rc < 0 ? rc : 0;
    }
    return WA_READY;
}

static void wa_js_body_wait_drop(wa_future *f) { (void)f; }

static const wa_future_vt wa_js_body_wait_vt = {wa_js_body_wait_poll, wa_js_body_wait_drop, "http_body_wait"};

_Static_assert(sizeof(wa_js_body_wait) <= WA_STREAM_WAIT_SIZE, "readiness storage too small");

static wa_future *wa_js_body_ready(wa_stream *s, int dir, void *storage)
{
    if (dir != WA_STREAM_READ)
        return wa_stream_error_init(storage, WA_EINVAL);
    wa_js_body_wait *w = storage;
    *w = (wa_js_body_wait){{&wa_js_body_wait_vt}, (wa_js_body *)s};
    return &w->fut;
}

static void wa_js_body_close(wa_stream *s)
{
    wa_js_body *b = (wa_js_body *)s;
    if (b->r)
        b->r->body = NULL;
    free(b);
}

static const wa_stream_vt wa_js_body_vt = {wa_js_body_try_read, wa_js_body_try_write, wa_js_body_try_flush,
                                           wa_js_body_ready, wa_js_body_close};

int wa_http_response_status(const wa_http_response *r) { return r->status; }

const char *wa_http_response_header(wa_http_response *r, const char *name)
{
    return wa_http_headers_find(r->headers, r->nheaders, name);
}

const wa_http_header *wa_http_response_headers(wa_http_response *r, size_t *n)
{
    *n = r->nheaders;
    return r->nheaders ? r->headers : NULL;
}

wa_stream *wa_http_response_body(wa_http_response *r) { return &r->body->base; }

void wa_http_response_free(wa_http_response *r)
{
    if (!r)
        return;
    wa_drop_held(&r->rd.fut, &r->reading);
    if (r->key)
        wa_js_handle_free_(r->key); /* the glue aborts the fetch */
    if (r->body) {
        wa_stream *s = &r->body->base;
        r->body->r = NULL;
        wa_stream_close(&s);
    }
    free(r->head);
    free(r->headers);
    free(r->buf);
    free(r);
}

/* Takes the head the glue delivered (n bytes at p: names and values, each
 * ending with a NUL) into r. 0, WA_EIO (not that shape) or WA_ENOMEM. */
static int wa_js_take_head(wa_http_response *r, char *p, size_t n)
{
    r->head = p;
    if (!n)
        return 0;
    size_t strs = 0;
    for (size_t i = 0; i < n; i++)
        strs += !p[i];
    if (p[n - 1] || strs % 2)
        return WA_EIO;
    if (!(r->headers = malloc(strs / 2 * sizeof *r->headers)))
        return WA_ENOMEM;
    for (char *s = p; s < p + n; r->nheaders++) {
        r->headers[r->nheaders].name = s;
        s += strlen(s) + 1;
        r->headers[r->nheaders].value = s;
        s += strlen(s) + 1;
    }
    return 0;
}

/* ---- the send ---- */

/* The request q (checked; method, and body_len bytes at body) as the
 * glue reads it, in k->req. 0 or WA_ENOMEM. */
static int wa_js_encode(struct wa_http_call *k, const wa_http_request *q, const char *method, const void *body,
                        size_t body_len)
{
    const char *strs[2] = {method, q->url};
    size_t n = strlen(method) + strlen(q->url) + 3 + body_len;
    for (size_t i = 0; i < q->nheaders; i++)
        n += strlen(q->headers[i].name) + strlen(q->headers[i].value) + 2;
    char *p = k->req = malloc(n);
    if (!p)
        return WA_ENOMEM;
    for (size_t i = 0; i < 2 + 2 * q->nheaders; i++) {
        const char *s = i < 2 ? strs[i] : i % 2 ? q->headers[i / 2 - 1].value : q->headers[i / 2 - 1].name;
        size_t len = strlen(s) + 1;
        memcpy(p, s, len);
        p += len;
    }
    *p++ = 0; /* no more headers */
    if (body_len)
        memcpy(p, body, body_len);
    k->req_len = n;
    return 0;
}

static void wa_http_call_free(wa_http_send *s)
{
    struct wa_http_call *k = s->call;
    if (s->step == WA_SEND_BODY)
        wa_drop_held(&k->all.fut, &k->reading);
    if (s->step == WA_SEND_RUN)
        wa_drop(&k->op.fut); /* unfinished: the glue aborts the fetch */
    wa_http_response_free(k->r);
    free(k->req);
    free(k);
    s->call = NULL;
    s->step = WA_SEND_DONE;
}

static int wa_http_fail(wa_http_send *s, int rc)
{
    wa_http_call_free(s);
    return rc;
}

/* Checks the request and makes the response its fetch will fill. */
static int wa_http_start(wa_http_send *s)
{
    const wa_http_request *q = s->req;
    const char *method;
    wa_http_url u;
    if (wa_http_request_check(q, &u, &method) < 0)
        return WA_EINVAL;
    struct wa_http_call *k = s->call = calloc(1, sizeof *k);
    if (!k)
        return WA_ENOMEM;
    s->step = WA_SEND_BODY;
    wa_http_response *r = k->r = calloc(1, sizeof *r);
    if (!r || !(r->body = malloc(sizeof *r->body)))
        return wa_http_fail(s, WA_ENOMEM);
    *r->body = (wa_js_body){WA_STREAM_INIT(&wa_js_body_vt), r};
    int rc = wa_js_handle_new_(r, &r->key);
    if (rc < 0)
        return wa_http_fail(s, rc);
    if (q->body_stream) {
        wa_read_all_init(&k->all, q->body_stream, 0);
        k->reading = 1;
    }
    return 0;
}

static int wa_http_send_poll(wa_future *f, wa_cx *cx)
{
    wa_http_send *s = (wa_http_send *)f;
    int rc;
    switch (s->step) {
    case WA_SEND_START:
        if ((rc = wa_http_start(s)) < 0) {
            s->step = WA_SEND_DONE;
            return rc;
        }
        /* fallthrough */
    case WA_SEND_BODY: {
        struct wa_http_call *k = s->call;
        const wa_http_request *q = s->req;
        const char *method = q->method ? q->method : "GET";
        if (q->body_stream) {
            if ((rc = wa_poll_held(&k->all.fut, &k->reading, cx)) == WA_PENDING)
                return WA_PENDING;
            if (rc < 0)
                return wa_http_fail(s, rc);
            rc = wa_js_encode(k, q, method, k->all.data, k->all.len);
            free(k->all.data);
        } else {
            rc = wa_js_encode(k, q, method, q->body, q->body_len);
        }
        if (rc < 0)
            return wa_http_fail(s, rc);
        wa_js_op_init_(&k->op, WA_JS_HTTP_SEND, k->r->key, k->req, k->req_len);
        s->step = WA_SEND_RUN;
    }
        /* fallthrough */
    case WA_SEND_RUN: {
        struct wa_http_call *k = s->call;
        if ((rc = wa_poll(&k->op.fut, cx)) == WA_PENDING)
            return WA_PENDING;
        s->step = WA_SEND_DONE; /* (the op finished: nothing to abort) */
        if (rc < 0) {
            free(k->op.data); /* the failure's message */
            return wa_http_fail(s, rc);
        }
        wa_http_response *r = k->r;
        r->status = (int)k->op.number;
        if ((rc = wa_js_take_head(r, (char *)k->op.data, k->op.len)) < 0)
            return wa_http_fail(s, rc);
        k->r = NULL;
        s->response = r; /* handed over */
        wa_http_call_free(s);
        return 0;
    }
    default:
        return wa_misuse(WA_EMISUSE, "poll of a finished or freed HTTP send");
    }
}

static void wa_http_send_drop(wa_future *f)
{
    wa_http_send *s = (wa_http_send *)f;
    if (s->call)
        wa_http_call_free(s);
    s->step = WA_SEND_DONE;
}

static const wa_future_vt wa_http_send_vt = {wa_http_send_poll, wa_http_send_drop, "http_send"};

wa_future *wa_http_send_init(wa_http_send *s, const wa_http_request *req)
{
    *s = (wa_http_send){.fut = {&wa_http_send_vt}, .req = req};
    return &s->fut;
}
