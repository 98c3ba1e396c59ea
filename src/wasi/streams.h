/* Internal: Canonical ABI bindings for wasi:io/streams@0.2.12,
 * wasi:io/error@0.2.12 and the wasi:cli std streams. Results are mapped to
 * wasync codes: 0, WA_ECLOSED (stream-error.closed) or WA_EIO
 * (last-operation-failed; its error resource is dropped here). */
#ifndef WASYNC_WASI_STREAMS_H
#define WASYNC_WASI_STREAMS_H

#include <stddef.h>
#include <stdint.h>

int wa_p2_check_write(uint32_t out, uint64_t *n);
int wa_p2_write(uint32_t out, const void *buf, size_t len);
int wa_p2_flush(uint32_t out);
uint32_t wa_p2_output_subscribe(uint32_t out);
void wa_p2_output_drop(uint32_t out);

/* read(len): the bytes in a cabi_realloc buffer the caller frees. */
int wa_p2_read(uint32_t in, uint64_t len, unsigned char **data, size_t *n);
uint32_t wa_p2_input_subscribe(uint32_t in);
void wa_p2_input_drop(uint32_t in);

#endif
