/* SPDX-License-Identifier: MIT */
/* The HTTP client natively (libcurl driven by the epoll reactor) against a
 * small blocking server on threads of this process: heads, bodies in and
 * out (from memory, from a stream), a large body read slowly (the server
 * is held back: backpressure), timeouts, cancellation at every step, a
 * refused connection, bad requests; after each, no registration is left
 * (wa_rt_stats' sources back to 0). The client's driver is no task of the
 * program's (wa_rt_run ends, the stats leave it out), and 50 fetches run
 * at once on 2 and on 4 workers. Bodies larger than the client's rings
 * go both ways in reads of odd sizes, and a read dropped while curl wrote
 * into its buffer loses no byte. */
#define _GNU_SOURCE /* (strcasestr) */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"
#include "wasync/http.h"

#define BIG (8u << 20)

static int listen_fd;
static uint16_t port;
static atomic_size_t big_sent; /* what the server wrote of /big so far */
static char base[64];

static unsigned char pattern(size_t i) { return (unsigned char)(i * 31 + (i >> 12)); }

/* Counts in *bad the n bytes at buf that are not the pattern's from *got
 * on, and moves *got past them. */
static void tally(const unsigned char *buf, size_t n, size_t *got, size_t *bad)
{
    for (size_t i = 0; i < n; i++)
        *bad += buf[i] != pattern(*got + i);
    *got += n;
}

static void send_all(int fd, const void *p, size_t n)
{
    while (n) {
        ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
        if (k <= 0)
            return;
        p = (const char *)p + k;
        n -= (size_t)k;
    }
}

/* Reads up to the end of a head into buf (NUL-terminated): its length, or
 * 0 when the client closed. Any bytes past it stay in buf[*have..). */
static size_t read_head(int fd, char *buf, size_t cap, size_t *have)
{
    for (;;) {
        buf[*have] = 0;
        char *end = strstr(buf, "\r\n\r\n");
        if (end)
            return (size_t)(end - buf) + 4;
        ssize_t k = recv(fd, buf + *have, cap - 1 - *have, 0);
        if (k <= 0)
            return 0;
        *have += (size_t)k;
    }
}

/* Takes n bytes from the connection's buffered bytes, then the socket. */
static int take(int fd, char *buf, size_t *have, void *out, size_t n)
{
    while (*have < n) {
        ssize_t k = recv(fd, buf + *have, n - *have, 0);
        if (k <= 0)
            return -1;
        *have += (size_t)k;
    }
    memcpy(out, buf, n);
    memmove(buf, buf + n, *have - n);
    *have -= n;
    return 0;
}

/* A request body: by content-length, or chunked. Returns a new buffer. */
static char *read_body(int fd, const char *head, char *buf, size_t *have, size_t *len)
{
    const char *cl = strcasestr(head, "\r\ncontent-length:");
    char *body = NULL;
    *len = 0;
    if (cl) {
        *len = strtoul(cl + 17, NULL, 10);
        body = malloc(*len + 1);
        if (take(fd, buf, have, body, *len) < 0)
            *len = 0;
        return body;
    }
    if (!strcasestr(head, "chunked"))
        return NULL;
    for (;;) {
        char line[32];
        size_t n = 0;
        while (n < sizeof line - 1 && take(fd, buf, have, line + n, 1) == 0 && line[n] != '\n')
            n++;
        size_t size = strtoul(line, NULL, 16);
        char crlf[2];
        if (!size) {
            take(fd, buf, have, crlf, 2);
            return body;
        }
        body = realloc(body, *len + size);
        if (take(fd, buf, have, body + *len, size) < 0 || take(fd, buf, have, crlf, 2) < 0)
            return body;
        *len += size;
    }
}

