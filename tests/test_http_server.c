/* SPDX-License-Identifier: MIT */
/* The native HTTP/1.1 server (http.h: wa_http_listen_init) on 127.0.0.1:0,
 * talked to in raw HTTP/1.1 by a client of the same runtime (net.h's
 * connect and the stream futures): a GET, keep-alive, pipelining, chunked
 * bodies both ways, Content-Length both ways, HEAD, 100-continue, each
 * limit (431, 414, 413, 400), a malformed request (400, then the close),
 * the idle and head timeouts, a task that fails (500), the graceful
 * shutdown of a cancelled server with a slow request in flight; then, when
 * given its path, examples/http_hello.c served natively and fetched with
 * the library's own client (wa_http_fetch_init). No fd left open.
 *
 * Those run on the runtime WASYNC_WORKERS says, as WA_HTTP_SERVE's main
 * reads it (unset: a local one; CTest's http_server_mt twin: 2 workers),
 * the example too. Whatever it says, many keep-alive clients at once and
 * a graceful shutdown with requests in flight are served on many
 * threads. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "rt_setup.h"
#include "wasync/http.h"
#include "wasync/net.h"

/* The longest an exchange may take: under allocation-failure injection,
 * where one that a failure stopped waits it out (tests/faults/run.sh runs
 * the binary once per sampled allocation), a fifth. */
#define EXCHANGE_MAX (5000 * MS / CHECK_SCALE(5, 1))

#define MS (1000 * 1000ull)

/* ---- the server's handler: a route per path ---- */

typedef struct route {
    WA_CORO;
    wa_http_incoming *in;
    wa_stream *body, *out;
    wa_read_all all;
    wa_write w;
    wa_sleep sleep;
    char text[256];
} route;

static const wa_http_header plain[] = {{"content-type", "text/plain"}};

/* Requests to /held that began, and whether they may answer now. */
static int held_in, held_go;

/* The runtime of the protocol's tests: 0 local, else its workers. */
static unsigned workers;

/* Answers status with the n bytes of text, in one write. */
#define ANSWER(status, headers, n_headers, data, len)                                     \
    do {                                                                                  \
        if ((rc = wa_http_incoming_respond(t->in, status, headers, n_headers, &t->out)) < 0) \
            WA_RETURN(rc);                                                                \
        WA_AWAIT(wa_write_init(&t->w, t->out, data, len));                                \
    } while (0)

static void route_end(route *t) { free(t->all.data); }

WA_ASYNC(route, t, cx, route_end)
{
    int rc;
    const char *path = wa_http_incoming_path(t->in);
    WA_BEGIN(t, cx);
    if (!strcmp(path, "/echo")) { /* the body back, read whole */
        if ((rc = wa_http_incoming_body(t->in, &t->body)) < 0)
            WA_RETURN(rc);
        WA_TRY(wa_read_all_init(&t->all, t->body, 0));
        ANSWER(200, plain, 1, t->all.data, t->all.len);
    } else if (!strcmp(path, "/chunked")) { /* two writes apart: chunked */
        ANSWER(200, plain, 1, "ab", 2);
        WA_AWAIT(wa_sleep_init(&t->sleep, 1 * MS));
        WA_AWAIT(wa_write_init(&t->w, t->out, "cd", 2));
    } else if (!strcmp(path, "/length")) { /* the handler's content-length */
        static const wa_http_header length[] = {{"content-length", "5"}};
        ANSWER(200, length, 1, "12345", 5);
        WA_AWAIT(wa_sleep_init(&t->sleep, 1 * MS));
    } else if (!strcmp(path, "/sixty")) { /* 60,000 bytes in one write */
        static char sixty[60000];
        memset(sixty, 'x', sizeof sixty);
        ANSWER(200, plain, 1, sixty, sizeof sixty);
    } else if (!strcmp(path, "/slow")) {
        WA_AWAIT(wa_sleep_init(&t->sleep, 300 * MS));
        ANSWER(200, plain, 1, "slow\n", 5);
    } else if (!strcmp(path, "/held")) { /* answered once the test lets it go */
        __atomic_add_fetch(&held_in, 1, __ATOMIC_RELAXED);
        while (!__atomic_load_n(&held_go, __ATOMIC_RELAXED))
            WA_AWAIT(wa_sleep_init(&t->sleep, 2 * MS));
        ANSWER(200, plain, 1, "held\n", 5);
    } else if (!strcmp(path, "/fail")) {
        WA_RETURN(WA_EIO);
    } else if (!strncmp(path, "/p", 2)) { /* its path */
        snprintf(t->text, sizeof t->text, "%s\n", path);
        ANSWER(200, plain, 1, t->text, strlen(t->text));
    } else {
        ANSWER(200, plain, 1, "hello\n", 6);
    }
    WA_RETURN(WA_STATUS);
    WA_END();
}

static int handler(wa_rt *rt, wa_http_incoming *in, wa_join *task)
{
    route r = {.in = in};
    route_init(&r);
    return wa_spawn_of(rt, &r, task);
}

