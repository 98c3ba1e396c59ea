/* SPDX-License-Identifier: MIT */
/* The HTTP client natively: libcurl's multi interface driven by the
 * reactor (curl_multi_socket_action). curl says which sockets to watch
 * (CURLMOPT_SOCKETFUNCTION: each becomes an fd registration) and when to
 * call it back (CURLMOPT_TIMERFUNCTION: one deadline); a driver task waits
 * on those and hands curl what happened, and curl's callbacks fill the
 * transfers: the head, the body into a bounded buffer read as a stream.
 *
 * One multi handle per runtime (on many threads, not one per worker),
 * kept as a runtime extension (rt.h): made by the first send, freed by
 * wa_rt_free. It outlives transfers because it holds curl's cache of open
 * connections, reused by the next request to the same host; the driver
 * lives as long, parked while there is nothing to wait for. The driver is
 * an internal task (wa_spawn_internal_): not the program's, so wa_rt_run
 * ends without it and it is in no stats or dump; a fetch in flight keeps
 * the program's task waiting, and the driver's fd waits and timer keep
 * that from being a deadlock. It is aborted with the other tasks, before
 * the extension goes.
 *
 * On many threads the sends, the body reads and the driver run on any
 * worker, at once: the multi handle, every call into curl (whose callbacks
 * then run) and the state those callbacks share with the transfers' tasks
 * are under the handle's lock. A task's poll holds it for its own look,
 * never while it polls something else that might take it (a request body
 * streamed from another response). */
#include <curl/curl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../../core/grow.h"
#include "../../core/rt.h"
#include "../../io/http_send.h"
#include "../../io/stream_handle.h"
#include "wasync/http.h"

/* The response body's buffer: a full one pauses the transfer. */
#define WA_CURL_BODY_MAX (256 * 1024)

typedef struct wa_curl_sock wa_curl_sock;
typedef struct wa_curl wa_curl;

/* The driver's future: waits on curl's sockets and timer. */
typedef struct wa_curl_driver {
    wa_future fut;
    wa_curl *c;
    int sleeping;
    uint64_t until; /* the sleep's deadline */
    wa_sleep sleep;
} wa_curl_driver;

struct wa_curl {
    wa_rt_ext ext;
    wa_rt *rt;             /* the runtime (not a worker's view) */
    pthread_mutex_t lock;  /* what follows, curl's calls and the transfers' shared state */
    CURLM *multi;
    wa_curl_sock *socks;   /* the sockets curl watches */
    uint64_t deadline;     /* curl's timer; WA_NEVER: none */
    int driving;           /* the driver task is alive */
    wa_waker driver;       /* the driver, parked */
    wa_curl_driver drv;    /* its future (the internal task borrows it) */
    wa_http_response *added; /* the responses whose transfers are in multi */
};

struct wa_curl_sock {
    wa_curl_sock *next;
    curl_socket_t fd;
    wa_fd_key key;
    unsigned want; /* WA_READABLE | WA_WRITABLE */
    int waiting;
    wa_fd_wait wait;
};

typedef struct wa_curl_body wa_curl_body;

struct wa_http_response {
    wa_http_response_head h; /* body: a wa_curl_body; fields: kept as they come */
    wa_curl *c;                    /* NULL once the runtime is gone */
    wa_http_response *prev, *next; /* in c->added, while added */
    CURL *easy;
    struct curl_slist *out_headers;
    struct wa_http_call *call; /* the send, while it runs */
    int head, done, result, added;
    int paused;          /* CURLPAUSE_RECV, CURLPAUSE_SEND bits */
    size_t head_size;    /* of the head arriving: past WA_HTTP_HEAD_MAX it fails */
    int refused;         /* why a callback of ours failed the transfer: WA_E2BIG, WA_ENOMEM */
    CURLcode code;       /* how the transfer ended */
    char error[CURL_ERROR_SIZE]; /* curl's message of it (CURLOPT_ERRORBUFFER) */
    wa_waker waker;      /* the send waiting for the head */
    size_t headers_cap;
    unsigned char *buf; /* the body received and not read yet */
    size_t len, cap;
    wa_waker reader;    /* the body's reader, waiting for bytes */
};

/* What a send holds while it runs: the response being made, and the
 * request body's reading when it is a stream. */
