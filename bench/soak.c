/* SPDX-License-Identifier: MIT */
/* wasync-soak [SCENARIO [N]]...: the runtime under load, every result
 * checked. With no scenario, all three at their full size.
 *
 *   tasks N    N live tasks (1,000,000) waiting on one notify: RSS per live
 *              task; all woken, each runs to its end once; the runtime ends
 *              empty and its memory goes back when it is freed
 *   timers N   N armed timers (100,000), deadlines over 2 s on epoll: each
 *              fires once and never early (lateness p50/p99/max); half are
 *              dropped while armed; the heap ends empty
 *   tcp N      N concurrent loopback connections (10,000) in one runtime: a
 *              server task echoes, each client writes 10 KiB once all are
 *              connected and checks every byte that comes back
 *
 * Prints a table of the figures, then "N passed, N failed"; exits 1 on any
 * failure.
 */
#define _GNU_SOURCE /* malloc_trim */
#include <ctype.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "echo.h"
#include "rt_setup.h"
#include "wasync/net.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SOAK_ASAN 1 /* tasks are malloc'd, and freed memory is quarantined */
#endif
#endif

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts); /* the epoll backend's clock */
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Resident bytes, or -1. */
static long rss_bytes(void)
{
    long size, resident;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f)
        return -1;
    int n = fscanf(f, "%ld %ld", &size, &resident);
    fclose(f);
    return n == 2 ? resident * sysconf(_SC_PAGESIZE) : -1;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The p-th percentile of n sorted values, in microseconds. */
static double pct_us(const uint64_t *sorted, long n, int p) { return (double)sorted[n * p / 100] / 1e3; }

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The figures, printed as one table at the end. */
static struct figure {
    const char *scenario;
    char name[40], value[40];
} figures[48];
static int nfigures;

static void figure(const char *name, const char *fmt, ...)
{
    if (nfigures == (int)(sizeof figures / sizeof *figures))
        return;
    struct figure *f = &figures[nfigures++];
    f->scenario = check_current;
    snprintf(f->name, sizeof f->name, "%s", name);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->value, sizeof f->value, fmt, ap);
    va_end(ap);
}

static double mib(long bytes) { return (double)bytes / (1024.0 * 1024.0); }

static void check_empty(wa_rt *rt)
{
    wa_rt_stats st;
    wa_rt_stats_get(rt, &st);
    CHECK_EQ(st.tasks, 0);
    CHECK_EQ(st.timers, 0);
    CHECK_EQ(st.sources, 0);
}

/* ---- tasks: a million live tasks on one notify ---- */

typedef struct live {
    long started, finished;
    wa_notify go;
} live;

typedef struct waiter {
    WA_CORO;
    wa_notified n;
    live *lv;
} waiter;

static int waiter_poll(wa_future *f, wa_cx *cx)
{
    waiter *t = (waiter *)f;
    WA_BEGIN(t, cx);
    t->lv->started++;
    WA_AWAIT(wa_notified_init(&t->n, &t->lv->go));
    if (WA_STATUS == 0)
        t->lv->finished++;
    WA_END();
}
static const wa_future_vt waiter_vt = {waiter_poll, wa_coro_drop, "waiter"};

