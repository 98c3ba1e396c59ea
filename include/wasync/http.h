/* SPDX-License-Identifier: MIT */
/* wasync/http.h - HTTP client (native: libcurl; WASI 0.2 and 0.3:
 * wasi:http; JS: fetch) and server (native: HTTP/1.1 over TCP, parsed by
 * llhttp; WASI 0.2 and 0.3: wasi:http). A host without one refuses its
 * calls at compile time.
 *
 * Client: describe a request (method, URL, headers, a body in memory or a
 * stream), send it with wa_http_send, get a response whose body is a
 * wasync stream; or wa_http_fetch it whole. Dropping the future (a
 * timeout, a lost race) releases every handle and pollable it held.
 *
 * Server: WA_HTTP_SERVE(handler) exports wasi:http/incoming-handler (0.3:
 * wasi:http/handler); natively it defines main, which serves on the
 * address in WASYNC_LISTEN (wa_http_listen_init, for a program that picks
 * its address itself). Each request runs as a task the handler spawns; it reads the request (its body
 * is a stream) and answers with wa_http_incoming_respond, writing the response body
 * as a stream with backpressure. A task that fails before responding
 * answers 500; one that fails after aborts the response, so a client never
 * mistakes a truncated body for a whole one.
 */
#ifndef WASYNC_HTTP_H
#define WASYNC_HTTP_H

#include "runtime.h"
#include "stream.h"
#if defined(WASYNC_HOST_WASIP3)
#include "component.h" /* WA_HTTP_SERVE is an async export there */
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The client's calls on a host without HTTP, the server's on a host that
 * cannot serve (the JS host and WASI 0.1), the listener's off native. */
#if defined(WASYNC_HOST_WASIP1)
#define WA__HTTP_CLIENT WA__UNAVAILABLE("wasync: no HTTP on the wasip1 host (WASI 0.1 has none; http.h's client is native's, WASI 0.2's, WASI 0.3's and the js host's)")
#else
#define WA__HTTP_CLIENT
#endif
#if defined(WASYNC_HOST_JS) || defined(WASYNC_HOST_WASIP1)
#define WA__HTTP_SERVER WA__UNAVAILABLE("wasync: no HTTP server on the " WASYNC_HOST " host (http.h's server is native's, WASI 0.2's and 0.3's)")
#else
#define WA__HTTP_SERVER
#endif
#if defined(WASYNC_HOST_NATIVE)
#define WA__HTTP_LISTEN
#else
#define WA__HTTP_LISTEN WA__UNAVAILABLE("wasync: no HTTP listener on the " WASYNC_HOST " host (wa_http_listen_init is native's: a WASI host listens for the component)")
#endif

/* A header: name and value, NUL-terminated. One sent must have an RFC 9110
 * token for a name and a field-value for a value (visible ASCII, 8-bit
 * bytes, inner spaces and tabs: no CR, LF or other control), or the call
 * fails with WA_EINVAL before anything is sent. In one received, a NUL, CR
 * or LF becomes a space (as RFC 9110 5.5 allows): a value is never cut
 * short at a NUL, and never carries a line break. */
typedef struct wa_http_header {
    const char *name, *value;
} wa_http_header;

/* ---- Client ---- */

/* A request to send. Everything is borrowed until the send completes. */
typedef struct wa_http_request {
    const char *method; /* "GET" (also when NULL), "POST", ... any token */
    const char *url;    /* "http://host[:port][/path][?query]" (or https): see wa_http_send */
    const wa_http_header *headers;
    size_t nheaders;
    const void *body; /* a body in memory, body_len bytes; or */
    size_t body_len;
    wa_stream *body_stream; /* a body read to its end (not closed) */
} wa_http_request;

/* A response received: its status and headers, and its body as a stream. */
typedef struct wa_http_response wa_http_response;

/* The most bytes of header fields a request may send (each name, ": ",
 * value and CRLF counted), and natively the most a response's head may
 * bring (its status line too): past it, WA_E2BIG. Other hosts have limits
 * of their own (Node's: 16 KiB), see docs/http.md. */
#define WA_HTTP_HEAD_MAX (64 * 1024)

