/* SPDX-License-Identifier: MIT */
/* wasync/stream.h - byte streams: read, write with backpressure, copy.
 *
 * A stream is whatever a host gives (wasi:io/streams on WASI 0.2; a pipe or
 * a socket natively) behind one small vtable of non-blocking operations and
 * a readiness future. The futures here are written once over that vtable,
 * so they behave the same on every host: a write waits while the stream
 * says it cannot take more (backpressure), a read completes with what is
 * there, a copy moves bytes until the end of the input.
 */
#ifndef WASYNC_STREAM_H
#define WASYNC_STREAM_H

#include "future.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wa_stream wa_stream;

enum { WA_STREAM_READ = 1, WA_STREAM_WRITE = 2 };

/* What a host implements. The try_ functions never block: they return 0
 * (with *n > 0 bytes done), WA_EAGAIN (nothing possible now: await
 * readiness), WA_ECLOSED (end of stream / the other side closed) or another
 * negative code. */
typedef struct wa_stream_vt {
    int (*try_read)(wa_stream *s, void *buf, size_t cap, size_t *n);
    int (*try_write)(wa_stream *s, const void *buf, size_t len, size_t *n);
    /* Starts or continues a flush: 0 once flushed, WA_EAGAIN while not. */
    int (*try_flush)(wa_stream *s);
    /* Initialises the future in storage (at least WA_STREAM_WAIT_SIZE
     * bytes) that is ready when the stream may be able to do `dir`. */
    wa_future *(*ready)(wa_stream *s, int dir, void *storage);
    /* Releases the stream's host resources. */
    void (*close)(wa_stream *s);
} wa_stream_vt;

/* The common head of every stream. vt is the implementer's; the rest is
 * the stream layer's (zero it): which directions have an operation in
 * flight, their wakers, whether the owner closed the stream, and why the
 * last operation of each direction failed (wa_stream_reason: one per
 * direction, as a read and a write may fail at once). An implementer's
 * try_ function may say why it failed with wa_stream_set_reason. */
struct wa_stream {
    const wa_stream_vt *vt;
    wa_waker waiter[2];  /* [0] the read in flight, [1] the write */
    unsigned char busy;  /* WA_STREAM_READ | WA_STREAM_WRITE in flight */
    unsigned char closed;
    char *reason; /* the read's and the write's, WA_REASON_MAX each: made at the first failure */
};

/* The initializer of an implementer's stream head: WA_STREAM_INIT(&my_vt). */
#define WA_STREAM_INIT(vtable) {.vt = (vtable)}

/* The handle of a stream the library makes (a pipe's end, an fd's, stdio,
 * a TCP connection) is a key, not the stream's address, so that a copy of
 * it used after the close is found out without touching freed memory; an
 * implementer's own stream is its address. For an implementer of a stream
 * over another one (a filter): the head behind handle s (borrowed), whose
 * vt it may call until s is closed, or NULL and WA_EMISUSE reported for a
 * handle closed already (through any copy). */
wa_stream *wa_stream_head(wa_stream *s);

/* For implementers of ready(): a future in storage that finishes at once
 * with err (a readiness that could not be set up, e.g. WA_ENOMEM). */
wa_future *wa_stream_error_init(void *storage, int err);

#define WA_STREAM_WAIT_SIZE 64

/* Storage for a stream's readiness future (private). */
typedef union wa_stream_wait {
    wa_future fut;
    char bytes[WA_STREAM_WAIT_SIZE];
    void *align_;
    uint64_t align64_;
} wa_stream_wait;

/* Reads up to cap bytes into buf (borrowed): status 0 with n > 0, or
 * WA_ECLOSED at the end of the stream. A read of cap 0 finishes at once
 * with status 0 and n = 0 on every stream, without asking the host. One
 * read and one write may be in flight on a stream at a time: a second one
 * in the same direction fails with WA_EBUSY (misuse). */
typedef struct wa_read {
    wa_future fut;
    wa_stream *s;
    void *buf;
    size_t cap, n;
    int waiting, state;
    wa_stream_wait wait;
} wa_read;
/* Initialises r to read from s (borrowed) into buf; returns the future. */
wa_future *wa_read_init(wa_read *r, wa_stream *s, void *buf, size_t cap);