static void soak_tasks(long n)
{
    long rss0 = rss_bytes();
    wa_rt *rt = NULL;
    CHECK_EQ(wa_rt_new(&rt), 0);
    if (!rt)
        return;
    live lv = {0};
    wa_notify_init(&lv.go);
    uint64_t t0 = now_ns();
    long spawned = 0;
    while (spawned < n) {
        waiter w = {.lv = &lv};
        wa_coro_init(&w.wa, &waiter_vt);
        if (wa_spawn_of(rt, &w, NULL) < 0)
            break;
        spawned++;
    }
    CHECK_EQ(spawned, n);
    uint64_t t1 = now_ns();
    CHECK_EQ(wa_rt_tick(rt, NULL), 0); /* each polled once: all waiting now */
    uint64_t t2 = now_ns();
    long rss1 = rss_bytes();
    CHECK_EQ(lv.started, spawned);
    wa_rt_stats st;
    wa_rt_stats_get(rt, &st);
    CHECK_EQ(st.tasks, spawned);
    CHECK_EQ(st.timers, 0);
    CHECK_EQ(st.sources, 0);

    wa_notify_all(&lv.go);
    CHECK_EQ(wa_rt_run(rt), 0);
    uint64_t t3 = now_ns();
    CHECK_EQ(lv.finished, spawned);
    check_empty(rt);
    long rss2 = rss_bytes(); /* the task memory stays at its peak until the runtime goes */
    wa_rt_free(rt);
    long rss3 = rss_bytes();
    malloc_trim(0);
    long rss4 = rss_bytes();
    CHECK(rss0 > 0 && rss1 > 0 && rss2 > 0 && rss3 > 0 && rss4 > 0);
#ifndef SOAK_ASAN
    CHECK(rss3 - rss0 < 4L << 20); /* back within 4 MiB without malloc_trim */
#endif

    figure("live tasks", "%ld", spawned);
    figure("future size", "%zu B (+ task header)", sizeof(waiter));
    figure("RSS per live task", "%.1f B", (double)(rss1 - rss0) / (double)spawned);
    figure("spawn", "%.1f ms (%.0f ns/task)", (double)(t1 - t0) / 1e6, (double)(t1 - t0) / (double)spawned);
    figure("first poll of all", "%.1f ms", (double)(t2 - t1) / 1e6);
    figure("wake all, run to end", "%.1f ms", (double)(t3 - t2) / 1e6);
    figure("RSS base / live", "%.1f / %.1f MiB", mib(rss0), mib(rss1));
    figure("RSS done / freed / trim", "%.1f / %.1f / %.1f MiB", mib(rss2), mib(rss3), mib(rss4));
}

/* ---- timers: 100,000 deadlines over 2 s, half dropped while armed ---- */

typedef struct timer_rec {
    uint64_t deadline, woke;
    int fired, early;
} timer_rec;

typedef struct timed {
    WA_CORO;
    wa_sleep s;
    timer_rec *rec;
} timed;

static int timed_poll(wa_future *f, wa_cx *cx)
{
    timed *t = (timed *)f;
    WA_BEGIN(t, cx);
    WA_AWAIT(wa_sleep_until_init(&t->s, t->rec->deadline));
    t->rec->woke = now_ns();
    t->rec->fired++;
    t->rec->early = t->rec->woke < t->rec->deadline || wa_now(cx->rt) < t->rec->deadline;
    WA_RETURN(WA_STATUS);
    WA_END();
}
static const wa_future_vt timed_vt = {timed_poll, wa_coro_drop, "timed"};

/* Aborts every odd task at `at`, while their timers are armed. */
typedef struct canceller {
    WA_CORO;
    wa_sleep s;
    uint64_t at;
    wa_join *joins;
    long n, failed;
    size_t armed_before, armed_after;
    uint64_t abort_ns;
} canceller;

static int canceller_poll(wa_future *f, wa_cx *cx)
{
    canceller *t = (canceller *)f;
    WA_BEGIN(t, cx);
    WA_AWAIT(wa_sleep_until_init(&t->s, t->at));
    wa_rt_stats st;
    wa_rt_stats_get(cx->rt, &st);
    t->armed_before = st.timers;
    uint64_t t0 = now_ns();
    for (long i = 1; i < t->n; i += 2)
        if (wa_join_abort(&t->joins[i]) != 0)
            t->failed++;
    t->abort_ns = now_ns() - t0;
    wa_rt_stats_get(cx->rt, &st);
    t->armed_after = st.timers;
    WA_END();
}
static const wa_future_vt canceller_vt = {canceller_poll, wa_coro_drop, "canceller"};

/* The host's own timer lateness over the same seconds: a thread in plain
 * clock_nanosleep, so that the runtime's figures can be read against the
 * machine's scheduling noise. */
typedef struct host_probe {
    uint64_t until;
    long n;
    uint64_t late[2048];
} host_probe;

static void *host_probe_run(void *arg)
{
    host_probe *p = arg;
    uint64_t seed = 7;
    while (p->n < (long)(sizeof p->late / sizeof *p->late) && now_ns() < p->until) {
        uint64_t at = now_ns() + splitmix64(&seed) % WA_MS(2);
        struct timespec ts = {(time_t)(at / 1000000000u), (long)(at % 1000000000u)};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
            ;
        p->late[p->n++] = now_ns() - at;
    }
    return NULL;
}

