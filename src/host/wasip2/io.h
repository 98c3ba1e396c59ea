/* SPDX-License-Identifier: MIT */
/* Internal: Canonical ABI bindings for wasi:io@0.2.12 (poll, streams,
 * error), written by hand (one file per WASI package; names and flat
 * signatures checked against wit-component's dummy module by
 * scripts/component.mjs --check). Handles are i32 indices into the
 * component's resource table. */
#ifndef WASYNC_HOST_WASIP2_IO_H
#define WASYNC_HOST_WASIP2_IO_H

#include <stddef.h>
#include <stdint.h>

#include "wasync/stream.h"

typedef uint32_t wa__wasip2_pollable; /* own<pollable> */

/* Owned resource handles alive: every binding that returns an own<T>
 * counts one up, every drop (or a call that consumes one) one down, so a
 * leak shows as growth (wa_wasi_live_handles). */
extern long wa__wasip2_live;

/* wasi:io/poll */
void wa__wasip2_pollable_drop(wa__wasip2_pollable p);
/* poll(list<borrow<pollable>>) -> list<u32>: the indices of the ready
 * pollables, in a buffer from cabi_realloc the caller frees (wa__wasip2_host_free). */
uint32_t *wa__wasip2_poll(const wa__wasip2_pollable *list, size_t n, size_t *nready);

/* wasi:io/streams. Results are mapped to wasync codes: 0, WA_ECLOSED
 * (stream-error.closed) or WA_EIO (last-operation-failed; its error
 * resource is dropped here). */
int wa__wasip2_check_write(uint32_t out, uint64_t *n);
int wa__wasip2_write(uint32_t out, const void *buf, size_t len);
int wa__wasip2_flush(uint32_t out);
/* blocking-write-and-flush: at most 4096 bytes, which block only when
 * check-write did not say there was room for them. */
int wa__wasip2_write_flush(uint32_t out, const void *buf, size_t len);
uint32_t wa__wasip2_output_subscribe(uint32_t out);
void wa__wasip2_output_drop(uint32_t out);

/* Returns rc, the status of the streams call named call made just
 * before on s (borrowed) in direction dir; when it failed with an error
 * (last-operation-failed), s's reason is the call and the error's
 * to-debug-string ("write: ..."). closed says nothing. */
int wa__wasip2_io_said(wa_stream *s, int dir, const char *call, int rc);

/* read(len): the bytes in a cabi_realloc buffer the caller frees. */
int wa__wasip2_read(uint32_t in, uint64_t len, unsigned char **data, size_t *n);
uint32_t wa__wasip2_input_subscribe(uint32_t in);
void wa__wasip2_input_drop(uint32_t in);

#endif