struct wa_http_call {
    wa_http_response *r;
    const wa_http_request *req;
    size_t sent;   /* bytes of a body in memory handed to curl */
    int eof;       /* the whole body was handed to curl */
    int reading;   /* rd is in flight */
    wa_read rd;
    size_t off, len; /* chunk[off..len): read from the stream, not yet sent */
    unsigned char chunk[16384];
};

struct wa_curl_body {
    wa_stream base;
    wa_http_response *r; /* NULL once the response is freed */
};

/* ---- the multi handle and its driver ---- */

static void wa_curl_wake_driver(wa_curl *c) { wa_waker_wake(&c->driver); }

static wa_curl_sock *wa_curl_sock_find(wa_curl *c, curl_socket_t fd)
{
    wa_curl_sock *s = c->socks;
    while (s && s->fd != fd)
        s = s->next;
    return s;
}

static void wa_curl_sock_free(wa_curl *c, wa_curl_sock *s)
{
    for (wa_curl_sock **p = &c->socks; *p; p = &(*p)->next)
        if (*p == s) {
            *p = s->next;
            break;
        }
    wa_drop_held(&s->wait.fut, &s->waiting);
    wa_fd_deregister(c->rt, s->key);
    free(s);
}

/* A transfer ended (rc: 0 or an error): its send and its reader wake. */
static void wa_curl_finish(wa_http_response *r, int rc)
{
    r->done = 1;
    r->result = rc;
    wa_waker_wake(&r->waker);
    wa_waker_wake(&r->reader);
}

/* CURLMOPT_SOCKETFUNCTION: watch fd for what, or stop. */
static int wa_curl_on_socket(CURL *e, curl_socket_t fd, int what, void *arg, void *sockp)
{
    (void)sockp;
    wa_curl *c = arg;
    wa_curl_sock *s = wa_curl_sock_find(c, fd);
    if (what == CURL_POLL_REMOVE) {
        if (s)
            wa_curl_sock_free(c, s);
        return 0;
    }
    if (!s) {
        int rc = (s = calloc(1, sizeof *s)) ? wa_fd_register(c->rt, fd, &s->key) : WA_ENOMEM;
        if (rc < 0) { /* the transfer cannot be waited on: it fails */
            free(s);
            wa_http_response *r;
            if (curl_easy_getinfo(e, CURLINFO_PRIVATE, (char **)&r) == CURLE_OK && r)
                wa_curl_finish(r, rc);
            return 0;
        }
        s->fd = fd;
        s->next = c->socks;
        c->socks = s;
    }
    unsigned want = (what & CURL_POLL_IN ? WA_READABLE : 0) | (what & CURL_POLL_OUT ? WA_WRITABLE : 0);
    if (want != s->want) {
        wa_drop_held(&s->wait.fut, &s->waiting); /* the driver waits anew */
        s->want = want;
    }
    wa_curl_wake_driver(c);
    return 0;
}

/* CURLMOPT_TIMERFUNCTION: call back in ms (-1: no timer). The clock is
 * read from the backend: the runtime's cache of it is its thread's, and
 * this runs on whichever worker called into curl. */
static int wa_curl_on_timer(CURLM *m, long ms, void *arg)
{
    (void)m;
    wa_curl *c = arg;
    wa_backend *b = c->rt->backend;
    c->deadline = ms < 0 ? WA_NEVER : wa_add_sat_(b->vt->now(b), (uint64_t)ms * 1000000);
    wa_curl_wake_driver(c);
    return 0;
}

/* The code of r's transfer that ended with rc. */
static int wa_curl_error(const wa_http_response *r, CURLcode rc)
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

/* r's transfer ended with rc. */
static void wa_curl_done(wa_http_response *r, CURLcode rc)
{
    r->code = rc;
    wa_curl_finish(r, wa_curl_error(r, rc));
}

/* Why r's transfer failed (rc), into reason: what our callback refused,
 * else curl's message, else its code's text. */
static void wa_curl_reason(const wa_http_response *r, int rc, char *reason, size_t cap)
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

/* Hands curl what happened on fd (or its timer), then finishes the
 * transfers that ended. */
static void wa_curl_act(wa_curl *c, curl_socket_t fd, int ev)
{
    int running;
    curl_multi_socket_action(c->multi, fd, ev, &running);
    CURLMsg *m;
    while ((m = curl_multi_info_read(c->multi, &running))) {
        wa_http_response *r;
        if (m->msg == CURLMSG_DONE && curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&r) == CURLE_OK)
            wa_curl_done(r, m->data.result);
    }
}

