/* SPDX-License-Identifier: MIT */
/* The native epoll backend: real-clock sleeps, fd readiness on pipes,
 * registration keys (distinct, stale ones detected), the sources count and
 * deadlock detection, notify from another thread; readiness handed to a
 * wait dropped unseen, and a socket stream's reads that skip EAGAIN. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <sys/socket.h>
#include <unistd.h>

#include "futures.h"

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_ms(unsigned ms)
{
    struct timespec ts = {0, (long)ms * 1000000L};
    nanosleep(&ts, NULL);
}

/* A runtime on the epoll backend, or on the one WASYNC_BACKEND names (the
 * io_uring twins of the tests: epoll where io_uring is refused), or NULL. */
static wa_rt *epoll_rt(void)
{
    wa_rt *rt = NULL;
    const char *want = getenv("WASYNC_BACKEND"), *name;
    if (wa_rt_new(&rt) == 0) {
        name = wa_rt_backend(rt)->vt->name;
        CHECK(strcmp(name, "epoll") == 0 || (want && strcmp(name, want) == 0));
    }
    return rt;
}

static size_t sources(const wa_rt *rt)
{
    wa_rt_stats st;
    wa_rt_stats_get(rt, &st);
    return st.sources;
}

static int open_pipe(int p[2]) { return pipe2(p, O_NONBLOCK | O_CLOEXEC); }

static void close_pipe(const int p[2])
{
    close(p[0]);
    close(p[1]);
}

/* A runtime on epoll with a new pipe p whose end (0: read, 1: write) is
 * registered as *key; NULL (everything undone) if a step failed. */
static wa_rt *pipe_rt(int p[2], int end, wa_fd_key *key)
{
    wa_rt *rt = epoll_rt();
    if (rt && open_pipe(p) != 0) {
        wa_rt_free(rt);
        return NULL;
    }
    if (rt && wa_fd_register(rt, p[end], key) != 0) {
        close_pipe(p);
        wa_rt_free(rt);
        return NULL;
    }
    return rt;
}

/* Reads from a registered fd until it has want bytes, awaiting readiness
 * whenever the fd runs dry (edge-triggered: only after EAGAIN). Each wait is
 * limited to `limit` ns (0: no limit, so no timer is armed). */
typedef struct reader {
    WA_CORO;
    wa_fd_wait w;
    wa_timeout to;
    wa_fd_key key;
    int fd;
    uint64_t limit;
    char buf[64];
    size_t len, want;
    int waits; /* readiness waits that completed */
    int err;
} reader;

/* Reads what is there; true when the reader is done (all read, EOF, error). */
static bool reader_drain(reader *t)
{
    while (t->len < t->want) {
        ssize_t n = read(t->fd, t->buf + t->len, sizeof t->buf - 1 - t->len);
        if (n > 0) {
            t->len += (size_t)n;
        } else if (n < 0 && errno == EAGAIN) {
            return false;
        } else {
            t->err = WA_EIO; /* EOF or error before all of it */
            return true;
        }
    }
    return true;
}

static int reader_poll(wa_future *f, wa_cx *cx)
{
    reader *t = (reader *)f;
    WA_BEGIN(t, cx);
    while (!reader_drain(t)) {
        if (t->limit) {
            WA_AWAIT(wa_timeout_init(&t->to, wa_fd_wait_init(&t->w, t->key, WA_READABLE), t->limit));
        } else {
            WA_AWAIT(wa_fd_wait_init(&t->w, t->key, WA_READABLE));
        }
        if (WA_STATUS != 0)
            WA_RETURN(WA_STATUS);
        CHECK_EQ(t->w.ready, WA_READABLE);
        t->waits++;
    }
    WA_RETURN(t->err);
    WA_END();
}
static const wa_future_vt reader_vt = {reader_poll, wa_coro_drop, "reader"};

static wa_future *reader_init(reader *r, wa_fd_key key, int fd, size_t want, uint64_t limit)
{
    memset(r, 0, sizeof *r);
    r->key = key;
    r->fd = fd;
    r->want = want;
    r->limit = limit;
    return wa_coro_init(&r->wa, &reader_vt);
}

/* Writes each part to fd after a delay of its own. */
typedef struct writer {
    WA_CORO;
    wa_sleep sl;
    int fd, i, n;
    const char *parts[3];
    uint64_t delays[3];
} writer;

static int writer_poll(wa_future *f, wa_cx *cx)
{
    writer *t = (writer *)f;
    WA_BEGIN(t, cx);
    for (t->i = 0; t->i < t->n; t->i++) {
        WA_AWAIT(wa_sleep_init(&t->sl, t->delays[t->i]));
        size_t len = strlen(t->parts[t->i]);
        CHECK_EQ(write(t->fd, t->parts[t->i], len), len);
    }
    WA_END();
}
static const wa_future_vt writer_vt = {writer_poll, wa_coro_drop, "writer"};