/* Spawns the timers and the canceller, runs them, checks every record. */
static void timers_run(wa_rt *rt, long n, timer_rec *recs, wa_join *joins, uint64_t *late)
{
    /* Deadlines count from `start`, 250 ms on, so that arming them all ends
     * first (under ASan too). The even tasks keep theirs (0 to 2 s); the
     * odd ones (1 to 2 s) are aborted at 0.5 s, amid the even ones firing. */
    uint64_t t0 = now_ns(), start = wa_now(rt) + WA_MS(250), seed = 42;
    long spawned = 0;
    for (; spawned < n; spawned++) {
        uint64_t r = splitmix64(&seed);
        recs[spawned].deadline = start + (spawned % 2 ? WA_SEC(1) + r % WA_SEC(1) : r % WA_SEC(2));
        timed t = {.rec = &recs[spawned]};
        wa_coro_init(&t.wa, &timed_vt);
        if (wa_spawn_of(rt, &t, &joins[spawned]) < 0)
            break;
    }
    canceller c = {.at = start + WA_MS(500), .joins = joins, .n = n};
    wa_coro_init(&c.wa, &canceller_vt);
    wa_join cj;
    int rc = spawned < n ? WA_ENOMEM : wa_spawn_of(rt, &c, &cj);
    CHECK_EQ(rc, 0);
    if (rc < 0) {
        while (spawned > 0)
            wa_join_drop(&joins[--spawned]); /* the runtime hard-drops the tasks */
        return;
    }

    CHECK_EQ(wa_rt_tick(rt, NULL), 0); /* every sleep armed */
    wa_rt_stats st;
    wa_rt_stats_get(rt, &st);
    CHECK_EQ(st.timers, n + 1);
    uint64_t t1 = now_ns();
    host_probe probe = {.until = start + WA_SEC(2)};
    pthread_t th;
    int probing = pthread_create(&th, NULL, host_probe_run, &probe) == 0;
    CHECK(probing);
    CHECK_EQ(wa_rt_run(rt), 0);
    uint64_t t2 = now_ns();
    if (probing)
        CHECK_EQ(pthread_join(th, NULL), 0);
    check_empty(rt);

    canceller *co = (canceller *)wa_join_output(&cj);
    CHECK(co != NULL);
    if (co) {
        CHECK_EQ(co->failed, 0);
        CHECK_EQ(co->armed_before - co->armed_after, n / 2); /* each abort disarmed its timer */
    }
    uint64_t abort_ns = co ? co->abort_ns : 0;
    CHECK_EQ(wa_join_status(&cj), 0);
    CHECK_EQ(wa_join_drop(&cj), 0);
    long kept = 0, wrong = 0, bad_drop = 0;
    for (long i = 0; i < n; i++) {
        timer_rec *r = &recs[i];
        if (i % 2 == 0) {
            if (r->fired != 1 || r->early || wa_join_status(&joins[i]) != 0)
                wrong++;
            else
                late[kept++] = r->woke - r->deadline;
        } else if (r->fired != 0 || wa_join_status(&joins[i]) != WA_ECANCELED) {
            wrong++;
        }
        if (wa_join_drop(&joins[i]) != 0)
            bad_drop++;
    }
    CHECK_EQ(wrong, 0);
    CHECK_EQ(bad_drop, 0);
    CHECK_EQ(kept, (n + 1) / 2);
    if (kept == 0)
        return;
    qsort(late, (size_t)kept, sizeof *late, cmp_u64);
    figure("timers armed", "%ld (+1 canceller)", n);
    figure("fired / dropped armed", "%ld / %ld", kept, n / 2);
    figure("abort the armed half", "%.1f ms (%.0f ns each)", (double)abort_ns / 1e6, (double)abort_ns / (double)(n / 2));
    figure("spawn and arm all", "%.1f ms", (double)(t1 - t0) / 1e6);
    figure("lateness p50/p99/max", "%.0f / %.0f / %.0f us", pct_us(late, kept, 50), pct_us(late, kept, 99),
           (double)late[kept - 1] / 1e3);
    /* One stall of the thread makes every timer due meanwhile late (25 a
     * millisecond at full size): count the stalls, as wakes 1 ms apart. */
    long m = 0, stalls = 0;
    for (long i = 0; i < n; i += 2)
        if (recs[i].woke - recs[i].deadline > WA_MS(1))
            late[m++] = recs[i].woke;
    qsort(late, (size_t)m, sizeof *late, cmp_u64);
    for (long i = 0; i < m; i++)
        stalls += i == 0 || late[i] - late[i - 1] >= WA_MS(1);
    figure("late > 1 ms", "%ld timers, in %ld stalls", m, stalls);
    if (probe.n > 0) {
        qsort(probe.late, (size_t)probe.n, sizeof *probe.late, cmp_u64);
        figure("host nanosleep p50/p99/max", "%.0f / %.0f / %.0f us", pct_us(probe.late, probe.n, 50),
               pct_us(probe.late, probe.n, 99), (double)probe.late[probe.n - 1] / 1e3);
    }
    figure("wall (deadlines to 2.25 s)", "%.3f s", (double)(t2 - t0) / 1e9);
}

