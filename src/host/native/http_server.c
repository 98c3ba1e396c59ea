/* SPDX-License-Identifier: MIT */
/* The native HTTP server's listener (http.h: wa_http_listen_init): listens,
 * accepts, and starts a task per connection (http_conn.c); on its task's
 * cancellation stops accepting and waits for the connections to finish
 * their requests and close. One accept loop on either executor: on many
 * threads the connections' tasks go to the workers' queues like any
 * spawn. And WA_HTTP_SERVE's main. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/rt.h"
#include "http_server.h"

/* A pause after an accept that failed for want of fds or memory, so that
 * a full table is not polled in a loop. */
#define WA__NATIVE_HTTP_ACCEPT_PAUSE (50 * 1000 * 1000ull)

static const wa_http_limits wa__native_http_defaults = {
    .head_max = WA_HTTP_HEAD_MAX,
    .headers_max = 100,
    .body_max = 1024 * 1024 * 1024ull,
    .head_timeout = 10 * 1000 * 1000 * 1000ull,
    .idle_timeout = 60 * 1000 * 1000 * 1000ull,
};

/* Splits "IP:PORT" or "[IPv6]:PORT" into l's ip and want: 0 or WA_EINVAL. */
static int wa__native_http_addr(wa_http_listen *l, const char *addr)
{
    const char *colon = addr ? strrchr(addr, ':') : NULL, *ip = addr;
    size_t n = colon ? (size_t)(colon - addr) : 0;
    if (n && addr[0] == '[') { /* [IPv6] */
        if (addr[n - 1] != ']')
            return WA_EINVAL;
        ip++;
        n -= 2;
    } else if (n && memchr(addr, ':', n)) {
        return WA_EINVAL; /* an IPv6 address's colons: in brackets, or its port is not told apart */
    }
    if (!colon || !n || n >= sizeof l->ip || !colon[1] || strlen(colon + 1) > 5)
        return WA_EINVAL;
    unsigned long port = 0;
    for (const char *p = colon + 1; *p; p++) {
        if (*p < '0' || *p > '9')
            return WA_EINVAL;
        port = port * 10 + (unsigned long)(*p - '0');
    }
    if (port > 65535)
        return WA_EINVAL;
    memcpy(l->ip, ip, n);
    l->ip[n] = '\0';
    l->want = (uint16_t)port;
    return 0;
}

/* Stops accepting and asks the connections to end (a cancellation, or a
 * listener that failed). */
static void wa__native_http_stop(wa__native_http_server *srv)
{
    __atomic_store_n(&srv->stopping, 1, __ATOMIC_RELAXED); /* (each connection's lock orders it with their wakes) */
    wa_drop_held(&srv->op.fut, &srv->accepting);
    wa_drop_held(&srv->pause.fut, &srv->pausing);
    if (srv->listener)
        wa_tcp_close(&srv->listener);
    wa__native_http_conn_wake_all(srv);
}

/* Listens (the first poll): 0, or why not. */
static int wa__native_http_open(wa_http_listen *l, wa_cx *cx)
{
    wa__native_http_server *srv = calloc(1, sizeof *srv);
    if (!srv)
        return WA_ENOMEM;
    *srv = (wa__native_http_server){.rt = l->rt, .handler = l->handler, .limits = l->limits, .refs = 1,
                                    .mt = l->rt->mt || cx->rt->mt};
    if (srv->mt && pthread_mutex_init(&srv->lock, NULL) != 0) {
        free(srv);
        return WA_ENOMEM;
    }
    int rc = wa_poll(wa_tcp_listen_init(&srv->op, l->rt, l->ip, l->want), cx); /* (at once, natively) */
    wa_drop(&srv->op.fut);
    if (rc != 0) {
        wa__native_http_server_free(srv);
        return rc == WA_PENDING ? WA_EIO : rc;
    }
    srv->listener = srv->op.listener;
    l->want = wa_tcp_port(srv->listener);
    __atomic_store_n(&l->srv, srv, __ATOMIC_RELEASE); /* (wa_http_listen_port, from any thread) */
    return 0;
}

/* Accepts until the task is cancelled; returns WA_PENDING, or the error
 * that ended the listener. */
static int wa__native_http_accept(wa__native_http_server *srv, wa_cx *cx)
{
    for (;;) {
        int rc;
        if (srv->pausing && (rc = wa_poll_held(&srv->pause.fut, &srv->pausing, cx)) == WA_PENDING)
            return rc;
        if (!srv->accepting) {
            wa_tcp_accept_init(&srv->op, srv->listener);
            srv->accepting = 1;
        }
        if ((rc = wa_poll_held(&srv->op.fut, &srv->accepting, cx)) == WA_PENDING)
            return rc;
        if (rc == 0)
            wa__native_http_conn_start(srv, srv->op.conn); /* (out of memory: that one is closed) */
        else if (rc == WA_EMFILE || rc == WA_ENOMEM) {
            wa_sleep_init(&srv->pause, WA__NATIVE_HTTP_ACCEPT_PAUSE);
            srv->pausing = 1;
        } else if (rc != WA_ECONNRESET)
            return rc;
    }
}

