/* SPDX-License-Identifier: MIT */
/* fd I/O, scopes and deadlock detection on the many-threads executor
 * (wa_rt_new_mt): a TCP echo server with 50 concurrent clients on 2 and 4
 * workers, a pipe between tasks that the workers share, sleeps mixed with
 * I/O, scopes whose children run on several workers and are cancelled in
 * the middle of their reads, shutdown and free with reads pending, and a
 * deadlock reported. No fd or registration is left behind. Run under TSan
 * by the tsan preset, and under tests/faults: a setup that fails there (the
 * runtime, a spawn, a socket) stops its test, releasing what it made. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "rt_setup.h"
#include "echo.h"
#include "wasync/net.h"

#if defined(WASYNC_FAULT_INJECTION)
#define BYTES 4096
#else
#define BYTES (64 * 1024)
#endif
#define CLIENTS 50

static unsigned char pattern(size_t i, int seed) { return (unsigned char)(i * 31 + (i >> 12) + (unsigned)seed); }

/* Accepts connections until cancelled, each echoed by a task of its own
 * in its scope (on any worker); cancelled, it waits for the echoes'
 * cancellation. Its drop closes l. */
typedef struct server {
    WA_CORO;
    wa_tcp *l;
    wa_tcp_op op;
    wa_scope scope;
} server;

WA_ASYNC(server, t, cx, server_cleanup)
{
    WA_BEGIN(t, cx);
    wa_scope_init(&t->scope, cx->rt, 0);
    while (!wa_cancel_requested(cx)) {
        WA_AWAIT(wa_tcp_accept_init(&t->op, t->l));
        if (WA_STATUS < 0)
            break;
        echo e = {.conn = t->op.conn};
        wa_coro_init(&e.wa, &echo_vt);
        check_scope_spawn_of(&t->scope, &e, NULL); /* (or dropped: its drop closed conn) */
    }
    WA_AWAIT(wa_scope_wait(&t->scope));
    WA_END();
}
static void server_cleanup(server *t) { wa_tcp_close(&t->l); }

/* Reads exactly len bytes from s into into (the peer closes only after). */
typedef struct reader {
    WA_CORO;
    wa_stream *s;
    unsigned char *into;
    size_t len, got;
    wa_read r;
} reader;

WA_ASYNC(reader, t, cx)
{
    WA_BEGIN(t, cx);
    while (t->got < t->len) {
        WA_AWAIT(wa_read_init(&t->r, t->s, t->into + t->got, t->len - t->got));
        if (WA_STATUS < 0)
            WA_RETURN(WA_STATUS);
        t->got += t->r.n;
    }
    WA_END();
}

/* Writes BYTES of its pattern to 127.0.0.1:port while reading the echo
 * back; counts itself in *ok when every byte came back in order. */
typedef struct client {
    WA_CORO;
    uint16_t port;
    int seed;
    wa_tcp_op op;
    unsigned char *out, *in;
    wa_write w;
    reader rd;
    WA_COMBO(2) both;
    int *ok;
} client;

WA_ASYNC(client, t, cx, client_cleanup)
{
    WA_BEGIN(t, cx);
    WA_AWAIT(wa_tcp_connect_init(&t->op, cx->rt, "127.0.0.1", t->port));
    if (WA_STATUS < 0)
        WA_RETURN(WA_STATUS);
    t->out = malloc(BYTES);
    t->in = malloc(BYTES);
    if (!t->out || !t->in)
        WA_RETURN(WA_ENOMEM);
    for (size_t k = 0; k < BYTES; k++)
        t->out[k] = pattern(k, t->seed);
    t->rd = (reader){.s = t->op.conn, .into = t->in, .len = BYTES};
    reader_init(&t->rd);
    WA_AWAIT(wa_all_init(&t->both, wa_write_init(&t->w, t->op.conn, t->out, BYTES), &t->rd.wa.fut));
    wa_stream_close(&t->op.conn);
    if (WA_STATUS == 0 && t->rd.got == BYTES && !memcmp(t->in, t->out, BYTES))
        __atomic_add_fetch(t->ok, 1, __ATOMIC_RELAXED);
    WA_RETURN(WA_STATUS);
    WA_END();
}
static void client_cleanup(client *t)
{
    if (t->op.conn) /* dropped while connected */
        wa_stream_close(&t->op.conn);
    free(t->out);
    free(t->in);
}

/* Awaits every client. */
typedef struct echo_main {
    WA_CORO;
    wa_join clients[CLIENTS];
    int i;
} echo_main;

WA_ASYNC(echo_main, t, cx, echo_main_cleanup)
{
    WA_BEGIN(t, cx);
    for (t->i = 0; t->i < CLIENTS; t->i++)
        if (t->clients[t->i].task)
            WA_AWAIT(&t->clients[t->i].fut);
    WA_END();
}
static void echo_main_cleanup(echo_main *t) { check_joins_drop(t->clients, CLIENTS); }