static void soak_timers(long n)
{
    wa_rt *rt = NULL;
    CHECK_EQ(wa_rt_new(&rt), 0);
    timer_rec *recs = calloc((size_t)n, sizeof *recs);
    wa_join *joins = calloc((size_t)n, sizeof *joins);
    uint64_t *late = calloc((size_t)n, sizeof *late);
    CHECK(recs && joins && late);
    if (rt && recs && joins && late)
        timers_run(rt, n, recs, joins, late);
    if (rt)
        wa_rt_free(rt);
    free(recs);
    free(joins);
    free(late);
}

/* ---- tcp: 10,000 connections open at once, each echoing 10 KiB ---- */

#define TCP_BYTES 10240
#define TCP_CHUNK 1024
/* Connections started but not yet accepted: kept under the listen backlog
 * (somaxconn, 4096 by default), past which the kernel drops SYNs and the
 * client retries only after a second. The server frees a slot per accept. */
#define TCP_WINDOW 512

typedef struct tcp_shared {
    long n, connected, accepted, echoed, failed;
    uint16_t port;
    int open; /* every connection is up: the clients may write */
    wa_sem window;
    wa_notify go;
    uint64_t t_connected;
    long rss_connected;
    wa_rt_stats st_connected;
} tcp_shared;

/* Byte k of client id's stream: its id first, so that crossed connections
 * show. */
static unsigned char tcp_byte(uint32_t id, size_t k)
{
    return (unsigned char)(k < 4 ? id >> (8 * k) : k * 31 + (k >> 8) + id);
}

/* Opens the barrier once every client is connected and every connection
 * accepted. */
static void tcp_arrive(tcp_shared *sh, wa_rt *rt)
{
    if (sh->connected < sh->n || sh->accepted < sh->n)
        return;
    sh->t_connected = now_ns();
    sh->rss_connected = rss_bytes();
    wa_rt_stats_get(rt, &sh->st_connected);
    sh->open = 1;
    wa_notify_all(&sh->go);
}


/* Accepts sh->n connections, echoing each in a scope. */
typedef struct server {
    WA_CORO;
    wa_tcp *l;
    tcp_shared *sh;
    wa_tcp_op op;
    wa_scope scope;
} server;

static int server_poll(wa_future *f, wa_cx *cx)
{
    server *t = (server *)f;
    WA_BEGIN(t, cx);
    wa_scope_init(&t->scope, cx->rt, 0);
    while (t->sh->accepted < t->sh->n) {
        WA_AWAIT(wa_tcp_accept_init(&t->op, t->l));
        if (WA_STATUS < 0) {
            t->sh->failed++;
            break;
        }
        echo e = {.conn = t->op.conn};
        wa_coro_init(&e.wa, &echo_vt);
        if (wa_scope_spawn_of(&t->scope, &e, NULL) < 0) {
            wa_stream_close(&e.conn);
            t->sh->failed++;
        }
        t->sh->accepted++;
        if (wa_sem_release(&t->sh->window, 1) < 0)
            t->sh->failed++;
        tcp_arrive(t->sh, cx->rt);
    }
    WA_AWAIT(wa_scope_wait(&t->scope));
    WA_RETURN(WA_STATUS);
    WA_END();
}
static const wa_future_vt server_vt = {server_poll, wa_coro_drop, "server"};

