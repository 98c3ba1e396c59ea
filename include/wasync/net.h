/* SPDX-License-Identifier: MIT */
/* wasync/net.h - TCP, on WASI 0.2 and 0.3 (wasi:sockets) and native Linux
 * (epoll); natively also Unix domain sockets.
 *
 * A connection is a stream (stream.h): read, write with backpressure,
 * close. An address is an IPv4 ("127.0.0.1") or IPv6 ("::1") literal, read
 * as inet_pton reads it: no names (wa_dns_lookup_init resolves those), no
 * zone ids ("fe80::1%eth0"), no leading zeros in IPv4 ("0127.0.0.1" is
 * WA_EINVAL, not octal). NULL is WA_EINVAL too: "0.0.0.0" or "::" is how
 * to listen on every address. An IPv4-mapped address ("::ffff:1.2.3.4") is
 * its IPv4 address. IPv6 sockets are IPv6 only, on every host (WASI 0.2's
 * are), so "::" and "0.0.0.0" can listen on one port side by side. The same
 * program runs on every host (examples/tcp_echo.c).
 */
#ifndef WASYNC_NET_H
#define WASYNC_NET_H

#include "backend.h"
#include "runtime.h"
#include "stream.h"
#include "wasi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The calls below, on a host that has no sockets. */
#if defined(WASYNC_HOST_JS) || defined(WASYNC_HOST_WASIP1)
#define WA__NET WA__UNAVAILABLE("wasync: no TCP or DNS on the " WASYNC_HOST " host (net.h is native Linux's, WASI 0.2's and WASI 0.3's)")
#else
#define WA__NET
#endif

/* Unix domain sockets, natively only. */
#if defined(WASYNC_HOST_NATIVE) && defined(__linux__)
#define WA__UNIX
#else
#define WA__UNIX WA__UNAVAILABLE("wasync: no Unix domain sockets on the " WASYNC_HOST " host (wa_unix_* are native Linux's)")
#endif

typedef struct wa_tcp wa_tcp; /* a listening socket (TCP, or natively Unix) */

/* An IP address: IPv4 in bytes[0..3], or IPv6 (v6 = 1), network order. */
typedef struct wa_ip {
    int v6;
    uint8_t bytes[16];
} wa_ip;

/* Reads s (borrowed), an IPv4 or IPv6 literal (the rules above), into
 * *ip: 0, or WA_EINVAL (NULL too). */
WA__NET int wa_ip_parse(const char *s, wa_ip *ip);

/* What an operation of the host keeps (its socket, registration and
 * readiness wait; on WASI 0.3 a connect's or lookup's subtask with the
 * call's argument and return areas): private, and one size whatever the
 * host, so that a program built without the library's build settings has
 * the layout the library has. Each host checks that its state fits. */
#define WA_NET_HOST_SIZE (64 + WA_STREAM_WAIT_SIZE)
typedef union wa_net_host {
    unsigned char bytes[WA_NET_HOST_SIZE];
    uint64_t align_;
    void *align_ptr_;
} wa_net_host;

/* The steps of listening, accepting, connecting (private fields). */
typedef struct wa_tcp_op {
    wa_future fut;
    wa_rt *rt;
    wa_ip ip;
    uint16_t port;
    const char *path; /* a Unix socket's (native) */
    int step, registered, waiting;
    wa_net_host host;
    wa_tcp *listener;  /* listen: the result; accept: its listener */
    wa_stream *conn;   /* accept, connect: the result */
    char reason[WA_REASON_MAX]; /* wa_tcp_op_reason */
} wa_tcp_op;

/* Listens on ip:port (ip borrowed, read at once; port 0: a free one);
 * once ready, op->listener is a new listener, the caller's to close with
 * wa_tcp_close. WA_EINVAL for a bad or NULL address, WA_EADDRINUSE,
 * WA_EMFILE (out of file descriptors), WA_ENOSYS on a backend without
 * sockets (sim). */
WA__NET wa_future *wa_tcp_listen_init(wa_tcp_op *op, wa_rt *rt, const char *ip, uint16_t port);

/* The port l (borrowed) is bound to; 0 and misuse reported for NULL. */
WA__NET uint16_t wa_tcp_port(const wa_tcp *l);

/* Accepts one connection on l (borrowed; the accept keeps it alive until
 * it ends, a close meanwhile makes it end with WA_ECLOSED): op->conn, a
 * new stream the caller closes with wa_stream_close. A NULL l (a closed
 * handle) is misuse, reported at the first poll. WA_EMFILE, WA_ENOMEM and
 * WA_ECONNRESET concern one connection only: accept again (after a pause,
 * for WA_EMFILE: examples/tcp_echo.c). */
WA__NET wa_future *wa_tcp_accept_init(wa_tcp_op *op, wa_tcp *l);

/* Connects to ip:port (ip borrowed, read at once): op->conn, a new
 * stream. WA_EINVAL for a bad or NULL address, WA_ECONNREFUSED, WA_EMFILE
 * and the like. */
WA__NET wa_future *wa_tcp_connect_init(wa_tcp_op *op, wa_rt *rt, const char *ip, uint16_t port);

/* Why op's listen, accept or connect failed, in the host's words, with
 * the call that failed: natively the system call and strerror's text
 * ("connect: Connection refused"), on WASI wasi:sockets' error-code
 * ("finish-connect: connection-refused"; 0.3's other(string): its text).
 * "" before op ended, after a success, for an error the host gave no
 * words for (a bad address, WA_ECLOSED, WA_ENOMEM of the library's own).
 * Borrowed from op: a string in its storage, readable after op ended and
 * was dropped (as an await drops it), until op is initialised again. */
