/* SPDX-License-Identifier: MIT */
/* wasi:cli@0.3.0's standard streams (builtins.h): stdin's read-via-stream,
 * the write-via-stream of stdout and stderr, and the built-ins of the types
 * they use (stream<u8>, future<result<_, error-code>>), named through
 * stdout's function. */
#include "builtins.h"

#define STDIN "wasi:cli/stdin@0.3.0"
#define STDOUT "wasi:cli/stdout@0.3.0"
#define STDERR "wasi:cli/stderr@0.3.0"

WA__WASIP3_STREAM_TYPE(wa_wasip3_cli_bytes, STDOUT, 0, "write-via-stream");
WA__WASIP3_FUTURE_TYPE(wa_wasip3_cli_result, STDOUT, 1, "write-via-stream");

/* A tuple of two handles is returned through a result area. */
WA__WASI_IMPORT(STDIN, "read-via-stream") void wa__wasip3_imp_cli_stdin_read(uint32_t *ret);
WA__WASI_IMPORT(STDOUT, "write-via-stream") uint32_t wa__wasip3_imp_cli_stdout_write(uint32_t r);
WA__WASI_IMPORT(STDERR, "write-via-stream") uint32_t wa__wasip3_imp_cli_stderr_write(uint32_t r);

void wa__wasip3_stdin_read_via_stream(uint32_t *stream, uint32_t *result)
{
    _Alignas(4) uint32_t ret[2];
    wa__wasip3_imp_cli_stdin_read(ret);
    *stream = ret[0];
    *result = ret[1];
    wa__wasip3_live_ends += 2;
}

uint32_t wa__wasip3_std_write_via_stream(int fd, uint32_t readable)
{
    /* (one end handed over, one taken: the count stays) */
    return fd == 1 ? wa__wasip3_imp_cli_stdout_write(readable) : wa__wasip3_imp_cli_stderr_write(readable);
}