static void test_real_sleep(void)
{
    wa_rt *rt = epoll_rt();
    REQUIRE(rt);
    sleeper sl;
    sleeper_init(&sl, WA_MS(30), 0);
    uint64_t t0 = mono_ns();
    CHECK_EQ(wa_block_on(rt, &sl.wa.fut), 0);
    uint64_t took = mono_ns() - t0;
    CHECK(took >= WA_MS(30));
    CHECK(took < WA_MS(300));
    /* it slept in the backend instead of polling: one poll to arm, one to finish */
    wa_rt_stats st;
    wa_rt_stats_get(rt, &st);
    CHECK_EQ(st.polls, 2);
    CHECK(st.waits >= 1);
    CHECK_RT_EMPTY_FREE(rt);
}

static void test_concurrent_sleeps(void)
{
    wa_rt *rt = epoll_rt();
    REQUIRE(rt);
    uint64_t woke[3] = {0};
    for (int i = 0; i < 3; i++) {
        sleeper sl;
        sleeper_init(&sl, WA_MS(50), 0);
        sl.woke = &woke[i];
        REQUIRE_OR(check_spawn_of(rt, &sl, NULL) == 0, wa_rt_free(rt));
    }
    uint64_t t0 = mono_ns();
    wa_rt_tick(rt, NULL);
    uint64_t arming = mono_ns() - t0;
    wa_rt_stats st;
    wa_rt_stats_get(rt, &st);
    CHECK_EQ(st.timers, 3); /* all armed at once: they sleep concurrently */
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK(mono_ns() - t0 >= WA_MS(50));
    /* armed in one tick, each from its own poll: they wake together, or as
     * far apart as their arms were (the tick's time, microseconds unless
     * the machine stalled it), in order */
    CHECK(woke[0] <= woke[1] && woke[1] <= woke[2] && woke[2] - woke[0] < arming + WA_MS(10));
    CHECK_RT_EMPTY_FREE(rt);
}

static void test_pipe_readable(void)
{
    int p[2];
    wa_fd_key key;
    wa_rt *rt = pipe_rt(p, 0, &key);
    REQUIRE(rt);
    CHECK_EQ(sources(rt), 1);
    reader r;
    reader_init(&r, key, p[0], 11, WA_SEC(2));
    writer w = {.fd = p[1], .n = 2, .parts = {"hello", " world"}, .delays = {WA_MS(20), WA_MS(20)}};
    wa_coro_init(&w.wa, &writer_vt);
    wa_join jw;
    REQUIRE_OR(check_spawn_of(rt, &w, &jw) == 0, (close_pipe(p), wa_rt_free(rt)));
    uint64_t t0 = mono_ns();
    CHECK_EQ(wa_block_on(rt, &r.wa.fut), 0);
    uint64_t took = mono_ns() - t0;
    CHECK(strcmp(r.buf, "hello world") == 0);
    CHECK_EQ(r.waits, 2); /* one readiness edge per write */
    CHECK(took >= WA_MS(40));
    CHECK(took < WA_MS(1000));
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK_EQ(wa_join_status(&jw), 0);
    CHECK_EQ(wa_join_drop(&jw), 0);
    CHECK_EQ(wa_fd_deregister(rt, key), 0);
    CHECK_EQ(sources(rt), 0);
    close_pipe(p);
    CHECK_RT_EMPTY_FREE(rt);
}

/* A dump says what a task awaits down to the fd: a timeout over a wait
 * for a pipe's read end, and the timeout's sleep. */
typedef struct fd_waiter {
    WA_CORO;
    wa_timeout to;
    wa_fd_wait w;
    wa_fd_key key;
} fd_waiter;

WA_ASYNC(fd_waiter, t, cx)
{
    WA_BEGIN(t, cx);
    WA_TRY(wa_timeout_init(&t->to, wa_fd_wait_init(&t->w, t->key, WA_READABLE), WA_SEC(100)));
    WA_END();
}

static void test_dump_fd_wait(void)
{
    wa_rt *rt = epoll_rt();
    REQUIRE(rt);
    int p[2];
    REQUIRE_OR(open_pipe(p) == 0, wa_rt_free(rt));
    fd_waiter f = {0};
    REQUIRE_OR(wa_fd_register(rt, p[0], &f.key) == 0, (close_pipe(p), wa_rt_free(rt)));
    fd_waiter_init(&f);
    wa_join j;
    REQUIRE_OR(check_spawn_of(rt, &f, &j) == 0, (wa_fd_deregister(rt, f.key), close_pipe(p), wa_rt_free(rt)));
    CHECK_EQ(wa_rt_tick(rt, NULL), 0);
    char buf[256], want[128];
    wa_rt_dump(rt, buf, sizeof buf);
    snprintf(want, sizeof want, "  task 1 \"fd_waiter\" waiting: timeout > [fd_wait (fd %d readable), sleep (due in ",
             p[0]);
    CHECK(strncmp(buf, want, strlen(want)) == 0);
    CHECK(strstr(buf, " s)]\n") != NULL); /* (99 s and some) */
    CHECK_EQ(write(p[1], "x", 1), 1);
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK_EQ(wa_join_status(&j), 0);
    wa_join_drop(&j);
    CHECK_EQ(wa_fd_deregister(rt, f.key), 0);
    close_pipe(p);
    CHECK_RT_EMPTY_FREE(rt);
}