/* ---- the client: a request's bytes out, what comes back until the close ---- */

typedef struct exchange {
    WA_CORO;
    const wa_http_listen *l;
    const char *ip;                    /* the server's (NULL: 127.0.0.1) */
    const char *req, *wait_for, *then; /* then goes out once wait_for came */
    size_t req_len;                    /* (0: strlen) */
    int half;                          /* ends its writing half after the request, then
                                          reads 200 ms later through a 4 KiB window */
    wa_sleep nap;
    uint64_t total;                    /* bytes read (the buffer keeps the last ones) */
    int fd;                            /* (half: the client's socket) */
    wa_tcp_op op;
    wa_stream *s;
    wa_write w;
    wa_read r;
    uint64_t began, took; /* until the close */
    int rc;               /* the connect's or a read's failure */
    size_t len;
    char buf[16384];
} exchange;

/* Every answer has a date header: "date: Sun, 06 Nov 1994 08:49:37 GMT". */
#define DATE_FORM "date: Aaa, 00 Aaa 0000 00:00:00 GMT\r\n"
#define DATE_LEN (sizeof DATE_FORM - 1)

/* Whether d begins with a date header line of DATE_FORM's form (A: a
 * name, a capital and two small letters; 0: a digit). */
static bool date_ok(const char *d)
{
    for (size_t i = 0; i < DATE_LEN; i++) {
        char f = DATE_FORM[i], c = d[i];
        if (f == 'A') {
            if (!(c >= 'A' && c <= 'Z') || !(d[i + 1] >= 'a' && d[i + 1] <= 'z') || !(d[i + 2] >= 'a' && d[i + 2] <= 'z'))
                return false;
            i += 2;
        } else if (f == '0' ? !(c >= '0' && c <= '9') : c != f) {
            return false;
        }
    }
    return true;
}

/* Takes the date header out of each answer in x's buffer, having checked
 * its form, and checks that every final answer (not a 100 Continue) had
 * one when the buffer holds all that came. */
static void undate(exchange *x)
{
    int dates = 0, answers = 0;
    for (const char *a = x->buf; (a = strstr(a, "HTTP/1.1 ")) != NULL; a++)
        answers += a[9] != '1';
    for (char *d; (d = strstr(x->buf, "\r\ndate: ")) != NULL; dates++) {
        d += 2;
        if (!date_ok(d)) {
            CHECK(!"a date header of the form date: Sun, 06 Nov 1994 08:49:37 GMT");
            return;
        }
        memmove(d, d + DATE_LEN, strlen(d + DATE_LEN) + 1);
        x->len -= DATE_LEN;
    }
    if (x->total == x->len + dates * DATE_LEN)
        CHECK_EQ(dates, answers);
}

/* Whether got[0..len) is want[0..want_len) with a date header after its
 * status line. */
static bool same_dated(const char *got, size_t len, const char *want, size_t want_len)
{
    const char *eol = strstr(want, "\r\n");
    size_t k = eol ? (size_t)(eol - want) + 2 : 0;
    return eol && len == want_len + DATE_LEN && !memcmp(got, want, k) && date_ok(got + k) &&
           !memcmp(got + k + DATE_LEN, want + k, want_len - k);
}

/* A client socket to 127.0.0.1:port that receives through a 4 KiB
 * window, as a stream in *s (its fd in *sock): 0 or an error. */
static int small_window(wa_rt *rt, uint16_t port, int *sock, wa_stream **s)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), small = 4096;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (fd < 0)
        return WA_EIO;
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small) < 0 ||
        connect(fd, (struct sockaddr *)&a, sizeof a) < 0) { /* (loopback: at once) */
        close(fd);
        return WA_EIO;
    }
    *sock = fd;
    return wa_fd_stream_open(rt, fd, s);
}

static void exchange_end(exchange *t)
{
    if (t->s)
        wa_stream_close(&t->s);
}

WA_ASYNC(exchange, t, cx, exchange_end)
{
    WA_BEGIN(t, cx);
    while (!wa_http_listen_port(t->l))
        WA_YIELD();
    if (t->half) {
        if ((t->rc = small_window(cx->rt, wa_http_listen_port(t->l), &t->fd, &t->s)) < 0)
            WA_RETURN(0);
    } else {
        WA_AWAIT(wa_tcp_connect_init(&t->op, cx->rt, t->ip ? t->ip : "127.0.0.1", wa_http_listen_port(t->l)));
        if ((t->rc = WA_STATUS) < 0)
            WA_RETURN(0);
        t->s = t->op.conn;
    }
    t->began = wa_now(cx->rt);
    WA_AWAIT(wa_write_init(&t->w, t->s, t->req, t->req_len ? t->req_len : strlen(t->req)));
    if (t->half) {
        shutdown(t->fd, SHUT_WR);
        WA_AWAIT(wa_sleep_init(&t->nap, 200 * MS)); /* the server's answer fills the window */
    }
    for (;;) {
        if (t->then && strstr(t->buf, t->wait_for)) {
            WA_AWAIT(wa_write_init(&t->w, t->s, t->then, strlen(t->then)));
            t->then = NULL;
        }
        WA_AWAIT(wa_read_init(&t->r, t->s, t->buf + t->len, sizeof t->buf - 1 - t->len));
        if (WA_STATUS < 0)
            break;
        t->len += t->r.n;
        t->total += t->r.n;
        if (t->len > sizeof t->buf / 2) { /* the last half kept */
            memmove(t->buf, t->buf + t->len - 64, 64);
            t->len = 64;
        }
        t->buf[t->len] = '\0';
    }
    if (WA_STATUS != WA_ECLOSED)
        t->rc = WA_STATUS;
    t->took = wa_now(cx->rt) - t->began;
    WA_END();
}