/* Waits on every socket curl watches and on its timer; never finishes.
 * Under the lock (wa_curl_driver_poll). */
static int wa_curl_drive(wa_curl_driver *d, wa_cx *cx)
{
    wa_curl *c = d->c;
again:
    for (wa_curl_sock *s = c->socks; s; s = s->next) {
        if (!s->want)
            continue;
        int ev = 0;
        if (!s->waiting) {
            /* curl expects level-triggered readiness: it may stop short of
             * EAGAIN (one buffer sent, more to come) on a socket that then
             * gives no new edge. So before each wait, a check of the
             * level; edges after it are kept by the registration. */
            struct pollfd p = {s->fd, (short)((s->want & WA_READABLE ? POLLIN : 0) | (s->want & WA_WRITABLE ? POLLOUT : 0)), 0};
            if (poll(&p, 1, 0) > 0)
                ev = (p.revents & (POLLIN | POLLHUP) ? CURL_CSELECT_IN : 0) | (p.revents & POLLOUT ? CURL_CSELECT_OUT : 0) |
                     (p.revents & POLLERR ? CURL_CSELECT_ERR : 0);
            if (!ev) {
                wa_fd_wait_init(&s->wait, s->key, s->want);
                s->waiting = 1;
            }
        }
        if (!ev) {
            int rc = wa_poll_held(&s->wait.fut, &s->waiting, cx);
            if (rc == WA_PENDING)
                continue;
            unsigned ready = s->wait.ready;
            ev = rc < 0 ? CURL_CSELECT_ERR
                        : (ready & WA_READABLE ? CURL_CSELECT_IN : 0) | (ready & WA_WRITABLE ? CURL_CSELECT_OUT : 0);
        }
        if (!wa_coop_proceed(cx))
            return WA_PENDING; /* (the level is checked again next time) */
        wa_curl_act(c, s->fd, ev); /* (may free s: start over) */
        goto again;
    }
    if (c->deadline != WA_NEVER) {
        if (c->deadline <= wa_now(cx->rt)) {
            c->deadline = WA_NEVER;
            wa_drop_held(&d->sleep.fut, &d->sleeping);
            wa_curl_act(c, CURL_SOCKET_TIMEOUT, 0);
            goto again;
        }
        if (!d->sleeping || d->until != c->deadline) {
            wa_drop_held(&d->sleep.fut, &d->sleeping);
            wa_sleep_until_init(&d->sleep, d->until = c->deadline);
            d->sleeping = 1;
        }
        if (wa_poll_held(&d->sleep.fut, &d->sleeping, cx) != WA_PENDING)
            goto again;
    } else {
        wa_drop_held(&d->sleep.fut, &d->sleeping);
    }
    wa_waker_store(&c->driver, cx);
    return WA_PENDING;
}

static int wa_curl_driver_poll(wa_future *f, wa_cx *cx)
{
    wa_curl *c = ((wa_curl_driver *)f)->c;
    pthread_mutex_lock(&c->lock);
    int rc = wa_curl_drive((wa_curl_driver *)f, cx);
    pthread_mutex_unlock(&c->lock);
    return rc;
}

static void wa_curl_driver_drop(wa_future *f)
{
    wa_curl_driver *d = (wa_curl_driver *)f;
    wa_curl *c = d->c;
    pthread_mutex_lock(&c->lock);
    wa_drop_held(&d->sleep.fut, &d->sleeping);
    for (wa_curl_sock *s = c->socks; s; s = s->next)
        wa_drop_held(&s->wait.fut, &s->waiting);
    wa_waker_drop(&c->driver);
    c->driving = 0; /* (the next send spawns it again) */
    pthread_mutex_unlock(&c->lock);
}

static const wa_future_vt wa_curl_driver_vt = {wa_curl_driver_poll, wa_curl_driver_drop, "http_curl"};

/* Takes r's transfer out of multi (under its lock). */
static void wa_curl_remove(wa_curl *c, wa_http_response *r)
{
    curl_multi_remove_handle(c->multi, r->easy); /* aborts it if unfinished */
    *(r->prev ? &r->prev->next : &c->added) = r->next;
    if (r->next)
        r->next->prev = r->prev;
    r->added = 0;
}