/* A traced wait on a pipe says why its task woke: each write makes the
 * reader's wait (a timeout over an fd wait: the wake goes through the
 * combinator's) begin with an "io wait" on the fd, then "io ready" and a
 * wake by "fd N readable"; the host wait that saw the readiness says one
 * source was ready, and the writer's sleeps were its timers. */
static void test_trace_fd_wait(void)
{
    char path[] = "/tmp/wasync-trace-XXXXXX";
    int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    close(fd);
    wa_rt *rt = epoll_rt();
    REQUIRE_OR(rt, remove(path));
    int p[2];
    REQUIRE_OR(open_pipe(p) == 0, (wa_rt_free(rt), remove(path)));
    wa_fd_key key;
    REQUIRE_OR(wa_fd_register(rt, p[0], &key) == 0, (close_pipe(p), wa_rt_free(rt), remove(path)));
    REQUIRE_OR(wa_trace_start(rt, path) == 0,
               (wa_fd_deregister(rt, key), close_pipe(p), wa_rt_free(rt), remove(path)));
    reader r;
    reader_init(&r, key, p[0], 11, WA_SEC(100));
    writer w = {.fd = p[1], .n = 2, .parts = {"hello", " world"}, .delays = {WA_MS(20), WA_MS(20)}};
    wa_coro_init(&w.wa, &writer_vt);
    REQUIRE_OR(check_spawn_of(rt, &w, NULL) == 0,
               (wa_fd_deregister(rt, key), close_pipe(p), wa_rt_free(rt), remove(path)));
    CHECK_EQ(wa_block_on(rt, &r.wa.fut), 0);
    CHECK_EQ(r.waits, 2);
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK_EQ(wa_fd_deregister(rt, key), 0);
    close_pipe(p);
    wa_rt_free(rt);
    static char text[1 << 16];
    check_take_file(path, text, sizeof text);
    char on[64], source[64], by[64];
    snprintf(on, sizeof on, "\"name\":\"io wait\",\"id\":2,");
    snprintf(source, sizeof source, "\"args\":{\"source\":\"fd %d readable\"}", p[0]);
    snprintf(by, sizeof by, "\"args\":{\"by\":\"fd %d readable\"}", p[0]);
    CHECK_EQ(check_count(text, on), 2); /* (the reader is the block_on's task, spawned second) */
    CHECK_EQ(check_count(text, "\"name\":\"io ready\",\"id\":2,"), 2);
    CHECK_EQ(check_count(text, source), 2);
    CHECK_EQ(check_count(text, by), 2);
    snprintf(on, sizeof on, "\"args\":{\"on\":\"fd %d readable\"}", p[0]);
    CHECK_EQ(check_count(text, on), 2);
    CHECK_EQ(check_count(text, "\"args\":{\"ready\":1}"), 2); /* (a write, then a wait that blocks) */
    CHECK_EQ(check_count(text, "\"by\":\"timer (due 20 ms after armed)\""), 2);
}

/* Readiness that came while nobody waited is kept for the next wait; a wait
 * cut off by a timeout leaves the registration usable. */
static void test_pipe_ready_before_wait_and_timeout(void)
{
    int p[2];
    wa_fd_key key;
    wa_rt *rt = pipe_rt(p, 0, &key);
    REQUIRE(rt);
    reader r;
    reader_init(&r, key, p[0], 1, WA_MS(20));
    uint64_t t0 = mono_ns();
    CHECK_EQ(wa_block_on(rt, &r.wa.fut), WA_ETIMEDOUT);
    CHECK(mono_ns() - t0 >= WA_MS(20));
    CHECK_EQ(r.len, 0);
    CHECK_EQ(write(p[1], "z", 1), 1);
    reader_init(&r, key, p[0], 1, WA_SEC(2));
    CHECK_EQ(wa_block_on(rt, &r.wa.fut), 0);
    CHECK(strcmp(r.buf, "z") == 0);
    CHECK_EQ(wa_fd_deregister(rt, key), 0);
    close_pipe(p);
    CHECK_RT_EMPTY_FREE(rt);
}

/* Fills the pipe, then awaits room. */
typedef struct filler {
    WA_CORO;
    wa_fd_wait w;
    wa_fd_key key;
    int fd;
    size_t written;
    unsigned ready;
} filler;

static void filler_fill(filler *t)
{
    static const char chunk[4096];
    ssize_t n;
    while ((n = write(t->fd, chunk, sizeof chunk)) > 0)
        t->written += (size_t)n;
}

static int filler_poll(wa_future *f, wa_cx *cx)
{
    filler *t = (filler *)f;
    WA_BEGIN(t, cx);
    filler_fill(t);
    WA_AWAIT(wa_fd_wait_init(&t->w, t->key, WA_WRITABLE));
    t->ready = t->w.ready;
    WA_RETURN(WA_STATUS);
    WA_END();
}
static const wa_future_vt filler_vt = {filler_poll, wa_coro_drop, "filler"};

/* Empties a pipe after a delay (its read end is not registered). */
typedef struct emptier {
    WA_CORO;
    wa_sleep sl;
    int fd;
    size_t got;
} emptier;