/* Polls the future at arg (borrowed) as a task, in place, so that its
 * fields stay readable where they are (a listener's port, a client's
 * results). */
static int in_place(void *arg, wa_cx *cx)
{
    wa_future *f = arg;
    if (!cx) {
        wa_drop(f);
        return 0;
    }
    int rc = wa_poll(f, cx);
    if (rc != WA_PENDING)
        wa_drop(f);
    return rc;
}

/* Cancels the server's task after a while (a graceful shutdown). */
typedef struct canceller {
    WA_CORO;
    wa_join *server;
    wa_sleep sleep;
} canceller;

WA_ASYNC(canceller, t, cx)
{
    WA_BEGIN(t, cx);
    WA_AWAIT(wa_sleep_init(&t->sleep, 100 * MS));
    wa_join_cancel(t->server);
    WA_END();
}

/* A server on a runtime of n workers (0: local) with limits changed by
 * tweak (may be NULL), the exchange x with it, then the server cancelled:
 * its status in *status. */
static int serve_on(unsigned n, exchange *x, void (*tweak)(wa_http_limits *), int cancel_early, int *status)
{
    wa_rt *rt;
    wa_http_listen l;
    wa_join server;
    wa_timeout to;
    int rc = check_rt_new(&rt, n, NULL, NULL);
    if (rc < 0)
        return rc;
    wa_http_listen_init(&l, rt, x->ip ? "[::1]:0" : "127.0.0.1:0", handler);
    if (tweak)
        tweak(&l.limits);
    if ((rc = wa_spawn_fn(rt, in_place, &l, &server)) < 0) {
        wa_drop(&l.fut);
        wa_rt_free(rt);
        return rc;
    }
    x->l = &l;
    exchange_init(x);
    canceller c = {.server = &server};
    canceller_init(&c);
    if (cancel_early && (rc = wa_spawn_of(rt, &c, NULL)) < 0)
        goto out;
    rc = wa_block_on(rt, wa_timeout_init(&to, &x->wa.fut, EXCHANGE_MAX));
    if (rc == 0) {
        undate(x);
        wa_join_cancel(&server);
        *status = wa_block_on(rt, &server.fut); /* (takes the handle, whatever it says) */
        wa_rt_free(rt);
        return 0;
    }
out:
    wa_join_drop(&server);
    wa_rt_free(rt);
    return rc;
}

/* The same on the protocol tests' runtime. */
static int serve(exchange *x, void (*tweak)(wa_http_limits *), int cancel_early, int *status)
{
    return serve_on(workers, x, tweak, cancel_early, status);
}

/* The exchange of req (then, once wait_for came back: then), checked for
 * the connection and the server's end; 0 or why it failed. */
static int talk_n(exchange *x, const char *req, size_t n, const char *wait_for, const char *then,
                  void (*tweak)(wa_http_limits *))
{
    int status = 0;
    *x = (exchange){.req = req, .req_len = n, .wait_for = wait_for, .then = then};
    int rc = serve(x, tweak, 0, &status);
    if (rc == 0) {
        CHECK_EQ(x->rc, 0);
        CHECK_EQ(status, WA_ECANCELED);
    }
    return rc;
}

static int talk(exchange *x, const char *req, const char *wait_for, const char *then, void (*tweak)(wa_http_limits *))
{
    return talk_n(x, req, 0, wait_for, then, tweak);
}

#define HOST "Host: test\r\n"
#define CLOSE "Connection: close\r\n"
#define HELLO "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 6\r\n"

static exchange x; /* (16 KiB: not on the stack) */

static void test_get(void)
{
    long fds = check_fds_held();
    REQUIRE(talk(&x, "GET / HTTP/1.1\r\n" HOST CLOSE "\r\n", NULL, NULL, NULL) == 0);
    CHECK(!strcmp(x.buf, HELLO "connection: close\r\n\r\nhello\n"));
    CHECK_EQ(check_fds_held(), fds);
}