/* (every task is gone, the driver with them: no lock) */
static void wa_curl_free(wa_rt_ext *e)
{
    wa_curl *c = (wa_curl *)e;
    /* Responses the program still holds outlive the runtime: their
     * transfers end here, and their free later finds no multi handle. */
    while (c->added) {
        c->added->c = NULL;
        wa_curl_remove(c, c->added);
    }
    curl_multi_cleanup(c->multi); /* its cached connections: REMOVE each */
    while (c->socks)
        wa_curl_sock_free(c, c->socks);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

/* curl's process-wide setup, once, whichever thread's runtime is first. */
static CURLcode wa_curl_global_rc;
static void wa_curl_global_init(void) { wa_curl_global_rc = curl_global_init(CURL_GLOBAL_DEFAULT); }

/* Makes rt's multi handle, added to rt (the runtime, not a view). */
static int wa_curl_new(wa_rt *rt, wa_curl **out)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, wa_curl_global_init);
    if (wa_curl_global_rc != CURLE_OK)
        return WA_ENOMEM;
    wa_curl *c = calloc(1, sizeof *c);
    if (!c)
        return WA_ENOMEM;
    if (!(c->multi = curl_multi_init())) {
        free(c);
        return WA_ENOMEM;
    }
    pthread_mutex_init(&c->lock, NULL);
    c->rt = wa_rt_home_(rt);
    c->deadline = WA_NEVER;
    c->ext.free = wa_curl_free;
    curl_multi_setopt(c->multi, CURLMOPT_SOCKETFUNCTION, wa_curl_on_socket);
    curl_multi_setopt(c->multi, CURLMOPT_SOCKETDATA, c);
    curl_multi_setopt(c->multi, CURLMOPT_TIMERFUNCTION, wa_curl_on_timer);
    curl_multi_setopt(c->multi, CURLMOPT_TIMERDATA, c);
    wa_rt_ext_add_(rt, &c->ext);
    *out = c;
    return 0;
}

/* rt's multi handle, made on first use, with its driver running. The
 * extension list is made under a lock of this file's: the first sends of
 * a many-threads runtime may come from several workers at once. */
static int wa_curl_of(wa_rt *rt, wa_curl **out)
{
    static pthread_mutex_t made = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&made);
    wa_curl *c = (wa_curl *)wa_rt_ext_find_(rt, wa_curl_free);
    int rc = c ? 0 : wa_curl_new(rt, &c);
    pthread_mutex_unlock(&made);
    if (rc < 0)
        return rc;
    pthread_mutex_lock(&c->lock);
    if (!c->driving) {
        c->drv = (wa_curl_driver){{&wa_curl_driver_vt}, c, 0, 0, {0}};
        rc = wa_spawn_internal_(rt, &c->drv.fut);
        c->driving = rc == 0;
    }
    pthread_mutex_unlock(&c->lock);
    *out = c;
    return rc;
}

/* ---- curl's callbacks of one transfer ---- */

/* A received header line "name: value" kept; a NUL, CR or LF in it
 * becomes a space (see wa_http_header). */