/* Sends a request and completes once its whole body is sent and the
 * response's head has arrived: status 0 with s->response (a new response,
 * the caller's to free), or an error:
 *   WA_EINVAL       a bad URL, method or header (nothing was sent)
 *   WA_E2BIG        request headers, or natively the response's head,
 *                   over WA_HTTP_HEAD_MAX; the host's limit elsewhere
 *   WA_ENOTFOUND    the host name does not resolve
 *   WA_ECONNREFUSED, WA_ECONNRESET, WA_ETIMEDOUT  as they say
 *   WA_EPROTO       the server's answer is not HTTP, or TLS failed
 *   WA_EIO          another failure of the host's
 * and wa_http_send_reason says why in the host's words. The URL is
 * checked first: visible ASCII only (a space, control or 8-bit byte is
 * WA_EINVAL, not escaped for you: write it as %20 and the like), every '%'
 * an escape, a scheme, a host (a name or a bracketed IP literal), a port
 * from 1 to 65535, no userinfo ("user@"), no query without a path; a
 * "#fragment" is not sent. A method must be a token. A POST, PUT or PATCH
 * without a body says "Content-Length: 0" (unless its headers give one). */
typedef struct wa_http_send {
    wa_future fut;
    const wa_http_request *req;
    int step;
    struct wa_http_call *call; /* private */
    wa_http_response *response;
    char reason[WA_REASON_MAX]; /* private: wa_http_send_reason */
} wa_http_send;
/* Initialises s to send req (borrowed); returns the future. */
WA__HTTP_CLIENT wa_future *wa_http_send_init(wa_http_send *s, const wa_http_request *req);

/* Why s failed, in the host's words: natively curl's message, on WASI the
 * wasi:http error-code's case and payload ("DNS-error: ENOTFOUND
 * (info-code 3008)"), on the JS host the exception's name and message.
 * "" before s completed, after a success, and for a request the checks
 * refused (WA_EINVAL; docs/http.md has each host's codes). Borrowed from
 * s: a string in its storage, readable after s completed and was dropped
 * (as an await drops it), until the storage is initialised again. */
WA__HTTP_CLIENT const char *wa_http_send_reason(const wa_http_send *s);

/* The response's status code (200, 404, ...). A response handle is
 * checked by every call that takes it: one freed (through this copy of
 * the handle or another) is reported as misuse of the call, which then
 * gives WA_EMISUSE, NULL or nothing. */
WA__HTTP_CLIENT int wa_http_response_status(const wa_http_response *r);
/* The first header named name (case-insensitive), or NULL. Borrowed from r. */
const char *wa_http_response_header(wa_http_response *r, const char *name);
/* All headers, *n of them, borrowed from r (NULL, 0 if none or no memory). */
const wa_http_header *wa_http_response_headers(wa_http_response *r, size_t *n);
/* The body, read until WA_ECLOSED; borrowed from r (closed by the free). */
WA__HTTP_CLIENT wa_stream *wa_http_response_body(wa_http_response *r);
/* Releases the response (taken; NULL: nothing) and every handle it holds;
 * every copy of r goes stale. */
WA__HTTP_CLIENT void wa_http_response_free(wa_http_response *r);

/* Sends a request and reads the whole response body (at most max bytes,
 * 0: no limit; WA_E2BIG past it). Status 0 with f->response (the caller's
 * to free), f->data (f->len bytes, NUL-terminated, the caller's to free()). */
typedef struct wa_http_fetch {
    wa_future fut;
    int step;
    size_t max;
    wa_http_send send;
    wa_read_all body;
    wa_http_response *response;
    unsigned char *data;
    size_t len;
} wa_http_fetch;
/* Initialises f to fetch req (borrowed), at most max body bytes; returns
 * the future. */
WA__HTTP_CLIENT wa_future *wa_http_fetch_init(wa_http_fetch *f, const wa_http_request *req, size_t max);
/* Why f failed: its send's reason (wa_http_send_reason), or its body's
 * read's (wa_stream_reason: the host's words for a body cut off, where it
 * has them); "" after a success, for a body past max, or where the host
 * gave no words. Borrowed from f, as there. */
WA__HTTP_CLIENT const char *wa_http_fetch_reason(const wa_http_fetch *f);