static void *serve_conn(void *arg)
{
    int fd = (int)(intptr_t)arg;
    char buf[2 * WA_HTTP_HEAD_MAX], head[4096], out[512];
    size_t have = 0, n;
    unsigned char first;
    if (recv(fd, &first, 1, MSG_PEEK) == 1 && first == 0x16) { /* a TLS handshake: refused as a server does */
        const char *r = "HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n";
        send_all(fd, r, strlen(r));
        close(fd);
        return NULL;
    }
    while ((n = read_head(fd, buf, sizeof buf, &have))) {
        size_t hl = n < sizeof head ? n : sizeof head - 1;
        memcpy(head, buf, hl);
        head[hl] = 0;
        memmove(buf, buf + n, have - n);
        have -= n;
        size_t len;
        char method[16] = "", path[256] = "";
        sscanf(head, "%15s %255s", method, path);
        if (!strcmp(path, "/slowecho")) /* (the client reads its upload ahead meanwhile) */
            usleep(200 * 1000);
        char *body = read_body(fd, head, buf, &have, &len);
        if (!strcmp(path, "/hello")) {
            const char *r = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-A: one\r\nX-Empty:\r\n\r\nhello";
            send_all(fd, r, strlen(r) - (strcmp(method, "HEAD") ? 0 : 5));
        } else if (!strcmp(path, "/echo") || !strcmp(path, "/slowecho")) {
            int k = snprintf(out, sizeof out, "HTTP/1.1 201 Created\r\nContent-Length: %zu\r\nX-Method: %s\r\n\r\n",
                             len, method);
            send_all(fd, out, (size_t)k);
            send_all(fd, body, len);
        } else if (!strcmp(path, "/big")) {
            int small = 65536; /* (so that what is held back is not all in the kernel's buffers) */
            setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
            int k = snprintf(out, sizeof out, "HTTP/1.1 200 OK\r\nContent-Length: %u\r\n\r\n", BIG);
            send_all(fd, out, (size_t)k);
            unsigned char chunk[16384];
            for (size_t at = 0; at < BIG; at += sizeof chunk) {
                for (size_t i = 0; i < sizeof chunk; i++)
                    chunk[i] = pattern(at + i);
                send_all(fd, chunk, sizeof chunk);
                atomic_store(&big_sent, at + sizeof chunk);
            }
        } else if (!strcmp(path, "/length")) { /* says the request's length headers */
            const char *cl = strcasestr(head, "\r\ncontent-length:"), *te = strcasestr(head, "\r\ntransfer-encoding:");
            char said[64];
            int m = snprintf(said, sizeof said, "length=%ld chunked=%d", cl ? strtol(cl + 17, NULL, 10) : -1L, te != NULL);
            int k = snprintf(out, sizeof out, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", m, said);
            send_all(fd, out, (size_t)k);
        } else if (!strcmp(path, "/garbage")) {
            send_all(fd, "garbage\r\n\r\n", 11);
            free(body);
            break;
        } else if (!strcmp(path, "/bigheader") || !strcmp(path, "/bighead")) {
            /* one header of 1 MiB, or 100 of 1000 bytes: over the limit either way */
            size_t line = !strcmp(path, "/bigheader") ? 1u << 20 : 1000, lines = line > 1000 ? 1 : 100;
            char *h = malloc(line);
            const char *status = "HTTP/1.1 200 OK\r\n";
            send_all(fd, status, strlen(status));
            for (size_t i = 0; h && i < lines; i++) {
                int k = snprintf(h, line, "x-big-%zu: ", i);
                memset(h + k, 'a', line - (size_t)k - 2);
                memcpy(h + line - 2, "\r\n", 2);
                send_all(fd, h, line);
            }
            free(h);
            send_all(fd, "Content-Length: 0\r\n\r\n", 21);
        } else if (!strcmp(path, "/missing")) {
            const char *r = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n";
            send_all(fd, r, strlen(r));
        } else { /* /hang: never answered; the client goes first */
            while (recv(fd, buf, sizeof buf, 0) > 0) {
            }
            free(body);
            break;
        }
        free(body);
    }
    close(fd);
    return NULL;
}

static void *serve(void *arg)
{
    (void)arg;
    int fd;
    while ((fd = accept(listen_fd, NULL, NULL)) >= 0) {
        pthread_t t;
        if (pthread_create(&t, NULL, serve_conn, (void *)(intptr_t)fd) == 0)
            pthread_detach(t);
        else
            close(fd);
    }
    return NULL;
}

/* A port nobody listens on (bound, then closed). */
static uint16_t closed_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t n = sizeof a;
    bind(fd, (struct sockaddr *)&a, sizeof a);
    getsockname(fd, (struct sockaddr *)&a, &n);
    close(fd);
    return ntohs(a.sin_port);
}

