/* SPDX-License-Identifier: MIT */
/* A call that the host of wasync/config.h cannot have is refused when it
 * is compiled, with a message naming the host: tests/CMakeLists.txt
 * compiles this against each host's config.h (-DWA_TEST_HTTP: the HTTP
 * client's call, -DWA_TEST_THREAD: a remote's, -DWA_TEST_UDP: a UDP
 * bind's, -DWA_TEST_SIGNALS: a signal watch's, -DWA_TEST_UNIX: a Unix
 * socket's, else TCP's) and checks the message, or that it compiles where
 * the host has the call. */
#include "wasync.h" /* (every host: net.h, udp.h, http.h, thread.h, signals.h included) */

wa_future *call(wa_rt *rt, wa_tcp_op *op, wa_http_fetch *f);
wa_future *call(wa_rt *rt, wa_tcp_op *op, wa_http_fetch *f)
{
#if defined(WA_TEST_HTTP)
    (void)rt, (void)op;
    return wa_http_fetch_init(f, NULL, 0);
#elif defined(WA_TEST_UDP)
    static wa_udp_op u;
    (void)op, (void)f;
    return wa_udp_bind_init(&u, rt, "127.0.0.1", 0);
#elif defined(WA_TEST_THREAD)
    (void)op, (void)f;
    wa_remote *r;
    (void)wa_remote_new(rt, &r);
    return NULL;
#elif defined(WA_TEST_UNIX)
    (void)f;
    return wa_unix_listen_init(op, rt, "x.sock");
#elif defined(WA_TEST_SIGNALS)
    (void)op, (void)f;
    wa_signals *s;
    (void)wa_signals_open(rt, WA_SIGNAL_INT, &s);
    return NULL;
#else
    (void)f;
    return wa_tcp_listen_init(op, rt, "127.0.0.1", 0);
#endif
}