#if defined(WASYNC_HOST_JS)
/* The JS host reads a request's body stream to its end before the fetch
 * (its fetch cannot stream one over HTTP/1.1), with stream.h's reads. The
 * two inits link them only where req may have one: the call below is left
 * out where the compiler sees that it has none, so that a module whose
 * requests have none carries no stream reads. In such a module a
 * body_stream the inits did not see (set after the init, or sent through
 * a pointer to the function, which skips this) is misuse, WA_EINVAL. */
void wa__js_http_stream_bodies(void);
static inline const wa_http_request *wa__js_http_request(const wa_http_request *req)
{
    if (req && req->body_stream)
        wa__js_http_stream_bodies();
    return req;
}
/* wa_http_send_init, with req's body stream seen (above). */
#define wa_http_send_init(s, req) (wa_http_send_init)((s), wa__js_http_request(req))
/* wa_http_fetch_init, with req's body stream seen (above). */
#define wa_http_fetch_init(f, req, max) (wa_http_fetch_init)((f), wa__js_http_request(req), (max))
#endif

/* ---- Server ---- */

/* A request received, and its answer. Valid until its task ends. */
typedef struct wa_http_incoming wa_http_incoming;

/* Starts answering in: spawns the request's task on rt (e.g. with
 * wa_spawn_of) into *task. Returns 0, or an error (the server answers 500). */
typedef int (*wa_http_handler)(wa_rt *rt, wa_http_incoming *in, wa_join *task);

/* What a native listener accepts of a request (wa_http_listen's limits;
 * the defaults in brackets). Past a limit the request is answered with the
 * status said and its connection closed; the handler never sees it. */
typedef struct wa_http_limits {
    size_t head_max;       /* bytes of the request target and header fields (431, 414 for the target) [WA_HTTP_HEAD_MAX] */
    size_t headers_max;    /* header fields (431) [100] */
    uint64_t body_max;     /* body bytes, 0 for no limit (413; a body read then fails WA_E2BIG) [1 GiB] */
    uint64_t head_timeout; /* ns from a request's first byte to its head's end (the connection closes) [10 s] */
    uint64_t idle_timeout; /* ns a connection may wait for its next request (it closes) [60 s] */
} wa_http_limits;

/* A native HTTP/1.1 server (its fields private, but for limits): listens
 * on addr and serves each connection as a task, each request on it as a
 * task that handler spawns, as on WASI. Keep-alive and pipelining (answers
 * in order), bodies by Content-Length or chunked both ways, HEAD,
 * "Expect: 100-continue" (the 100 goes out when the handler first reads
 * the body). A response body whose length the handler gives in a
 * content-length header is sent as is; one written whole before the task
 * ends gets a content-length; else it is chunked (to an HTTP/1.0 client:
 * up to the close). The request and response bodies are streams with
 * backpressure: the server reads no more of a body than the handler took
 * (64 KiB ahead), and a response write waits while 64 KiB wait to go out.
 * The future serves until its task is cancelled (wa_join_cancel): then it
 * stops accepting, lets the requests in flight finish (their answers say
 * "connection: close"), closes the idle connections, and completes with
 * WA_ECANCELED once every connection is gone. Its status is otherwise a
 * failure to listen (WA_EINVAL for a bad address, WA_EADDRINUSE, ...). A
 * hard drop closes every connection at once. On a local runtime or a
 * many-threads one (wa_rt_new_mt), whose workers run the connections and
 * the requests' tasks, any of them at once; wa_http_listen_port may be
 * called from any thread. */
typedef struct wa_http_listen {
    wa_future fut;
    wa_rt *rt;
    wa_http_handler handler;
    wa_http_limits limits; /* set by init; change them before the first poll */
    char ip[48];           /* private: the address, read at init */
    uint16_t want;         /* private: the port asked, then the one bound */
    int step;              /* private */
    struct wa__native_http_server *srv; /* private */
} wa_http_listen;

/* Initialises l to serve with handler on rt at addr (borrowed, read at
 * once): "IP:PORT" or "[IPv6]:PORT", an IP literal as net.h reads it and a
 * port from 0 (a free one: wa_http_listen_port says which) to 65535.
 * Returns the future. */
WA__HTTP_LISTEN wa_future *wa_http_listen_init(wa_http_listen *l, wa_rt *rt, const char *addr, wa_http_handler handler);