static int emptier_poll(wa_future *f, wa_cx *cx)
{
    emptier *t = (emptier *)f;
    WA_BEGIN(t, cx);
    WA_AWAIT(wa_sleep_init(&t->sl, WA_MS(20)));
    if (WA_STATUS < 0)
        WA_RETURN(WA_STATUS);
    for (;;) {
        char buf[4096];
        ssize_t n = read(t->fd, buf, sizeof buf);
        if (n <= 0)
            break;
        t->got += (size_t)n;
    }
    WA_END();
}
static const wa_future_vt emptier_vt = {emptier_poll, wa_coro_drop, "emptier"};

static void test_pipe_writable(void)
{
    int p[2];
    wa_fd_key key;
    wa_rt *rt = pipe_rt(p, 1, &key);
    REQUIRE(rt);
    emptier e = {.fd = p[0]};
    wa_coro_init(&e.wa, &emptier_vt);
    wa_join je;
    REQUIRE_OR(check_spawn_of(rt, &e, &je) == 0, (close_pipe(p), wa_rt_free(rt)));
    filler fl = {.key = key, .fd = p[1]};
    wa_coro_init(&fl.wa, &filler_vt);
    /* The registration itself reports the empty pipe as writable; the
     * filler then fills it and must wait for the emptier (for ever, were
     * the emptier to fail: hence the limit). */
    wa_timeout to;
    CHECK_EQ(wa_block_on(rt, wa_timeout_init(&to, &fl.wa.fut, WA_SEC(5))), 0);
    CHECK(fl.ready & WA_WRITABLE);
    CHECK(fl.written > 0);
    CHECK_EQ(wa_join_status(&je), 0);
    emptier *out = (emptier *)wa_join_output(&je);
    CHECK(out && out->got == fl.written);
    CHECK_EQ(wa_join_drop(&je), 0);
    CHECK_EQ(wa_fd_deregister(rt, key), 0);
    close_pipe(p);
    CHECK_RT_EMPTY_FREE(rt);
}

/* Two registrations at once get two keys, and each fd wakes its own waiter. */
static void test_two_fds(void)
{
    wa_rt *rt = epoll_rt();
    REQUIRE(rt);
    int a[2], b[2];
    REQUIRE_OR(open_pipe(a) == 0, wa_rt_free(rt));
    REQUIRE_OR(open_pipe(b) == 0, (close_pipe(a), wa_rt_free(rt)));
    wa_fd_key ka, kb;
    REQUIRE_OR(wa_fd_register(rt, a[0], &ka) == 0 && wa_fd_register(rt, b[0], &kb) == 0,
               (close_pipe(a), close_pipe(b), wa_rt_free(rt)));
    CHECK(ka != kb);
    CHECK_EQ(sources(rt), 2);
    reader ra, rb;
    reader_init(&ra, ka, a[0], 3, WA_SEC(2));
    reader_init(&rb, kb, b[0], 3, WA_SEC(2));
    wa_join j[2] = {0}; /* ra's, rb's */
    writer wb = {.fd = b[1], .n = 1, .parts = {"bbb"}, .delays = {WA_MS(10)}};
    writer wa = {.fd = a[1], .n = 1, .parts = {"aaa"}, .delays = {WA_MS(30)}};
    wa_coro_init(&wb.wa, &writer_vt);
    wa_coro_init(&wa.wa, &writer_vt);
    int spawned = check_spawn_of(rt, &ra, &j[0]) == 0;
    spawned &= check_spawn_of(rt, &rb, &j[1]) == 0;
    spawned &= check_spawn_of(rt, &wb, NULL) == 0;
    spawned &= check_spawn_of(rt, &wa, NULL) == 0;
    REQUIRE_OR(spawned, (check_joins_drop(j, 2), close_pipe(a), close_pipe(b), wa_rt_free(rt)));
    uint64_t t0 = mono_ns();
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK(mono_ns() - t0 < WA_MS(1000)); /* woken by the data, not by the timeouts */
    CHECK_EQ(wa_join_status(&j[0]), 0);
    CHECK_EQ(wa_join_status(&j[1]), 0);
    CHECK(strcmp(((reader *)wa_join_output(&j[0]))->buf, "aaa") == 0);
    CHECK(strcmp(((reader *)wa_join_output(&j[1]))->buf, "bbb") == 0);
    CHECK_EQ(wa_join_drop(&j[0]), 0);
    CHECK_EQ(wa_join_drop(&j[1]), 0);
    /* a freed slot is reused with a new generation */
    CHECK_EQ(wa_fd_deregister(rt, ka), 0);
    wa_fd_key kc;
    REQUIRE_OR(wa_fd_register(rt, a[0], &kc) == 0, (close_pipe(a), close_pipe(b), wa_rt_free(rt)));
    CHECK(kc != ka && kc != kb);
    CHECK_EQ(sources(rt), 2);
    CHECK_EQ(wa_fd_deregister(rt, kb), 0);
    CHECK_EQ(wa_fd_deregister(rt, kc), 0);
    CHECK_EQ(sources(rt), 0);
    close_pipe(a);
    close_pipe(b);
    CHECK_RT_EMPTY_FREE(rt);
}

