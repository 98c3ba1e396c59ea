/* SPDX-License-Identifier: MIT */
/* The HTTP client natively: one libcurl easy handle per send, driven on
 * the reactor by the runtime's multi handle (curl.c). curl's callbacks
 * fill the transfer: the head, and the body read as a stream: into the
 * buffer of a read that waits for it, else into a bounded ring (a full
 * one pauses the transfer). The request body goes from memory, or from a
 * ring the send keeps filling from a stream.
 *
 * On many threads the sends, the body reads and the driver run on any
 * worker, at once: the state curl's callbacks share with the transfers'
 * tasks is under the multi handle's lock (wa__curl_lock). A task's poll
 * holds it for its own look, never while it polls something else that
 * might take it (a request body streamed from another response). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../../core/grow.h"
#include "../../io/fifo.h"
#include "../../io/http_body.h"
#include "../../io/stream_handle.h"
#include "curl.h"
#include "wasync/http.h"

/* The response body's ring: a full one pauses the transfer, a read that
 * leaves it half empty resumes it (not every read: each resume costs curl
 * a pass over the connection). */
#define WA__CURL_BODY_MAX (256 * 1024)
/* curl's receive buffer (16 KiB by default): fewer, larger recvs, as the
 * curl command line's 100 KiB. */
#define WA__CURL_RECV_BUFFER (128 * 1024)
/* The request body's ring, read ahead from its stream. */
#define WA__CURL_SEND_MAX (256 * 1024)

struct wa_http_response {
    wa__http_response_head h; /* body: a wa__http_body; fields: kept as they come */
    wa__curl_xfer x;          /* x.c: NULL once the runtime is gone */
    struct curl_slist *out_headers;
    struct wa_http_call *call; /* the send, while it runs */
    int head, done, result;
    int paused;          /* CURLPAUSE_RECV, CURLPAUSE_SEND bits */
    size_t head_size;    /* of the head arriving: past WA_HTTP_HEAD_MAX it fails */
    int refused;         /* why a callback of ours failed the transfer: WA_E2BIG, WA_ENOMEM */
    CURLcode code;       /* how the transfer ended */
    char error[CURL_ERROR_SIZE]; /* curl's message of it (CURLOPT_ERRORBUFFER) */
    wa_waker waker;      /* the send waiting for the head */
    size_t headers_cap;
    /* A read that found nothing lends its buffer until it comes back:
     * curl's bytes go there first (no copy through the ring), the rest
     * into the ring; dst_len + body.len stays within the ring's cap, so
     * that a read dropped while lent gives its bytes back to the ring. */
    unsigned char *dst;
    size_t dst_cap, dst_len;
    int handed;         /* the read's wait saw dst ready: its try_read comes next, in the same poll */
    wa__fifo body;      /* received after dst's bytes, not read yet */
    wa_waker reader;    /* the body's reader, waiting for bytes */
};

/* What a send holds while it runs: the response being made, and the
 * request body's reading when it is a stream. */
struct wa_http_call {
    wa_http_response *r;
    const wa_http_request *req;
    size_t sent;   /* bytes of a body in memory handed to curl */
    int eof;       /* the whole body was handed to curl, or its stream ended */
    int reading;   /* rd is in flight, into out's free span */
    wa_read rd;
    wa__fifo out;  /* read from the stream, not yet handed to curl */
};

/* ---- the transfer's end ---- */

/* The code of r's transfer that ended with rc. */
static int wa__curl_error(const wa_http_response *r, CURLcode rc)
{
    switch (rc) {
    case CURLE_OK:
        return 0;
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
        return WA_ENOTFOUND;
    case CURLE_COULDNT_CONNECT:
        return WA_ECONNREFUSED;
    case CURLE_OPERATION_TIMEDOUT:
        return WA_ETIMEDOUT;
    case CURLE_WRITE_ERROR: /* a callback of ours said no */
        return r->refused ? r->refused : WA_EIO;
    case CURLE_OUT_OF_MEMORY:
        /* curl (before 8.6) says this of a header line past its limit too,
         * where nothing failed to allocate: amid a head, that is it */
        return r->h.status && !r->head ? WA_E2BIG : WA_ENOMEM;
#if LIBCURL_VERSION_NUM >= 0x080600
    case CURLE_TOO_LARGE:
        return WA_E2BIG;
#endif
    case CURLE_URL_MALFORMAT:
        return WA_EINVAL;
    case CURLE_UNSUPPORTED_PROTOCOL: /* (the scheme was checked: the server's answer) */
    case CURLE_WEIRD_SERVER_REPLY:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
    case CURLE_BAD_CONTENT_ENCODING:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
        return WA_EPROTO;
    default:
        return WA_EIO;
    }
}