static void test_ipv6(void)
{
    int status = 0;
    x = (exchange){.ip = "::1", .req = "GET /p6 HTTP/1.1\r\n" HOST CLOSE "\r\n"};
    REQUIRE(serve(&x, NULL, 0, &status) == 0);
    CHECK_EQ(x.rc, 0);
    CHECK(!strcmp(x.buf, "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 4\r\nconnection: close\r\n\r\n/p6\n"));
    CHECK_EQ(status, WA_ECANCELED);
}

/* A client that ends its writing half after its request still gets the
 * whole answer, also one that waits for room in the socket. It asks for
 * the close: its end may come in the same edge as its request (on many
 * threads, where it runs beside the server), which a keep-alive
 * connection sees only at its idle timeout (http_conn.c's read). */
static void test_half_close(void)
{
    int status = 0;
    x = (exchange){.half = 1, .req = "GET /sixty HTTP/1.1\r\n" HOST CLOSE "\r\n"};
    REQUIRE(serve(&x, NULL, 0, &status) == 0);
    CHECK_EQ(x.rc, 0);
    CHECK_EQ(x.total, 60000 + DATE_LEN + strlen("HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 60000\r\n"
                                                "connection: close\r\n\r\n"));
}

static void test_keep_alive(void)
{
    REQUIRE(talk(&x, "GET / HTTP/1.1\r\n" HOST "\r\n", "hello\n", "GET /p2 HTTP/1.1\r\n" HOST CLOSE "\r\n", NULL) == 0);
    CHECK(!strcmp(x.buf, HELLO "\r\nhello\n"
                         "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 4\r\nconnection: close\r\n\r\n/p2\n"));
}

static void test_pipelining(void)
{
    REQUIRE(talk(&x, "GET /p1 HTTP/1.1\r\n" HOST "\r\nGET /p2 HTTP/1.1\r\n" HOST "\r\nGET /p3 HTTP/1.1\r\n" HOST CLOSE "\r\n",
                 NULL, NULL, NULL) == 0);
    const char *a = strstr(x.buf, "\r\n\r\n/p1\n"), *b = strstr(x.buf, "\r\n\r\n/p2\n"),
               *c = strstr(x.buf, "\r\n\r\n/p3\n");
    CHECK(a && b && c && a < b && b < c); /* in order */
    CHECK(c && !strcmp(c, "\r\n\r\n/p3\n"));
}

static void test_chunked_request(void)
{
    REQUIRE(talk(&x, "POST /echo HTTP/1.1\r\n" HOST CLOSE "Transfer-Encoding: chunked\r\n\r\n"
                     "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n",
                 NULL, NULL, NULL) == 0);
    CHECK(!strcmp(x.buf, "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 11\r\nconnection: close\r\n\r\n"
                         "hello world"));
}

static void test_chunked_response(void)
{
    REQUIRE(talk(&x, "GET /chunked HTTP/1.1\r\n" HOST CLOSE "\r\n", NULL, NULL, NULL) == 0);
    CHECK(!strcmp(x.buf, "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ntransfer-encoding: chunked\r\n"
                         "connection: close\r\n\r\n2\r\nab\r\n2\r\ncd\r\n0\r\n\r\n"));
    /* HTTP/1.0: no chunks, the body runs to the close */
    REQUIRE(talk(&x, "GET /chunked HTTP/1.0\r\n\r\n", NULL, NULL, NULL) == 0);
    CHECK(!strcmp(x.buf, "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\nabcd"));
}

static void test_content_length(void)
{
    REQUIRE(talk(&x, "POST /echo HTTP/1.1\r\n" HOST CLOSE "Content-Length: 5\r\n\r\nhello", NULL, NULL, NULL) == 0);
    CHECK(strstr(x.buf, "content-length: 5\r\nconnection: close\r\n\r\nhello") != NULL);
    /* the handler's own, written in two polls: not chunked */
    REQUIRE(talk(&x, "GET /length HTTP/1.1\r\n" HOST CLOSE "\r\n", NULL, NULL, NULL) == 0);
    CHECK(!strcmp(x.buf, "HTTP/1.1 200 OK\r\ncontent-length: 5\r\nconnection: close\r\n\r\n12345"));
}

static void test_head(void)
{
    REQUIRE(talk(&x, "HEAD / HTTP/1.1\r\n" HOST "\r\n", "\r\n\r\n", "GET / HTTP/1.1\r\n" HOST CLOSE "\r\n", NULL) == 0);
    CHECK(!strcmp(x.buf, HELLO "\r\n" HELLO "connection: close\r\n\r\nhello\n")); /* no body after the first head */
}

static void test_continue(void)
{
    REQUIRE(talk(&x, "POST /echo HTTP/1.1\r\n" HOST CLOSE "Expect: 100-continue\r\nContent-Length: 5\r\n\r\n",
                 "100 Continue\r\n\r\n", "hello", NULL) == 0);
    CHECK(!strncmp(x.buf, "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n", 42));
    CHECK(strstr(x.buf, "content-length: 5\r\nconnection: close\r\n\r\nhello") != NULL);
    /* a handler that does not read the body: no 100, and the answer closes */
    REQUIRE(talk(&x, "POST / HTTP/1.1\r\n" HOST "Expect: 100-continue\r\nContent-Length: 5\r\n\r\n", NULL, NULL, NULL) == 0);
    CHECK(!strcmp(x.buf, HELLO "connection: close\r\n\r\nhello\n"));
}

