/* SPDX-License-Identifier: MIT */
/* The HTTP client on the JS host: http.h over the glue's fetch
 * (js/fetch.mjs), as host operations (ops.c). A send is one operation
 * (HTTP_SEND: the whole request, answered with the response's head); the
 * response is a key the glue keeps its Response under (a handle: freeing
 * it aborts the fetch), and its body is read one chunk of the Response's
 * stream per operation (HTTP_READ), only when the reader has taken the
 * last one: nothing is read ahead of the reader. The body's wa_stream is
 * made at the first wa_http_response_body; a fetch appends the chunks
 * itself, so that a module that only fetches carries no stream.
 *
 * The glue reads the request out of memory as the send starts: its
 * wa_http_request, the method and the body filled in (nothing encoded
 * here). A body that is a stream is read to its end first (stream_bodies.c,
 * linked only where a request may have one: http.h): a fetch can stream a
 * request body only over HTTP/2 in Chromium (not over HTTP/1.1), and it
 * would need the glue to pull from wasm while the fetch runs. The head
 * comes back as names and values, each ending with a NUL. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/handles.h"
#include "../../io/http_body.h"
#include "../../io/reason.h"
#include "../../io/stream_handle.h"
#include "http.h"
#include "ops.h"

struct wa_http_response {
    wa__http_response_head h; /* body: a wa__http_body; fields: the head's */
    uint32_t key; /* the glue's handle of the fetch and its Response */
    char *head;   /* the headers' bytes, which fields point into */
    int reading;        /* rd is in flight */
    wa_js_op rd;        /* the body's read of one chunk */
    unsigned char *buf; /* the chunk read, buf[off..len) not taken yet */
    size_t off, len;
    int end; /* WA_ECLOSED, or the error that ended the body; 0 before */
    char why[WA_REASON_MAX]; /* the glue's words for that error */
    /* the body's stream is made at the first wa_http_response_body, which
     * sets this to its release (wa__http_body_detach): a module that reads
     * no stream carries none */
    void (*detach)(wa_http_response *r);
};

enum { WA__SEND_BODY = WA__SEND_RUN, WA__SEND_FETCH };

/* ---- the response and its body stream ---- */