/* wa__curl_xfer.done: r's transfer ended (curl's code, or the driver's
 * error rc); its send and its reader wake. */
static void wa__curl_done(wa__curl_xfer *x, CURLcode code, int rc)
{
    wa_http_response *r = (wa_http_response *)(void *)((char *)x - offsetof(wa_http_response, x));
    if (rc == 0) {
        r->code = code;
        rc = wa__curl_error(r, code);
    }
    r->done = 1;
    r->result = rc;
    wa_waker_wake(&r->waker);
    wa_waker_wake(&r->reader);
}

/* Why r's transfer failed (rc), into reason: what our callback refused,
 * else curl's message, else its code's text. */
static void wa__curl_reason(const wa_http_response *r, int rc, char *reason, size_t cap)
{
    if (r->code == CURLE_OK)
        return; /* (not curl's failure: a registration's) */
    const char *said = r->error[0] ? r->error : curl_easy_strerror(r->code);
    if (r->code == CURLE_WRITE_ERROR && r->refused == WA_E2BIG)
        snprintf(reason, cap, "response head over %d bytes", WA_HTTP_HEAD_MAX);
    else if (r->code == CURLE_OUT_OF_MEMORY && rc == WA_E2BIG)
        snprintf(reason, cap, "a response header line over curl's limit of %d bytes (curl: %s)", CURL_MAX_HTTP_HEADER,
                 said);
    else
        snprintf(reason, cap, "%s", said);
}

/* ---- curl's callbacks of one transfer ---- */

/* A received header line "name: value" kept; a NUL, CR or LF in it
 * becomes a space (see wa_http_header). */
static int wa__curl_keep_header(wa_http_response *r, const char *line, size_t n)
{
    const char *colon = memchr(line, ':', n);
    if (!colon || colon == line)
        return 0; /* (not a field line: nothing to keep) */
    wa__http_fields *f = &r->h.fields;
    if (wa__grow(&f->list, sizeof *f->list, &r->headers_cap, f->n + 1, 8, SIZE_MAX) < 0)
        return WA_ENOMEM;
    size_t name_len = (size_t)(colon - line), v = name_len + 1;
    while (v < n && (line[v] == ' ' || line[v] == '\t'))
        v++;
    while (n > v && (line[n - 1] == ' ' || line[n - 1] == '\t'))
        n--;
    char *p = malloc(name_len + 1 + (n - v) + 1);
    if (!p)
        return WA_ENOMEM;
    memcpy(p, line, name_len);
    p[name_len] = 0;
    memcpy(p + name_len + 1, line + v, n - v);
    p[name_len + 1 + n - v] = 0;
    for (size_t i = 0; i < name_len + 1 + n - v; i++)
        if (i != name_len && (p[i] == 0 || p[i] == '\r' || p[i] == '\n'))
            p[i] = ' ';
    f->list[f->n++] = (wa_http_header){p, p + name_len + 1};
    return 0;
}

static void wa__curl_drop_headers(wa_http_response *r)
{
    for (size_t i = 0; i < r->h.fields.n; i++)
        free((char *)r->h.fields.list[i].name); /* (one block with the value) */
    r->h.fields.n = 0;
}

/* CURLOPT_HEADERFUNCTION: a status line starts a head (an interim 1xx one
 * is replaced by the next), a blank line ends it. */