/* Writes the client's TCP_BYTES, a chunk at a time. */
typedef struct writer {
    WA_CORO;
    wa_stream *conn;
    uint32_t id;
    size_t off;
    wa_write w;
    unsigned char buf[TCP_CHUNK];
} writer;

static int writer_poll(wa_future *f, wa_cx *cx)
{
    writer *t = (writer *)f;
    WA_BEGIN(t, cx);
    for (t->off = 0; t->off < TCP_BYTES; t->off += TCP_CHUNK) {
        for (size_t k = 0; k < TCP_CHUNK; k++)
            t->buf[k] = tcp_byte(t->id, t->off + k);
        WA_AWAIT(wa_write_init(&t->w, t->conn, t->buf, TCP_CHUNK));
        if (WA_STATUS < 0)
            WA_RETURN(WA_STATUS);
    }
    WA_END();
}
static const wa_future_vt writer_vt = {writer_poll, wa_coro_drop, "writer"};

/* Reads the echo back and checks every byte. */
typedef struct checker {
    WA_CORO;
    wa_stream *conn;
    uint32_t id;
    size_t got;
    wa_read r;
    unsigned char buf[TCP_CHUNK];
} checker;

static int checker_poll(wa_future *f, wa_cx *cx)
{
    checker *t = (checker *)f;
    WA_BEGIN(t, cx);
    while (t->got < TCP_BYTES) {
        size_t want = TCP_BYTES - t->got < TCP_CHUNK ? TCP_BYTES - t->got : TCP_CHUNK;
        WA_AWAIT(wa_read_init(&t->r, t->conn, t->buf, want));
        if (WA_STATUS < 0)
            WA_RETURN(WA_STATUS);
        for (size_t k = 0; k < t->r.n; k++)
            if (t->buf[k] != tcp_byte(t->id, t->got + k))
                WA_RETURN(WA_EIO);
        t->got += t->r.n;
    }
    WA_END();
}
static const wa_future_vt checker_vt = {checker_poll, wa_coro_drop, "checker"};

typedef struct client {
    WA_CORO;
    tcp_shared *sh;
    uint32_t id;
    wa_acquire slot;
    wa_tcp_op op;
    wa_stream *conn;
    wa_notified go;
    writer wr;
    checker ck;
    WA_COMBO(2) both;
} client;

static int client_poll(wa_future *f, wa_cx *cx)
{
    client *t = (client *)f;
    tcp_shared *sh = t->sh;
    WA_BEGIN(t, cx);
    WA_AWAIT(wa_acquire_init(&t->slot, &sh->window, 1));
    if (WA_STATUS < 0)
        WA_RETURN(WA_STATUS);
    WA_AWAIT(wa_tcp_connect_init(&t->op, cx->rt, "127.0.0.1", sh->port));
    if (WA_STATUS < 0) {
        sh->failed++;
        wa_sem_release(&sh->window, 1); /* the server will not free it */
        WA_RETURN(WA_STATUS);
    }
    t->conn = t->op.conn;
    sh->connected++;
    tcp_arrive(sh, cx->rt);
    if (!sh->open)
        WA_AWAIT(wa_notified_init(&t->go, &sh->go));
    /* write and read at once, so that neither side's buffers can fill up
     * with nobody reading */
    t->wr = (writer){.conn = t->conn, .id = t->id};
    t->ck = (checker){.conn = t->conn, .id = t->id};
    wa_coro_init(&t->wr.wa, &writer_vt);
    wa_coro_init(&t->ck.wa, &checker_vt);
    WA_AWAIT(wa_all_init(&t->both, &t->wr.wa.fut, &t->ck.wa.fut));
    if (WA_STATUS < 0) {
        sh->failed++;
        WA_RETURN(WA_STATUS);
    }
    sh->echoed++;
    WA_END();
}
static void client_drop(wa_future *f)
{
    client *t = (client *)f;
    wa_coro_drop(f);
    if (t->conn)
        wa_stream_close(&t->conn); /* clears t->conn */
}
static const wa_future_vt client_vt = {client_poll, client_drop, "client"};