static void small(wa_http_limits *l)
{
    l->head_max = 1024;
    l->headers_max = 4;
    l->body_max = 10;
}

static void test_limits(void)
{
    char req[4096];
    memset(req, 'a', sizeof req);
    memcpy(req, "GET / HTTP/1.1\r\n" HOST "X-Big: ", 35);
    strcpy(req + 2000, "\r\n\r\n");
    REQUIRE(talk(&x, req, NULL, NULL, small) == 0);
    CHECK(!strcmp(x.buf, "HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"));
    REQUIRE(talk(&x, "GET / HTTP/1.1\r\n" HOST "A: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n\r\n", NULL, NULL, small) == 0);
    CHECK(!strncmp(x.buf, "HTTP/1.1 431 ", 13));
    memset(req, 'a', sizeof req);
    memcpy(req, "GET /", 5);
    strcpy(req + 2000, " HTTP/1.1\r\n" HOST "\r\n");
    REQUIRE(talk(&x, req, NULL, NULL, small) == 0);
    CHECK(!strncmp(x.buf, "HTTP/1.1 414 ", 13));
    REQUIRE(talk(&x, "POST /echo HTTP/1.1\r\n" HOST "Content-Length: 11\r\n\r\nhello world", NULL, NULL, small) == 0);
    CHECK(!strcmp(x.buf, "HTTP/1.1 413 Content Too Large\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"));
    /* chunked past the limit: the body's read fails, the task with it */
    REQUIRE(talk(&x, "POST /echo HTTP/1.1\r\n" HOST "Transfer-Encoding: chunked\r\n\r\n6\r\nhello \r\n5\r\nworld\r\n0\r\n\r\n",
                 NULL, NULL, small) == 0);
    CHECK(!strcmp(x.buf, "HTTP/1.1 413 Content Too Large\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"));
}

static void test_malformed(void)
{
    static const char nul[] = "GET / HTTP/1.1\r\nHost: a\0b\r\n\r\n";
    REQUIRE(talk_n(&x, nul, sizeof nul - 1, NULL, NULL, NULL) == 0); /* (no C string holds it) */
    CHECK(!strcmp(x.buf, "HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"));
    static const char *bad[] = {
        "GET / HTTP/1.1\r\n" HOST "Bad Header\r\n\r\nGET / HTTP/1.1\r\n" HOST "\r\n",
        "GET / HTTP/1.1\r\n\r\n",               /* no host */
        "GET / HTTP/1.1\r\n" HOST HOST "\r\n",  /* two */
        "POST / HTTP/1.1\r\n" HOST "Content-Length: 1\r\nContent-Length: 2\r\n\r\nab",
        "BREW / HTTP/1.1\r\n" HOST "\r\n",
        "GET / HTTP/1.1\r\n" HOST "X-Name : v\r\n\r\n", /* (RFC 9112 5.1: llhttp 8 takes it) */
        "GET /\x01 HTTP/1.1\r\n" HOST "\r\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        REQUIRE(talk(&x, bad[i], NULL, NULL, NULL) == 0);
        CHECK(!strcmp(x.buf, "HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"));
    }
}

static void quick(wa_http_limits *l)
{
    l->idle_timeout = 200 * MS;
    l->head_timeout = 100 * MS;
}

/* The head's timeout far from the idle one, so that a loaded machine's
 * late wakes do not blur them. */
static void quick_head(wa_http_limits *l)
{
    l->idle_timeout = 2000 * MS;
    l->head_timeout = 100 * MS;
}

static void test_timeouts(void)
{
    /* idle: a connection with no request, and one kept alive after its answer */
    REQUIRE(talk(&x, "", NULL, NULL, quick) == 0);
    CHECK(!strcmp(x.buf, ""));
    CHECK(x.took >= 190 * MS && x.took < 2000 * MS);
    REQUIRE(talk(&x, "GET / HTTP/1.1\r\n" HOST "\r\n", NULL, NULL, quick) == 0);
    CHECK(!strcmp(x.buf, HELLO "\r\nhello\n"));
    CHECK(x.took >= 190 * MS && x.took < 2000 * MS);
    /* a head that never ends (slowloris) */
    REQUIRE(talk(&x, "GET / HTTP/1.1\r\nHo", NULL, NULL, quick_head) == 0);
    CHECK(!strcmp(x.buf, ""));
    CHECK(x.took >= 90 * MS && x.took < 1000 * MS);
}

static void test_fail(void)
{
    REQUIRE(talk(&x, "GET /fail HTTP/1.1\r\n" HOST CLOSE "\r\n", NULL, NULL, NULL) == 0);
    CHECK(!strcmp(x.buf, "HTTP/1.1 500 Internal Server Error\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"));
}