static size_t wa__curl_on_header(char *line, size_t size, size_t n, void *arg)
{
    (void)size;
    wa_http_response *r = arg;
    size_t len = n;
    while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
        len--;
    if (len >= 5 && !memcmp(line, "HTTP/", 5)) {
        wa__curl_drop_headers(r);
        r->h.status = 0;
        r->head_size = n;
        const char *sp = memchr(line, ' ', len);
        for (size_t i = sp ? (size_t)(sp - line) + 1 : len; i < len && line[i] >= '0' && line[i] <= '9'; i++)
            r->h.status = r->h.status * 10 + (line[i] - '0');
    } else if (!len) {
        if (r->h.status >= 200) {
            r->head = 1;
            wa_waker_wake(&r->waker);
        }
    } else if ((r->head_size += n) > WA_HTTP_HEAD_MAX) {
        r->refused = WA_E2BIG;
        return 0; /* curl fails the transfer (CURLE_WRITE_ERROR) */
    } else if ((r->refused = wa__curl_keep_header(r, line, len)) < 0) {
        return 0;
    }
    return n;
}

/* The body's ring, made (or made larger, while it is empty) to hold at
 * least n bytes: 0 or WA_ENOMEM. */
static int wa__curl_body_room(wa_http_response *r, size_t n)
{
    if (r->body.cap >= n && r->body.buf)
        return 0;
    size_t cap = n > WA__CURL_BODY_MAX ? n : WA__CURL_BODY_MAX;
    unsigned char *b = malloc(cap);
    if (!b)
        return WA_ENOMEM;
    free(r->body.buf);
    r->body = (wa__fifo){.buf = b, .cap = cap};
    return 0;
}

/* CURLOPT_WRITEFUNCTION: body bytes into a lent read buffer, then the
 * ring; one with no room pauses the transfer until the reader makes
 * some. */
static size_t wa__curl_on_body(char *data, size_t size, size_t n, void *arg)
{
    (void)size;
    wa_http_response *r = arg;
    size_t held = r->dst_len + r->body.len;
    if (held && held + n > r->body.cap) {
        r->paused |= CURLPAUSE_RECV;
        return CURL_WRITEFUNC_PAUSE; /* (curl keeps the bytes, offers them again) */
    }
    if (!held && (r->refused = wa__curl_body_room(r, n)) < 0)
        return 0; /* curl fails the transfer (CURLE_WRITE_ERROR) */
    size_t m = 0;
    if (r->dst) {
        m = r->dst_cap - r->dst_len < n ? r->dst_cap - r->dst_len : n;
        memcpy(r->dst + r->dst_len, data, m);
        r->dst_len += m;
    }
    wa__fifo_put(&r->body, data + m, n - m);
    wa_waker_wake(&r->reader);
    return n;
}

/* CURLOPT_READFUNCTION: the request body, from memory or from the ring
 * the send reads its stream into; none yet pauses the upload. */
static size_t wa__curl_on_upload(char *buf, size_t size, size_t n, void *arg)
{
    wa_http_response *r = arg;
    struct wa_http_call *k = r->call;
    n *= size;
    if (!k)
        return 0;
    const wa_http_request *q = k->req;
    if (!q->body_stream) {
        size_t left = q->body_len - k->sent, m = left < n ? left : n;
        if (m)
            memcpy(buf, (const char *)q->body + k->sent, m);
        k->sent += m;
        k->eof = k->sent == q->body_len; /* (with a length, curl asks no more) */
        return m;
    }
    if (k->out.len) {
        size_t m = wa__fifo_take(&k->out, buf, n);
        wa_waker_wake(&r->waker); /* the send reads more */
        return m;
    }
    if (k->eof)
        return 0;
    r->paused |= CURLPAUSE_SEND;
    wa_waker_wake(&r->waker);
    return CURL_READFUNC_PAUSE;
}

/* Lifts pause bits of r's transfer (curl may call the callbacks at once). */
static void wa__curl_unpause(wa_http_response *r, int bits)
{
    if (!(r->paused & bits) || r->done)
        return;
    r->paused &= ~bits;
    wa__curl_pause(&r->x, r->paused); /* (the bits left: still paused) */
}

/* ---- the response and its body stream ---- */

/* The bytes lent dst holds go back in front of the ring: its read went
 * away, or came back with another buffer. */
static void wa__curl_body_unlend(wa_http_response *r)
{
    wa__fifo_unget(&r->body, r->dst, r->dst_len);
    r->dst = NULL;
    r->dst_len = 0;
    r->handed = 0;
}

