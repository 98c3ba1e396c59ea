/* SPDX-License-Identifier: MIT */
/* Internal: the std streams of wasi:cli@0.2.12 (the rest of the package,
 * environment and exit, is public in wasync/wasi.h). Each call returns a
 * new handle: own<input-stream> or own<output-stream>. */
#ifndef WASYNC_HOST_WASIP2_CLI_H
#define WASYNC_HOST_WASIP2_CLI_H

#include <stdint.h>

uint32_t wa__wasip2_get_stdin(void);
uint32_t wa__wasip2_get_stdout(void);
uint32_t wa__wasip2_get_stderr(void);

#endif
