/* SPDX-License-Identifier: MIT */
/* stream<u8> to stdout through wasi:cli/stdout@0.3.0 write-via-stream:
 * 1 MiB of a known pattern written with async stream-write calls, each
 * BLOCKED until a STREAM_WRITE event gives its count; then the writable end
 * is dropped and the future of the host's result read. The data goes to
 * stdout (stream_out.test.mjs checks every byte), the report to stderr. */
#include <stdint.h>
#include <stdio.h>

#include "../../src/host/wasip3/builtins.h"

#define OUT "wasi:cli/stdout@0.3.0"
#define SIZE (1u << 20)

__attribute__((import_module("[export]wasi:cli/run@0.3.0"), import_name("[task-return]run")))
void task_return_run(uint32_t is_err);
__attribute__((import_module(OUT), import_name("[stream-new-0]write-via-stream"))) uint64_t stream_new(void);
__attribute__((import_module(OUT), import_name("write-via-stream"))) uint32_t write_via_stream(uint32_t readable);
__attribute__((import_module(OUT), import_name("[async-lower][stream-write-0]write-via-stream")))
uint32_t stream_write(uint32_t writable, const void *ptr, uint32_t len);
__attribute__((import_module(OUT), import_name("[stream-drop-writable-0]write-via-stream"))) void stream_drop_writable(uint32_t w);
__attribute__((import_module(OUT), import_name("[async-lower][future-read-1]write-via-stream")))
uint32_t future_read(uint32_t readable, void *ptr);
__attribute__((import_module(OUT), import_name("[future-drop-readable-1]write-via-stream"))) void future_drop_readable(uint32_t r);

static unsigned char data[SIZE];
static struct {
    uint32_t set, w, fut;
    uint32_t done, writes, blocked, biggest, smallest;
    int failed;
    _Alignas(8) unsigned char result[2]; /* result<_, error-code>: tag, code */
} S;

static uint32_t finish(void)
{
    fprintf(stderr, "stream_out: %u bytes in %u writes (%u BLOCKED), pieces of %u to %u bytes; result tag %u\n",
            S.done, S.writes, S.blocked, S.smallest, S.biggest, S.result[0]);
    S.failed |= S.done != SIZE || S.result[0] != 0;
    fprintf(stderr, "%d passed, %d failed\n", !S.failed, S.failed);
    wa__wasip3_waitable_set_drop(S.set);
    task_return_run(S.failed);
    return WA__WASIP3_CALLBACK_EXIT;
}

/* Writes until BLOCKED or done; then reads the result future. */
static uint32_t pump(void)
{
    while (S.done < SIZE) {
        S.writes++;
        uint32_t r = stream_write(S.w, data + S.done, SIZE - S.done);
        if (r == WA__WASIP3_BLOCKED) {
            S.blocked++;
            return wa__wasip3_callback_wait(S.set);
        }
        if ((r & 0xf) != WA__WASIP3_COPY_COMPLETED) {
            S.failed = 1;
            break;
        }
        S.done += r >> 4;
    }
    wa__wasip3_waitable_join(S.w, 0);
    stream_drop_writable(S.w);
    uint32_t r = future_read(S.fut, S.result);
    if (r == WA__WASIP3_BLOCKED) {
        wa__wasip3_waitable_join(S.fut, S.set);
        return wa__wasip3_callback_wait(S.set);
    }
    future_drop_readable(S.fut);
    return finish();
}

__attribute__((export_name("[async-lift]wasi:cli/run@0.3.0#run")))
uint32_t run_start(void)
{
    for (uint32_t i = 0; i < SIZE; i++)
        data[i] = (unsigned char)(i * 7 + (i >> 12));
    S.smallest = UINT32_MAX;
    S.set = wa__wasip3_waitable_set_new();
    uint64_t ends = stream_new();
    uint32_t readable = (uint32_t)ends;
    S.w = (uint32_t)(ends >> 32);
    S.fut = write_via_stream(readable);
    wa__wasip3_waitable_join(S.w, S.set);
    return pump();
}

__attribute__((export_name("[callback][async-lift]wasi:cli/run@0.3.0#run")))
uint32_t run_callback(uint32_t event, uint32_t p1, uint32_t p2)
{
    if (event == WA__WASIP3_EVENT_STREAM_WRITE && p1 == S.w) {
        uint32_t n = p2 >> 4;
        S.done += n;
        if (n > S.biggest)
            S.biggest = n;
        if (n < S.smallest)
            S.smallest = n;
        if ((p2 & 0xf) != WA__WASIP3_COPY_COMPLETED) {
            fprintf(stderr, "stream-write ended with status %u\n", p2 & 0xf);
            S.failed = 1;
            S.done = SIZE;
        }
        return pump();
    }
    if (event == WA__WASIP3_EVENT_FUTURE_READ && p1 == S.fut) {
        wa__wasip3_waitable_join(S.fut, 0);
        future_drop_readable(S.fut);
        return finish();
    }
    fprintf(stderr, "unexpected event %u (%u, %u)\n", event, p1, p2);
    S.failed = 1;
    return wa__wasip3_callback_wait(S.set);
}