static int wa__curl_body_read_locked(wa_http_response *r, void *buf, size_t cap, size_t *n)
{
    if (r->dst == buf && r->dst_len) { /* the read that lent it, back: its bytes are in place */
        *n = r->dst_len;
        r->dst_len = 0; /* (none to give back) */
        wa__curl_body_unlend(r);
        return 0;
    }
    if (r->dst)
        wa__curl_body_unlend(r);
    if (r->body.len) {
        *n = wa__fifo_take(&r->body, buf, cap);
        if (r->body.len <= r->body.cap / 2)
            wa__curl_unpause(r, CURLPAUSE_RECV);
        return 0;
    }
    if (r->done)
        return r->result < 0 ? r->result : WA_ECLOSED;
    if (wa__curl_body_room(r, 0) < 0) /* (a ring for the bytes a dropped read gives back) */
        return WA_ENOMEM;
    r->dst = buf;
    r->dst_cap = cap;
    wa__curl_unpause(r, CURLPAUSE_RECV); /* (curl may write into dst at once) */
    return r->dst_len ? wa__curl_body_read_locked(r, buf, cap, n) : WA_EAGAIN;
}

static int wa__curl_body_try_read(wa_stream *s, void *buf, size_t cap, size_t *n)
{
    wa_http_response *r = ((wa__http_body *)s)->r;
    if (!r)
        return WA_ECLOSED;
    wa__curl_lock(r->x.c);
    int rc = wa__curl_body_read_locked(r, buf, cap, n);
    wa__curl_unlock(r->x.c);
    return rc;
}

static int wa__curl_body_wait_poll(wa_future *f, wa_cx *cx)
{
    wa_http_response *r = ((wa__http_body_wait *)f)->b->r;
    if (!r)
        return WA_READY;
    wa__curl_lock(r->x.c);
    int rc = WA_READY; /* (paused: the read resumes it) */
    if (r->dst_len || r->body.len || r->done || (r->paused & CURLPAUSE_RECV)) {
        r->handed = r->dst != NULL;
    } else {
        wa_waker_store(&r->reader, cx);
        rc = WA_PENDING;
    }
    wa__curl_unlock(r->x.c);
    return rc;
}

static void wa__curl_body_wait_drop(wa_future *f)
{
    wa_http_response *r = ((wa__http_body_wait *)f)->b->r;
    if (!r)
        return;
    wa__curl_lock(r->x.c);
    wa_waker_drop(&r->reader);
    if (r->dst && !r->handed) /* the read went away: its buffer with it */
        wa__curl_body_unlend(r);
    wa__curl_unlock(r->x.c);
}

static const wa_future_vt wa__curl_body_wait_vt = {wa__curl_body_wait_poll, wa__curl_body_wait_drop, "http_body_wait"};

static const wa_stream_vt wa__curl_body_vt = {wa__curl_body_try_read, wa__stream_write_refused, wa__stream_flush_none,
                                             wa__http_body_ready, wa__http_body_close};

void wa__http_response_release(wa_http_response *r)
{
    if (!r)
        return;
    wa__curl_remove(&r->x); /* (then the driver no longer reaches r) */
    curl_easy_cleanup(r->x.easy);
    curl_slist_free_all(r->out_headers);
    wa__http_body_detach(r);
    wa_waker_drop(&r->waker);
    wa_waker_drop(&r->reader);
    wa__curl_drop_headers(r);
    free(r->h.fields.list);
    free(r->body.buf);
    free(r);
}

/* ---- the send ---- */

/* Appends line to *l: 0 or WA_ENOMEM (*l is kept either way). */
static int wa__curl_append(struct curl_slist **l, const char *line)
{
    struct curl_slist *t = curl_slist_append(*l, line);
    if (!t)
        return WA_ENOMEM;
    *l = t;
    return 0;
}

/* The request's headers as curl's lines: "name: value", or "name;" for
 * an empty value (curl's syntax). Headers curl would add on its own
 * ("Expect: 100-continue" before a body, a form's "Content-Type" for a
 * POST) are removed ("name:") unless the request has them: what is sent
 * is what the request says, as on the other hosts. */
