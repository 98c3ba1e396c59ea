/* SPDX-License-Identifier: MIT */
/* The echo coroutine shared by the TCP tests and the soak: echoes one
 * connection until the peer closes it, then closes it (also when dropped
 * before that). */
#ifndef WASYNC_TESTS_ECHO_H
#define WASYNC_TESTS_ECHO_H

#include "wasync.h"
#include "wasync/net.h"

typedef struct echo {
    WA_CORO;
    wa_stream *conn; /* taken */
    wa_read r;
    wa_write w;
    unsigned char buf[4096];
} echo;

static int echo_poll(wa_future *f, wa_cx *cx)
{
    echo *t = (echo *)f;
    WA_BEGIN(t, cx);
    for (;;) {
        WA_AWAIT(wa_read_init(&t->r, t->conn, t->buf, sizeof t->buf));
        if (WA_STATUS < 0)
            break;
        WA_AWAIT(wa_write_init(&t->w, t->conn, t->buf, t->r.n));
        if (WA_STATUS < 0)
            break;
    }
    wa_stream_close(&t->conn);
    WA_RETURN(WA_STATUS == WA_ECLOSED ? 0 : WA_STATUS); /* ECLOSED: the peer is done */
    WA_END();
}

static void echo_drop(wa_future *f)
{
    echo *t = (echo *)f;
    wa_coro_drop(f);
    if (t->conn)
        wa_stream_close(&t->conn);
}

static const wa_future_vt echo_vt = {echo_poll, echo_drop, "echo"};

#endif
