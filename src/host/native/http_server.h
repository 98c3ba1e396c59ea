/* SPDX-License-Identifier: MIT */
/* Internal: what the native HTTP server's listener (http_server.c) and its
 * connections (http_conn.c) share: the server, which outlives the listen
 * future while connections finish, and how the listener starts, stops and
 * leaves them. */
#ifndef WASYNC_HOST_NATIVE_HTTP_SERVER_H
#define WASYNC_HOST_NATIVE_HTTP_SERVER_H

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
    int refs;
    int stopping; /* no new request: the in-flight ones finish, then each connection closes */
    int dropped;  /* the listen future is gone: connections close at once */
    wa__native_http_conn *conns; /* the live connections, a list */
    size_t nconns;
    wa_waker waker; /* the listen future's, woken when the last connection ends while stopping */
    uint16_t port;
    wa_tcp *listener;
    wa_tcp_op op; /* the listen, then each accept */
    int accepting, pausing;
    wa_sleep pause; /* after an accept that failed for want of fds or memory */
} wa__native_http_server;

/* Serves the new connection sock (taken: closed on failure) as a task of
 * its own on srv's runtime. Returns 0, or WA_ENOMEM. */
int wa__native_http_conn_start(wa__native_http_server *srv, wa_stream *sock);

/* Wakes every connection of srv to see that it stops or was dropped. */
void wa__native_http_conn_wake_all(wa__native_http_server *srv);

/* Drops a reference to srv; the last frees it. */
static inline void wa__native_http_server_unref(wa__native_http_server *srv)
{
    if (--srv->refs == 0) {
        wa_waker_drop(&srv->waker);
        free(srv);
    }
}

#endif