WA__NET const char *wa_tcp_op_reason(const wa_tcp_op *op);

/* Closes the listener *l (takes it) and clears *l, so that a second close
 * or a use through the same handle is misuse rather than a use after free.
 * An accept in flight on it ends with WA_ECLOSED; its memory goes when the
 * last accept lets go. Returns 0, or WA_EMISUSE (NULL, or a listener
 * closed already through another copy of the handle). */
WA__NET int wa_tcp_close(wa_tcp **l);

/* The options of a connection (a stream from wa_tcp_accept_init or
 * wa_tcp_connect_init, or wa_fd_stream_open's over a TCP socket; borrowed)
 * and its half-close. They act at once. NULL, a closed stream or another
 * kind of stream is misuse, reported with the call's name (WA_EMISUSE).
 * wasi:sockets has no TCP_NODELAY: WA_ENOSYS on WASI 0.2 and 0.3, where
 * the runtime decides (wasmtime and jco's shims leave Nagle on). */

/* Turns Nagle's algorithm off (on: small writes go at once) or back on.
 * Returns 0, WA_ENOSYS (WASI), or the host's error. */
WA__NET int wa_tcp_nodelay(wa_stream *conn, bool on);

/* Turns keep-alive probes on or off; idle_s (when on, and not 0) is the
 * idle time before the first probe, in seconds (0: the host's, often two
 * hours). Returns 0, WA_EINVAL for an idle time the host cannot keep
 * (Linux: over 32767 s), or the host's error. */
WA__NET int wa_tcp_keepalive(wa_stream *conn, bool on, unsigned idle_s);

/* Half-close: shuts the write side of conn down. The peer reads what was
 * written, then the end of the stream (WA_ECLOSED), while conn can still
 * be read; a write after it fails with WA_ECLOSED; a second one returns 0.
 * A write in flight on conn is misuse (WA_EBUSY): await it first, since a
 * write ends once its bytes are flushed to the host, so nothing is left
 * behind. Natively shutdown(SHUT_WR); WASI 0.2: shutdown(send), and the
 * output-stream dropped (jco's preview2-shim destroys the whole socket at
 * shutdown: there conn reads nothing more); WASI 0.3: the stream given to
 * send ended. Returns 0, or the host's error. The connection is still
 * closed with wa_stream_close. */
WA__NET int wa_tcp_shutdown_write(wa_stream *conn);

/* Listens on the Unix domain socket at path (borrowed until the listen
 * ends; a file system path of at most 107 bytes); once ready,
 * op->listener is a new listener: accept on it with wa_tcp_accept_init
 * (connections are streams; wa_tcp_nodelay and the like refuse them), and
 * close it with wa_tcp_close, which removes the path. A socket file left
 * at path by a server that ended without its close (a connect to it is
 * refused) is removed and listened on; a live server's socket (a probe
 * connect is accepted: that server sees a connection open and close) or
 * any other file is WA_EADDRINUSE. WA_EINVAL (NULL, empty, too long),
 * WA_ENOTFOUND (a directory of the path missing), WA_EIO (permission, and
 * the like), WA_EMFILE. */
WA__UNIX wa_future *wa_unix_listen_init(wa_tcp_op *op, wa_rt *rt, const char *path);

/* Connects to the Unix domain socket at path (borrowed until the connect
 * ends): op->conn, a new stream. WA_EINVAL (NULL, empty, too long),
 * WA_ENOTFOUND (no such file), WA_ECONNREFUSED (no server there, or its
 * queue of connections full), WA_EIO, WA_EMFILE. */
WA__UNIX wa_future *wa_unix_connect_init(wa_tcp_op *op, wa_rt *rt, const char *path);

/* DNS: the addresses of a host name (borrowed until completion; NULL is
 * misuse), up to WA_DNS_MAX of them. Status 0 (n may be 0), WA_ENOTFOUND for a name that
 * does not resolve, WA_ETIMEDOUT when the resolver could not be asked
 * (EAI_AGAIN, temporary-resolver-failure), WA_EINVAL, WA_EIO, and
 * wa_dns_reason says why in the host's words. Natively getaddrinfo runs on the runtime's
 * blocking pool (it blocks; wa_rt_set_blocking bounds it): a lookup
 * dropped meanwhile lets it finish unobserved, and during shutdown one
 * says WA_ECLOSED. */
#define WA_DNS_MAX 16

typedef struct wa_dns {
    wa_future fut;
    wa_rt *rt;
    const char *name;
    int registered, waiting;
    wa_net_host host;
    wa_ip addrs[WA_DNS_MAX];
    int n;
    char reason[WA_REASON_MAX]; /* wa_dns_reason */
} wa_dns;
/* Initialises d to look name (borrowed) up on rt; returns the future. */
WA__NET wa_future *wa_dns_lookup_init(wa_dns *d, wa_rt *rt, const char *name);

/* Why d's lookup failed, in the host's words: natively getaddrinfo's
 * ("getaddrinfo: Name or service not known"), on WASI wasi:sockets'
 * error-code ("resolve-next-address: name-unresolvable"; 0.3's
 * other(string): its text). "" before d ended, after a success, or when
 * the host gave no words. Borrowed from d, as wa_tcp_op_reason's. */
WA__NET const char *wa_dns_reason(const wa_dns *d);

#ifdef __cplusplus
}
#endif
#endif
