/* SPDX-License-Identifier: MIT */
/* wasync streams over wasi:io/streams: non-blocking check-write/write/read,
 * and readiness through each direction's subscribe() pollable, registered
 * with the runtime once for the stream's lifetime (not once per wait). */
#include <stdlib.h>
#include <string.h>

#include "../../io/stream_handle.h"
#include "../../wasi/cabi.h"
#include "cli.h"
#include "io.h"
#include "stream.h"
#include "wasync/stream.h"
#include "wasync/wasi.h"

_Static_assert(sizeof(wa_pollable_wait) <= WA_STREAM_WAIT_SIZE, "readiness storage too small");

typedef struct wa__wasip2_stream {
    wa_stream base;
    wa_rt *rt;
    uint32_t in, out;          /* WA_NO_HANDLE: that direction is absent */
    uint32_t owner;            /* a handle the streams belong to (a socket) */
    void (*drop_owner)(uint32_t);
    wa_pollable_key key[2];    /* [0] read, [1] write */
    int registered[2];
    int flushing;
    int flush_writes; /* an HTTP body's (wa__wasi_stream_flush_writes) */
    int flushed;      /* nothing written since the last flush */
    int ended;        /* the write side was shut down (out dropped) */
} wa__wasip2_stream;

/* reactor.c: the counters of rt's backend (NULL on another one). */
wa_wasip2_stats *wa__wasip2_stats_of(wa_rt *rt);

/* Counts a would-block that sends the caller to the pollable (wasi.h). */
static void wa__wasip2_count_wait(wa_rt *rt, int write)
{
    wa_wasip2_stats *st = wa__wasip2_stats_of(rt);
    if (st)
        ++*(write ? &st->write_waits : &st->read_waits);
}

static int wa__wasip2_try_read(wa_stream *st, void *buf, size_t cap, size_t *n)
{
    wa__wasip2_stream *s = (wa__wasip2_stream *)st;
    if (s->in == WA_NO_HANDLE)
        return WA_EINVAL;
    unsigned char *data;
    size_t len;
    int rc = wa__wasip2_io_said(st, WA_STREAM_READ, "read", wa__wasip2_read(s->in, cap, &data, &len));
    if (rc < 0)
        return rc;
    if (len > cap) /* a host bug; never copy more than asked */
        len = cap;
    memcpy(buf, data, len);
    wa__wasip2_host_free(data, len);
    *n = len;
    if (len)
        return 0;
    wa__wasip2_count_wait(s->rt, 0);
    return WA_EAGAIN;
}

/* rc of the output-stream's call named call, its error st's reason. */
#define WA__SAID_W(st, call, rc) wa__wasip2_io_said(st, WA_STREAM_WRITE, call, rc)

static int wa__wasip2_try_write(wa_stream *st, const void *buf, size_t len, size_t *n)
{
    wa__wasip2_stream *s = (wa__wasip2_stream *)st;
    if (s->out == WA_NO_HANDLE)
        return s->ended ? WA_ECLOSED : WA_EINVAL;
    uint64_t room;
    int rc = WA__SAID_W(st, "check-write", wa__wasip2_check_write(s->out, &room));
    if (rc < 0)
        return rc;
    if (room == 0) { /* backpressure: await the pollable */
        wa__wasip2_count_wait(s->rt, 1);
        return WA_EAGAIN;
    }
    size_t k = len < room ? len : (size_t)room;
    int flush = s->flush_writes && k == len && len <= 4096;
    if ((rc = flush ? WA__SAID_W(st, "blocking-write-and-flush", wa__wasip2_write_flush(s->out, buf, k))
                    : WA__SAID_W(st, "write", wa__wasip2_write(s->out, buf, k))) < 0)
        return rc;
    s->flushed = flush;
    *n = k;
    return 0;
}

/* flush() only starts one; check-write says 0 until it is done. */
static int wa__wasip2_try_flush(wa_stream *st)
{
    wa__wasip2_stream *s = (wa__wasip2_stream *)st;
    if (s->out == WA_NO_HANDLE)
        return s->ended ? WA_ECLOSED : WA_EINVAL;
    int rc;
    if (s->flushed)
        return 0;
    if (!s->flushing) {
        if ((rc = WA__SAID_W(st, "flush", wa__wasip2_flush(s->out))) < 0)
            return rc;
        s->flushing = 1;
    }
    uint64_t room;
    if ((rc = WA__SAID_W(st, "check-write", wa__wasip2_check_write(s->out, &room))) < 0)
        return rc;
    if (room == 0)
        return WA_EAGAIN;
    s->flushing = 0;
    s->flushed = 1;
    return 0;
}