static int wa_curl_keep_header(wa_http_response *r, const char *line, size_t n)
{
    const char *colon = memchr(line, ':', n);
    if (!colon || colon == line)
        return 0; /* (not a field line: nothing to keep) */
    wa_http_fields *f = &r->h.fields;
    if (wa_grow_(&f->list, sizeof *f->list, &r->headers_cap, f->n + 1, 8, SIZE_MAX) < 0)
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

static void wa_curl_drop_headers(wa_http_response *r)
{
    for (size_t i = 0; i < r->h.fields.n; i++)
        free((char *)r->h.fields.list[i].name); /* (one block with the value) */
    r->h.fields.n = 0;
}

/* CURLOPT_HEADERFUNCTION: a status line starts a head (an interim 1xx one
 * is replaced by the next), a blank line ends it. */
static size_t wa_curl_on_header(char *line, size_t size, size_t n, void *arg)
{
    (void)size;
    wa_http_response *r = arg;
    size_t len = n;
    while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
        len--;
    if (len >= 5 && !memcmp(line, "HTTP/", 5)) {
        wa_curl_drop_headers(r);
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
    } else if ((r->refused = wa_curl_keep_header(r, line, len)) < 0) {
        return 0;
    }
    return n;
}

/* CURLOPT_WRITEFUNCTION: body bytes into the buffer; a full buffer pauses
 * the transfer until the reader makes room. */
static size_t wa_curl_on_body(char *data, size_t size, size_t n, void *arg)
{
    (void)size;
    wa_http_response *r = arg;
    if (r->len + n > WA_CURL_BODY_MAX && r->len) {
        r->paused |= CURLPAUSE_RECV;
        return CURL_WRITEFUNC_PAUSE; /* (curl keeps the bytes, offers them again) */
    }
    if (r->len + n > r->cap) {
        size_t cap = r->len + n > WA_CURL_BODY_MAX ? r->len + n : WA_CURL_BODY_MAX;
        unsigned char *b = realloc(r->buf, cap);
        if (!b)
            return 0;
        r->buf = b;
        r->cap = cap;
    }
    memcpy(r->buf + r->len, data, n);
    r->len += n;
    wa_waker_wake(&r->reader);
    return n;
}

/* CURLOPT_READFUNCTION: the request body, from memory or from the chunk
 * the send read from its stream; none yet pauses the upload. */
static size_t wa_curl_on_upload(char *buf, size_t size, size_t n, void *arg)
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
    if (k->off < k->len) {
        size_t m = k->len - k->off < n ? k->len - k->off : n;
        memcpy(buf, k->chunk + k->off, m);
        k->off += m;
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
static void wa_curl_unpause(wa_http_response *r, int bits)
{
    if (!(r->paused & bits) || r->done)
        return;
    r->paused &= ~bits;
    curl_easy_pause(r->easy, r->paused); /* (the bits left: still paused) */
    wa_curl_wake_driver(r->c); /* it may have new sockets or a timer */
}

/* ---- the response and its body stream ---- */

static int wa_curl_body_read_locked(wa_http_response *r, void *buf, size_t cap, size_t *n)
{
    if (!r->len) {
        if (r->done)
            return r->result < 0 ? r->result : WA_ECLOSED;
        wa_curl_unpause(r, CURLPAUSE_RECV);
        return r->len ? wa_curl_body_read_locked(r, buf, cap, n) : WA_EAGAIN;
    }
    size_t m = r->len < cap ? r->len : cap;
    memcpy(buf, r->buf, m);
    memmove(r->buf, r->buf + m, r->len - m);
    r->len -= m;
    *n = m;
    wa_curl_unpause(r, CURLPAUSE_RECV); /* room again */
    return 0;
}

static int wa_curl_body_try_read(wa_stream *s, void *buf, size_t cap, size_t *n)
{
    wa_http_response *r = ((wa_curl_body *)s)->r;
    if (!r)
        return WA_ECLOSED;
    pthread_mutex_lock(&r->c->lock);
    int rc = wa_curl_body_read_locked(r, buf, cap, n);
    pthread_mutex_unlock(&r->c->lock);
    return rc;
}

typedef struct wa_curl_body_wait {
    wa_future fut;
    wa_curl_body *b;
} wa_curl_body_wait;

static int wa_curl_body_wait_poll(wa_future *f, wa_cx *cx)
{
    wa_http_response *r = ((wa_curl_body_wait *)f)->b->r;
    if (!r)
        return WA_READY;
    pthread_mutex_lock(&r->c->lock);
    int rc = WA_READY; /* (paused: the read resumes it) */
    if (!(r->len || r->done || (r->paused & CURLPAUSE_RECV))) {
        wa_waker_store(&r->reader, cx);
        rc = WA_PENDING;
    }
    pthread_mutex_unlock(&r->c->lock);
    return rc;
}

static void wa_curl_body_wait_drop(wa_future *f)
{
    wa_http_response *r = ((wa_curl_body_wait *)f)->b->r;
    if (!r)
        return;
    pthread_mutex_lock(&r->c->lock);
    wa_waker_drop(&r->reader);
    pthread_mutex_unlock(&r->c->lock);
}

static const wa_future_vt wa_curl_body_wait_vt = {wa_curl_body_wait_poll, wa_curl_body_wait_drop, "http_body_wait"};

_Static_assert(sizeof(wa_curl_body_wait) <= WA_STREAM_WAIT_SIZE, "readiness storage too small");

static wa_future *wa_curl_body_ready(wa_stream *s, int dir, void *storage)
{
    if (dir != WA_STREAM_READ)
        return wa_stream_error_init(storage, WA_EINVAL);
    wa_curl_body_wait *w = storage;
    *w = (wa_curl_body_wait){{&wa_curl_body_wait_vt}, (wa_curl_body *)s};
    return &w->fut;
}

static void wa_curl_body_close(wa_stream *s)
{
    wa_curl_body *b = (wa_curl_body *)s;
    if (b->r)
        b->r->h.body = NULL;
    free(b);
}

static const wa_stream_vt wa_curl_body_vt = {wa_curl_body_try_read, wa_stream_write_refused_, wa_stream_flush_none_,
                                             wa_curl_body_ready, wa_curl_body_close};

void wa_http_response_release_(wa_http_response *r)
{
    if (!r)
        return;
    if (r->added) { /* (then the driver no longer reaches r) */
        pthread_mutex_lock(&r->c->lock);
        wa_curl_remove(r->c, r);
        wa_curl_wake_driver(r->c);
        pthread_mutex_unlock(&r->c->lock);
    }
    curl_easy_cleanup(r->easy);
    curl_slist_free_all(r->out_headers);
    if (r->h.body) {
        ((wa_curl_body *)r->h.body)->r = NULL;
        wa_stream_close(&r->h.body);
    }
    wa_waker_drop(&r->waker);
    wa_waker_drop(&r->reader);
    wa_curl_drop_headers(r);
    free(r->h.fields.list);
    free(r->buf);
    free(r);
}

/* ---- the send ---- */

/* Appends line to *l: 0 or WA_ENOMEM (*l is kept either way). */
static int wa_curl_append(struct curl_slist **l, const char *line)
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
static int wa_curl_headers(const wa_http_request *q, struct curl_slist **out)
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
        rc = wa_curl_append(&l, line);
        free(line);
    }
    for (size_t u = 0; u < sizeof unasked / sizeof unasked[0] && rc == 0; u++) {
        char line[32];
        snprintf(line, sizeof line, "%s:", unasked[u]);
        if (!wa_http_headers_find(q->headers, q->nheaders, unasked[u]))
            rc = wa_curl_append(&l, line);
    }
    if (rc < 0) {
        curl_slist_free_all(l);
        return rc;
    }
    *out = l;
    return 0;
}