/* Writes all len bytes of buf (borrowed), waiting whenever the stream says
 * it cannot take more, then flushes. Status 0, or the error; done says how
 * many bytes the stream took. */
typedef struct wa_write {
    wa_future fut;
    wa_stream *s;
    const unsigned char *buf;
    size_t len, done;
    int waiting, flush, state;
    wa_stream_wait wait;
} wa_write;
/* Initialises w to write buf to s (borrowed); returns the future. */
wa_future *wa_write_init(wa_write *w, wa_stream *s, const void *buf, size_t len);

/* Reads s to its end (WA_ECLOSED) into a buffer that grows as needed, at
 * most max bytes (0: no limit; WA_E2BIG past it). Status 0 with data (len
 * bytes plus a NUL, the caller's to free()); on failure data is NULL. */
typedef struct wa_read_all {
    wa_future fut;
    wa_stream *s;
    size_t max;
    int reading;
    wa_read r;
    unsigned char *data;
    size_t len, cap;
} wa_read_all;
/* Initialises r to read s (borrowed) to its end; returns the future. */
wa_future *wa_read_all_init(wa_read_all *r, wa_stream *s, size_t max);

/* Copies everything from in to out until in ends (then flushes out), with
 * a buffer of its own: reads wait for data, writes for room. Status 0, or
 * the first error; copied counts the bytes. Neither stream is closed. */
typedef struct wa_copy {
    wa_future fut;
    wa_stream *in, *out;
    wa_read r;
    wa_write w;
    int state;
    uint64_t copied;
    unsigned char buf[8192];
} wa_copy;
/* Initialises c to copy in to out (both borrowed); returns the future. */
wa_future *wa_copy_init(wa_copy *c, wa_stream *in, wa_stream *out);

/* A buffered reader: reads s through buf, a buffer the caller owns, so
 * that whole units can be read (exactly len bytes, a line) and the bytes
 * a stream gave past a unit stay in buf for the next one: a stream has no
 * unread, and nothing read is lost. Once s is read through a reader, read
 * it only through that reader (wa_read would skip what buf holds). One
 * unit may be in flight on a reader at a time (a second: WA_EBUSY,
 * misuse). buf[start, end) are the bytes read from s and not yet taken,
 * for a caller that goes on without the reader (private otherwise). A
 * unit dropped before its end (a timeout, a lost race) leaves what it had
 * read in buf, so the next unit starts with it; only wa_read_exact's
 * bytes past the buffer's size are delivered as they come (its n). */
typedef struct wa_reader {
    wa_stream *s;
    unsigned char *buf;
    size_t cap, start, end;
    int busy;
} wa_reader;
/* Sets rd up to read s (borrowed) through buf (borrowed, cap bytes; the
 * longest line it can read); neither is closed nor freed by the reader,
 * which holds no other resources (nothing to release). */
void wa_reader_init(wa_reader *rd, wa_stream *s, void *buf, size_t cap);

/* Reads exactly len bytes into dst (borrowed): status 0 with n = len; or
 * WA_ECLOSED when the stream ended first, with the n bytes that came in
 * dst (n = 0: it ended between units; 0 < n < len: short, cut off); or the
 * stream's error. A len up to the reader's buffer size gathers in the
 * buffer and is copied to dst at the end, so a drop before then loses
 * nothing; a longer one reads into dst as bytes come, and n counts them
 * also after a drop. */
typedef struct wa_read_exact {
    wa_future fut;
    wa_reader *rd;
    unsigned char *dst;
    size_t len, n;
    int reading, state;
    wa_read r;
} wa_read_exact;
/* Initialises x to read len bytes from rd (borrowed) into dst; returns the
 * future. */
wa_future *wa_read_exact_init(wa_read_exact *x, wa_reader *rd, void *dst, size_t len);