static int wa__curl_headers(const wa_http_request *q, struct curl_slist **out)
{
    static const char *const unasked[] = {"Expect", "Content-Type"};
    struct curl_slist *l = NULL;
    int rc = 0;
    for (size_t i = 0; i < q->nheaders && rc == 0; i++) {
        const char *name = q->headers[i].name, *value = q->headers[i].value;
        size_t n = strlen(name), v = strlen(value);
        char *line = malloc(n + v + 3);
        if (!line) {
            rc = WA_ENOMEM;
            break;
        }
        memcpy(line, name, n);
        if (v) {
            memcpy(line + n, ": ", 2);
            memcpy(line + n + 2, value, v + 1);
        } else {
            memcpy(line + n, ";", 2);
        }
        rc = wa__curl_append(&l, line);
        free(line);
    }
    for (size_t u = 0; u < sizeof unasked / sizeof unasked[0] && rc == 0; u++) {
        char line[32];
        snprintf(line, sizeof line, "%s:", unasked[u]);
        if (!wa__http_headers_find(q->headers, q->nheaders, unasked[u]))
            rc = wa__curl_append(&l, line);
    }
    if (rc < 0) {
        curl_slist_free_all(l);
        return rc;
    }
    *out = l;
    return 0;
}

static int wa__curl_setup(wa_http_response *r, const wa_http_request *q, const char *method)
{
    CURL *e = r->x.easy;
    /* (an empty body of a POST, PUT, PATCH: curl says "Content-Length: 0") */
    int has_body = q->body_stream || q->body_len || wa__http_empty_content_length(q, method);
    int rc = wa__curl_headers(q, &r->out_headers);
    if (rc < 0)
        return rc;
    if (curl_easy_setopt(e, CURLOPT_URL, q->url) != CURLE_OK ||
        curl_easy_setopt(e, CURLOPT_HTTPHEADER, r->out_headers) != CURLE_OK ||
        curl_easy_setopt(e, CURLOPT_ERRORBUFFER, r->error) != CURLE_OK ||
        curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, wa__curl_on_header) != CURLE_OK ||
        curl_easy_setopt(e, CURLOPT_HEADERDATA, r) != CURLE_OK ||
        curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, wa__curl_on_body) != CURLE_OK ||
        curl_easy_setopt(e, CURLOPT_WRITEDATA, r) != CURLE_OK ||
        curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L) != CURLE_OK ||
        curl_easy_setopt(e, CURLOPT_BUFFERSIZE, (long)WA__CURL_RECV_BUFFER) != CURLE_OK ||
        curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https") != CURLE_OK)
        return WA_ENOMEM;
    if (has_body && (curl_easy_setopt(e, CURLOPT_POST, 1L) != CURLE_OK ||
                     curl_easy_setopt(e, CURLOPT_READFUNCTION, wa__curl_on_upload) != CURLE_OK ||
                     curl_easy_setopt(e, CURLOPT_READDATA, r) != CURLE_OK ||
                     curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE,
                                      q->body_stream ? (curl_off_t)-1 : (curl_off_t)q->body_len) != CURLE_OK))
        return WA_ENOMEM;
    if (!strcmp(method, "HEAD"))
        return curl_easy_setopt(e, CURLOPT_NOBODY, 1L) == CURLE_OK ? 0 : WA_ENOMEM;
    if ((has_body && !strcmp(method, "POST")) || (!has_body && !strcmp(method, "GET")))
        return 0;
    return curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, method) == CURLE_OK ? 0 : WA_ENOMEM;
}

static void wa__http_call_free(wa_http_send *s)
{
    struct wa_http_call *k = s->call;
    wa_drop_held(&k->rd.fut, &k->reading);
    if (k->r && k->r->x.c) { /* (the upload callback reads it) */
        wa__curl_lock(k->r->x.c);
        k->r->call = NULL;
        wa__curl_unlock(k->r->x.c);
    }
    wa__http_response_release(k->r);
    free(k->out.buf);
    free(k);
}