static void test_stale_keys(void)
{
    check_catch_misuse();
    int before = check_misuses;
    int p[2];
    wa_fd_key key;
    wa_rt *rt = pipe_rt(p, 0, &key);
    REQUIRE(rt);
    CHECK_EQ(wa_fd_deregister(rt, key), 0);
    CHECK_EQ(check_misuses, before);
    CHECK_EQ(wa_fd_deregister(rt, key), WA_ESTALE);
    CHECK_EQ(check_misuses, before + 1);
    CHECK_EQ(sources(rt), 0);
    wa_fd_wait w;
    CHECK_EQ(wa_block_on(rt, wa_fd_wait_init(&w, key, WA_READABLE)), WA_ESTALE);
    CHECK_EQ(check_misuses, before + 2);
    /* the slot, reused, does not answer to the old key */
    wa_fd_key again;
    REQUIRE_OR(wa_fd_register(rt, p[0], &again) == 0, (close_pipe(p), wa_rt_free(rt)));
    CHECK(again != key);
    CHECK_EQ(wa_fd_deregister(rt, key), WA_ESTALE);
    CHECK_EQ(sources(rt), 1);
    CHECK_EQ(wa_fd_deregister(rt, again), 0);
    CHECK_EQ(check_misuses, before + 3);
    CHECK_EQ(wa_fd_register(rt, -1, &key), WA_EINVAL);
    CHECK_EQ(sources(rt), 0);
    close_pipe(p);
    CHECK_RT_EMPTY_FREE(rt);
    wa_misuse_set_hook(NULL);
}

/* Deregistering an fd that a task waits on wakes the task, which then
 * sees WA_ECLOSED instead of waiting forever. */
static void test_deregister_wakes_waiter(void)
{
    check_catch_misuse();
    int before = check_misuses;
    int p[2];
    wa_fd_key key;
    wa_rt *rt = pipe_rt(p, 0, &key);
    REQUIRE(rt);
    reader r;
    wa_join j;
    reader_init(&r, key, p[0], 3, 0);
    REQUIRE_OR(check_spawn_of(rt, &r, &j) == 0, (close_pipe(p), wa_rt_free(rt)));
    wa_rt_tick(rt, NULL);
    CHECK(!wa_join_done(&j));
    CHECK_EQ(wa_fd_deregister(rt, key), 0);
    wa_rt_tick(rt, NULL);
    CHECK(wa_join_done(&j));
    CHECK_EQ(wa_join_status(&j), WA_ECLOSED);
    CHECK_EQ(check_misuses, before); /* not misuse: a way to stop a wait */
    wa_join_drop(&j);
    close_pipe(p);
    CHECK_RT_EMPTY_FREE(rt);
    wa_misuse_set_hook(NULL);
}

static void test_sim_has_no_fds(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    int p[2];
    REQUIRE_OR(open_pipe(p) == 0, wa_rt_free(rt));
    wa_fd_key key = 0;
    CHECK_EQ(wa_fd_register(rt, p[0], &key), WA_ENOSYS);
    CHECK_EQ(wa_fd_deregister(rt, key), WA_ENOSYS);
    wa_fd_wait w;
    CHECK_EQ(wa_block_on(rt, wa_fd_wait_init(&w, key, WA_READABLE)), WA_ENOSYS);
    CHECK_EQ(sources(rt), 0);
    close_pipe(p);
    CHECK_RT_EMPTY_FREE(rt);
}

static char report[1024];
static void capture(void *arg, const char *text)
{
    (void)arg;
    snprintf(report, sizeof report, "%s", text);
}

static void *write_later(void *arg)
{
    sleep_ms(30);
    if (write(*(int *)arg, "x", 1) != 1)
        abort();
    return NULL;
}

static void test_deadlock_only_without_sources(void)
{
    wa_rt *rt = epoll_rt();
    REQUIRE(rt);
    wa_rt_set_report(rt, capture, NULL);
    report[0] = 0;
    int p[2];
    REQUIRE_OR(open_pipe(p) == 0, wa_rt_free(rt));
    wa_fd_key key;
    REQUIRE_OR(wa_fd_register(rt, p[0], &key) == 0, (close_pipe(p), wa_rt_free(rt)));
    /* No timer and no other task: only the fd can wake the reader, and
     * another thread will write to it. */
    reader r;
    reader_init(&r, key, p[0], 1, 0);
    pthread_t th;
    REQUIRE_OR(pthread_create(&th, NULL, write_later, &p[1]) == 0, (close_pipe(p), wa_rt_free(rt)));
    CHECK_EQ(wa_block_on(rt, &r.wa.fut), 0);
    pthread_join(th, NULL);
    CHECK(strcmp(r.buf, "x") == 0);
    CHECK_EQ(report[0], 0);
    CHECK_EQ(wa_fd_deregister(rt, key), 0);
    /* nothing registered, nothing armed: a waiting task is a deadlock */
    int drops = 0;
    never n;
    CHECK_EQ(wa_block_on(rt, never_init(&n, &drops)), WA_EDEADLK);
    CHECK(strstr(report, "deadlock") != NULL);
    CHECK(strstr(report, "\"block_on(never)\"") != NULL);
    CHECK_EQ(drops, 1);
    close_pipe(p);
    CHECK_RT_EMPTY_FREE(rt);
}