/* Listens, then runs the server and the clients in one scope. */
typedef struct tcp_driver {
    WA_CORO;
    tcp_shared *sh;
    wa_tcp_op op;
    wa_tcp *l;
    wa_scope scope;
    int spawn_rc;
} tcp_driver;

static int tcp_driver_poll(wa_future *f, wa_cx *cx)
{
    tcp_driver *t = (tcp_driver *)f;
    WA_BEGIN(t, cx);
    WA_AWAIT(wa_tcp_listen_init(&t->op, cx->rt, "127.0.0.1", 0));
    if (WA_STATUS < 0)
        WA_RETURN(WA_STATUS);
    t->l = t->op.listener;
    t->sh->port = wa_tcp_port(t->l);
    wa_scope_init(&t->scope, cx->rt, 0);
    server s = {.l = t->l, .sh = t->sh};
    wa_coro_init(&s.wa, &server_vt);
    t->spawn_rc = wa_scope_spawn_of(&t->scope, &s, NULL);
    for (long i = 0; t->spawn_rc == 0 && i < t->sh->n; i++) {
        client c = {.sh = t->sh, .id = (uint32_t)i};
        wa_coro_init(&c.wa, &client_vt);
        t->spawn_rc = wa_scope_spawn_of(&t->scope, &c, NULL);
    }
    if (t->spawn_rc < 0)
        wa_scope_cancel(&t->scope);
    WA_AWAIT(wa_scope_wait(&t->scope));
    WA_RETURN(t->spawn_rc < 0 ? t->spawn_rc : WA_STATUS);
    WA_END();
}
static void tcp_driver_drop(wa_future *f)
{
    tcp_driver *t = (tcp_driver *)f;
    wa_coro_drop(f); /* the scope first: the server borrows the listener */
    if (t->l)
        wa_tcp_close(&t->l); /* clears t->l */
}
static const wa_future_vt tcp_driver_vt = {tcp_driver_poll, tcp_driver_drop, "tcp_driver"};

/* Raises RLIMIT_NOFILE for n connections (two fds each, both ends in this
 * process); returns how many connections the limit allows. */
static long tcp_fd_room(long n)
{
    /* what is open already, then epoll, its eventfd, the listener, reads
     * of /proc */
    rlim_t spare = (rlim_t)check_fds_held() + 8;
    rlim_t need = 2 * (rlim_t)n + spare;
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
        return 0;
    if (rl.rlim_cur >= need)
        return n;
    struct rlimit want = {need, rl.rlim_max > need ? rl.rlim_max : need};
    if (setrlimit(RLIMIT_NOFILE, &want) == 0)
        return n;
    int err = errno;
    rl.rlim_cur = rl.rlim_max; /* what an unprivileged process may take */
    if (setrlimit(RLIMIT_NOFILE, &rl) < 0 || getrlimit(RLIMIT_NOFILE, &rl) < 0)
        return 0;
    long room = rl.rlim_cur > spare ? (long)((rl.rlim_cur - spare) / 2) : 0;
    if (room > n)
        room = n;
    printf("soak: tcp: RLIMIT_NOFILE cannot be raised to %llu (%s), it stays at %llu: "
           "running %ld connections instead of %ld\n",
           (unsigned long long)need, strerror(err), (unsigned long long)rl.rlim_cur, room, n);
    return room;
}

static double cpu_s(struct timeval tv) { return (double)tv.tv_sec + (double)tv.tv_usec / 1e6; }