static int start_server(void)
{
    listen_fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t n = sizeof a;
    int one = 1;
    setsockopt(listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(listen_fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(listen_fd, 64) < 0 ||
        getsockname(listen_fd, (struct sockaddr *)&a, &n) < 0)
        return -1;
    port = ntohs(a.sin_port);
    snprintf(base, sizeof base, "http://127.0.0.1:%u", port);
    pthread_t t;
    if (pthread_create(&t, NULL, serve, NULL) != 0)
        return -1;
    pthread_detach(t);
    return 0;
}

static size_t sources(wa_rt *rt)
{
    wa_rt_stats st;
    wa_rt_stats_get(rt, &st);
    return st.sources;
}

static char url_buf[128];
static const char *url(const char *path)
{
    snprintf(url_buf, sizeof url_buf, "%s%s", base, path);
    return url_buf;
}

/* Fetches req whole on rt: its status, or the error. */
static int fetch(wa_rt *rt, const wa_http_request *req, wa_http_fetch *f)
{
    return wa_block_on(rt, wa_http_fetch_init(f, req, 0));
}

static void fetch_free(wa_http_fetch *f)
{
    wa_http_response_free(f->response);
    free(f->data);
}

static void test_get(void)
{
    wa_rt *rt;
    REQUIRE(wa_rt_new(&rt) == 0);
    wa_http_request req = {.url = url("/hello")};
    wa_http_fetch f;
    for (int i = 0; i < 3; i++) { /* (the connection is reused) */
        int rc = fetch(rt, &req, &f);
        CHECK_EQ(rc, 0);
        if (rc < 0)
            continue;
        CHECK_EQ(wa_http_response_status(f.response), 200);
        CHECK(f.len == 5 && !strcmp((char *)f.data, "hello"));
        const char *a = wa_http_response_header(f.response, "x-a");
        CHECK(a && !strcmp(a, "one"));
        const char *e = wa_http_response_header(f.response, "X-EMPTY");
        CHECK(e && !strcmp(e, ""));
        CHECK(!wa_http_response_header(f.response, "x-none"));
        size_t n;
        const wa_http_header *h = wa_http_response_headers(f.response, &n);
        CHECK(h && n == 3 && !strcmp(h[0].name, "Content-Length"));
        fetch_free(&f);
    }
    wa_http_request head = {.method = "HEAD", .url = url("/hello")};
    if (fetch(rt, &head, &f) == 0) {
        CHECK_EQ(wa_http_response_status(f.response), 200);
        CHECK_EQ(f.len, 0);
        fetch_free(&f);
    }
    wa_http_request missing = {.url = url("/missing")};
    if (fetch(rt, &missing, &f) == 0) {
        CHECK_EQ(wa_http_response_status(f.response), 404);
        fetch_free(&f);
    }
    CHECK_EQ(sources(rt), 0);
    wa_rt_free(rt);
}

static void test_post(void)
{
    wa_rt *rt;
    REQUIRE(wa_rt_new(&rt) == 0);
    static const wa_http_header hdrs[] = {{"content-type", "text/plain"}, {"x-empty", ""}};
    const char *text = "a body in memory";
    wa_http_request req = {
        .method = "PUT", .url = url("/echo"), .headers = hdrs, .nheaders = 2, .body = text, .body_len = strlen(text)};
    wa_http_fetch f;
    int rc = fetch(rt, &req, &f);
    CHECK_EQ(rc, 0);
    if (rc == 0) {
        CHECK_EQ(wa_http_response_status(f.response), 201);
        CHECK(f.len == strlen(text) && !memcmp(f.data, text, f.len));
        const char *m = wa_http_response_header(f.response, "x-method");
        CHECK(m && !strcmp(m, "PUT"));
        fetch_free(&f);
    }
    CHECK_EQ(sources(rt), 0);
    wa_rt_free(rt);
}

/* Writes n bytes of the pattern into a pipe in pieces, then closes it. */
typedef struct feeder {
    WA_CORO;
    wa_stream *out;
    wa_write w;
    size_t at, n;
    unsigned char piece[1000];
} feeder;

static void feeder_close(feeder *t)
{
    if (t->out)
        wa_stream_close(&t->out);
}

WA_ASYNC(feeder, t, cx, feeder_close)
{
    WA_BEGIN(t, cx);
    for (; t->at < t->n; t->at += sizeof t->piece) {
        for (size_t i = 0; i < sizeof t->piece; i++)
            t->piece[i] = pattern(t->at + i);
        WA_TRY(wa_write_init(&t->w, t->out, t->piece, sizeof t->piece));
    }
    WA_END();
}

typedef struct poster {
    WA_CORO;
    wa_http_request req;
    wa_http_fetch f;
    wa_join feed;
    feeder fd;
} poster;

/* The feeder's handle, if the fetch failed before it was awaited. */
static void poster_cleanup(poster *t)
{
    if (t->feed.task)
        wa_drop(&t->feed.fut);
}

WA_ASYNC(poster, t, cx, poster_cleanup)
{
    WA_BEGIN(t, cx);
    WA_TRY(wa_http_fetch_init(&t->f, &t->req, 0));
    WA_TRY(&t->feed.fut);
    WA_END();
}

/* A body streamed to path, n bytes through a pipe of cap bytes (an odd
 * cap: the client's reads of it end anywhere in its ring). */
static void post_stream(const char *path, size_t n, size_t cap)
{
    wa_rt *rt;
    REQUIRE(wa_rt_new(&rt) == 0);
    wa_stream *in, *out;
    REQUIRE_OR(wa_pipe_new(cap, &in, &out) == 0, wa_rt_free(rt));
    poster p = {.req = {.method = "POST", .url = url(path), .body_stream = in}};
    p.fd = (feeder){.out = out, .n = n};
    feeder_init(&p.fd);
    if (wa_spawn_of(rt, &p.fd, &p.feed) < 0) {
        wa_stream_close(&out);
        wa_stream_close(&in);
        wa_rt_free(rt);
        CHECK(0);
        return;
    }
    int rc = wa_block_on(rt, poster_init(&p));
    CHECK_EQ(rc, 0);
    if (rc == 0) {
        CHECK_EQ(wa_http_response_status(p.f.response), 201);
        CHECK_EQ(p.f.len, n);
        size_t got = 0, bad = 0;
        tally(p.f.data, p.f.len, &got, &bad);
        CHECK_EQ(bad, 0);
        fetch_free(&p.f);
    } else if (p.f.response) {
        fetch_free(&p.f);
    }
    wa_stream_close(&in);
    CHECK_EQ(sources(rt), 0);
    wa_rt_free(rt);
}

static void test_post_stream(void) { post_stream("/echo", 200000, 4096); }

/* 3 MB, over ten times the client's ring, to a server that starts reading
 * late: the ring wraps again and again, in reads that end anywhere in it.
 * (Whether it fills depends on the kernel's buffers, which take megabytes
 * on loopback; the ring's full case is test_stream's test_fifo.) */
static void test_post_stream_large(void) { post_stream("/slowecho", 3000000, 4093); }

/* Gets /big, waits a while before reading (the server must be held back),
 * then reads it all in small reads. */
typedef struct slow {
    WA_CORO;
    wa_http_request req;
    wa_http_send send;
    wa_sleep sleep;
    wa_read r;
    size_t got, bad, sent_early;
    unsigned char buf[7000];
} slow;

WA_ASYNC(slow, t, cx)
{
    WA_BEGIN(t, cx);
    WA_TRY(wa_http_send_init(&t->send, &t->req));
    WA_TRY(wa_sleep_init(&t->sleep, WA_MS(300)));
    t->sent_early = atomic_load(&big_sent);
    for (;;) {
        WA_AWAIT(wa_read_init(&t->r, wa_http_response_body(t->send.response), t->buf, sizeof t->buf));
        if (WA_STATUS == WA_ECLOSED)
            break;
        if (WA_STATUS < 0)
            WA_RETURN(WA_STATUS);
        tally(t->buf, t->r.n, &t->got, &t->bad);
    }
    WA_END();
}

static void test_backpressure(void)
{
    wa_rt *rt;
    REQUIRE(wa_rt_new(&rt) == 0);
    atomic_store(&big_sent, 0);
    slow s = {.req = {.url = url("/big")}};
    int rc = wa_block_on(rt, slow_init(&s));
    CHECK_EQ(rc, 0);
    CHECK_EQ(s.got, BIG);
    CHECK_EQ(s.bad, 0);
    CHECK(s.sent_early < BIG / 2); /* held back by the buffers, not all sent */
    wa_http_response_free(s.send.response);
    CHECK_EQ(sources(rt), 0);
    wa_rt_free(rt);
}

/* Reads /big in reads of odd sizes: 1 byte, across the end of the body's
 * ring, larger than the ring. */
typedef struct odd {
    WA_CORO;
    wa_http_request req;
    wa_http_send send;
    wa_read r;
    size_t got, bad, i;
    unsigned char *buf;
} odd;

static const size_t odd_sizes[] = {1, 4099, 65537, 300001, 7, 131072, 2};

WA_ASYNC(odd, t, cx)
{
    WA_BEGIN(t, cx);
    WA_TRY(wa_http_send_init(&t->send, &t->req));
    for (;; t->i = (t->i + 1) % (sizeof odd_sizes / sizeof odd_sizes[0])) {
        WA_AWAIT(wa_read_init(&t->r, wa_http_response_body(t->send.response), t->buf, odd_sizes[t->i]));
        if (WA_STATUS == WA_ECLOSED)
            break;
        if (WA_STATUS < 0)
            WA_RETURN(WA_STATUS);
        tally(t->buf, t->r.n, &t->got, &t->bad);
    }
    WA_END();
}

static void test_odd_reads(void)
{
    wa_rt *rt;
    REQUIRE(wa_rt_new(&rt) == 0);
    odd o = {.req = {.url = url("/big")}, .buf = malloc(300001)};
    REQUIRE_OR(o.buf, wa_rt_free(rt));
    int rc = wa_block_on(rt, odd_init(&o));
    CHECK_EQ(rc, 0);
    CHECK_EQ(o.got, BIG);
    CHECK_EQ(o.bad, 0);
    wa_http_response_free(o.send.response);
    free(o.buf);
    CHECK_EQ(sources(rt), 0);
    wa_rt_free(rt);
}

/* Reads /big until a read waits (the body's ring empty: curl writes into
 * the read's buffer), lets bytes land there, then drops the read: they go
 * back to the body, and the reads after it see every byte once. */
typedef struct lender {
    WA_CORO;
    wa_http_request req;
    wa_http_send send;
    wa_read r;
    int pending; /* r: polled, not done */
    wa_sleep sleep;
    size_t got, bad, waits;
    int landed;
    unsigned char buf[1000];
} lender;

static void lender_cleanup(lender *t) { wa_drop_held(&t->r.fut, &t->pending); }

/* Fills t's buffer with what the next bytes are not. */
static void lender_scribble(lender *t)
{
    for (size_t i = 0; i < sizeof t->buf; i++)
        t->buf[i] = (unsigned char)~pattern(t->got + i);
}

WA_ASYNC(lender, t, cx, lender_cleanup)
{
    WA_BEGIN(t, cx);
    WA_TRY(wa_http_send_init(&t->send, &t->req));
    while (!t->pending) {
        lender_scribble(t);
        wa_read_init(&t->r, wa_http_response_body(t->send.response), t->buf, sizeof t->buf);
        t->pending = 1;
        int rc = wa_poll_held(&t->r.fut, &t->pending, cx);
        if (rc == WA_PENDING)
            break;
        if (rc < 0) /* (the body ended before any read waited) */
            WA_RETURN(rc == WA_ECLOSED ? WA_EIO : rc);
        tally(t->buf, t->r.n, &t->got, &t->bad);
    }
    for (t->waits = 0; t->waits < 500 && t->buf[0] != pattern(t->got); t->waits++)
        WA_AWAIT(wa_sleep_init(&t->sleep, WA_MS(10)));
    t->landed = t->buf[0] == pattern(t->got);
    wa_drop_held(&t->r.fut, &t->pending); /* the read goes away, and its buffer */
    for (;;) {
        lender_scribble(t);
        WA_AWAIT(wa_read_init(&t->r, wa_http_response_body(t->send.response), t->buf, sizeof t->buf));
        if (WA_STATUS == WA_ECLOSED)
            break;
        if (WA_STATUS < 0)
            WA_RETURN(WA_STATUS);
        tally(t->buf, t->r.n, &t->got, &t->bad);
    }
    WA_END();
}

static void test_lent_read_dropped(void)
{
    wa_rt *rt;
    REQUIRE(wa_rt_new(&rt) == 0);
    lender l = {.req = {.url = url("/big")}};
    int rc = wa_block_on(rt, lender_init(&l));
    CHECK_EQ(rc, 0);
    CHECK(l.landed); /* curl wrote into the waiting read's buffer */
    CHECK_EQ(l.got, BIG);
    CHECK_EQ(l.bad, 0);
    wa_http_response_free(l.send.response);
    CHECK_EQ(sources(rt), 0);
    wa_rt_free(rt);
}

/* A response dropped with its body half read: the transfer is aborted. */
static void test_drop_response(void)
{
    wa_rt *rt;
    REQUIRE(wa_rt_new(&rt) == 0);
    wa_http_request req = {.url = url("/big")};
    wa_http_send send;
    int rc = wa_block_on(rt, wa_http_send_init(&send, &req));
    CHECK_EQ(rc, 0);
    if (rc == 0) {
        unsigned char buf[100];
        wa_read r;
        CHECK_EQ(wa_block_on(rt, wa_read_init(&r, wa_http_response_body(send.response), buf, sizeof buf)), 0);
        wa_http_response_free(send.response);
    }
    CHECK_EQ(sources(rt), 0);
    wa_rt_free(rt);
}

/* A response freed through one copy of its handle: every other copy is
 * stale, its calls reported as misuse naming them (never a use after
 * free); a response got later does not bring the copy back. */
static void test_response_copies(void)
{
    wa_rt *rt;
    REQUIRE(wa_rt_new(&rt) == 0);
    check_catch_misuse();
    wa_http_request req = {.url = url("/hello")};
    wa_http_send send;
    int rc = wa_block_on(rt, wa_http_send_init(&send, &req));
    REQUIRE_OR(rc == 0, wa_rt_free(rt));
    wa_http_response *copy = send.response;
    wa_http_response_free(send.response);
    CHECK_MISUSE(wa_http_response_status(copy), WA_EMISUSE, "wa_http_response_status");
    CHECK_MISUSE(wa_http_response_body(copy) == NULL, 1, "wa_http_response_body");
    CHECK_MISUSE(wa_http_response_header(copy, "x-a") == NULL, 1, "wa_http_response_header");
    size_t n = 7;
    CHECK_MISUSE(wa_http_response_headers(copy, &n) == NULL && n == 0, 1, "wa_http_response_headers");
    int before = check_misuses;
    wa_http_response_free(copy);
    CHECK_EQ(check_misuses - before, 1);
    CHECK(strstr(check_misuse_text, "wa_http_response_free: ") != NULL);
    if (wa_block_on(rt, wa_http_send_init(&send, &req)) == 0) {
        CHECK_MISUSE(wa_http_response_status(copy), WA_EMISUSE, "wa_http_response_status");
        CHECK_EQ(wa_http_response_status(send.response), 200);
        wa_http_response_free(send.response);
    }
    CHECK_EQ(sources(rt), 0);
    wa_rt_free(rt);
}

/* A response may outlive its runtime: its transfer ends with the runtime
 * (mid-body here), and its free later touches nothing the runtime had. */
static void test_response_after_runtime(void)
{
    wa_rt *rt;
    REQUIRE(wa_rt_new(&rt) == 0);
    wa_http_request req = {.url = url("/big")};
    wa_http_send send;
    int rc = wa_block_on(rt, wa_http_send_init(&send, &req));
    CHECK_EQ(rc, 0);
    wa_rt_free(rt);
    if (rc == 0) {
        CHECK_EQ(wa_http_response_status(send.response), 200);
        wa_http_response_free(send.response);
    }
}

static void test_timeout(void)
{
    wa_rt *rt;
    REQUIRE(wa_rt_new(&rt) == 0);
    wa_http_request req = {.url = url("/hang")};
    wa_http_fetch f;
    wa_timeout to;
    CHECK_EQ(wa_block_on(rt, wa_timeout_init(&to, wa_http_fetch_init(&f, &req, 0), WA_MS(100))), WA_ETIMEDOUT);
    CHECK_EQ(sources(rt), 0);
    /* dropped before its first poll, and right after it */
    wa_http_send s;
    wa_http_send_init(&s, &req);
    wa_drop(&s.fut);
    CHECK_EQ(wa_block_on(rt, wa_timeout_init(&to, wa_http_send_init(&s, &req), 0)), WA_ETIMEDOUT);
    CHECK_EQ(sources(rt), 0);
    wa_rt_free(rt);
}

static void test_errors(void)
{
    wa_rt *rt;
    REQUIRE(wa_rt_new(&rt) == 0);
    char refused[64];
    snprintf(refused, sizeof refused, "http://127.0.0.1:%u/", closed_port());
    wa_http_request req = {.url = refused};
    wa_http_fetch f;
    CHECK_EQ(fetch(rt, &req, &f), WA_ECONNREFUSED);
    static const wa_http_header bad_name[] = {{"bad name", "x"}}, bad_value[] = {{"x", "a\r\nb"}};
    const wa_http_request bad[] = {
        {.url = "not a url"},
        {.url = "http://user@127.0.0.1/"},
        {.url = url("/hello"), .method = "GE T"},
        {.url = url("/hello"), .headers = bad_name, .nheaders = 1},
        {.url = url("/hello"), .headers = bad_value, .nheaders = 1},
        {.url = url("/hello"), .body_len = 3},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK_EQ(fetch(rt, &bad[i], &f), WA_EINVAL);
    wa_http_request other = {.url = "ftp://127.0.0.1/"};
    CHECK_EQ(fetch(rt, &other, &f), WA_EINVAL);
    CHECK_EQ(sources(rt), 0);
    wa_rt_free(rt);
}

/* Failures get the right code and curl's words for them. */
static void test_failures(void)
{
    wa_rt *rt;
    REQUIRE(wa_rt_new(&rt) == 0);
    wa_http_fetch f;
    /* not HTTP: was WA_EINVAL, the caller's fault */
    wa_http_request req = {.url = url("/garbage")};
    CHECK_EQ(fetch(rt, &req, &f), WA_EPROTO);
    CHECK(strstr(wa_http_fetch_reason(&f), "HTTP/0.9"));
    /* a head too large: one header of 1 MiB (curl's own limit; was
     * WA_ENOMEM), many small ones (ours) */
    req.url = url("/bigheader");
    CHECK_EQ(fetch(rt, &req, &f), WA_E2BIG);
    CHECK(strstr(wa_http_fetch_reason(&f), "header line over curl's limit"));
    req.url = url("/bighead");
    CHECK_EQ(fetch(rt, &req, &f), WA_E2BIG);
    CHECK(!strcmp(wa_http_fetch_reason(&f), "response head over 65536 bytes"));
    /* request headers too large: refused before anything goes (was WA_ENOMEM) */
    char *big = malloc(1u << 20);
    REQUIRE(big);
    memset(big, 'a', (1u << 20) - 1);
    big[(1u << 20) - 1] = 0;
    wa_http_header h = {"x-big", big};
    req = (wa_http_request){.url = url("/hello"), .headers = &h, .nheaders = 1};
    CHECK_EQ(fetch(rt, &req, &f), WA_E2BIG);
    CHECK(strstr(wa_http_fetch_reason(&f), "request headers over"));
    h.value = big + (1u << 20) - 1 - (WA_HTTP_HEAD_MAX - 9); /* exactly the limit: sent */
    if (fetch(rt, &req, &f) == 0) {
        CHECK_EQ(wa_http_response_status(f.response), 200);
        CHECK_EQ(wa_http_fetch_reason(&f)[0], 0);
        fetch_free(&f);
    } else {
        CHECK(!"a request at the limit failed");
    }
    free(big);
    /* a name that does not resolve: was WA_EIO */
    req = (wa_http_request){.url = "http://no-such-host.invalid/"};
    CHECK_EQ(fetch(rt, &req, &f), WA_ENOTFOUND);
    CHECK(strstr(wa_http_fetch_reason(&f), "no-such-host.invalid"));
    /* TLS to a server of plain HTTP: was WA_EIO */
    char https[64];
    snprintf(https, sizeof https, "https://127.0.0.1:%u/hello", port);
    req.url = https;
    CHECK_EQ(fetch(rt, &req, &f), WA_EPROTO);
    CHECK(wa_http_fetch_reason(&f)[0] != 0);
    printf("  (TLS to plain HTTP: %s)\n", wa_http_fetch_reason(&f));
    /* a refused connection says so too */
    char refused[64];
    snprintf(refused, sizeof refused, "http://127.0.0.1:%u/", closed_port());
    req.url = refused;
    CHECK_EQ(fetch(rt, &req, &f), WA_ECONNREFUSED);
    CHECK(wa_http_fetch_reason(&f)[0] != 0);
    CHECK_EQ(sources(rt), 0);
    wa_rt_free(rt);
}

/* A POST, PUT or PATCH without a body says its length is 0 (nginx answers
 * 411 to one that says nothing); a GET says nothing, nor a POST whose
 * headers said it. */
static void test_empty_body(void)
{
    wa_rt *rt;
    REQUIRE(wa_rt_new(&rt) == 0);
    static const wa_http_header own[] = {{"Content-Length", "0"}};
    const struct {
        wa_http_request req;
        const char *seen;
    } cases[] = {
        {{.method = "POST", .url = url("/length")}, "length=0 chunked=0"},
        {{.method = "PUT", .url = url("/length")}, "length=0 chunked=0"},
        {{.method = "PATCH", .url = url("/length")}, "length=0 chunked=0"},
        {{.method = "POST", .url = url("/length"), .headers = own, .nheaders = 1}, "length=0 chunked=0"},
        {{.url = url("/length")}, "length=-1 chunked=0"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        wa_http_fetch f;
        int rc = fetch(rt, &cases[i].req, &f);
        CHECK_EQ(rc, 0);
        if (rc == 0) {
            CHECK(!strcmp((char *)f.data, cases[i].seen));
            if (strcmp((char *)f.data, cases[i].seen))
                printf("  %s: %s\n", cases[i].req.method ? cases[i].req.method : "GET", (char *)f.data);
            fetch_free(&f);
        }
    }
    CHECK_EQ(sources(rt), 0);
    wa_rt_free(rt);
}

/* Many at once on one runtime, all answered; then the runtime is freed
 * with transfers still running (the runtime drops them). */
typedef struct one {
    WA_CORO;
    wa_http_request req;
    wa_http_fetch f;
    int *ok;
} one;

WA_ASYNC(one, t, cx)
{
    WA_BEGIN(t, cx);
    WA_TRY(wa_http_fetch_init(&t->f, &t->req, 0));
    __atomic_add_fetch(t->ok, t->f.len == 5, __ATOMIC_RELAXED); /* (tasks on several workers) */
    fetch_free(&t->f);
    WA_END();
}

static void test_many(void)
{
    wa_rt *rt;
    REQUIRE(wa_rt_new(&rt) == 0);
    int ok = 0;
    wa_join joins[20];
    int n = 0;
    for (; n < 20; n++) {
        one o = {.req = {.url = url("/hello")}, .ok = &ok};
        one_init(&o);
        if (wa_spawn_of(rt, &o, &joins[n]) < 0)
            break;
    }
    for (int i = 0; i < n; i++)
        wa_block_on(rt, &joins[i].fut);
    CHECK_EQ(ok, 20);
    CHECK_EQ(sources(rt), 0);
    one h = {.req = {.url = url("/hang")}, .ok = &ok};
    one_init(&h);
    if (wa_spawn_of(rt, &h, NULL) == 0) {
        wa_sleep z;
        wa_block_on(rt, wa_sleep_init(&z, WA_MS(50)));
    }
    wa_rt_free(rt);
}

/* A future that nothing ever wakes. */
static int stuck_poll(wa_future *f, wa_cx *cx)
{
    (void)f, (void)cx;
    return WA_PENDING;
}
static const wa_future_vt stuck_vt = {stuck_poll, NULL, "stuck"};

static char report[512];
static void keep_report(void *arg, const char *text)
{
    (void)arg;
    snprintf(report, sizeof report, "%s", text);
}

/* block_on of a future nothing wakes, on rt after its requests: still a
 * deadlock (the parked driver is no reason to wait), reported with the
 * program's task alone. */
static void check_stuck(wa_rt *rt)
{
    wa_rt_set_report(rt, keep_report, NULL);
    report[0] = 0;
    wa_future stuck = {&stuck_vt};
    CHECK_EQ(wa_block_on(rt, &stuck), WA_EDEADLK);
    CHECK(strstr(report, "block_on(stuck)") && !strstr(report, "http_curl"));
}

/* The client's own task (curl's driver) is not the program's: a fetch in
 * flight keeps wa_rt_run going, and once it is done wa_rt_run returns 0
 * (it said WA_EDEADLK, waiting on the parked driver); the stats count the
 * program's tasks only, and a dump shows none. */
static void test_internal_task(void)
{
    wa_rt *rt;
    REQUIRE(wa_rt_new(&rt) == 0);
    int ok = 0;
    one o = {.req = {.url = url("/hello")}, .ok = &ok};
    one_init(&o);
    REQUIRE_OR(wa_spawn_of(rt, &o, NULL) == 0, wa_rt_free(rt));
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK_EQ(ok, 1);
    wa_http_request req = {.url = url("/hello")};
    wa_http_fetch f;
    if (fetch(rt, &req, &f) == 0)
        fetch_free(&f);
    CHECK_EQ(wa_rt_run(rt), 0);
    wa_rt_stats st;
    wa_rt_stats_get(rt, &st);
    CHECK_EQ(st.tasks, 0);
    CHECK_EQ(st.spawned, 2); /* the spawn and block_on's */
    CHECK_EQ(wa_rt_dump(rt, NULL, 0), 0);
    check_stuck(rt);
    wa_rt_free(rt);
}

/* On many threads: 50 fetches at once (GETs and POSTs) from tasks on every
 * worker, one multi handle for the runtime, freed with it (LeakSanitizer
 * under the asan preset, races under tsan). */
static void test_mt_fetches(unsigned workers)
{
    wa_rt *rt;
    REQUIRE(wa_rt_new_mt(&rt, workers) == 0);
    char hello[128], echo[128]; /* (written once: the workers read them) */
    snprintf(hello, sizeof hello, "%s", url("/hello"));
    snprintf(echo, sizeof echo, "%s", url("/echo"));
    int ok = 0, n = 0;
    for (; n < 50; n++) { /* every fifth one a POST (curl reads its body: the upload callback) */
        one o = {.req = {.url = hello}, .ok = &ok};
        if (n % 5 == 0)
            o.req = (wa_http_request){.method = "POST", .url = echo, .body = "hello", .body_len = 5};
        one_init(&o);
        if (wa_spawn_of(rt, &o, NULL) < 0)
            break;
    }
    CHECK_EQ(n, 50);
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK_EQ(__atomic_load_n(&ok, __ATOMIC_RELAXED), n);
    wa_rt_stats st;
    wa_rt_stats_get(rt, &st);
    CHECK_EQ(st.tasks, 0);
    CHECK_EQ(st.spawned, n);
    CHECK_EQ(st.sources, 0);
    check_stuck(rt);
    wa_rt_free(rt);
}

static void test_mt_2(void) { test_mt_fetches(2); }
static void test_mt_4(void) { test_mt_fetches(4); }

int main(void)
{
    if (start_server() < 0) {
        fprintf(stderr, "no server\n");
        return 1;
    }
    RUN(test_get);
    RUN(test_post);
    RUN(test_post_stream);
    RUN(test_post_stream_large);
    RUN(test_backpressure);
    RUN(test_odd_reads);
    RUN(test_lent_read_dropped);
    RUN(test_drop_response);
    RUN(test_timeout);
    RUN(test_errors);
    RUN(test_failures);
    RUN(test_response_copies);
    RUN(test_response_after_runtime);
    RUN(test_empty_body);
    RUN(test_many);
    RUN(test_internal_task);
    RUN(test_mt_2);
    RUN(test_mt_4);
    close(listen_fd);
    return check_finish();
}