/* Cancelled 100 ms into a 300 ms request: the request is answered (and
 * told the connection closes), then the server ends, refusing new ones. */
static void test_shutdown(void)
{
    int status = 0;
    x = (exchange){.req = "GET /slow HTTP/1.1\r\n" HOST "\r\n"};
    REQUIRE(serve(&x, NULL, 1, &status) == 0);
    CHECK_EQ(x.rc, 0);
    CHECK(!strcmp(x.buf, "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 5\r\nconnection: close\r\n\r\nslow\n"));
    CHECK_EQ(status, WA_ECANCELED);
}

/* A server that could not listen ends with why. */
static void test_bad_address(void)
{
    static const char *bad[] = {"127.0.0.1", "127.0.0.1:", "127.0.0.1:65536", "[::1:80", "::1:80", "localhost:80", NULL};
    wa_rt *rt;
    REQUIRE(wa_rt_new(&rt) == 0);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        wa_http_listen l;
        CHECK_EQ(wa_block_on(rt, wa_http_listen_init(&l, rt, bad[i], handler)), WA_EINVAL);
    }
    wa_rt_free(rt);
}

/* A many-threads runtime serves as a local one (it was refused, as
 * misuse, while the connections' state had no lock): a bad address
 * fails, a GET is answered, the cancel ends the server. */
static void test_mt_runtime(void)
{
    wa_rt *rt;
    REQUIRE(wa_rt_new_mt(&rt, 1) == 0);
    wa_http_listen l;
    CHECK_EQ(wa_block_on(rt, wa_http_listen_init(&l, rt, "127.0.0.1", handler)), WA_EINVAL);
    wa_rt_free(rt);
    int status = 0;
    x = (exchange){.req = "GET /p1 HTTP/1.1\r\n" HOST CLOSE "\r\n"};
    REQUIRE(serve_on(1, &x, NULL, 0, &status) == 0);
    CHECK_EQ(x.rc, 0);
    CHECK(!strcmp(x.buf, "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 4\r\nconnection: close\r\n\r\n/p1\n"));
    CHECK_EQ(status, WA_ECANCELED);
}

/* ---- many threads: clients at once ---- */

/* A keep-alive client of rounds requests, one at a time, each answer
 * checked whole: a GET of its own path, a POST echoed, a chunked answer
 * written in two polls, in turn. With held, its one request is /held and
 * it reads on to the close, then connects again (refused once the server
 * stopped); with idle, it waits after its answer for the server to close
 * the connection. */
typedef struct client {
    WA_CORO;
    const wa_http_listen *l;
    int id, rounds, held, idle;
    int i, good;  /* answers as expected */
    int answered; /* atomic: its first answer came */
    int closed;   /* atomic: (idle) the server closed the connection */
    int rc;       /* a failure, or 1 for an answer not as expected */
    int again;    /* (held) the second connect's status */
    size_t req_len, want_len, len;
    wa_tcp_op op;
    wa_stream *s;
    wa_write w;
    wa_read r;
    char req[128], want[256], buf[512];
} client;

/* Round i's request and the answer it wants. */
static void client_round(client *t)
{
    static const char head[] = "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n";
    char body[64];
    int n = snprintf(body, sizeof body, "%d-%d", t->id, t->i);
    if (t->held) {
        t->req_len = (size_t)snprintf(t->req, sizeof t->req, "GET /held HTTP/1.1\r\n" HOST "\r\n");
        t->want_len = (size_t)snprintf(t->want, sizeof t->want, "%scontent-length: 5\r\nconnection: close\r\n\r\nheld\n",
                                       head);
    } else if ((t->id + t->i) % 3 == 0) {
        t->req_len = (size_t)snprintf(t->req, sizeof t->req, "GET /p%s HTTP/1.1\r\n" HOST "\r\n", body);
        t->want_len = (size_t)snprintf(t->want, sizeof t->want, "%scontent-length: %d\r\n\r\n/p%s\n", head, n + 3, body);
    } else if ((t->id + t->i) % 3 == 1) {
        t->req_len = (size_t)snprintf(t->req, sizeof t->req, "POST /echo HTTP/1.1\r\n" HOST "Content-Length: %d\r\n\r\n%s",
                                      n, body);
        t->want_len = (size_t)snprintf(t->want, sizeof t->want, "%scontent-length: %d\r\n\r\n%s", head, n, body);
    } else {
        t->req_len = (size_t)snprintf(t->req, sizeof t->req, "GET /chunked HTTP/1.1\r\n" HOST "\r\n");
        t->want_len = (size_t)snprintf(t->want, sizeof t->want,
                                       "%stransfer-encoding: chunked\r\n\r\n2\r\nab\r\n2\r\ncd\r\n0\r\n\r\n", head);
    }
}

static void client_end(client *t)
{
    if (t->s)
        wa_stream_close(&t->s);
}