static void *notify_later(void *arg)
{
    wa_backend *b = arg;
    sleep_ms(30);
    b->vt->notify(b);
    return NULL;
}

static void test_notify_from_thread(void)
{
    wa_rt *rt = epoll_rt();
    REQUIRE(rt);
    wa_backend *b = wa_rt_backend(rt);
    CHECK(b->vt->notify != NULL);
    pthread_t th;
    uint64_t t0 = mono_ns();
    REQUIRE_OR(pthread_create(&th, NULL, notify_later, b) == 0, wa_rt_free(rt));
    CHECK_EQ(b->vt->wait(b, WA_NEVER), 0);
    uint64_t took = mono_ns() - t0;
    pthread_join(th, NULL);
    CHECK(took >= WA_MS(30));
    CHECK(took < WA_MS(2000));
    /* a notify before the wait ends it at once, and only that wait */
    b->vt->notify(b);
    t0 = mono_ns();
    CHECK_EQ(b->vt->wait(b, b->vt->now(b) + WA_SEC(2)), 0);
    CHECK(mono_ns() - t0 < WA_MS(1000));
    t0 = mono_ns();
    CHECK_EQ(b->vt->wait(b, b->vt->now(b) + WA_MS(20)), 0);
    CHECK(mono_ns() - t0 >= WA_MS(20));
    CHECK_RT_EMPTY_FREE(rt);
}

/* Keys are their runtime's: two runtimes' first registrations have
 * different keys, and each runtime refuses the other's (it used to wait on
 * its own fd of the same slot instead). */
static void test_foreign_keys(void)
{
    check_catch_misuse();
    int before = check_misuses;
    wa_rt *a = epoll_rt(), *b = epoll_rt();
    REQUIRE_OR(a && b, (wa_rt_free(a), wa_rt_free(b)));
    int p[2], q[2];
    REQUIRE_OR(open_pipe(p) == 0, (wa_rt_free(a), wa_rt_free(b)));
    REQUIRE_OR(open_pipe(q) == 0, (close_pipe(p), wa_rt_free(a), wa_rt_free(b)));
    wa_fd_key ka, kb;
    REQUIRE_OR(wa_fd_register(a, p[0], &ka) == 0 && wa_fd_register(b, q[0], &kb) == 0,
               (close_pipe(p), close_pipe(q), wa_rt_free(a), wa_rt_free(b)));
    CHECK(ka != kb);
    CHECK_EQ(wa_fd_deregister(b, ka), WA_ESTALE);
    wa_fd_wait w;
    CHECK_EQ(wa_block_on(b, wa_fd_wait_init(&w, ka, WA_READABLE)), WA_ESTALE);
    CHECK_EQ(check_misuses - before, 2);
    CHECK_EQ(wa_fd_deregister(a, ka), 0);
    CHECK_EQ(wa_fd_deregister(b, kb), 0);
    close_pipe(p);
    close_pipe(q);
    CHECK_RT_EMPTY_FREE(a);
    CHECK_RT_EMPTY_FREE(b);
    wa_misuse_set_hook(NULL);
}

/* Two tasks wait to read one fd: one write wakes both (neither is lost),
 * in the order they waited, so the first to wait reads it; a second write
 * then reaches the one still waiting. */
static void test_two_waiters_one_fd(void)
{
    int p[2];
    wa_fd_key key;
    wa_rt *rt = pipe_rt(p, 0, &key);
    REQUIRE(rt);
    reader r1, r2;
    reader_init(&r1, key, p[0], 1, WA_SEC(5));
    reader_init(&r2, key, p[0], 1, WA_SEC(5));
    wa_join j1, j2;
    REQUIRE_OR(check_spawn_of(rt, &r1, &j1) == 0, (close_pipe(p), wa_rt_free(rt)));
    REQUIRE_OR(check_spawn_of(rt, &r2, &j2) == 0, (wa_join_drop(&j1), close_pipe(p), wa_rt_free(rt)));
    wa_rt_tick(rt, NULL); /* both wait */
    CHECK_EQ(write(p[1], "y", 1), 1);
    pthread_t th; /* the second byte comes after both have tried */
    REQUIRE_OR(pthread_create(&th, NULL, write_later, &p[1]) == 0,
               (wa_join_drop(&j1), wa_join_drop(&j2), close_pipe(p), wa_rt_free(rt)));
    CHECK_EQ(wa_rt_run(rt), 0);
    pthread_join(th, NULL);
    CHECK_EQ(wa_join_status(&j1), 0);
    CHECK_EQ(wa_join_status(&j2), 0);
    reader *o1 = (reader *)wa_join_output(&j1), *o2 = (reader *)wa_join_output(&j2);
    CHECK(o1 && o2 && o1->len == 1 && o2->len == 1 && o1->buf[0] == 'y' && o2->buf[0] == 'x');
    wa_join_drop(&j1);
    wa_join_drop(&j2);
    CHECK_EQ(wa_fd_deregister(rt, key), 0);
    close_pipe(p);
    CHECK_RT_EMPTY_FREE(rt);
}

