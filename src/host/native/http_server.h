/* SPDX-License-Identifier: MIT */
/* Internal: what the native HTTP server's listener (http_server.c) and its
 * connections (http_conn.c) share: the server, which outlives the listen
 * future while connections finish, and how the listener starts, stops and
 * leaves them.
 *
 * On a many-threads runtime the listener, each connection and each
 * request run on any worker, at once: the server's lock guards its
 * references, its list and count of connections and the listener's
 * waker; each connection's lock guards the connection and its request,
 * which the request's task reaches through http.h's calls and the
 * bodies' streams. The order is the server's, then a connection's (the
 * listener waking them all); a connection leaves its own before it takes
 * the server's. On a local runtime no lock is taken (mt is 0): one thread
 * runs them all, and its path stays without an atomic operation. */
#ifndef WASYNC_HOST_NATIVE_HTTP_SERVER_H
#define WASYNC_HOST_NATIVE_HTTP_SERVER_H

#include <pthread.h>
#include <stdlib.h>

#include "wasync/http.h"
#include "wasync/net.h"

typedef struct wa__native_http_conn wa__native_http_conn;

/* References: the listen future's, and each connection's, so that a
 * connection never finds it freed, whatever ends first. */
typedef struct wa__native_http_server {
    wa_rt *rt;
    wa_http_handler handler;
    wa_http_limits limits;
    int mt;               /* on a many-threads runtime: the locks are taken */
    pthread_mutex_t lock; /* (mt) refs, conns, nconns, waker */
    int refs;
    int stopping; /* atomic: no new request: the in-flight ones finish, then each connection closes */
    int dropped;  /* atomic: the listen future is gone: connections close at once */
    wa__native_http_conn *conns; /* the live connections, a list */
    size_t nconns;
    wa_waker waker; /* the listen future's, woken when the last connection ends while stopping */
    wa_tcp *listener;
    wa_tcp_op op; /* the listen, then each accept */
    int accepting, pausing;
    wa_sleep pause; /* after an accept that failed for want of fds or memory */
} wa__native_http_server;

/* Takes and gives m, a lock of a server's or of one of its connections',
 * when mt (the server's: on a many-threads runtime). */
static inline void wa__native_http_take(int mt, pthread_mutex_t *m)
{
    if (mt)
        pthread_mutex_lock(m);
}

static inline void wa__native_http_give(int mt, pthread_mutex_t *m)
{
    if (mt)
        pthread_mutex_unlock(m);
}

/* The flags the listener sets and its connections read. */
static inline int wa__native_http_stopping(const wa__native_http_server *srv)
{
    return __atomic_load_n(&srv->stopping, __ATOMIC_RELAXED);
}

static inline int wa__native_http_dropped(const wa__native_http_server *srv)
{
    return __atomic_load_n(&srv->dropped, __ATOMIC_RELAXED);
}

/* Serves the new connection sock (taken: closed on failure) as a task of
 * its own on srv's runtime. Returns 0, or WA_ENOMEM. */
int wa__native_http_conn_start(wa__native_http_server *srv, wa_stream *sock);

/* Wakes every connection of srv to see that it stops or was dropped. */
void wa__native_http_conn_wake_all(wa__native_http_server *srv);

/* Drops a reference to srv, under its lock (held by the caller): returns
 * whether it was the last, for the caller to free srv once the lock is
 * given back (wa__native_http_server_free). */
static inline int wa__native_http_server_release(wa__native_http_server *srv) { return --srv->refs == 0; }

static inline void wa__native_http_server_free(wa__native_http_server *srv)
{
    wa_waker_drop(&srv->waker);
    if (srv->mt)
        pthread_mutex_destroy(&srv->lock);
    free(srv);
}

#endif