/* Sets up the request's transfer and adds it to curl. */
static int wa__http_start(wa_http_send *s, wa_rt *rt, const wa__http_url *u, const char *method)
{
    const wa_http_request *q = s->req;
    /* (curl parses the URL again; its other schemes are not ours) */
    if ((u->scheme.len != 4 && u->scheme.len != 5) || strncasecmp(u->scheme.ptr, "https", u->scheme.len)) {
        snprintf(s->reason, sizeof s->reason, "not an http or https URL");
        return WA_EINVAL;
    }
    wa__curl *c;
    int rc = wa__curl_of(rt, &c);
    if (rc < 0)
        return rc;
    struct wa_http_call *k = calloc(1, sizeof *k);
    if (!k)
        return WA_ENOMEM;
    k->req = q;
    s->call = k;
    if (q->body_stream && !(k->out.buf = malloc(k->out.cap = WA__CURL_SEND_MAX)))
        return WA_ENOMEM;
    wa_http_response *r = k->r = calloc(1, sizeof *r);
    if (!r || wa__http_body_open(r, &wa__curl_body_vt, &wa__curl_body_wait_vt) < 0)
        return WA_ENOMEM;
    r->h.fields.loaded = 1; /* (kept as curl gives them) */
    r->x = (wa__curl_xfer){.c = c, .done = wa__curl_done};
    r->call = k;
    if (!(r->x.easy = curl_easy_init()))
        return WA_ENOMEM;
    if ((rc = wa__curl_setup(r, q, method)) < 0)
        return rc;
    k->eof = !q->body_stream && !q->body_len; /* (before the driver may run it) */
    return wa__curl_add(&r->x);
}

/* Keeps a read of the request body's stream in flight into the ring's
 * free span while it has one, and resumes the upload. 0 once the stream
 * ended and curl took it all, WA_PENDING, or the stream's error. Under the
 * lock, but the stream's read is polled without it (the stream may be
 * another response's body, whose read takes it): curl's callback only
 * takes from the ring's front, never the span past its bytes. */
static int wa__http_send_body(struct wa_http_call *k, wa_cx *cx)
{
    const wa_http_request *q = k->req;
    if (!q->body_stream)
        return k->eof || k->r->done ? 0 : WA_PENDING;
    while (!k->eof && (k->reading || k->out.len < k->out.cap)) {
        if (!k->reading) {
            size_t room;
            unsigned char *at = wa__fifo_space(&k->out, &room);
            wa_read_init(&k->rd, q->body_stream, at, room);
            k->reading = 1;
        }
        wa__curl_unlock(k->r->x.c);
        int rc = wa_poll_held(&k->rd.fut, &k->reading, cx);
        wa__curl_lock(k->r->x.c);
        if (rc == WA_PENDING)
            return WA_PENDING;
        if (rc == WA_ECLOSED)
            k->eof = 1;
        else if (rc < 0)
            return rc;
        else
            k->out.len += k->rd.n;
        wa__curl_unpause(k->r, CURLPAUSE_SEND);
    }
    return k->eof && !k->out.len ? 0 : WA_PENDING;
}

/* Feeds the body to curl until the head arrived and the body went. */
static int wa__http_run_locked(wa_http_send *s, wa_cx *cx)
{
    wa_http_response *r = s->call->r;
    wa_waker_store(&r->waker, cx); /* (before the body: curl may call back) */
    int out = wa__http_send_body(s->call, cx);
    if (out < 0 && out != WA_PENDING)
        return out;
    if (r->done && r->result < 0) {
        wa__curl_reason(r, r->result, s->reason, sizeof s->reason);
        return r->result;
    }
    if (out == WA_PENDING || !(r->head || r->done))
        return WA_PENDING;
    if (!r->head) {
        snprintf(s->reason, sizeof s->reason, "the transfer ended without a response");
        return WA_EIO;
    }
    wa_waker_drop(&r->waker);
    r->call = NULL;
    s->call->r = NULL;
    s->response = r; /* handed over */
    return 0;
}

static int wa__http_run(wa_http_send *s, wa_cx *cx)
{
    wa__curl *c = s->call->r->x.c;
    wa__curl_lock(c);
    int rc = wa__http_run_locked(s, cx);
    wa__curl_unlock(c);
    return rc;
}

const wa__http_client_ops wa__http_client_host = {wa__http_start, wa__http_run, wa__http_call_free};