static wa_future *wa__wasip2_ready(wa_stream *st, int dir, void *storage)
{
    wa__wasip2_stream *s = (wa__wasip2_stream *)st;
    int i = dir == WA_STREAM_WRITE;
    if (!s->registered[i]) {
        uint32_t p = i ? wa__wasip2_output_subscribe(s->out) : wa__wasip2_input_subscribe(s->in);
        int rc = wa_pollable_register(s->rt, p, &s->key[i]);
        if (rc < 0)
            return wa_stream_error_init(storage, rc);
        s->registered[i] = 1;
    }
    return wa_pollable_wait_init(storage, s->key[i]);
}

static void wa__wasip2_close(wa_stream *st)
{
    wa__wasip2_stream *s = (wa__wasip2_stream *)st;
    for (int i = 0; i < 2; i++) /* pollables go before their streams */
        if (s->registered[i])
            wa_pollable_deregister(s->rt, s->key[i]);
    if (s->in != WA_NO_HANDLE)
        wa__wasip2_input_drop(s->in);
    if (s->out != WA_NO_HANDLE)
        wa__wasip2_output_drop(s->out);
    if (s->drop_owner) /* after its streams, as WASI requires */
        s->drop_owner(s->owner);
    free(s);
}

static const wa_stream_vt wa__wasip2_stream_vt = {wa__wasip2_try_read, wa__wasip2_try_write, wa__wasip2_try_flush, wa__wasip2_ready,
                                             wa__wasip2_close};

int wa__wasi_stream_open_owned(wa_rt *rt, uint32_t in, uint32_t out, uint32_t owner, void (*drop_owner)(uint32_t),
                              wa_stream **out_stream)
{
    wa__wasip2_stream *s = calloc(1, sizeof *s);
    if (!s) {
        if (in != WA_NO_HANDLE)
            wa__wasip2_input_drop(in);
        if (out != WA_NO_HANDLE)
            wa__wasip2_output_drop(out);
        if (drop_owner)
            drop_owner(owner);
        return WA_ENOMEM;
    }
    s->base.vt = &wa__wasip2_stream_vt;
    s->rt = rt;
    s->in = in;
    s->out = out;
    s->owner = owner;
    s->drop_owner = drop_owner;
    *out_stream = &s->base;
    return 0;
}

uint32_t wa__wasi_stream_owner(wa_stream *st, void (*drop_owner)(uint32_t))
{
    wa__wasip2_stream *s = (wa__wasip2_stream *)st;
    return st->vt == &wa__wasip2_stream_vt && s->drop_owner == drop_owner ? s->owner : WA_NO_HANDLE;
}

/* The output-stream goes after the shutdown: a runtime may take its drop
 * for a cancel of what it still writes (wasmtime does, and then shuts
 * nothing down). */
int wa__wasi_stream_end_write(wa_stream *st, int (*shut)(uint32_t owner))
{
    wa__wasip2_stream *s = (wa__wasip2_stream *)st;
    int rc;
    if (s->ended)
        return 0;
    if ((rc = shut(s->owner)) < 0)
        return rc;
    if (s->registered[1]) /* (no write in flight: no wait on it) */
        wa_pollable_deregister(s->rt, s->key[1]);
    s->registered[1] = 0;
    wa__wasip2_output_drop(s->out);
    s->out = WA_NO_HANDLE;
    s->ended = 1;
    return 0;
}

void wa__wasi_stream_flush_writes(wa_stream *s) { ((wa__wasip2_stream *)s)->flush_writes = 1; }

int wa_wasi_stream_open(wa_rt *rt, uint32_t in, uint32_t out, wa_stream **s)
{
    return wa__stream_handle(wa__wasi_stream_open_owned(rt, in, out, 0, NULL, s), s);
}

int wa_stdio_open(wa_rt *rt, int fd, wa_stream **s)
{
    switch (fd) {
    case 0:
        return wa_wasi_stream_open(rt, wa__wasip2_get_stdin(), WA_NO_HANDLE, s);
    case 1:
        return wa_wasi_stream_open(rt, WA_NO_HANDLE, wa__wasip2_get_stdout(), s);
    case 2:
        return wa_wasi_stream_open(rt, WA_NO_HANDLE, wa__wasip2_get_stderr(), s);
    default:
        return WA_EINVAL;
    }
}