/* Reads up to and including the byte delim (a line: '\n'), at most max
 * bytes with it (0, or more than the reader's buffer: the buffer's size).
 * Status 0 with line and len, the delimiter last; WA_E2BIG when max bytes
 * came without it, with those max bytes in line (the rest follows in the
 * next unit: read on to skip it, or give up); WA_ECLOSED at the end of the
 * stream, with the last bytes, which had no delimiter, in line (len 0: it
 * ended between lines); or the stream's error, line untouched and every
 * byte still in the reader. line points into the reader's buffer (do not
 * free it) and stays valid until the next unit on the reader starts. */
typedef struct wa_read_until {
    wa_future fut;
    wa_reader *rd;
    size_t max, scanned;
    int delim, reading, state;
    wa_read r;
    const unsigned char *line;
    size_t len;
} wa_read_until;
/* Initialises u to read from rd (borrowed) up to delim; returns the
 * future. */
wa_future *wa_read_until_init(wa_read_until *u, wa_reader *rd, int delim, size_t max);

/* An in-process pipe of cap bytes between tasks of one runtime: *reader
 * reads what *writer writes; a full pipe makes the writer wait. Close both
 * ends (the pipe goes with the second). Returns 0, WA_EINVAL or WA_ENOMEM. */
int wa_pipe_new(size_t cap, wa_stream **reader, wa_stream **writer);

/* stdin (0), stdout (1) or stderr (2) as a new stream (close it when
 * done; the process's own fd stays open). WASI 0.2: the wasi:cli streams;
 * WASI 0.3: wasi:cli's read-via-stream and write-via-stream (stream<u8>).
 * Linux: a duplicate of the fd, made non-blocking, its flags put back on
 * close; a regular file (a redirect) is read and written without waiting.
 * Returns 0, WA_EINVAL (another fd), WA_ENOMEM or WA_EIO. */
int wa_stdio_open(wa_rt *rt, int fd, wa_stream **s);

#if defined(__linux__) || defined(WASYNC_HOST_WASIP1)
/* A stream over fd, which it takes (closed with the stream; also on
 * failure): a socket, pipe or terminal, made non-blocking and registered
 * with rt's backend (epoll, or WASI 0.1's poll_oneoff). Reads end with
 * WA_ECLOSED at EOF; writes to a peer that is gone fail with WA_ECLOSED or
 * WA_ECONNRESET (never SIGPIPE). A regular file needs no waiting and no
 * registration. Returns 0, WA_EINVAL (an fd the backend refuses),
 * WA_ENOMEM or WA_ENOSYS (another backend). */
int wa_fd_stream_open(wa_rt *rt, int fd, wa_stream **s);
#endif

/* Why the last read (dir WA_STREAM_READ) or write (WA_STREAM_WRITE, its
 * flush included) on s (borrowed) failed, in the host's words with the
 * call: natively (and WASI 0.1's fd streams) the system call and
 * strerror's text ("send: Broken pipe"); on WASI 0.2 the stream-error's
 * error, its to-debug-string ("flush: Error: write EPIPE"); on WASI 0.3 a
 * TCP connection's send or receive result's error-code ("send:
 * connection-reset"); on the JS host an HTTP body's read, the glue's
 * message. "" when it did not fail, at the end of the stream, for a
 * close, or when the host gave no words. The one in flight's, or the last
 * one's: an operation clears its direction's at its first poll. Borrowed
 * from s: valid until the next operation of that direction starts, or s
 * closes. NULL (misuse reported) for a closed or NULL s, or another dir. */
const char *wa_stream_reason(wa_stream *s, int dir);

/* For implementers: s's (the head, borrowed) reason in direction dir
 * (WA_STREAM_READ or WA_STREAM_WRITE) set to "call: text" (call NULL:
 * text alone), cut to WA_REASON_MAX, from a try_ function that fails. */
void wa_stream_set_reason(wa_stream *s, int dir, const char *call, const char *text);

/* Closes the stream *s and clears *s, so that a second close or a use
 * through the same handle is reported as misuse rather than touching freed
 * memory. An operation still in flight on the stream is woken and ends with
 * WA_ECLOSED; the host resources go when the last one lets go (at once
 * when none is in flight). Returns 0, or WA_EMISUSE (NULL, or a stream
 * already closed through another copy of the handle). */
int wa_stream_close(wa_stream **s);

#ifdef __cplusplus
}
#endif
#endif
