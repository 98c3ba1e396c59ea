/* SPDX-License-Identifier: MIT */
/* Unix domain sockets (wa_unix_listen_init, wa_unix_connect_init), natively:
 * an echo over one, on a local and a many-threads runtime; the listener's
 * close removes its path; a stale socket file is replaced, a live one or
 * another file is not; the errors (path too long, in use, not found,
 * refused); a connection is no TCP connection for its options. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "echo.h"
#include "futures.h"
#include "rt_setup.h"

/* A directory of this test's own, for its sockets; removed at the end. */
static char dir[64];

static const char *at(const char *name)
{
    static char path[2][128];
    static int i;
    i ^= 1;
    snprintf(path[i], sizeof path[i], "%s/%s", dir, name);
    return path[i];
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Listens on path: the listener, or NULL and the status in *rc. */
static wa_tcp *listen_on(wa_rt *rt, const char *path, int *rc)
{
    wa_tcp_op op;
    *rc = wa_block_on(rt, wa_unix_listen_init(&op, rt, path));
    return *rc == 0 ? op.listener : NULL;
}

/* Connects to path: the status; the stream in *conn (NULL on failure). */
static int connect_to(wa_rt *rt, const char *path, wa_stream **conn)
{
    wa_tcp_op op;
    int rc = wa_block_on(rt, wa_unix_connect_init(&op, rt, path));
    *conn = rc == 0 ? op.conn : NULL;
    return rc;
}

/* Accepts one connection on l and echoes it. */
typedef struct server {
    WA_CORO;
    wa_tcp *l;
    wa_tcp_op op;
    echo e;
} server;

static int server_poll(wa_future *f, wa_cx *cx)
{
    server *t = (server *)f;
    WA_BEGIN(t, cx);
    WA_TRY(wa_tcp_accept_init(&t->op, t->l));
    t->e = (echo){.conn = t->op.conn};
    wa_coro_init(&t->e.wa, &echo_vt);
    WA_AWAIT(&t->e.wa.fut);
    WA_RETURN(WA_STATUS);
    WA_END();
}
static const wa_future_vt server_vt = {server_poll, wa_coro_drop, "server"};

/* A line through a server's echo on a Unix socket; the path is a socket
 * while listened on, and gone after the close. */
static void unix_echo(unsigned workers)
{
    wa_rt *rt;
    int rc;
    const char *path = at("echo.sock");
    long fds = check_fds_held();
    REQUIRE(check_rt_new(&rt, workers, NULL, NULL) == 0);
    wa_tcp *l = listen_on(rt, path, &rc);
    REQUIRE_OR(l, wa_rt_free(rt));
    struct stat st;
    CHECK(stat(path, &st) == 0 && S_ISSOCK(st.st_mode));
    CHECK_EQ(wa_tcp_port(l), 0);
    server s = {.l = l};
    wa_coro_init(&s.wa, &server_vt);
    wa_join j;
    REQUIRE_OR(check_spawn_of(rt, &s, &j) == 0, (wa_tcp_close(&l), wa_rt_free(rt)));
    wa_stream *c;
    rc = connect_to(rt, path, &c);
    CHECK_EQ(rc, 0);
    if (rc == 0) {
        char buf[8] = {0};
        wa_write w;
        wa_read_exact x;
        wa_reader rd;
        wa_reader_init(&rd, c, buf, sizeof buf);
        int wrote = wa_block_on(rt, wa_write_init(&w, c, "ping", 4));
        CHECK_EQ(wrote, 0);
        if (wrote == 0) { /* (else nothing comes back) */
            CHECK_EQ(wa_block_on(rt, wa_read_exact_init(&x, &rd, buf, 4)), 0);
            CHECK(memcmp(buf, "ping", 4) == 0);
        }
        CHECK_EQ(wa_tcp_nodelay(c, true), WA_EMISUSE); /* (not TCP) */
        wa_stream_close(&c);
    }
    if (rc != 0) /* (no client: the server goes) */
        wa_join_abort(&j);
    int served = wa_block_on(rt, &j.fut);
    CHECK(served == 0 || (rc != 0 && served == WA_ECANCELED));
    CHECK_EQ(wa_tcp_close(&l), 0);
    CHECK(!exists(path));
    CHECK_EQ(wa_rt_run(rt), 0); /* (a worker may still be finishing the server's task) */
    CHECK_RT_EMPTY_FREE(rt);
    CHECK_EQ(check_fds_held(), fds);
}
static void test_unix_echo(void)
{
    check_catch_misuse();
    unix_echo(0);
}
static void test_unix_echo_mt(void)
{
    check_catch_misuse();
    unix_echo(2);
}

/* The errors of a listen and a connect, by path. */
static void test_unix_errors(void)
{
    wa_rt *rt;
    int rc;
    wa_stream *c;
    REQUIRE(check_rt_new(&rt, 0, NULL, NULL) == 0);
    char longer[200];
    memset(longer, 'a', sizeof longer - 1);
    longer[sizeof longer - 1] = 0;
    CHECK(!listen_on(rt, longer, &rc) && rc == WA_EINVAL);
    CHECK(!listen_on(rt, "", &rc) && rc == WA_EINVAL);
    CHECK(!listen_on(rt, NULL, &rc) && rc == WA_EINVAL);
    CHECK_EQ(connect_to(rt, longer, &c), WA_EINVAL);
    CHECK_EQ(connect_to(rt, NULL, &c), WA_EINVAL);
    CHECK_EQ(connect_to(rt, at("none.sock"), &c), WA_ENOTFOUND);
    CHECK(!listen_on(rt, at("no/such/dir.sock"), &rc) && rc == WA_ENOTFOUND);
    /* another file: in use, and no server */
    FILE *f = fopen(at("file"), "w");
    REQUIRE_OR(f, wa_rt_free(rt));
    fclose(f);
    CHECK(!listen_on(rt, at("file"), &rc) && rc == WA_EADDRINUSE);
    CHECK(exists(at("file")));
    CHECK_EQ(connect_to(rt, at("file"), &c), WA_ECONNREFUSED);
    unlink(at("file"));
    /* a live server's path is in use */
    wa_tcp *l = listen_on(rt, at("live.sock"), &rc);
    REQUIRE_OR(l, wa_rt_free(rt));
    CHECK(!listen_on(rt, at("live.sock"), &rc) && rc == WA_EADDRINUSE);
    CHECK_EQ(wa_tcp_close(&l), 0);
    CHECK_RT_EMPTY_FREE(rt);
}

/* A socket file left by a server gone (bound, closed, not removed): a
 * connect is refused; a listen replaces it. */
static void test_unix_stale(void)
{
    wa_rt *rt;
    int rc;
    wa_stream *c;
    const char *path = at("stale.sock");
    REQUIRE(check_rt_new(&rt, 0, NULL, NULL) == 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    REQUIRE_OR(fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0, (close(fd), wa_rt_free(rt)));
    close(fd);
    CHECK(exists(path));
    CHECK_EQ(connect_to(rt, path, &c), WA_ECONNREFUSED);
    wa_tcp *l = listen_on(rt, path, &rc);
    CHECK_EQ(rc, 0);
    if (l) {
        server s = {.l = l};
        wa_coro_init(&s.wa, &server_vt);
        wa_join j;
        REQUIRE_OR(check_spawn_of(rt, &s, &j) == 0, (wa_tcp_close(&l), wa_rt_free(rt)));
        rc = connect_to(rt, path, &c); /* (the new server's) */
        CHECK_EQ(rc, 0);
        if (c)
            wa_stream_close(&c);
        else
            wa_join_abort(&j); /* (no client: the server goes) */
        int served = wa_block_on(rt, &j.fut);
        CHECK(served == 0 || (rc != 0 && served == WA_ECANCELED));
        wa_tcp_close(&l);
    }
    CHECK(!exists(path));
    CHECK_RT_EMPTY_FREE(rt);
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/wasync-unix-XXXXXX", tmp && *tmp && strlen(tmp) < 32 ? tmp : P_tmpdir);
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    RUN(test_unix_echo);
    RUN(test_unix_echo_mt);
    RUN(test_unix_errors);
    RUN(test_unix_stale);
    rmdir(dir);
    return check_finish();
}