/* The echo server and CLIENTS clients at once, on 2 and on 4 workers. */
static void test_mt_echo(void)
{
    for (unsigned workers = 2; workers <= 4; workers *= 2) {
        long before = check_fds_held();
        wa_rt *rt;
        REQUIRE(wa_rt_new_mt(&rt, workers) == 0);
        wa_tcp_op op;
        REQUIRE_OR(wa_block_on(rt, wa_tcp_listen_init(&op, rt, "127.0.0.1", 0)) == 0, wa_rt_free(rt));
        uint16_t port = wa_tcp_port(op.listener);
        echo_main m = {0};
        echo_main_init(&m);
        server s = {.l = op.listener};
        server_init(&s);
        wa_join js;
        REQUIRE_OR(check_spawn_of(rt, &s, &js) == 0, wa_rt_free(rt)); /* (s's drop closed l) */
        int ok = 0, spawned = 0;
        for (int i = 0; i < CLIENTS; i++) {
            client c = {.port = port, .seed = i, .ok = &ok};
            client_init(&c);
            spawned += check_spawn_of(rt, &c, &m.clients[i]) == 0;
        }
        int rc = wa_block_on(rt, &m.wa.fut);
        CHECK(rc == 0 || rc == WA_ENOMEM);
#if !defined(WASYNC_FAULT_INJECTION)
        CHECK_EQ(rc, 0);
        CHECK_EQ(spawned, CLIENTS);
        CHECK_EQ(__atomic_load_n(&ok, __ATOMIC_RELAXED), CLIENTS);
#endif
        CHECK(__atomic_load_n(&ok, __ATOMIC_RELAXED) <= spawned);
        wa_join_cancel(&js); /* (the clients are done, or were never started) */
        CHECK_EQ(wa_rt_run(rt), 0);
        CHECK(wa_join_status(&js) == WA_ECANCELED || wa_join_status(&js) == WA_ENOMEM);
        wa_join_drop(&js);
        CHECK_RT_EMPTY_FREE(rt);
        CHECK_EQ(check_fds_held(), before);
    }
}

/* Writes len bytes of its pattern to s in chunks, sleeping a little
 * between some of them, then closes s. */
typedef struct writer {
    WA_CORO;
    wa_stream *s;
    int seed;
    size_t len, put, n; /* n: the chunk in flight, kept across its write's await */
    unsigned char chunk[1000];
    wa_write w;
    wa_sleep nap;
} writer;

WA_ASYNC(writer, t, cx, writer_cleanup)
{
    WA_BEGIN(t, cx);
    while (t->put < t->len) {
        t->n = t->len - t->put < sizeof t->chunk ? t->len - t->put : sizeof t->chunk;
        for (size_t k = 0; k < t->n; k++)
            t->chunk[k] = pattern(t->put + k, t->seed);
        WA_AWAIT(wa_write_init(&t->w, t->s, t->chunk, t->n));
        if (WA_STATUS < 0)
            WA_RETURN(WA_STATUS);
        t->put += t->n;
        if (t->put % 8000 == 0)
            WA_AWAIT(wa_sleep_init(&t->nap, WA_US(200)));
    }
    WA_END();
}
static void writer_cleanup(writer *t) { wa_stream_close(&t->s); }

/* A reader that closes its stream when it ends, and checks the pattern. */
typedef struct checker {
    WA_CORO;
    reader rd;
    int seed, *ok;
} checker;

WA_ASYNC(checker, t, cx, checker_cleanup)
{
    WA_BEGIN(t, cx);
    WA_AWAIT(&t->rd.wa.fut);
    if (WA_STATUS == 0) {
        size_t k = 0;
        while (k < t->rd.len && t->rd.into[k] == pattern(k, t->seed))
            k++;
        if (k == t->rd.len)
            __atomic_add_fetch(t->ok, 1, __ATOMIC_RELAXED);
    }
    WA_RETURN(WA_STATUS);
    WA_END();
}
static void checker_cleanup(checker *t)
{
    wa_stream_close(&t->rd.s);
    free(t->rd.into);
}

/* A pipe's two ends as streams of rt; 0, or an error with nothing left. */
static int pipe_streams(wa_rt *rt, wa_stream **r, wa_stream **w)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) < 0)
        return WA_EIO;
    int rc = wa_fd_stream_open(rt, fds[0], r); /* (takes the fd, also on failure) */
    if (rc < 0) {
        close(fds[1]);
        return rc;
    }
    if ((rc = wa_fd_stream_open(rt, fds[1], w)) < 0)
        wa_stream_close(r);
    return rc;
}