/* Waits on an fd, is woken by its readiness, and drops that wait unseen
 * (as a race lost, or an abort, does between a wake and the next poll);
 * then waits again, at most 2 s. */
typedef struct dropper {
    wa_future fut;
    wa_fd_key key;
    int fd, step;
    wa_fd_wait w;
    wa_timeout to;
} dropper;

static int dropper_poll(wa_future *f, wa_cx *cx)
{
    dropper *t = (dropper *)f;
    int rc;
    switch (t->step) {
    case 0:
        wa_fd_wait_init(&t->w, t->key, WA_READABLE);
        rc = wa_poll(&t->w.fut, cx);
        CHECK_EQ(rc, WA_PENDING);
        if (rc != WA_PENDING)
            return rc;
        CHECK_EQ(write(t->fd, "x", 1), 1); /* one edge, handed to the wait */
        t->step = 1;
        return WA_PENDING;
    case 1: /* woken by it */
        wa_drop(&t->w.fut);
        wa_timeout_init(&t->to, wa_fd_wait_init(&t->w, t->key, WA_READABLE), WA_SEC(2));
        t->step = 2;
        /* fall through */
    default:
        if ((rc = wa_poll(&t->to.fut, cx)) != WA_PENDING)
            wa_drop(&t->to.fut);
        return rc;
    }
}
static const wa_future_vt dropper_vt = {dropper_poll, NULL, "dropper"};

/* Readiness handed to a wait that was dropped before it saw it stays for
 * the next wait, at once: no other edge would come for it (it was lost,
 * and the next wait slept until its timeout). */
static void test_handed_readiness_kept(void)
{
    int p[2];
    wa_fd_key key;
    wa_rt *rt = pipe_rt(p, 0, &key);
    REQUIRE(rt);
    dropper d = {.fut = {&dropper_vt}, .key = key, .fd = p[1]};
    uint64_t t0 = mono_ns();
    CHECK_EQ(wa_block_on(rt, &d.fut), 0);
    CHECK(mono_ns() - t0 < WA_SEC(1));
    CHECK_EQ(d.w.ready, WA_READABLE);
    CHECK_EQ(wa_fd_deregister(rt, key), 0);
    close_pipe(p);
    CHECK_RT_EMPTY_FREE(rt);
}

/* Reads s into buf until the end of the stream or an error (its status,
 * WA_ECLOSED at the end), at most 2 s; *got: the bytes read. */
static int read_to_end(wa_rt *rt, wa_stream *s, char *buf, size_t cap, size_t *got)
{
    wa_read r;
    wa_timeout to;
    int rc;
    *got = 0;
    while ((rc = wa_block_on(rt, wa_timeout_init(&to, wa_read_init(&r, s, buf + *got, cap - *got), WA_SEC(2)))) == 0)
        *got += r.n;
    return rc;
}

/* A socket stream's read that got less than it asked for waits for
 * readiness before its next read call (which would say EAGAIN); what
 * comes later still reaches it, and so does the end that came with the
 * last bytes (the backend's hang-up, kept: no edge follows it). */
static void test_socket_short_reads(void)
{
    wa_rt *rt = epoll_rt();
    REQUIRE(rt);
    int sv[2];
    REQUIRE_OR(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, wa_rt_free(rt));
    wa_stream *s;
    REQUIRE_OR(wa_fd_stream_open(rt, sv[0], &s) == 0, (close(sv[1]), wa_rt_free(rt))); /* (sv[0] taken) */
    char buf[64];
    wa_read r;
    CHECK_EQ(write(sv[1], "ab", 2), 2);
    CHECK_EQ(wa_block_on(rt, wa_read_init(&r, s, buf, sizeof buf)), 0);
    CHECK_EQ(r.n, 2);
    CHECK_EQ(write(sv[1], "cd", 2), 2); /* after the short read: a new edge */
    CHECK_EQ(wa_block_on(rt, wa_read_init(&r, s, buf, sizeof buf)), 0);
    CHECK_EQ(r.n, 2);
    CHECK(memcmp(buf, "cd", 2) == 0);
    CHECK_EQ(write(sv[1], "efg", 3), 3);
    close(sv[1]); /* the end, in the same edge as "efg" */
    size_t got;
    CHECK_EQ(read_to_end(rt, s, buf, sizeof buf, &got), WA_ECLOSED);
    CHECK_EQ(got, 3);
    CHECK(memcmp(buf, "efg", 3) == 0);
    CHECK_EQ(wa_stream_close(&s), 0);
    CHECK_RT_EMPTY_FREE(rt);
}

/* A read of capacity 0 on an fd stream (a socket) is n = 0, not the end of
 * the stream, as on every stream. */
static void test_fd_zero_read(void)
{
    wa_rt *rt = epoll_rt();
    REQUIRE(rt);
    int sv[2];
    REQUIRE_OR(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, wa_rt_free(rt));
    wa_stream *s;
    REQUIRE_OR(wa_fd_stream_open(rt, sv[0], &s) == 0, (close(sv[1]), wa_rt_free(rt))); /* (sv[0] taken) */
    wa_read r;
    char buf[4];
    CHECK_EQ(wa_block_on(rt, wa_read_init(&r, s, buf, 0)), 0);
    CHECK_EQ(r.n, 0);
    close(sv[1]);
    CHECK_EQ(wa_block_on(rt, wa_read_init(&r, s, buf, sizeof buf)), WA_ECLOSED);
    CHECK_EQ(wa_stream_close(&s), 0);
    CHECK_RT_EMPTY_FREE(rt);
}