static void soak_tcp(long want)
{
    long n = tcp_fd_room(want);
    CHECK(n > 0);
    if (n <= 0)
        return;
    long fds0 = check_fds_held();
    wa_rt *rt = NULL;
    CHECK_EQ(wa_rt_new(&rt), 0);
    if (!rt)
        return;
    tcp_shared sh = {.n = n};
    wa_sem_init(&sh.window, TCP_WINDOW);
    wa_notify_init(&sh.go);
    tcp_driver d = {.sh = &sh};
    wa_coro_init(&d.wa, &tcp_driver_vt);
    wa_timeout to;
    long rss0 = rss_bytes();
    struct rusage ru0, ru1;
    CHECK_EQ(getrusage(RUSAGE_SELF, &ru0), 0);
    uint64_t t0 = now_ns();
    /* a hang is a failure, not a stuck soak */
    CHECK_EQ(wa_block_on(rt, wa_timeout_init(&to, &d.wa.fut, WA_SEC(120))), 0);
    uint64_t t1 = now_ns();
    CHECK_EQ(getrusage(RUSAGE_SELF, &ru1), 0);
    CHECK_EQ(sh.connected, n);
    CHECK_EQ(sh.accepted, n);
    CHECK_EQ(sh.echoed, n);
    CHECK_EQ(sh.failed, 0);
    CHECK(sh.open);
    /* at the barrier: both ends of every connection and the listener
     * registered; every client and every echo task alive */
    CHECK_EQ(sh.st_connected.sources, 2 * n + 1);
    CHECK(sh.st_connected.tasks >= (size_t)(2 * n + 1));
    check_empty(rt);
    wa_rt_free(rt);
    CHECK_EQ(check_fds_held(), fds0);
    if (!sh.open || sh.echoed != n)
        return;

    double connect_s = (double)(sh.t_connected - t0) / 1e9, echo_s = (double)(t1 - sh.t_connected) / 1e9;
    figure("connections at once", "%ld", n);
    figure("connect + accept all", "%.3f s (%.0f conn/s)", connect_s, (double)n / connect_s);
    figure("echo 10 KiB each", "%.3f s (%.1f MB/s)", echo_s, (double)n * TCP_BYTES / echo_s / 1e6);
    figure("total", "%.3f s", (double)(t1 - t0) / 1e9);
    figure("CPU user / system", "%.2f / %.2f s", cpu_s(ru1.ru_utime) - cpu_s(ru0.ru_utime),
           cpu_s(ru1.ru_stime) - cpu_s(ru0.ru_stime));
    figure("RSS per connection", "%.0f B (both ends)", (double)(sh.rss_connected - rss0) / (double)n);
    figure("futures client + echo", "%zu + %zu B", sizeof(client), sizeof(echo));
    figure("tasks at the barrier", "%zu", sh.st_connected.tasks);
}

int main(int argc, char **argv)
{
    static const struct scenario {
        const char *name;
        void (*run)(long n);
        long n;
    } scenarios[] = {{"tasks", soak_tasks, 1000000}, {"timers", soak_timers, 100000}, {"tcp", soak_tcp, 10000}};
    enum { NSCEN = sizeof scenarios / sizeof *scenarios };
    const struct scenario *todo[16];
    long sizes[16];
    int ntodo = 0;
    for (int i = 1; i < argc; i++) {
        int k = 0;
        while (k < NSCEN && strcmp(argv[i], scenarios[k].name) != 0)
            k++;
        if (k == NSCEN || ntodo == 16) {
            fprintf(stderr, "usage: %s [tasks [N]] [timers [N]] [tcp [N]]\n", argv[0]);
            return 2;
        }
        todo[ntodo] = &scenarios[k];
        sizes[ntodo] = scenarios[k].n;
        if (i + 1 < argc && isdigit((unsigned char)argv[i + 1][0]))
            sizes[ntodo] = strtol(argv[++i], NULL, 10);
        if (sizes[ntodo] < 2) {
            fprintf(stderr, "%s: N must be at least 2\n", argv[0]);
            return 2;
        }
        ntodo++;
    }
    if (ntodo == 0)
        for (; ntodo < NSCEN; ntodo++) {
            todo[ntodo] = &scenarios[ntodo];
            sizes[ntodo] = scenarios[ntodo].n;
        }
    for (int i = 0; i < ntodo; i++) {
        check_current = todo[i]->name;
        printf("soak: %s %ld\n", todo[i]->name, sizes[i]);
        fflush(stdout);
        todo[i]->run(sizes[i]);
    }
    printf("\n%-8s %-26s %s\n", "scenario", "figure", "value");
    for (int i = 0; i < nfigures; i++)
        printf("%-8s %-26s %s\n", figures[i].scenario, figures[i].name, figures[i].value);
    return check_finish();
}