static int wa__native_http_listen_poll(wa_future *f, wa_cx *cx)
{
    wa_http_listen *l = (wa_http_listen *)f;
    int rc;
    if (l->step < 0)
        return WA_EINVAL;
    if (l->step == 0) {
        if ((rc = wa__native_http_open(l, cx)) < 0)
            return rc;
        l->step = 1;
    }
    wa__native_http_server *srv = l->srv;
    if (!srv->stopping && wa_cancel_requested(cx))
        wa__native_http_stop(srv);
    if (!srv->stopping) {
        if ((rc = wa__native_http_accept(srv, cx)) == WA_PENDING)
            return rc;
        l->step = rc; /* the listener failed: what the future ends with */
        wa__native_http_stop(srv);
    }
    wa__native_http_take(srv->mt, &srv->lock);
    size_t live = srv->nconns;
    if (live)
        wa_waker_store(&srv->waker, cx); /* (under the lock the last one's end wakes it under) */
    wa__native_http_give(srv->mt, &srv->lock);
    if (live) {
        if (l->step == 1)
            wa_cancel_claim(cx); /* (the connections finish first) */
        return WA_PENDING;
    }
    return l->step == 1 ? WA_ECANCELED : l->step;
}

static void wa__native_http_listen_drop(wa_future *f)
{
    wa_http_listen *l = (wa_http_listen *)f;
    wa__native_http_server *srv = l->srv;
    if (!srv)
        return;
    __atomic_store_n(&l->srv, NULL, __ATOMIC_RELAXED);
    if (!srv->stopping)
        wa__native_http_stop(srv);
    __atomic_store_n(&srv->dropped, 1, __ATOMIC_RELAXED); /* the connections close at once */
    wa__native_http_conn_wake_all(srv);
    wa__native_http_take(srv->mt, &srv->lock);
    wa_waker_drop(&srv->waker);
    int last = wa__native_http_server_release(srv);
    wa__native_http_give(srv->mt, &srv->lock);
    if (last)
        wa__native_http_server_free(srv);
}

static const wa_future_vt wa__native_http_listen_vt = {wa__native_http_listen_poll, wa__native_http_listen_drop,
                                                        "http_listen"};

wa_future *wa_http_listen_init(wa_http_listen *l, wa_rt *rt, const char *addr, wa_http_handler handler)
{
    *l = (wa_http_listen){.fut = {&wa__native_http_listen_vt}, .rt = rt, .handler = handler,
                          .limits = wa__native_http_defaults};
    if (wa__native_http_addr(l, addr) < 0 || !rt || !handler)
        l->step = -1;
    return &l->fut;
}

uint16_t wa_http_listen_port(const wa_http_listen *l)
{
    if (!l)
        return (uint16_t)wa__misuse_in(0, "wa_http_listen_port", "a NULL listener");
    /* (not srv's port: another thread's drop may free srv meanwhile) */
    return __atomic_load_n(&l->srv, __ATOMIC_ACQUIRE) ? l->want : 0;
}

/* WA_HTTP_SERVE's: the listen future polled here, where main can see it
 * bound and say so. */
typedef struct wa__native_http_main {
    wa_future fut;
    wa_http_listen l;
    int told;
} wa__native_http_main;

static int wa__native_http_main_poll(wa_future *f, wa_cx *cx)
{
    wa__native_http_main *m = (wa__native_http_main *)f;
    int rc = wa_poll(&m->l.fut, cx);
    if (!m->told && wa_http_listen_port(&m->l)) {
        m->told = 1;
        int v6 = strchr(m->l.ip, ':') != NULL;
        printf("listening on http://%s%s%s:%u/\n", v6 ? "[" : "", m->l.ip, v6 ? "]" : "", wa_http_listen_port(&m->l));
        fflush(stdout);
    }
    return rc;
}

static void wa__native_http_main_drop(wa_future *f) { wa_drop(&((wa__native_http_main *)f)->l.fut); }

static const wa_future_vt wa__native_http_main_vt = {wa__native_http_main_poll, wa__native_http_main_drop,
                                                      "http_serve"};

/* The runtime WASYNC_WORKERS asks for: unset, empty or 0 a local one,
 * N a many-threads one of N workers. 0, or why not (WA_EINVAL: not a
 * number, said on stderr). */
static int wa__native_http_main_rt(wa_rt **rt)
{
    const char *want = getenv("WASYNC_WORKERS");
    if (!want || !*want)
        return wa_rt_new(rt);
    char *end;
    unsigned long n = strtoul(want, &end, 10);
    if (*end || *want < '0' || *want > '9' || n > 4095) {
        fprintf(stderr, "wasync: WASYNC_WORKERS=%s: not a number of workers (0, local; 1 to 4095)\n", want);
        return WA_EINVAL;
    }
    return n ? wa_rt_new_mt(rt, (unsigned)n) : wa_rt_new(rt);
}

int wa__http_serve_main(wa_http_handler handler)
{
    const char *addr = getenv("WASYNC_LISTEN");
    wa_rt *rt;
    int rc = wa__native_http_main_rt(&rt);
    if (rc == 0) {
        wa__native_http_main m = {.fut = {&wa__native_http_main_vt}};
        wa_http_listen_init(&m.l, rt, addr ? addr : "127.0.0.1:8080", handler);
        rc = wa_block_on(rt, &m.fut);
        wa_rt_free(rt);
    }
    fprintf(stderr, "wasync: serving on %s: %s\n", addr ? addr : "127.0.0.1:8080", wa_strerror(rc));
    return 1;
}