WA_ASYNC(client, t, cx, client_end)
{
    WA_BEGIN(t, cx);
    while (!wa_http_listen_port(t->l))
        WA_YIELD();
    WA_AWAIT(wa_tcp_connect_init(&t->op, cx->rt, "127.0.0.1", wa_http_listen_port(t->l)));
    if ((t->rc = WA_STATUS) < 0)
        WA_RETURN(0);
    t->s = t->op.conn;
    for (t->i = 0; t->i < t->rounds; t->i++) {
        client_round(t);
        WA_AWAIT(wa_write_init(&t->w, t->s, t->req, t->req_len));
        if ((t->rc = WA_STATUS) < 0)
            WA_RETURN(0);
        for (t->len = 0; t->len < t->want_len + DATE_LEN;) {
            WA_AWAIT(wa_read_init(&t->r, t->s, t->buf + t->len, sizeof t->buf - t->len));
            if ((t->rc = WA_STATUS) < 0)
                WA_RETURN(0);
            t->len += t->r.n;
        }
        if (!same_dated(t->buf, t->len, t->want, t->want_len)) {
            t->rc = 1;
            WA_RETURN(0);
        }
        t->good++;
        __atomic_store_n(&t->answered, 1, __ATOMIC_RELAXED);
    }
    if (t->held || t->idle) { /* the server closes the connection */
        WA_AWAIT(wa_read_init(&t->r, t->s, t->buf, sizeof t->buf));
        t->rc = WA_STATUS == WA_ECLOSED ? 0 : WA_STATUS < 0 ? WA_STATUS : 1;
        __atomic_store_n(&t->closed, 1, __ATOMIC_RELAXED);
    }
    if (t->held) {
        wa_stream_close(&t->s);
        WA_AWAIT(wa_tcp_connect_init(&t->op, cx->rt, "127.0.0.1", wa_http_listen_port(t->l)));
        if ((t->again = WA_STATUS) == 0)
            wa_stream_close(&t->op.conn);
    }
    WA_END();
}

/* Cancels the server once want requests wait at /held and the idle
 * client had its answer; once the server closed the idle connection (it
 * stopped: it closed its listener first) lets the held requests answer.
 * Each wait gives up after 5 s (a setup that failed under
 * allocation-failure injection), so that the test ends. */
typedef struct stopper {
    WA_CORO;
    wa_join *server;
    const client *idle;
    int want;
    int naps;
    wa_sleep nap;
} stopper;

WA_ASYNC(stopper, t, cx)
{
    WA_BEGIN(t, cx);
    while ((__atomic_load_n(&held_in, __ATOMIC_RELAXED) < t->want || !__atomic_load_n(&t->idle->answered, __ATOMIC_RELAXED)) &&
           t->naps++ < 2500)
        WA_AWAIT(wa_sleep_init(&t->nap, 2 * MS));
    wa_join_cancel(t->server);
    for (t->naps = 0; !__atomic_load_n(&t->idle->closed, __ATOMIC_RELAXED) && t->naps < 2500; t->naps++)
        WA_AWAIT(wa_sleep_init(&t->nap, 2 * MS));
    __atomic_store_n(&held_go, 1, __ATOMIC_RELAXED);
    WA_END();
}

/* Serves the clients cl[0..n) on a runtime of w workers, then cancels the
 * server (stop, if not NULL, spawned beside them, cancels it first): its
 * status in *status, each client's join's in rcs. 0, or the failure to
 * set up. */
static int serve_clients(unsigned w, client *cl, int n, stopper *stop, int *rcs, int *status)
{
    wa_rt *rt;
    wa_http_listen l;
    wa_join server, joins[32];
    int rc = wa_rt_new_mt(&rt, w), spawned = 0;
    if (rc < 0)
        return rc;
    wa_http_listen_init(&l, rt, "127.0.0.1:0", handler);
    if ((rc = wa_spawn_fn(rt, in_place, &l, &server)) < 0) {
        wa_drop(&l.fut);
        wa_rt_free(rt);
        return rc;
    }
    for (; spawned < n; spawned++) {
        cl[spawned].l = &l;
        client_init(&cl[spawned]);
        if ((rc = wa_spawn_fn(rt, in_place, &cl[spawned].wa.fut, &joins[spawned])) < 0)
            break;
    }
    if (rc == 0 && stop) {
        stop->server = &server;
        rc = wa_spawn_of(rt, stop, NULL);
    }
    if (rc < 0)
        __atomic_store_n(&held_go, 1, __ATOMIC_RELAXED); /* (no stopper: nothing is held) */
    for (int i = 0; i < spawned; i++) {
        wa_timeout to;
        rcs[i] = wa_block_on(rt, wa_timeout_init(&to, &joins[i].fut, 2 * EXCHANGE_MAX));
    }
    wa_join_cancel(&server);
    *status = wa_block_on(rt, &server.fut);
    wa_rt_free(rt);
    return rc;
}

/* 16 keep-alive clients at once on 4 workers, 30 requests each, every
 * answer checked whole; no fd left open. */
