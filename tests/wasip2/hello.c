/* SPDX-License-Identifier: MIT */
/* A WASI 0.2 command, run by jco as a component; the test compares its
 * stdout exactly. Line 1 is buffered when getenv makes the preview1 adapter
 * allocate its state through cabi_realloc: without src/wasi/cabi.c's entry
 * it is lost. The direct imports check that hand-written legacy names (as
 * in src/host/wasip2) survive componentNew and reach the host. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define P2(module, name) __attribute__((import_module(module), import_name(name)))
P2("wasi:clocks/monotonic-clock@0.2.12", "now") int64_t p2_now(void);
P2("wasi:cli/stdout@0.2.12", "get-stdout") int32_t p2_get_stdout(void);
P2("wasi:io/streams@0.2.12", "[method]output-stream.blocking-write-and-flush")
void p2_blocking_write_and_flush(int32_t stream, const char *ptr, size_t len, void *ret);
P2("wasi:io/streams@0.2.12", "[resource-drop]output-stream") void p2_drop_output_stream(int32_t);

/* result<_, stream-error>: tag byte at 0 (0 = ok), the error's at 4. */
static int p2_write_stdout(const char *text)
{
    _Alignas(4) uint8_t ret[12];
    int32_t out = p2_get_stdout();
    p2_blocking_write_and_flush(out, text, strlen(text), ret);
    p2_drop_output_stream(out);
    return ret[0];
}

int main(void)
{
    puts("1: before the adapter allocates");
    const char *v = getenv("WASYNC_HELLO");
    printf("2: WASYNC_HELLO=%s\n", v ? v : "(unset)");
    int64_t t0 = p2_now(), t1 = p2_now();
    printf("3: the monotonic clock %s\n", t1 >= t0 && t0 > 0 ? "runs" : "is broken");
    fflush(stdout);
    if (p2_write_stdout("4: straight to wasi:cli/stdout\n") != 0)
        puts("4: blocking-write-and-flush failed");
    puts("5: flushed at exit");
    return 0;
}