/* The port l (borrowed) listens on, once its first poll bound it; else 0. */
WA__HTTP_LISTEN uint16_t wa_http_listen_port(const wa_http_listen *l);

/* Defines the wasi:http/incoming-handler export, serving every request with
 * handler on one runtime. Use once, at file scope, in a reactor component
 * of the wasi:http/proxy world. WASI 0.2 runs the guest only inside the
 * export, so each call drives the runtime until the request's task ends;
 * other tasks progress meanwhile. On WASI 0.3 it is the async export
 * wasi:http/handler#handle (world service-p3) on the callback driver
 * (wasync/component.h): the call returns the response as soon as the task
 * responds, and runs on while the task writes the body. */
#if defined(WASYNC_HOST_NATIVE)
/* (Natively: main, serving on the address in the environment variable
 * WASYNC_LISTEN, "127.0.0.1:8080" when unset, until the process ends; it
 * prints "listening on http://IP:PORT/" to stdout once bound. On a local
 * runtime, or on N workers (wa_rt_new_mt) when WASYNC_WORKERS=N. Returns
 * 1 on a failure to listen, which it reports on stderr.) */
#define WA_HTTP_SERVE(handler) \
    int main(void) { return wa__http_serve_main(handler); }
WA__HTTP_LISTEN int wa__http_serve_main(wa_http_handler handler);
#elif defined(WASYNC_HOST_WASIP3)
/* (WASI 0.3: the async export.) */
#define WA_HTTP_SERVE(handler) \
    WA_EXPORT_ASYNC("wasi:http/handler@0.3.0#handle", wa__http_serve, wa__http_return, (uint32_t req), req, (handler))
WA__HTTP_SERVER int wa__http_serve(wa_rt *rt, wa_join *join, uint32_t req, wa_http_handler handler);
WA__HTTP_SERVER void wa__http_return(wa_future *done, int status);
#else
/* (WASI 0.2: the incoming-handler export.) */
#define WA_HTTP_SERVE(handler)                                                                    \
    __attribute__((export_name("wasi:http/incoming-handler@0.2.12#handle"))) void wa__http_export( \
        uint32_t req, uint32_t out);                                                             \
    void wa__http_export(uint32_t req, uint32_t out) { wa__http_serve(req, out, (handler)); }
WA__HTTP_SERVER void wa__http_serve(uint32_t req, uint32_t out, wa_http_handler handler);
#endif

/* The request's method ("GET", ...), path with query ("/" if none) and
 * authority ("" if none): borrowed from in. A request whose method, path
 * or authority holds a NUL byte (no C string can hold it) is answered 400
 * without calling the handler. */
const char *wa_http_incoming_method(wa_http_incoming *in);
/* The request's path with query, borrowed from in. */
const char *wa_http_incoming_path(wa_http_incoming *in);
/* The request's authority, borrowed from in. */
const char *wa_http_incoming_authority(wa_http_incoming *in);
/* The request's first header named name (case-insensitive), or NULL; all
 * of them in *n. Borrowed from in. */
const char *wa_http_incoming_header(wa_http_incoming *in, const char *name);
/* All the request's headers, *n of them, borrowed from in. */
const wa_http_header *wa_http_incoming_headers(wa_http_incoming *in, size_t *n);
/* The request body as a stream, read until WA_ECLOSED, borrowed from in
 * (the same stream on every call). 0 or WA_EIO. */
WA__HTTP_SERVER int wa_http_incoming_body(wa_http_incoming *in, wa_stream **body);

/* Sends the response's head (headers borrowed) and returns its body stream
 * in *body (body may be NULL for none), borrowed from in: write it, then
 * wa_http_incoming_finish. Returns 0,
 * WA_EINVAL (a bad status or header), WA_EMISUSE on a second response. */
WA__HTTP_SERVER int wa_http_incoming_respond(wa_http_incoming *in, int status, const wa_http_header *headers, size_t n, wa_stream **body);
/* Ends the response body. A task that ends with status 0 without it is
 * finished for it; one that fails aborts the body instead. Returns 0,
 * WA_EIO (e.g. fewer bytes than a content-length said), WA_EMISUSE. */
WA__HTTP_SERVER int wa_http_incoming_finish(wa_http_incoming *in);

#ifdef __cplusplus
}
#endif
#endif
