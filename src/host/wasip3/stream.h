/* SPDX-License-Identifier: MIT */
/* Internal: what stream.c gives the library beyond component.h. */
#ifndef WASYNC_HOST_WASIP3_STREAM_H
#define WASYNC_HOST_WASIP3_STREAM_H

#include <stdint.h>

#include "wasync/component.h"

/* A new stream over ends of a stream<u8> of type t that may come from
 * different calls (a TCP connection: receive's stream, and the writable
 * end of one whose readable end went to send), with the futures of the
 * host's results for the readable and the writable end (of type result_t;
 * 0: none), and the resource they come from (owner, 0: none), dropped by
 * drop_owner after them. result_error decodes the result's value of
 * direction dir (0 the readable end's, 1 the writable's): its error, or 0
 * (and frees what the host lowered in it), the error in the host's words,
 * with the call, in why (WA_REASON_MAX bytes, "" when none): the
 * stream's reason whenever an operation meets it. Given, a result is
 * read alongside its end's copies, and its error ends that direction;
 * NULL, results are read or cancelled at the close only. All taken
 * (counted by whoever made them), also on failure. Returns 0 or
 * WA_ENOMEM. */
int wa__wasip3_stream_open_owned(wa_rt *rt, const wa_wasip3_stream_type *t, uint32_t readable, uint32_t writable,
                                const wa_wasip3_future_type *result_t, const uint32_t result[2],
                                int (*result_error)(const unsigned char *value, int dir, char *why), uint32_t owner,
                                void (*drop_owner)(uint32_t), wa_stream **s);

/* The owner of s (a stream's head, borrowed) if s is a stream of
 * wa__wasip3_stream_open_owned whose owner goes with drop_owner (a TCP
 * connection: wa__wasip3_tcp_drop), else 0. */
uint32_t wa__wasip3_stream_owner(wa_stream *s, void (*drop_owner)(uint32_t));

/* Ends s's write side, no write in flight: its writable end is dropped
 * (for a TCP connection, the end of send's stream: the host shuts the
 * socket's write side down once it sent what it has), and writes fail
 * with WA_ECLOSED. Its result is still read at the close. Ended already:
 * nothing. */
void wa__wasip3_stream_end_write(wa_stream *s);

/* wa_wasip3_stream_open, the stream itself in *s rather than a handle to
 * it: for the library's own streams (HTTP bodies). */
int wa__wasip3_stream_open(wa_rt *rt, const wa_wasip3_stream_type *t, uint32_t readable, uint32_t writable, wa_stream **s);

#endif