static void test_mt_clients(void)
{
    enum { N = 16 };
    static client cl[N];
    int rcs[N], status = 0;
    long fds = check_fds_held();
    for (int i = 0; i < N; i++)
        cl[i] = (client){.id = i, .rounds = 30};
    REQUIRE(serve_clients(4, cl, N, NULL, rcs, &status) == 0);
    for (int i = 0; i < N; i++) {
        CHECK_EQ(rcs[i], 0);
        CHECK_EQ(cl[i].rc, 0);
        CHECK_EQ(cl[i].good, 30);
    }
    CHECK_EQ(status, WA_ECANCELED);
    CHECK_EQ(check_fds_held(), fds);
}

/* The graceful shutdown on 2 workers: cancelled with 6 requests in flight
 * and an idle keep-alive connection, the server refuses new connections,
 * closes the idle one, answers each request in flight (saying it closes)
 * and then closes, and ends with WA_ECANCELED once they are gone. */
static void test_mt_shutdown(void)
{
    enum { N = 7 };
    static client cl[N];
    int rcs[N], status = 0;
    held_in = held_go = 0;
    for (int i = 0; i < N; i++)
        cl[i] = (client){.id = i, .rounds = 1, .held = i > 0, .idle = i == 0};
    stopper stop = {.idle = &cl[0], .want = N - 1};
    stopper_init(&stop);
    REQUIRE(serve_clients(2, cl, N, &stop, rcs, &status) == 0);
    for (int i = 0; i < N; i++) {
        CHECK_EQ(rcs[i], 0);
        CHECK_EQ(cl[i].rc, 0);
        CHECK_EQ(cl[i].good, 1);
        if (i > 0)
            CHECK_EQ(cl[i].again, WA_ECONNREFUSED);
    }
    CHECK_EQ(status, WA_ECANCELED);
}

/* ---- examples/http_hello.c, natively ---- */

/* The stats, 50 hellos, the stats again. */
typedef struct fetches {
    WA_CORO;
    char stats[64], hello[64];
    wa_http_request req;
    wa_http_fetch f;
    int i;
    char first[128], last[128];
} fetches;

WA_ASYNC(fetches, t, cx)
{
    WA_BEGIN(t, cx);
    for (t->i = 0; t->i < 52; t->i++) {
        t->req.url = t->i == 0 || t->i == 51 ? t->stats : t->hello;
        WA_TRY(wa_http_fetch_init(&t->f, &t->req, 0));
        CHECK_EQ(wa_http_response_status(t->f.response), 200);
        if (t->i == 0 || t->i == 51)
            snprintf(t->i ? t->last : t->first, sizeof t->first, "%s", (char *)t->f.data);
        else
            CHECK(!strcmp((char *)t->f.data, "hello from wasync\n"));
        free(t->f.data);
        wa_http_response_free(t->f.response);
    }
    WA_END();
}

static void test_example(const char *path)
{
    int out[2];
    REQUIRE(pipe(out) == 0);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        dup2(out[1], 1);
        setenv("WASYNC_LISTEN", "127.0.0.1:0", 1);
        execl(path, path, (char *)NULL);
        _exit(127);
    }
    close(out[1]);
    char line[128] = "";
    FILE *f = fdopen(out[0], "r");
    unsigned port = 0;
    if (f && fgets(line, sizeof line, f))
        sscanf(line, "listening on http://127.0.0.1:%u/", &port);
    CHECK(port != 0);
    wa_rt *rt = NULL;
    if (port && wa_rt_new(&rt) == 0) {
        static fetches t;
        t = (fetches){0};
        snprintf(t.stats, sizeof t.stats, "http://127.0.0.1:%u/stats", port);
        snprintf(t.hello, sizeof t.hello, "http://127.0.0.1:%u/", port);
        fetches_init(&t);
        CHECK_EQ(wa_block_on(rt, &t.wa.fut), 0);
        CHECK(!strncmp(t.first, "tasks=", 6));
        CHECK(!strcmp(t.first, t.last)); /* nothing left behind */
        wa_rt_free(rt);
    }
    kill(pid, SIGTERM);
    waitpid(pid, NULL, 0);
    if (f)
        fclose(f);
    else
        close(out[0]);
}

int main(int argc, char **argv)
{
    const char *w = getenv("WASYNC_WORKERS");
    workers = w ? (unsigned)atoi(w) : 0;
    RUN(test_get);
    RUN(test_ipv6);
    RUN(test_half_close);
    RUN(test_keep_alive);
    RUN(test_pipelining);
    RUN(test_chunked_request);
    RUN(test_chunked_response);
    RUN(test_content_length);
    RUN(test_head);
    RUN(test_continue);
    RUN(test_limits);
    RUN(test_malformed);
    RUN(test_timeouts);
    RUN(test_fail);
    RUN(test_shutdown);
    RUN(test_bad_address);
    RUN(test_mt_runtime);
    RUN(test_mt_clients);
    RUN(test_mt_shutdown);
    if (argc > 1) {
        check_current = "test_example";
        test_example(argv[1]);
    }
    return check_finish();
}
