/* SPDX-License-Identifier: MIT */
/* The native HTTP/1.1 server's connections: one task per connection reads
 * requests (http_parse.c), starts each one's task with the handler, and
 * writes the answers out in order; the request's and response's bodies
 * are streams between the two tasks.
 *
 * One request at a time: a pipelined one waits in the read buffer (the
 * parser paused at the end of the message before it) until the answer
 * before it is out. A response's head waits for its body's first bytes,
 * so that a body written whole before the task ends goes out with a
 * content-length in one write (a hello's one send); else it is chunked.
 * Backpressure both ways: the connection reads no more body than 64 KiB
 * ahead of the handler, and a response write waits while 64 KiB wait to
 * go out.
 *
 * On a many-threads runtime the connection's task and its request's run
 * on any two workers at once: the connection's lock (http_server.h) is
 * held over the connection's whole poll and taken by each of http.h's
 * calls on the request and its bodies' reads, writes and waits (the
 * getters of its head excepted: the head stays as it is until the task
 * ends). The connection's own calls on the request's behalf (its answer
 * settled) are the unlocked ones beneath; a body's close runs under it,
 * or once its request is gone. The handler is called under it. */
#define _GNU_SOURCE /* strcasestr */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>

#include "../../core/grow.h"
#include "../../core/rt.h"
#include "../../core/task.h"
#include "../../io/http_url.h"
#include "../../io/stream_handle.h"
#include "../posix/fd_stream.h"
#include "http_parse.h"
#include "http_server.h"

enum { WA__NATIVE_HTTP_AHEAD = 64 * 1024 };

/* How a response's body is framed. */
enum { WA__NATIVE_HTTP_LENGTH, WA__NATIVE_HTTP_CHUNKED, WA__NATIVE_HTTP_TO_CLOSE, WA__NATIVE_HTTP_NO_BODY };

/* How long a closing connection reads on, for the peer to see the end of
 * the answer before the socket goes (else unread bytes make a reset). */
#define WA__NATIVE_HTTP_LINGER (1000 * 1000 * 1000ull)

/* A request's body or a response's: a stream of the request's, whose
 * handle the task holds; in is NULL once the request is gone. */
typedef struct wa__native_http_body {
    wa_stream base;
    wa_http_incoming *in;
    wa_waker waker; /* the read or write that waits */
} wa__native_http_body;

struct wa_http_incoming {
    wa__native_http_conn *c;
    wa_join task;
    int tasked;    /* the task runs */
    int responded, finished, head_out;
    int framing;   /* once the head is out */
    int broken;    /* the answer failed: a 500 if its head is not out, else the connection closes */
    int continued; /* the 100 went out */
    int64_t length; /* the content-length the handler gave, or -1 */
    uint64_t sent;  /* body bytes framed */
    char *head;     /* the status line and the handler's headers, until they go out */
    size_t head_len;
    unsigned char *staged; /* body bytes written before the head went out */
    size_t slen, scap;
    wa__native_http_body *rb, *wb; /* the bodies' streams, while open */
    wa_stream *in, *out;           /* their handles */
};

struct wa__native_http_conn {
    wa__native_http_server *srv;
    int mt;               /* srv's: the lock is taken */
    pthread_mutex_t lock; /* (mt) all below, and the request's state */
    wa__native_http_conn *prev, *next;
    wa_stream *sock; /* the handle */
    wa_stream *s;    /* its head, whose vtable is called */
    wa__native_http_parse ps;
    wa_http_incoming *req; /* the request being answered */
    wa_waker waker;        /* the connection's task */
    int closing;           /* close once the answer is out */
    int failed;            /* the socket failed: nothing more goes out */
    int eof, shut, reading, writing, sleeping;
    int drained;           /* the last read took all there was */
    int heading;           /* a head is coming (its timeout runs, not the idle one) */
    uint64_t since;        /* when the wait for a request or its head began; 0: now */
    uint64_t linger, armed; /* the lingering's end; the sleep's deadline */
    size_t roff, rlen;
    unsigned char *obuf; /* what goes out, from osent */
    size_t olen, osent, ocap;
    wa_stream_wait rwait, wwait;
    wa_sleep sleep;
    time_t dated;  /* the second date is of */
    char date[40]; /* the date header's line (wa__native_http_date) */
    char rbuf[16384];
};

/* The connection's lock (http_server.h), on many threads. */
static inline void wa__native_http_conn_lock(wa__native_http_conn *c) { wa__native_http_take(c->mt, &c->lock); }
static inline void wa__native_http_conn_unlock(wa__native_http_conn *c) { wa__native_http_give(c->mt, &c->lock); }

/* ---- the bytes that go out ---- */

static void wa__native_http_conn_wake(wa__native_http_conn *c) { wa_waker_wake_by_ref(&c->waker); }

