/* SPDX-License-Identifier: MIT */
/* wasi:io@0.2.12: poll, streams and error (see io.h). Return areas follow
 * the Canonical ABI: result<u64, stream-error> is a tag byte, then the
 * payload at offset 8; result<_, stream-error> and result<list<u8>,
 * stream-error> put theirs at offset 4. */
#include <stdlib.h>

#include "../../io/reason.h"
#include "../../wasi/cabi.h"
#include "io.h"
#include "wasync/wasi.h"

WA__WASI_IMPORT("wasi:io/poll@0.2.12", "[resource-drop]pollable") void wa__wasip2_imp_io_pollable_drop(int32_t);
WA__WASI_IMPORT("wasi:io/poll@0.2.12", "poll") void wa__wasip2_imp_io_poll(int32_t ptr, int32_t len, int32_t ret);

long wa__wasip2_live;

void wa__wasip2_pollable_drop(wa__wasip2_pollable p)
{
    wa__wasip2_live--;
    wa__wasip2_imp_io_pollable_drop((int32_t)p);
}

uint32_t *wa__wasip2_poll(const wa__wasip2_pollable *list, size_t n, size_t *nready)
{
    /* the result is a list: (ptr, len) written to a return area */
    uint32_t ret[2] __attribute__((aligned(4)));
    wa__wasip2_imp_io_poll((int32_t)(uintptr_t)list, (int32_t)n, (int32_t)(uintptr_t)ret);
    *nready = ret[1];
    return (uint32_t *)(uintptr_t)ret[0];
}

long wa_wasi_live_handles(void) { return wa__wasip2_live; }

#define STREAMS "wasi:io/streams@0.2.12"

WA__WASI_IMPORT(STREAMS, "[method]output-stream.check-write") void wa__wasip2_imp_io_check_write(int32_t, int32_t);
WA__WASI_IMPORT(STREAMS, "[method]output-stream.write") void wa__wasip2_imp_io_write(int32_t, int32_t, int32_t, int32_t);
WA__WASI_IMPORT(STREAMS, "[method]output-stream.flush") void wa__wasip2_imp_io_flush(int32_t, int32_t);
WA__WASI_IMPORT(STREAMS, "[method]output-stream.blocking-write-and-flush")
void wa__wasip2_imp_io_write_flush(int32_t, int32_t, int32_t, int32_t);
WA__WASI_IMPORT(STREAMS, "[method]output-stream.subscribe") int32_t wa__wasip2_imp_io_out_subscribe(int32_t);
WA__WASI_IMPORT(STREAMS, "[resource-drop]output-stream") void wa__wasip2_imp_io_out_drop(int32_t);
WA__WASI_IMPORT(STREAMS, "[method]input-stream.read") void wa__wasip2_imp_io_read(int32_t, int64_t, int32_t);
WA__WASI_IMPORT(STREAMS, "[method]input-stream.subscribe") int32_t wa__wasip2_imp_io_in_subscribe(int32_t);
WA__WASI_IMPORT(STREAMS, "[resource-drop]input-stream") void wa__wasip2_imp_io_in_drop(int32_t);
WA__WASI_IMPORT("wasi:io/error@0.2.12", "[method]error.to-debug-string") void wa__wasip2_imp_io_error_debug(int32_t, int32_t);
WA__WASI_IMPORT("wasi:io/error@0.2.12", "[resource-drop]error") void wa__wasip2_imp_io_error_drop(int32_t);

/* The words of the last stream-error read: its error's to-debug-string,
 * "" for closed (one thread: read by wa__wasip2_io_said right after). */
static char wa__wasip2_io_last[WA_REASON_MAX];

/* A stream-error at p: its tag byte, then the error handle 4 bytes on. */
static int wa__wasip2_stream_error(const unsigned char *p)
{
    wa__wasip2_io_last[0] = 0;
    if (p[0] == 1)
        return WA_ECLOSED;
    int32_t e = *(const int32_t *)(const void *)(p + 4);
    wa__wasip2_str text;
    wa__wasip2_imp_io_error_debug(e, (int32_t)(uintptr_t)&text);
    wa__reason_set(wa__wasip2_io_last, NULL, text.ptr, text.len);
    wa__wasip2_host_free(text.ptr, text.len);
    wa__wasip2_imp_io_error_drop(e);
    return WA_EIO;
}

int wa__wasip2_io_said(wa_stream *s, int dir, const char *call, int rc)
{
    if (rc < 0 && wa__wasip2_io_last[0])
        wa_stream_set_reason(s, dir, call, wa__wasip2_io_last);
    return rc;
}

int wa__wasip2_check_write(uint32_t out, uint64_t *n)
{
    _Alignas(8) unsigned char ret[16];
    wa__wasip2_imp_io_check_write((int32_t)out, (int32_t)(uintptr_t)ret);
    if (ret[0])
        return wa__wasip2_stream_error(ret + 8);
    *n = *(const uint64_t *)(const void *)(ret + 8);
    return 0;
}

/* write or blocking-write-and-flush (imp): the same signature */
static int wa__wasip2_write_with(void (*imp)(int32_t, int32_t, int32_t, int32_t), uint32_t out, const void *buf,
                            size_t len)
{
    _Alignas(4) unsigned char ret[12];
    imp((int32_t)out, (int32_t)(uintptr_t)buf, (int32_t)len, (int32_t)(uintptr_t)ret);
    return ret[0] ? wa__wasip2_stream_error(ret + 4) : 0;
}

int wa__wasip2_write(uint32_t out, const void *buf, size_t len) { return wa__wasip2_write_with(wa__wasip2_imp_io_write, out, buf, len); }

int wa__wasip2_write_flush(uint32_t out, const void *buf, size_t len)
{
    return wa__wasip2_write_with(wa__wasip2_imp_io_write_flush, out, buf, len);
}

int wa__wasip2_flush(uint32_t out)
{
    _Alignas(4) unsigned char ret[12];
    wa__wasip2_imp_io_flush((int32_t)out, (int32_t)(uintptr_t)ret);
    return ret[0] ? wa__wasip2_stream_error(ret + 4) : 0;
}

uint32_t wa__wasip2_output_subscribe(uint32_t out)
{
    wa__wasip2_live++;
    return (uint32_t)wa__wasip2_imp_io_out_subscribe((int32_t)out);
}

void wa__wasip2_output_drop(uint32_t out)
{
    wa__wasip2_live--;
    wa__wasip2_imp_io_out_drop((int32_t)out);
}

int wa__wasip2_read(uint32_t in, uint64_t len, unsigned char **data, size_t *n)
{
    _Alignas(4) unsigned char ret[12];
    wa__wasip2_imp_io_read((int32_t)in, (int64_t)len, (int32_t)(uintptr_t)ret);
    if (ret[0])
        return wa__wasip2_stream_error(ret + 4);
    *data = (unsigned char *)(uintptr_t)*(const uint32_t *)(const void *)(ret + 4);
    *n = *(const uint32_t *)(const void *)(ret + 8);
    return 0;
}

uint32_t wa__wasip2_input_subscribe(uint32_t in)
{
    wa__wasip2_live++;
    return (uint32_t)wa__wasip2_imp_io_in_subscribe((int32_t)in);
}

void wa__wasip2_input_drop(uint32_t in)
{
    wa__wasip2_live--;
    wa__wasip2_imp_io_in_drop((int32_t)in);
}