static int wa__js_body_try_read(wa_stream *s, void *buf, size_t cap, size_t *n)
{
    wa_http_response *r = ((wa__http_body *)s)->r;
    if (!r)
        return WA_ECLOSED;
    if (r->off == r->len) {
        if (r->end < 0 && r->end != WA_ECLOSED) /* (each read that meets it says why) */
            wa_stream_set_reason(s, WA_STREAM_READ, NULL, r->why);
        return r->end ? r->end : WA_EAGAIN;
    }
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

/* Polls r's read of the next chunk from the glue, asked for at the first
 * poll (it stays with the response if its poller goes). */
static int wa__js_body_read_poll(wa_http_response *r, wa_cx *cx)
{
    if (!r->reading) {
        wa__js_op_init(&r->rd, WA__JS_HTTP_READ, r->key, NULL, 0);
        r->reading = 1;
    }
    return wa_poll_held(&r->rd.fut, &r->reading, cx);
}

/* Ready once a chunk is there or the body ended. */
static int wa__js_body_wait_poll(wa_future *f, wa_cx *cx)
{
    wa_http_response *r = ((wa__http_body_wait *)f)->b->r;
    if (!r || r->len || r->end)
        return WA_READY;
    int rc = wa__js_body_read_poll(r, cx);
    if (rc == WA_PENDING)
        return WA_PENDING;
    if (rc == 0 && r->rd.len) {
        r->buf = r->rd.data; /* taken */
        r->len = r->rd.len;
    } else {
        if (rc < 0) /* a failure's message, or an empty chunk */
            wa__reason_set(r->why, "read", (const char *)r->rd.data, r->rd.len);
        free(r->rd.data);
        r->end = rc < 0 ? rc : 0;
    }
    return WA_READY;
}

static void wa__js_body_wait_drop(wa_future *f) { (void)f; }

static const wa_future_vt wa__js_body_wait_vt = {wa__js_body_wait_poll, wa__js_body_wait_drop, "http_body_wait"};

static const wa_stream_vt wa__js_body_vt = {wa__js_body_try_read, wa__stream_write_refused, wa__stream_flush_none,
                                           wa__http_body_ready, wa__http_body_close};

wa_stream *wa_http_response_body(wa_http_response *h)
{
    wa_http_response *r = wa__handle_at(h, WA__HANDLE_HTTP_RESPONSE, "wa_http_response_body");
    if (r && !r->detach) { /* made once (NULL after a close, as on the other hosts) */
        if (wa__http_body_open(r, &wa__js_body_vt, &wa__js_body_wait_vt) < 0)
            return NULL;
        r->detach = wa__http_body_detach;
    }
    return r ? r->h.body : NULL;
}

void wa__http_response_release(wa_http_response *r)
{
    if (!r)
        return;
    wa_drop_held(&r->rd.fut, &r->reading);
    if (r->key)
        wa__js_handle_free(r->key); /* the glue aborts the fetch */
    if (r->detach)
        r->detach(r);
    free(r->head);
    free(r->h.fields.list);
    free(r->buf);
    free(r);
}

/* Takes the head the glue delivered (n bytes at p: names and values, each
 * ending with a NUL) into r. 0, WA_EIO (not that shape) or WA_ENOMEM. */
static int wa__js_take_head(wa_http_response *r, char *p, size_t n)
{
    r->head = p;
    if (!n)
        return 0;
    size_t strs = 0;
    for (size_t i = 0; i < n; i++)
        strs += !p[i];
    if (p[n - 1] || strs % 2)
        return WA_EIO;
    wa__http_fields *f = &r->h.fields;
    if (!(f->list = malloc(strs / 2 * sizeof *f->list)))
        return WA_ENOMEM;
    for (char *s = p; s < p + n; f->n++) {
        f->list[f->n].name = s;
        s += strlen(s) + 1;
        f->list[f->n].value = s;
        s += strlen(s) + 1;
    }
    return 0;
}

/* ---- a fetch's body ---- */

/* A fetch appends the glue's chunks (HTTP_READ, as the body's stream asks
 * for them) itself, not through that stream (http_send.h); the same end,
 * limit and reasons as a wa_read_all of it. */
void wa__http_fetch_body_start(wa_http_fetch *f) { (void)f; }

static int wa__js_fetch_fail(wa_http_fetch *f, int rc)
{
    free(f->data);
    f->data = NULL;
    f->len = 0;
    return rc;
}

int wa__http_fetch_body_poll(wa_http_fetch *f, wa_cx *cx)
{
    wa_http_response *r = wa__handle_at(f->response, WA__HANDLE_HTTP_RESPONSE, "wa_http_fetch");
    if (!r)
        return wa__js_fetch_fail(f, WA_EMISUSE);
    for (;;) {
        int rc = wa__js_body_read_poll(r, cx);
        if (rc == WA_PENDING)
            return WA_PENDING;
        if (rc == WA_ECLOSED) { /* the end: len bytes and a NUL */
            unsigned char *d = realloc(f->data, f->len + 1);
            if (!d)
                return wa__js_fetch_fail(f, WA_ENOMEM);
            d[f->len] = 0;
            f->data = d;
            r->end = WA_ECLOSED;
            return 0;
        }
        if (rc < 0) { /* the glue's words for it */
            wa__reason_set(f->send.reason, "read", (const char *)r->rd.data, r->rd.len);
            free(r->rd.data);
            return wa__js_fetch_fail(f, rc);
        }
        if (f->max && r->rd.len > f->max - f->len) {
            free(r->rd.data);
            return wa__js_fetch_fail(f, WA_E2BIG);
        }
        if ((rc = wa__js_append(&f->data, &f->len, r->rd.data, r->rd.len)) < 0)
            return wa__js_fetch_fail(f, rc);
    }
}

void wa__http_fetch_body_drop(wa_http_fetch *f) { wa__js_fetch_fail(f, 0); }

/* ---- the send ---- */

/* The glue's new Request refuses what the other hosts' checks do (a URL
 * it cannot parse or that has userinfo, a method or header that is no
 * token or field-value: WA_EINVAL), so this module need not carry them:
 * the URL goes whole, unsplit. */
int wa__http_request_check(const wa_http_request *q, wa__http_url *u, const char **method)
{
    (void)u;
    return wa__http_request_shape(q, method);
}

/* Starts the fetch of request q (checked; its method, and its body: in
 * memory, or read from its stream into k->all): the glue reads its fields
 * and strings out of memory when the op starts (js/fetch.mjs, requestAt),
 * so nothing is encoded here. */
_Static_assert(offsetof(wa_http_request, body_len) == 20 && sizeof(wa_http_header) == 8,
               "js/fetch.mjs reads a request's first six words and two words a header");
static void wa__js_send(struct wa_http_call *k, const wa_http_request *q)
{
    k->sent = *q;
    k->sent.method = k->method;
    if (q->body_stream) {
        k->sent.body = k->all.data;
        k->sent.body_len = k->all.len;
    }
    wa__js_op_init(&k->op, WA__JS_HTTP_SEND, k->r->key, (const char *)&k->sent, sizeof k->sent);
}

static void wa__http_call_free(wa_http_send *s)
{
    struct wa_http_call *k = s->call;
    if (k->reading) /* (set by the reader: there is one) */
        wa__js_stream_body.drop(k);
    if (s->step == WA__SEND_FETCH)
        wa_drop(&k->op.fut); /* unfinished: the glue aborts the fetch */
    wa__http_response_release(k->r);
    free(k->all.data); /* (a body read from a stream: until the glue copied it) */
    free(k);
}

/* Makes the response the request's fetch will fill (its URL goes whole). */
static int wa__http_start(wa_http_send *s, wa_rt *rt, const wa__http_url *u, const char *method)
{
    const wa_http_request *q = s->req;
    (void)rt, (void)u;
    struct wa_http_call *k = s->call = calloc(1, sizeof *k);
    if (!k)
        return WA_ENOMEM;
    k->method = method;
    wa_http_response *r = k->r = calloc(1, sizeof *r);
    if (!r)
        return WA_ENOMEM;
    r->h.fields.loaded = 1; /* (the head's, when it comes) */
    int rc = wa__js_handle_new(r, &r->key);
    if (rc < 0)
        return rc;
    if (q->body_stream && !&wa__js_stream_body) /* (no init saw one: http.h) */
        return wa_misuse(WA_EINVAL, "wa_http_send: a body_stream its init did not see");
    return 0;
}

/* Reads a body that is a stream, then fetches. */
static int wa__http_run(wa_http_send *s, wa_cx *cx)
{
    struct wa_http_call *k = s->call;
    const wa_http_request *q = s->req;
    int rc;
    switch (s->step) {
    case WA__SEND_BODY:
        if (q->body_stream && (rc = wa__js_stream_body.poll(k, q, cx)) != 0) /* pending, or failed */
            return rc;
        wa__js_send(k, q);
        s->step = WA__SEND_FETCH;
        /* fallthrough */
    default:
        if ((rc = wa_poll(&k->op.fut, cx)) == WA_PENDING)
            return WA_PENDING;
        s->step = WA__SEND_DONE; /* (the op finished: nothing to abort) */
        if (rc < 0) { /* the glue's words for it: the reason */
            wa__http_reason_set(s, (const char *)k->op.data, k->op.len);
            free(k->op.data);
            return rc;
        }
        wa_http_response *r = k->r;
        r->h.status = (int)k->op.number;
        if ((rc = wa__js_take_head(r, (char *)k->op.data, k->op.len)) < 0)
            return rc;
        k->r = NULL;
        s->response = r; /* handed over */
        return 0;
    }
}

const wa__http_client_ops wa__http_client_host = {wa__http_start, wa__http_run, wa__http_call_free};
