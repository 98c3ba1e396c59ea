/* SPDX-License-Identifier: MIT */
/* Internal: wasync streams over wasi:io/streams whose handles belong to
 * another resource (a TCP socket, an HTTP body), dropped by drop_owner
 * after them, as WASI requires children to go first. The owner's drop is
 * passed in, so streams alone import nothing from other packages. All
 * handles are taken, also on failure (WA_ENOMEM). */
#ifndef WASYNC_HOST_WASIP2_STREAM_H
#define WASYNC_HOST_WASIP2_STREAM_H

#include "wasync/wasi.h"

int wa__wasi_stream_open_owned(wa_rt *rt, uint32_t in, uint32_t out, uint32_t owner, void (*drop_owner)(uint32_t),
                              wa_stream **s);

/* The owner of s (a stream's head, borrowed) if s is a stream of
 * wa__wasi_stream_open_owned whose owner goes with drop_owner (a TCP
 * connection: wa__wasip2_tcp_drop), else WA_NO_HANDLE. */
uint32_t wa__wasi_stream_owner(wa_stream *s, void (*drop_owner)(uint32_t));

/* Ends s's write side (s of wa__wasi_stream_owner): shut(owner) first (0,
 * or an error that leaves s as it was), then the output-stream is dropped,
 * and writes fail with WA_ECLOSED. Ended already: 0, nothing called. */
int wa__wasi_stream_end_write(wa_stream *s, int (*shut)(uint32_t owner));

/* Makes s (of wa_wasi_stream_open*) an HTTP body's: a write whose bytes
 * all fit the room check-write reported (at most 4096) goes out flushed in
 * one blocking-write-and-flush, and the flush after it costs no host call.
 * (A body's flush only hands the bytes on, so it does not block; a
 * socket's may wait for the peer, so sockets do not do this.) */
void wa__wasi_stream_flush_writes(wa_stream *s);

#endif