#define PIPES 8
#define PIPE_BYTES (200 * 1000)

/* PIPES pipes, a writer and a reader task on each, on 2 workers: the ends
 * of a pipe are used on whichever worker runs their tasks, and writers
 * sleep between chunks (timers and fds in one wait). */
static void test_mt_pipes_and_sleeps(void)
{
    long before = check_fds_held();
    wa_rt *rt;
    REQUIRE(wa_rt_new_mt(&rt, 2) == 0);
    int ok = 0, started = 0;
    for (int i = 0; i < PIPES; i++) {
        wa_stream *r, *w;
        if (pipe_streams(rt, &r, &w) < 0)
            continue;
        checker c = {.rd = {.s = r, .len = PIPE_BYTES, .into = malloc(PIPE_BYTES)}, .seed = i, .ok = &ok};
        reader_init(&c.rd);
        checker_init(&c);
        writer wr = {.s = w, .seed = i, .len = PIPE_BYTES};
        writer_init(&wr);
        if (!c.rd.into || check_spawn_of(rt, &c, NULL) < 0) { /* (a failed spawn dropped c) */
            if (!c.rd.into)
                wa_drop(&c.wa.fut);
            wa_drop(&wr.wa.fut);
            continue;
        }
        started += check_spawn_of(rt, &wr, NULL) == 0; /* (or its drop closed w: the reader sees the end) */
    }
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK(__atomic_load_n(&ok, __ATOMIC_RELAXED) <= started);
#if !defined(WASYNC_FAULT_INJECTION)
    CHECK_EQ(started, PIPES);
    CHECK_EQ(__atomic_load_n(&ok, __ATOMIC_RELAXED), PIPES);
#endif
    CHECK_RT_EMPTY_FREE(rt);
    CHECK_EQ(check_fds_held(), before);
}

/* Readers of pipes nobody writes to: shutdown cancels them (their reads
 * are dropped, their streams closed); wa_rt_free drops them too. */
static void test_mt_shutdown_with_reads(void)
{
    for (int shutdown = 0; shutdown < 2; shutdown++) {
        long before = check_fds_held();
        wa_rt *rt;
        REQUIRE(wa_rt_new_mt(&rt, 2) == 0);
        int w[PIPES], ok = 0;
        for (int i = 0; i < PIPES; i++) {
            int fds[2];
            wa_stream *r;
            w[i] = -1;
            if (pipe2(fds, O_CLOEXEC) < 0)
                continue;
            w[i] = fds[1]; /* held open, never written */
            if (wa_fd_stream_open(rt, fds[0], &r) < 0)
                continue;
            checker c = {.rd = {.s = r, .len = 100, .into = malloc(100)}, .ok = &ok};
            reader_init(&c.rd);
            checker_init(&c);
            if (!c.rd.into)
                wa_drop(&c.wa.fut);
            else
                check_spawn_of(rt, &c, NULL); /* (or dropped) */
        }
        usleep(10000); /* the reads wait in the backend */
        if (shutdown)
            CHECK_EQ(wa_rt_shutdown(rt, WA_SEC(5)), 0);
        else
            wa_rt_free(rt);
        CHECK_EQ(ok, 0);
        for (int i = 0; i < PIPES; i++)
            if (w[i] >= 0)
                close(w[i]);
        CHECK_EQ(check_fds_held(), before);
    }
}

/* Never ready, and keeps no waker: nothing can wake it. */
static int stuck_poll(wa_future *f, wa_cx *cx)
{
    (void)f;
    (void)cx;
    return WA_PENDING;
}
static const wa_future_vt stuck_vt = {stuck_poll, NULL, "stuck"};

static char report[512];
static void capture(void *arg, const char *text)
{
    (void)arg;
    strncpy(report, text, sizeof report - 1);
}

/* block_on and run with nothing left that can wake a task: reported, and
 * WA_EDEADLK; a sleep or a registered fd is not a deadlock. */
static void test_mt_deadlock(void)
{
    wa_rt *rt;
    REQUIRE(wa_rt_new_mt(&rt, 2) == 0);
    wa_rt_set_report(rt, capture, NULL);
    wa_future stuck = {&stuck_vt};
    int rc = wa_block_on(rt, &stuck);
    REQUIRE_OR(rc != WA_ENOMEM, wa_rt_free(rt));
    CHECK_EQ(rc, WA_EDEADLK);
    CHECK(strstr(report, "deadlock") && strstr(report, "block_on(stuck)"));
    /* a task left stuck: run says the same */
    report[0] = 0;
    wa_future other = {&stuck_vt};
    REQUIRE_OR(wa_spawn(rt, &other, sizeof other, NULL) == 0, wa_rt_free(rt));
    CHECK_EQ(wa_rt_run(rt), WA_EDEADLK);
    CHECK(strstr(report, "\"stuck\" waiting") != NULL);
    wa_rt_free(rt);

    /* a sleep first, then the deadlock */
    REQUIRE(wa_rt_new_mt(&rt, 2) == 0);
    wa_rt_set_report(rt, capture, NULL);
    wa_sleep nap;
    CHECK_EQ(wa_block_on(rt, wa_sleep_init(&nap, WA_MS(20))), 0);
    CHECK_EQ(wa_block_on(rt, &stuck), WA_EDEADLK);
    wa_rt_free(rt);
}

