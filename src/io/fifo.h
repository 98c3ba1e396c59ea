/* SPDX-License-Identifier: MIT */
/* Internal: a bounded FIFO of bytes in a ring, for what holds bytes
 * between a writer and a reader: the pipe (pipe.c) and the native HTTP
 * client's bodies (src/host/native/http.c). Bytes are copied in and out
 * in at most two pieces (to the ring's end, then from its start) and
 * never moved within it: a read costs what it takes, not what is left.
 * The end of the bytes (head + len) moves only as bytes come in, so the
 * free span wa__fifo_space gives may be written by a reader of another
 * stream while bytes are taken from the front. */
#ifndef WASYNC_IO_FIFO_H
#define WASYNC_IO_FIFO_H

#include <stddef.h>
#include <string.h>

typedef struct wa__fifo {
    unsigned char *buf; /* cap bytes (the owner's) */
    size_t cap, head, len; /* the bytes: buf[head..] then buf[0..], len of them */
} wa__fifo;

/* Copies n bytes of data into f's ring from position at, wrapping. */
static inline void wa__fifo_copy_in(wa__fifo *f, size_t at, const void *data, size_t n)
{
    size_t first = f->cap - at < n ? f->cap - at : n;
    memcpy(f->buf + at, data, first);
    memcpy(f->buf, (const unsigned char *)data + first, n - first);
}

/* Appends n bytes of data (borrowed) to f; n is at most cap - len. */
static inline void wa__fifo_put(wa__fifo *f, const void *data, size_t n)
{
    if (!n)
        return;
    wa__fifo_copy_in(f, (f->head + f->len) % f->cap, data, n);
    f->len += n;
}

/* Puts n bytes of data (borrowed) back in front of f's bytes, as if never
 * taken; n is at most cap - len. */
static inline void wa__fifo_unget(wa__fifo *f, const void *data, size_t n)
{
    if (!n)
        return;
    f->head = (f->head + f->cap - n) % f->cap;
    wa__fifo_copy_in(f, f->head, data, n);
    f->len += n;
}

/* Takes up to n of f's first bytes into out: how many. */
static inline size_t wa__fifo_take(wa__fifo *f, void *out, size_t n)
{
    size_t m = n < f->len ? n : f->len, first = f->cap - f->head < m ? f->cap - f->head : m;
    if (!m)
        return 0;
    memcpy(out, f->buf + f->head, first);
    memcpy((unsigned char *)out + first, f->buf, m - first);
    f->head = (f->head + m) % f->cap;
    f->len -= m;
    return m;
}

/* The free bytes right after f's bytes, up to the ring's end: their start,
 * and in *room how many (0 when f is full). What is written there joins
 * f's bytes by adding its length to len. */
static inline unsigned char *wa__fifo_space(const wa__fifo *f, size_t *room)
{
    size_t tail = (f->head + f->len) % f->cap;
    *room = f->len == f->cap ? 0 : tail < f->head ? f->head - tail : f->cap - tail;
    return f->buf + tail;
}

#endif