static int wa_curl_setup(wa_http_response *r, const wa_http_request *q, const char *method)
{
    CURL *e = r->easy;
    /* (an empty body of a POST, PUT, PATCH: curl says "Content-Length: 0") */
    int has_body = q->body_stream || q->body_len || wa_http_empty_content_length(q, method);
    int rc = wa_curl_headers(q, &r->out_headers);
    if (rc < 0)
        return rc;
    if (curl_easy_setopt(e, CURLOPT_URL, q->url) != CURLE_OK ||
        curl_easy_setopt(e, CURLOPT_HTTPHEADER, r->out_headers) != CURLE_OK ||
        curl_easy_setopt(e, CURLOPT_PRIVATE, r) != CURLE_OK ||
        curl_easy_setopt(e, CURLOPT_ERRORBUFFER, r->error) != CURLE_OK ||
        curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, wa_curl_on_header) != CURLE_OK ||
        curl_easy_setopt(e, CURLOPT_HEADERDATA, r) != CURLE_OK ||
        curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, wa_curl_on_body) != CURLE_OK ||
        curl_easy_setopt(e, CURLOPT_WRITEDATA, r) != CURLE_OK ||
        curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L) != CURLE_OK ||
        curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https") != CURLE_OK)
        return WA_ENOMEM;
    if (has_body && (curl_easy_setopt(e, CURLOPT_POST, 1L) != CURLE_OK ||
                     curl_easy_setopt(e, CURLOPT_READFUNCTION, wa_curl_on_upload) != CURLE_OK ||
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

static void wa_http_call_free(wa_http_send *s)
{
    struct wa_http_call *k = s->call;
    wa_drop_held(&k->rd.fut, &k->reading);
    if (k->r && k->r->c) { /* (the upload callback reads it) */
        pthread_mutex_lock(&k->r->c->lock);
        k->r->call = NULL;
        pthread_mutex_unlock(&k->r->c->lock);
    }
    wa_http_response_release_(k->r);
    free(k);
}

/* Sets up the request's transfer and adds it to curl. */
static int wa_http_start(wa_http_send *s, wa_rt *rt, const wa_http_url *u, const char *method)
{
    const wa_http_request *q = s->req;
    /* (curl parses the URL again; its other schemes are not ours) */
    if ((u->scheme.len != 4 && u->scheme.len != 5) || strncasecmp(u->scheme.ptr, "https", u->scheme.len)) {
        snprintf(s->reason, sizeof s->reason, "not an http or https URL");
        return WA_EINVAL;
    }
    wa_curl *c;
    int rc = wa_curl_of(rt, &c);
    if (rc < 0)
        return rc;
    struct wa_http_call *k = calloc(1, q->body_stream ? sizeof *k : offsetof(struct wa_http_call, rd));
    if (!k)
        return WA_ENOMEM;
    k->req = q;
    s->call = k;
    wa_http_response *r = k->r = calloc(1, sizeof *r);
    wa_curl_body *b = r ? calloc(1, sizeof *b) : NULL;
    if (!b)
        return WA_ENOMEM;
    *b = (wa_curl_body){WA_STREAM_INIT(&wa_curl_body_vt), r};
    r->h.body = &b->base;
    r->h.fields.loaded = 1; /* (kept as curl gives them) */
    r->c = c;
    r->call = k;
    if (!(r->easy = curl_easy_init()))
        return WA_ENOMEM;
    if ((rc = wa_curl_setup(r, q, method)) < 0)
        return rc;
    k->eof = !q->body_stream && !q->body_len; /* (before the driver may run it) */
    pthread_mutex_lock(&c->lock);
    rc = curl_multi_add_handle(c->multi, r->easy) == CURLM_OK ? 0 : WA_ENOMEM;
    if (rc == 0) {
        r->added = 1;
        r->next = c->added;
        if (c->added)
            c->added->prev = r;
        c->added = r;
    }
    pthread_mutex_unlock(&c->lock);
    return rc;
}

/* Reads the request body's stream into the chunk whenever curl took it
 * all, and resumes the upload. 0 once the stream ended, WA_PENDING, or
 * the stream's error. Under the lock, but the stream's read is polled
 * without it (the stream may be another response's body, whose read
 * takes it): curl leaves the chunk alone while it is empty. */
static int wa_http_send_body(struct wa_http_call *k, wa_cx *cx)
{
    const wa_http_request *q = k->req;
    if (!q->body_stream)
        return k->eof || k->r->done ? 0 : WA_PENDING;
    while (!k->eof && k->off == k->len) {
        if (!k->reading) {
            wa_read_init(&k->rd, q->body_stream, k->chunk, sizeof k->chunk);
            k->reading = 1;
        }
        pthread_mutex_unlock(&k->r->c->lock);
        int rc = wa_poll_held(&k->rd.fut, &k->reading, cx);
        pthread_mutex_lock(&k->r->c->lock);
        if (rc == WA_PENDING)
            return WA_PENDING;
        if (rc == WA_ECLOSED)
            k->eof = 1;
        else if (rc < 0)
            return rc;
        else
            k->off = 0, k->len = k->rd.n;
        wa_curl_unpause(k->r, CURLPAUSE_SEND);
    }
    return k->eof && k->off == k->len ? 0 : WA_PENDING;
}

/* Feeds the body to curl until the head arrived and the body went. */
static int wa_http_run_locked(wa_http_send *s, wa_cx *cx)
{
    wa_http_response *r = s->call->r;
    wa_waker_store(&r->waker, cx); /* (before the body: curl may call back) */
    int out = wa_http_send_body(s->call, cx);
    if (out < 0 && out != WA_PENDING)
        return out;
    if (r->done && r->result < 0) {
        wa_curl_reason(r, r->result, s->reason, sizeof s->reason);
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

static int wa_http_run(wa_http_send *s, wa_cx *cx)
{
    wa_curl *c = s->call->r->c;
    pthread_mutex_lock(&c->lock);
    int rc = wa_http_run_locked(s, cx);
    pthread_mutex_unlock(&c->lock);
    return rc;
}

const wa_http_client_ops wa_http_client_host = {wa_http_start, wa_http_run, wa_http_call_free};