/* Sleeps, then fails. */
typedef struct failer {
    WA_CORO;
    wa_sleep nap;
} failer;

WA_ASYNC(failer, t, cx)
{
    WA_BEGIN(t, cx);
    WA_AWAIT(wa_sleep_init(&t->nap, WA_MS(5)));
    WA_RETURN(WA_EIO);
    WA_END();
}

/* A scope of readers of pipes nobody writes to, on all the workers, and
 * a child that fails later: fail-fast cancels the readers in their reads,
 * the scope says WA_EIO. With cancel set, the parent is cancelled instead
 * (by another task), and its scope cancels them the same way. */
typedef struct parent {
    WA_CORO;
    wa_scope scope;
    int *w, fail, i;
} parent;

WA_ASYNC(parent, t, cx)
{
    WA_BEGIN(t, cx);
    wa_scope_init(&t->scope, cx->rt, WA_SCOPE_FAIL_FAST);
    for (t->i = 0; t->i < PIPES; t->i++) {
        int fds[2];
        wa_stream *r;
        if (pipe2(fds, O_CLOEXEC) < 0)
            continue;
        t->w[t->i] = fds[1]; /* held open, never written */
        if (wa_fd_stream_open(cx->rt, fds[0], &r) < 0)
            continue;
        checker c = {.rd = {.s = r, .len = 100, .into = malloc(100)}, .ok = NULL};
        reader_init(&c.rd);
        checker_init(&c);
        if (!c.rd.into)
            wa_drop(&c.wa.fut);
        else
            check_scope_spawn_of(&t->scope, &c, NULL); /* (or dropped) */
    }
    if (t->fail) {
        failer f;
        failer_init(&f);
        if (check_scope_spawn_of(&t->scope, &f, NULL) < 0)
            wa_scope_cancel(&t->scope); /* (out of memory: the readers end anyway) */
    }
    WA_AWAIT(wa_scope_wait(&t->scope));
    WA_RETURN(WA_STATUS);
    WA_END();
}

/* Sleeps, then cancels a task. */
typedef struct canceller {
    WA_CORO;
    wa_sleep nap;
    wa_join *j;
} canceller;

WA_ASYNC(canceller, t, cx)
{
    WA_BEGIN(t, cx);
    WA_AWAIT(wa_sleep_init(&t->nap, WA_MS(5)));
    wa_join_cancel(t->j);
    WA_END();
}

static void test_mt_scope_cancel_mid_io(void)
{
    for (int fail = 1; fail >= 0; fail--) {
        long before = check_fds_held();
        wa_rt *rt;
        REQUIRE(wa_rt_new_mt(&rt, 4) == 0);
        int w[PIPES];
        for (int i = 0; i < PIPES; i++)
            w[i] = -1;
        parent p = {.w = w, .fail = fail};
        parent_init(&p);
        wa_join jp;
        REQUIRE_OR(check_spawn_of(rt, &p, &jp) == 0, wa_rt_free(rt));
        canceller c = {.j = &jp};
        canceller_init(&c);
        int rc = fail ? 0 : wa_block_on(rt, &c.wa.fut);
        REQUIRE_OR(rc != WA_ENOMEM, (wa_join_drop(&jp), wa_rt_free(rt)));
        CHECK_EQ(wa_rt_run(rt), 0);
        rc = wa_join_status(&jp);
#if !defined(WASYNC_FAULT_INJECTION)
        CHECK_EQ(rc, fail ? WA_EIO : WA_ECANCELED);
#endif
        wa_join_drop(&jp);
        CHECK_RT_EMPTY_FREE(rt); /* (sources: back to 0) */
        for (int i = 0; i < PIPES; i++)
            if (w[i] >= 0)
                close(w[i]);
        CHECK_EQ(check_fds_held(), before);
    }
}

int main(void)
{
    RUN(test_mt_echo);
    RUN(test_mt_pipes_and_sleeps);
    RUN(test_mt_shutdown_with_reads);
    RUN(test_mt_scope_cancel_mid_io);
    RUN(test_mt_deadlock);
    return check_finish();
}