/* Queues n bytes; out of memory, the connection fails. */
static void wa__native_http_out(wa__native_http_conn *c, const void *data, size_t n)
{
    if (c->failed)
        return;
    if (c->olen + n > c->ocap && wa__grow(&c->obuf, 1, &c->ocap, c->olen + n, 4096, (size_t)-1) < 0) {
        c->failed = 1;
        return;
    }
    memcpy(c->obuf + c->olen, data, n);
    c->olen += n;
}

static const char *wa__native_http_reason(int status)
{
    switch (status) {
    case 200: return "OK";
    case 201: return "Created";
    case 204: return "No Content";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 304: return "Not Modified";
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 413: return "Content Too Large";
    case 414: return "URI Too Long";
    case 417: return "Expectation Failed";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    default: return "";
    }
}

/* c's date header line, "date: Sun, 06 Nov 1994 08:49:37 GMT\r\n" (an
 * origin server with a clock sends one: RFC 9110, 6.6.1), made again once
 * a second. By hand: strftime's names are the locale's. */
static const char *wa__native_http_date(wa__native_http_conn *c)
{
    static const char days[] = "SunMonTueWedThuFriSat", months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
    time_t now = time(NULL);
    struct tm tm;
    if (now != c->dated && gmtime_r(&now, &tm)) {
        snprintf(c->date, sizeof c->date, "date: %.3s, %02d %.3s %04d %02d:%02d:%02d GMT\r\n", days + 3 * tm.tm_wday,
                 tm.tm_mday, months + 3 * tm.tm_mon, tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
        c->dated = now;
    }
    return c->date;
}

/* An answer of the server's own, with no body, after which it closes. */
static void wa__native_http_refusal(wa__native_http_conn *c, int status)
{
    char line[160];
    int n = snprintf(line, sizeof line, "HTTP/1.1 %d %s\r\n%scontent-length: 0\r\nconnection: close\r\n\r\n", status,
                     wa__native_http_reason(status), wa__native_http_date(c));
    wa__native_http_out(c, line, (size_t)n);
    c->closing = 1;
}

/* Frames n body bytes as the head said. WA_EIO past a content-length. */
static int wa__native_http_body_out(wa_http_incoming *in, const void *data, size_t n)
{
    wa__native_http_conn *c = in->c;
    if (!n)
        return 0;
    if (in->framing == WA__NATIVE_HTTP_LENGTH && in->sent + n > (uint64_t)in->length) {
        in->broken = 1;
        return WA_EIO;
    }
    in->sent += n;
    if (in->framing == WA__NATIVE_HTTP_NO_BODY)
        return 0;
    if (in->framing == WA__NATIVE_HTTP_CHUNKED) {
        char size[24];
        wa__native_http_out(c, size, (size_t)snprintf(size, sizeof size, "%zx\r\n", n));
        wa__native_http_out(c, data, n);
        wa__native_http_out(c, "\r\n", 2);
    } else {
        wa__native_http_out(c, data, n);
    }
    return 0;
}

/* The body's end, once its head is out. WA_EIO short of a content-length. */
static int wa__native_http_body_end(wa_http_incoming *in)
{
    if (in->framing == WA__NATIVE_HTTP_CHUNKED)
        wa__native_http_out(in->c, "0\r\n\r\n", 5);
    else if (in->framing == WA__NATIVE_HTTP_TO_CLOSE)
        in->c->closing = 1;
    else if (in->framing == WA__NATIVE_HTTP_LENGTH && in->sent != (uint64_t)in->length) {
        in->broken = 1;
        in->c->closing = 1; /* the client sees a body cut short */
        return WA_EIO;
    }
    return 0;
}

/* Makes the head a 500 with no body (an answer that failed before any of
 * it went out). */
static void wa__native_http_head_500(wa_http_incoming *in)
{
    static const char line[] = "HTTP/1.1 500 Internal Server Error\r\n";
    char *head = malloc(sizeof line);
    free(in->head);
    in->head = head;
    in->head_len = head ? sizeof line - 1 : 0;
    if (head)
        memcpy(head, line, sizeof line);
    else
        in->c->failed = 1;
    in->slen = 0;
    in->length = 0;
    in->finished = 1;
}

/* Sends the head, its framing chosen now: the handler's content-length,
 * else the length of a body written whole, else chunked (to the close
 * for HTTP/1.0); then what was staged. */
static void wa__native_http_emit(wa_http_incoming *in)
{
    wa__native_http_conn *c = in->c;
    char extra[96];
    size_t n = 0;
    if (in->broken)
        wa__native_http_head_500(in);
    if (!in->head) {
        c->failed = 1;
        return;
    }
    int status = atoi(in->head + 9), head_only = !strcmp(c->ps.method, "HEAD");
    if (status == 204 || status == 304)
        in->framing = WA__NATIVE_HTTP_NO_BODY;
    else if (in->length >= 0)
        in->framing = WA__NATIVE_HTTP_LENGTH;
    else if (in->finished) {
        in->framing = WA__NATIVE_HTTP_LENGTH;
        in->length = (int64_t)in->slen;
        n += (size_t)snprintf(extra + n, sizeof extra - n, "content-length: %zu\r\n", in->slen);
    } else if (c->ps.minor >= 1) {
        in->framing = WA__NATIVE_HTTP_CHUNKED;
        n += (size_t)snprintf(extra + n, sizeof extra - n, "transfer-encoding: chunked\r\n");
    } else {
        in->framing = WA__NATIVE_HTTP_TO_CLOSE;
        c->closing = 1;
    }
    if (wa__native_http_stopping(c->srv) || (c->ps.expect_continue && !in->continued && c->ps.state != WA__NATIVE_HTTP_END))
        c->closing = 1; /* (a body the client holds back: no next request can be found after it) */
    if (c->closing)
        n += (size_t)snprintf(extra + n, sizeof extra - n, "connection: close\r\n");
    else if (c->ps.minor == 0)
        n += (size_t)snprintf(extra + n, sizeof extra - n, "connection: keep-alive\r\n");
    n += (size_t)snprintf(extra + n, sizeof extra - n, "\r\n");
    if (head_only)
        in->framing = WA__NATIVE_HTTP_NO_BODY; /* the head a GET would have, no body */
    wa__native_http_out(c, in->head, in->head_len);
    wa__native_http_out(c, extra, n);
    free(in->head);
    in->head = NULL;
    in->head_out = 1;
    wa__native_http_body_out(in, in->staged, in->slen);
    free(in->staged);
    in->staged = NULL;
    in->slen = in->scap = 0;
    if (in->finished)
        wa__native_http_body_end(in);
}

/* ---- the bodies' streams ---- */

static wa__native_http_body *wa__native_http_body_of(wa_stream *s) { return (wa__native_http_body *)s; }

/* A request's body read, its request's connection locked. */
static int wa__native_http_body_take(wa_http_incoming *in, void *buf, size_t cap, size_t *n)
{
    wa__native_http_conn *c = in->c;
    if ((*n = wa__native_http_parse_body_take(&c->ps, buf, cap)) > 0) {
        wa__native_http_conn_wake(c); /* room to read ahead */
        return 0;
    }
    if (c->ps.state == WA__NATIVE_HTTP_END)
        return WA_ECLOSED;
    if (c->ps.state == WA__NATIVE_HTTP_ERROR)
        return c->ps.status == 413 ? WA_E2BIG : WA_EIO;
    if (c->eof || c->failed)
        return WA_EIO; /* the client went before the body's end */
    if (c->ps.expect_continue && !in->continued && !in->responded) {
        static const char go[] = "HTTP/1.1 100 Continue\r\n\r\n";
        in->continued = 1; /* the client waits for it to send the body */
        wa__native_http_out(c, go, sizeof go - 1);
        wa__native_http_conn_wake(c);
    }
    return WA_EAGAIN;
}

/* A response's body write, its request's connection locked. */
static int wa__native_http_body_put(wa_http_incoming *in, const void *buf, size_t len, size_t *n)
{
    wa__native_http_conn *c = in->c;
    if (c->failed)
        return WA_ECLOSED;
    if (!in->head_out && in->slen + len > WA__NATIVE_HTTP_AHEAD)
        wa__native_http_emit(in); /* a long body: chunked from here */
    if (!in->head_out) {
        if (in->slen + len > in->scap && wa__grow(&in->staged, 1, &in->scap, in->slen + len, 256, (size_t)-1) < 0)
            return WA_ENOMEM;
        memcpy(in->staged + in->slen, buf, len);
        in->slen += len;
        *n = len;
        wa__native_http_conn_wake(c);
        return 0;
    }
    size_t queued = c->olen - c->osent;
    if (queued >= WA__NATIVE_HTTP_AHEAD)
        return WA_EAGAIN;
    if (len > WA__NATIVE_HTTP_AHEAD - queued)
        len = WA__NATIVE_HTTP_AHEAD - queued;
    int rc = wa__native_http_body_out(in, buf, len);
    if (rc < 0)
        return rc;
    if (c->failed)
        return WA_ENOMEM;
    *n = len;
    wa__native_http_conn_wake(c);
    return 0;
}

/* The body's request is read without the lock: it goes (NULL) only once
 * the request's task ended, and then it is the connection's alone. */
static int wa__native_http_body_read(wa_stream *s, void *buf, size_t cap, size_t *n)
{
    wa_http_incoming *in = wa__native_http_body_of(s)->in;
    if (!in)
        return WA_ECLOSED;
    wa__native_http_conn_lock(in->c);
    int rc = wa__native_http_body_take(in, buf, cap, n);
    wa__native_http_conn_unlock(in->c);
    return rc;
}

static int wa__native_http_body_write(wa_stream *s, const void *buf, size_t len, size_t *n)
{
    wa_http_incoming *in = wa__native_http_body_of(s)->in;
    if (!in)
        return WA_ECLOSED;
    wa__native_http_conn_lock(in->c);
    int rc = wa__native_http_body_put(in, buf, len, n);
    wa__native_http_conn_unlock(in->c);
    return rc;
}

/* Whether an operation of direction dir may go on (or fail) now. */
static int wa__native_http_body_can(wa__native_http_body *b, int dir)
{
    wa_http_incoming *in = b->in;
    if (!in || in->c->failed)
        return 1;
    wa__native_http_conn *c = in->c;
    if (dir == WA_STREAM_WRITE)
        return !in->head_out || c->olen - c->osent < WA__NATIVE_HTTP_AHEAD;
    return c->ps.body_len > c->ps.body_off || c->ps.state == WA__NATIVE_HTTP_END ||
           c->ps.state == WA__NATIVE_HTTP_ERROR || c->eof;
}

typedef struct wa__native_http_wait {
    wa_future fut;
    wa__native_http_body *b;
    int dir;
} wa__native_http_wait;
_Static_assert(sizeof(wa__native_http_wait) <= WA_STREAM_WAIT_SIZE, "readiness storage too small");

static int wa__native_http_wait_poll(wa_future *f, wa_cx *cx)
{
    wa__native_http_wait *w = (wa__native_http_wait *)f;
    wa_http_incoming *in = w->b->in;
    if (!in)
        return WA_READY;
    wa__native_http_conn_lock(in->c);
    int can = wa__native_http_body_can(w->b, w->dir);
    if (!can)
        wa_waker_store(&w->b->waker, cx); /* (under the lock its wakes are made under) */
    wa__native_http_conn_unlock(in->c);
    return can ? WA_READY : WA_PENDING;
}

static void wa__native_http_wait_drop(wa_future *f)
{
    wa__native_http_body *b = ((wa__native_http_wait *)f)->b;
    wa_http_incoming *in = b->in;
    if (in)
        wa__native_http_conn_lock(in->c);
    wa_waker_drop(&b->waker);
    if (in)
        wa__native_http_conn_unlock(in->c);
}

static const wa_future_vt wa__native_http_wait_vt = {wa__native_http_wait_poll, wa__native_http_wait_drop,
                                                      "http_body_wait"};

static wa_future *wa__native_http_body_ready(wa_stream *s, int dir, void *storage)
{
    wa__native_http_wait *w = storage;
    *w = (wa__native_http_wait){{&wa__native_http_wait_vt}, wa__native_http_body_of(s), dir};
    return &w->fut;
}

static void wa__native_http_body_close(wa_stream *s)
{
    wa__native_http_body *b = wa__native_http_body_of(s);
    wa_http_incoming *in = b->in;
    if (in && in->rb == b)
        in->rb = NULL;
    else if (in)
        in->wb = NULL;
    wa_waker_drop(&b->waker);
    free(b);
}

static int wa__native_http_refused_read(wa_stream *s, void *buf, size_t cap, size_t *n)
{
    (void)s, (void)buf, (void)cap, (void)n;
    return WA_EINVAL; /* a response body is only written */
}

static const wa_stream_vt wa__native_http_request_body_vt = {
    wa__native_http_body_read, wa__stream_write_refused, wa__stream_flush_none, wa__native_http_body_ready,
    wa__native_http_body_close};
static const wa_stream_vt wa__native_http_response_body_vt = {
    wa__native_http_refused_read, wa__native_http_body_write, wa__stream_flush_none, wa__native_http_body_ready,
    wa__native_http_body_close};

/* A new body stream of in's with vt: its head in *b, its handle in *out. */
static int wa__native_http_body_new(wa_http_incoming *in, const wa_stream_vt *vt, wa__native_http_body **b,
                                    wa_stream **out)
{
    wa__native_http_body *s = calloc(1, sizeof *s);
    if (!s)
        return WA_ENOMEM;
    s->base = (wa_stream)WA_STREAM_INIT(vt);
    s->in = in;
    *b = s;
    *out = &s->base;
    return wa__stream_handle(0, out); /* (closed, and *b cleared, if not) */
}

/* ---- the request's calls (http.h) ---- */

const char *wa_http_incoming_method(wa_http_incoming *in) { return in->c->ps.method; }
const char *wa_http_incoming_path(wa_http_incoming *in) { return in->c->ps.path; }
const char *wa_http_incoming_authority(wa_http_incoming *in) { return in->c->ps.authority; }

const char *wa_http_incoming_header(wa_http_incoming *in, const char *name)
{
    return wa__http_headers_find(in->c->ps.headers, in->c->ps.nheaders, name);
}

const wa_http_header *wa_http_incoming_headers(wa_http_incoming *in, size_t *n)
{
    *n = in->c->ps.nheaders;
    return *n ? in->c->ps.headers : NULL;
}

int wa_http_incoming_body(wa_http_incoming *in, wa_stream **body)
{
    int rc = 0;
    wa__native_http_conn_lock(in->c);
    if (in->in || (rc = wa__native_http_body_new(in, &wa__native_http_request_body_vt, &in->rb, &in->in)) == 0)
        *body = in->in;
    wa__native_http_conn_unlock(in->c);
    return rc;
}

/* The handler's headers for the head; a content-length given is the
 * framing, the framing's own headers are the server's. */
static int wa__native_http_head_make(wa_http_incoming *in, int status, const wa_http_header *headers, size_t n)
{
    size_t len = 64 + sizeof in->c->date;
    int dated = 0; /* the handler gave its own */
    for (size_t i = 0; i < n; i++) {
        len += strlen(headers[i].name) + strlen(headers[i].value) + 4;
        dated |= !strcasecmp(headers[i].name, "date");
    }
    char *head = malloc(len), *p = head;
    if (!head)
        return WA_ENOMEM;
    p += sprintf(p, "HTTP/1.1 %03d %s\r\n%s", status, wa__native_http_reason(status),
                 dated ? "" : wa__native_http_date(in->c));
    for (size_t i = 0; i < n; i++) {
        const char *name = headers[i].name, *value = headers[i].value;
        if (!strcasecmp(name, "transfer-encoding"))
            continue;
        if (!strcasecmp(name, "connection")) {
            if (strcasestr(value, "close"))
                in->c->closing = 1;
            continue;
        }
        if (!strcasecmp(name, "content-length")) {
            char *end;
            unsigned long long v = strtoull(value, &end, 10);
            if (*value < '0' || *value > '9' || *end || (in->length >= 0 && (uint64_t)in->length != v)) {
                free(head);
                return WA_EINVAL;
            }
            in->length = (int64_t)v;
        }
        p += sprintf(p, "%s: %s\r\n", name, value);
    }
    in->head = head;
    in->head_len = (size_t)(p - head);
    return 0;
}

/* wa_http_incoming_respond's and _finish's work, the connection locked
 * (by them, or by the connection's task settling the answer). */
static int wa__native_http_respond(wa_http_incoming *in, int status, const wa_http_header *headers, size_t n,
                                   wa_stream **body)
{
    if (in->responded)
        return wa__misuse_in(WA_EMISUSE, "wa_http_incoming_respond", "a second response to one HTTP request");
    int rc;
    if ((n && !headers) || status < 200 || status > 999 || wa__http_headers_check(headers, n) < 0)
        return WA_EINVAL;
    if ((rc = wa__native_http_head_make(in, status, headers, n)) < 0) {
        in->length = -1;
        return rc;
    }
    if (body && (rc = wa__native_http_body_new(in, &wa__native_http_response_body_vt, &in->wb, &in->out)) < 0) {
        free(in->head);
        in->head = NULL;
        in->length = -1;
        return rc;
    }
    in->responded = 1;
    if (body)
        *body = in->out;
    else
        in->finished = 1; /* no body to write */
    wa__native_http_conn_wake(in->c);
    return 0;
}

static int wa__native_http_finish(wa_http_incoming *in)
{
    if (!in->responded || in->finished)
        return wa__misuse_in(WA_EMISUSE, "wa_http_incoming_finish",
                             in->responded ? "the response finished twice" : "finish before respond");
    int rc = 0;
    in->finished = 1;
    if (in->out)
        wa_stream_close(&in->out);
    if (in->head_out)
        rc = wa__native_http_body_end(in);
    else if (in->length >= 0 && in->slen != (uint64_t)in->length)
        in->broken = 1, rc = WA_EIO; /* (its head is not out: a 500 goes instead) */
    wa__native_http_conn_wake(in->c);
    return rc;
}

int wa_http_incoming_respond(wa_http_incoming *in, int status, const wa_http_header *headers, size_t n, wa_stream **body)
{
    wa__native_http_conn_lock(in->c);
    int rc = wa__native_http_respond(in, status, headers, n, body);
    wa__native_http_conn_unlock(in->c);
    return rc;
}

int wa_http_incoming_finish(wa_http_incoming *in)
{
    wa__native_http_conn_lock(in->c);
    int rc = wa__native_http_finish(in);
    wa__native_http_conn_unlock(in->c);
    return rc;
}

/* The task ended with status rc: the answer is settled (a 500 if none,
 * or the refusal of a body past its limit; finished, or aborted on a
 * failure), the bodies' handles closed. */
static void wa__native_http_settle(wa_http_incoming *in, int rc)
{
    wa__native_http_conn *c = in->c;
    if (!in->responded) {
        int status = c->ps.state == WA__NATIVE_HTTP_ERROR ? c->ps.status : 500;
        if (wa__native_http_respond(in, status, NULL, 0, NULL) < 0)
            c->failed = 1; /* not even that */
    } else if (!in->finished && rc < 0) {
        in->broken = 1; /* aborted: a 500 if nothing went out, else a close that cuts the body */
        in->finished = 1;
        if (in->head_out)
            c->closing = 1;
    } else if (!in->finished) {
        wa__native_http_finish(in);
    }
    if (in->in)
        wa_stream_close(&in->in);
    if (in->out)
        wa_stream_close(&in->out);
}

static void wa__native_http_request_free(wa_http_incoming *in)
{
    if (in->tasked) {
        wa_join_abort(&in->task);
        wa_join_drop(&in->task);
    }
    if (in->in)
        wa_stream_close(&in->in);
    if (in->out)
        wa_stream_close(&in->out);
    if (in->rb) /* still read somewhere (the stream's close waits for that) */
        in->rb->in = NULL;
    if (in->wb)
        in->wb->in = NULL;
    free(in->head);
    free(in->staged);
    free(in);
}

/* ---- the connection ---- */

/* A request's head is whole: its task starts. */
static void wa__native_http_dispatch(wa__native_http_conn *c)
{
    wa_http_incoming *in = calloc(1, sizeof *in);
    if (!in) {
        wa__native_http_refusal(c, 503);
        return;
    }
    in->c = c;
    in->length = -1;
    c->req = in;
    if (!c->ps.keep_alive || wa__native_http_stopping(c->srv))
        c->closing = 1;
    int rc = c->srv->handler(c->srv->rt, in, &in->task);
    if (rc == 0)
        in->tasked = 1;
    else
        wa__native_http_settle(in, rc);
}

/* Feeds what was read to the parser, as far as the request allows:
 * returns 1 if something changed. */
static int wa__native_http_feed(wa__native_http_conn *c)
{
    wa__native_http_parse *ps = &c->ps;
    wa_http_incoming *in = c->req;
    if (c->closing && !in) { /* lingering: what comes is not read */
        c->roff = c->rlen = 0;
        return 0;
    }
    if ((c->roff == c->rlen && ps->state != WA__NATIVE_HTTP_HEAD) || ps->state == WA__NATIVE_HTTP_END ||
        ps->state == WA__NATIVE_HTTP_ERROR)
        return 0; /* (after a head, bytes or none: a message with no body ends there) */
    if (in && in->tasked && ps->body_len - ps->body_off >= WA__NATIVE_HTTP_AHEAD)
        return 0; /* the handler has not taken what came */
    size_t used;
    int r = wa__native_http_parse_feed(ps, c->rbuf + c->roff, c->rlen - c->roff, &used);
    c->roff += used;
    if (c->roff == c->rlen)
        c->roff = c->rlen = 0;
    if (in && !in->tasked)
        ps->body_off = ps->body_len; /* a body nobody reads now */
    if (r == WA__NATIVE_HTTP_HEAD)
        wa__native_http_dispatch(c);
    else if (r == WA__NATIVE_HTTP_ERROR && !in)
        wa__native_http_refusal(c, ps->status);
    else if (r == WA__NATIVE_HTTP_ERROR)
        c->closing = 1; /* its task hears it from the body, and answers */
    else if (!in && !c->heading && wa__native_http_parse_started(ps)) {
        c->heading = 1; /* the head's clock starts */
        c->since = 0;
    }
    if (in && in->rb)
        wa_waker_wake_by_ref(&in->rb->waker);
    return 1;
}

/* The request is answered and its body read (or left, the connection
 * closing): the next one may begin. Returns 1 if it ended. */
static int wa__native_http_request_end(wa__native_http_conn *c)
{
    wa_http_incoming *in = c->req;
    if (!in || in->tasked || !in->head_out || !in->finished)
        return 0;
    if (c->ps.state != WA__NATIVE_HTTP_END) {
        if (!c->closing && !c->eof && !(c->ps.expect_continue && !in->continued))
            return 0; /* its body is still coming: read to its end */
        c->closing = 1; /* (not read: no next request can be found) */
    }
    wa__native_http_request_free(in);
    c->req = NULL;
    if (!c->closing) {
        wa__native_http_parse_next(&c->ps);
        c->since = 0;
        c->heading = 0;
    }
    return 1;
}

/* Writes what is queued: 0 once all is out, WA_PENDING, or an error. */
static int wa__native_http_write(wa__native_http_conn *c, wa_cx *cx)
{
    while (c->olen > c->osent) {
        int rc;
        if (c->writing && (rc = wa_poll_held(&c->wwait.fut, &c->writing, cx)) != 0)
            return rc;
        size_t n;
        rc = c->s->vt->try_write(c->s, c->obuf + c->osent, c->olen - c->osent, &n);
        if (rc == WA_EAGAIN) {
            c->s->vt->ready(c->s, WA_STREAM_WRITE, &c->wwait);
            c->writing = 1;
            continue;
        }
        if (rc < 0)
            return rc;
        c->osent += n;
        if (c->req && c->req->wb && c->olen - c->osent < WA__NATIVE_HTTP_AHEAD)
            wa_waker_wake_by_ref(&c->req->wb->waker);
    }
    c->olen = c->osent = 0;
    return 0;
}

/* Whether the connection reads now: all it read is fed, and the request
 * (if any) wants more of its body. */
static int wa__native_http_wants(const wa__native_http_conn *c)
{
    if (c->eof || c->failed || c->roff != c->rlen)
        return 0;
    if (!c->req)
        return !c->closing || c->shut;
    return c->ps.state != WA__NATIVE_HTTP_END && c->ps.state != WA__NATIVE_HTTP_ERROR &&
           c->ps.body_len - c->ps.body_off < WA__NATIVE_HTTP_AHEAD;
}

/* Reads what the socket has: 0 (bytes, or the end: c->eof), WA_PENDING,
 * or an error. A read that did not fill the buffer took all there was:
 * the next one waits for the socket's next edge first, as nginx does,
 * rather than spend a read on EAGAIN (a third of the calls of a
 * keep-alive hello; new bytes always make an edge). The price: a FIN that
 * came in the same edge as a keep-alive request is seen at the idle
 * timeout, not at once (a client that asked to keep the connection and
 * ended its half with the request). */
static int wa__native_http_read(wa__native_http_conn *c, wa_cx *cx)
{
    for (;;) {
        int rc;
        if (c->reading) {
            if ((rc = wa_poll_held(&c->rwait.fut, &c->reading, cx)) != 0)
                return rc;
            c->drained = 0;
        } else if (c->drained) {
            c->s->vt->ready(c->s, WA_STREAM_READ, &c->rwait);
            c->reading = 1;
            continue;
        }
        size_t n;
        rc = c->s->vt->try_read(c->s, c->rbuf, sizeof c->rbuf, &n);
        if (rc == 0) {
            c->roff = 0;
            c->rlen = c->shut ? 0 : n; /* (lingering: dropped) */
            c->drained = n < sizeof c->rbuf;
            return 0;
        }
        if (rc == WA_ECLOSED) {
            c->eof = 1;
            return 0;
        }
        if (rc != WA_EAGAIN)
            return rc;
        c->s->vt->ready(c->s, WA_STREAM_READ, &c->rwait);
        c->reading = 1;
    }
}

/* When the connection gives up waiting: a lingering close's end, a head's
 * timeout, the idle one; WA_NEVER while a request is answered. */
static uint64_t wa__native_http_deadline(wa__native_http_conn *c, uint64_t now)
{
    if (c->shut)
        return c->linger;
    if (c->req)
        return WA_NEVER;
    if (!c->since)
        c->since = now;
    return c->since + (c->heading ? c->srv->limits.head_timeout : c->srv->limits.idle_timeout);
}

/* Frees c, its lock not held: its request's task is over (or the
 * runtime is being freed), so only the listener may still reach it, to
 * wake it, until it leaves the list. */
static void wa__native_http_conn_free(wa__native_http_conn *c)
{
    wa__native_http_server *srv = c->srv;
    if (c->req)
        wa__native_http_request_free(c->req);
    wa_drop_held(&c->rwait.fut, &c->reading);
    wa_drop_held(&c->wwait.fut, &c->writing);
    wa_drop_held(&c->sleep.fut, &c->sleeping);
    wa_stream_close(&c->sock);
    wa__native_http_parse_free(&c->ps);
    free(c->obuf);
    wa__native_http_take(srv->mt, &srv->lock);
    if (c->prev)
        c->prev->next = c->next;
    else
        srv->conns = c->next;
    if (c->next)
        c->next->prev = c->prev;
    if (--srv->nconns == 0)
        wa_waker_wake_by_ref(&srv->waker); /* (a stop waits for it) */
    int last = wa__native_http_server_release(srv);
    wa__native_http_give(srv->mt, &srv->lock);
    wa_waker_drop(&c->waker);
    if (c->mt)
        pthread_mutex_destroy(&c->lock);
    free(c);
    if (last)
        wa__native_http_server_free(srv);
}

/* Whether the head of in's answer waits: on many threads, while the
 * request's task is in a poll on another worker (the local executor runs
 * the connection only once that poll returned). A body written whole
 * before the task ends so goes out with a content-length on either
 * executor; the connection polls again meanwhile (the task's poll ends
 * with no wake of it), as a yield. The bit is the executor's, read as
 * its workers write it. */
static int wa__native_http_head_waits(wa__native_http_conn *c, wa_http_incoming *in, wa_cx *cx)
{
    if (!c->mt || in->finished || !in->tasked ||
        !(__atomic_load_n(&in->task.task->word, __ATOMIC_ACQUIRE) & WA__T_RUNNING))
        return 0;
    wa_waker_wake_by_ref(&cx->waker);
    return 1;
}

/* One round of the connection's work: 1 if something changed, 0 if it
 * waits, -1 once it is over. */
static int wa__native_http_step(wa__native_http_conn *c, wa_cx *cx)
{
    wa_http_incoming *in = c->req;
    int rc, changed = 0;
    if (wa__native_http_dropped(c->srv) && in && in->tasked) {
        wa_join_abort(&in->task); /* the server is gone: so is the request */
        c->failed = 1;
    }
    if (wa__native_http_stopping(c->srv) || wa__native_http_dropped(c->srv))
        c->closing = 1;
    if (in && in->tasked && (rc = wa_poll(&in->task.fut, cx)) != WA_PENDING) {
        in->tasked = 0;
        wa_join_drop(&in->task);
        wa__native_http_settle(in, rc);
        changed = 1;
    }
    if (in && in->responded && !in->head_out && !c->failed && !wa__native_http_head_waits(c, in, cx))
        wa__native_http_emit(in);
    if (!c->failed && (rc = wa__native_http_write(c, cx)) < 0 && rc != WA_PENDING)
        c->failed = 1;
    if (wa__native_http_request_end(c))
        return 1;
    in = c->req;
    if (c->failed)
        return in && in->tasked ? changed : -1;
    if (c->eof && !in && c->olen == 0)
        return -1; /* (a client that ended its half first still gets the whole answer) */
    if (c->closing && !in && c->olen == 0 && !c->shut) {
        shutdown(wa__fd_stream_fd(c->s), SHUT_WR); /* the peer reads the end; we read on for a while */
        c->shut = 1;
        c->linger = wa_now(cx->rt) + WA__NATIVE_HTTP_LINGER; /* (a worker's clock, on many threads) */
        changed = 1;
    }
    if (wa__native_http_wants(c)) {
        if ((rc = wa__native_http_read(c, cx)) < 0 && rc != WA_PENDING)
            c->failed = 1;
        if (rc != WA_PENDING)
            changed = 1;
    }
    return wa__native_http_feed(c) || changed;
}

static int wa__native_http_conn_poll(void *arg, wa_cx *cx)
{
    wa__native_http_conn *c = arg;
    if (!cx) {
        wa__native_http_conn_free(c);
        return 0;
    }
    wa__native_http_conn_lock(c);
    for (;;) {
        int r = wa__native_http_step(c, cx);
        if (r < 0) {
            wa__native_http_conn_unlock(c);
            wa__native_http_conn_free(c);
            return 0;
        }
        if (r > 0)
            continue;
        uint64_t now = wa_now(cx->rt), deadline = wa__native_http_deadline(c, now);
        if (deadline == WA_NEVER)
            break;
        if (now >= deadline) { /* timed out: the connection goes */
            c->failed = 1;
            continue;
        }
        if (c->sleeping && c->armed > deadline)
            wa_drop_held(&c->sleep.fut, &c->sleeping);
        if (!c->sleeping) {
            wa_sleep_until_init(&c->sleep, deadline);
            c->armed = deadline;
            c->sleeping = 1;
        }
        if (wa_poll_held(&c->sleep.fut, &c->sleeping, cx) == WA_PENDING)
            break;
    }
    wa_waker_store(&c->waker, cx);
    wa__native_http_conn_unlock(c);
    return WA_PENDING;
}

/* A connection's lock is recursive: the handler, called under it, may
 * answer at once (wa_http_incoming_respond), as it may locally. */
static int wa__native_http_lock_init(pthread_mutex_t *m)
{
    pthread_mutexattr_t a;
    int rc = pthread_mutexattr_init(&a);
    if (rc == 0) {
        rc = pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
        if (rc == 0)
            rc = pthread_mutex_init(m, &a);
        pthread_mutexattr_destroy(&a);
    }
    return rc;
}

int wa__native_http_conn_start(wa__native_http_server *srv, wa_stream *sock)
{
    wa__native_http_conn *c = malloc(sizeof *c);
    if (!c) {
        wa_stream_close(&sock);
        return WA_ENOMEM;
    }
    memset(c, 0, offsetof(wa__native_http_conn, rbuf));
    if (srv->mt && wa__native_http_lock_init(&c->lock) != 0) {
        free(c);
        wa_stream_close(&sock);
        return WA_ENOMEM;
    }
    c->srv = srv;
    c->mt = srv->mt;
    c->sock = sock;
    c->s = wa_stream_head(sock);
    wa__native_http_parse_init(&c->ps, &srv->limits);
    wa__native_http_take(srv->mt, &srv->lock);
    c->next = srv->conns;
    if (c->next)
        c->next->prev = c;
    srv->conns = c;
    srv->nconns++;
    srv->refs++;
    wa__native_http_give(srv->mt, &srv->lock);
    int rc = wa_spawn_fn(srv->rt, wa__native_http_conn_poll, c, NULL);
    if (rc < 0)
        wa__native_http_conn_free(c);
    return rc;
}

void wa__native_http_conn_wake_all(wa__native_http_server *srv)
{
    wa__native_http_take(srv->mt, &srv->lock);
    for (wa__native_http_conn *c = srv->conns; c; c = c->next) {
        wa__native_http_conn_lock(c); /* (its waker is stored under it) */
        wa__native_http_conn_wake(c);
        wa__native_http_conn_unlock(c);
    }
    wa__native_http_give(srv->mt, &srv->lock);
}