/* A write and a read whose peer is gone: the stream keeps the host's
 * words for each ("send: Broken pipe", "read: Connection reset by peer")
 * in its direction; the next operation clears them, and a success or the
 * end of the stream leaves "". */
static void test_fd_stream_reason(void)
{
    wa_rt *rt = epoll_rt();
    REQUIRE(rt);
    int sv[2];
    REQUIRE_OR(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, wa_rt_free(rt));
    wa_stream *s;
    REQUIRE_OR(wa_fd_stream_open(rt, sv[0], &s) == 0, (close(sv[1]), wa_rt_free(rt))); /* (sv[0] taken) */
    wa_write w;
    wa_read r;
    char buf[4];
    CHECK_EQ(wa_block_on(rt, wa_write_init(&w, s, "x", 1)), 0);
    CHECK_HAS(wa_stream_reason(s, WA_STREAM_WRITE), "");
    close(sv[1]);
    CHECK_EQ(wa_block_on(rt, wa_write_init(&w, s, "x", 1)), WA_ECLOSED);
    CHECK_HAS(wa_stream_reason(s, WA_STREAM_WRITE), "send: Broken pipe");
    CHECK_HAS(wa_stream_reason(s, WA_STREAM_READ), "");
    /* the peer closed with "x" unread: a reset, then the end (no words) */
    CHECK_EQ(wa_block_on(rt, wa_read_init(&r, s, buf, sizeof buf)), WA_ECONNRESET);
    CHECK_HAS(wa_stream_reason(s, WA_STREAM_READ), "read: Connection reset by peer");
    CHECK_HAS(wa_stream_reason(s, WA_STREAM_WRITE), "send: Broken pipe");
    CHECK_EQ(wa_block_on(rt, wa_read_init(&r, s, buf, sizeof buf)), WA_ECLOSED);
    CHECK_HAS(wa_stream_reason(s, WA_STREAM_READ), "");
    CHECK_EQ(wa_block_on(rt, wa_write_init(&w, s, "", 0)), 0);
    CHECK_HAS(wa_stream_reason(s, WA_STREAM_WRITE), "");
    check_catch_misuse();
    CHECK_MISUSE(wa_stream_reason(s, 3) == NULL, 1, "wa_stream_reason");
    CHECK_EQ(wa_stream_close(&s), 0);
    CHECK_MISUSE(wa_stream_reason(s, WA_STREAM_READ) == NULL, 1, "wa_stream_reason");
    wa_misuse_set_hook(NULL);
    CHECK_RT_EMPTY_FREE(rt);
}

/* An fd stream and a stdio stream closed through one copy of the handle:
 * a close or a write through another copy is reported by the call and
 * never touches the freed stream (ASan). */
static void test_fd_stream_copies(void)
{
    check_catch_misuse();
    wa_rt *rt = epoll_rt();
    REQUIRE(rt);
    int sv[2];
    REQUIRE_OR(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, wa_rt_free(rt));
    wa_stream *s;
    REQUIRE_OR(wa_fd_stream_open(rt, sv[0], &s) == 0, (close(sv[1]), wa_rt_free(rt))); /* (sv[0] taken) */
    wa_stream *copy = s;
    wa_write w;
    CHECK_EQ(wa_stream_close(&s), 0);
    CHECK_MISUSE(wa_block_on(rt, wa_write_init(&w, copy, "x", 1)), WA_EMISUSE, "wa_write");
    CHECK_MISUSE(wa_stream_close(&copy), WA_EMISUSE, "wa_stream_close");
    close(sv[1]);
    REQUIRE_OR(wa_stdio_open(rt, 1, &s) == 0, wa_rt_free(rt));
    copy = s;
    CHECK_EQ(wa_stream_close(&s), 0);
    CHECK_MISUSE(wa_stream_close(&copy), WA_EMISUSE, "wa_stream_close");
    CHECK_RT_EMPTY_FREE(rt);
}

int main(void)
{
    RUN(test_real_sleep);
    RUN(test_concurrent_sleeps);
    RUN(test_pipe_readable);
    RUN(test_dump_fd_wait);
    RUN(test_trace_fd_wait);
    RUN(test_pipe_ready_before_wait_and_timeout);
    RUN(test_pipe_writable);
    RUN(test_two_fds);
    RUN(test_stale_keys);
    RUN(test_deregister_wakes_waiter);
    RUN(test_sim_has_no_fds);
    RUN(test_deadlock_only_without_sources);
    RUN(test_notify_from_thread);
    RUN(test_foreign_keys);
    RUN(test_two_waiters_one_fd);
    RUN(test_handed_readiness_kept);
    RUN(test_socket_short_reads);
    RUN(test_fd_zero_read);
    RUN(test_fd_stream_copies);
    RUN(test_fd_stream_reason);
    return check_finish();
}
