/* SPDX-License-Identifier: MIT */
/* Internal: Canonical ABI helpers shared by the bindings. */
#ifndef WASYNC_WASI_CABI_H
#define WASYNC_WASI_CABI_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* Declares a function as the import `name` of the WASI interface `module`
 * ("wasi:io/streams@0.2.12"): the core names wit-component expects.
 *
 * The C name of an import says whose it is: wa_<p2|p3>_imp_<tag>_<what>,
 * <tag> the import's WASI package (io, clocks, random, cli, sockets, http),
 * canon for the Component Model's built-ins ("$root", builtins.c), run
 * for the task.return of wasi:cli/run (command.c); and one file per host
 * binds a tag (src/host/wasip2: io.c, clocks.c, random.c, cli.c,
 * sockets.c, http.c; src/host/wasip3: builtins.c canon and clocks, cli.c,
 * sockets.c, http.c). Why: a function
 * declared and not defined is a global symbol of a wasm object, even a
 * static one, and wasm-ld refuses a name imported as two functions. Two
 * files that both said wa__wasip3_imp_send (http's send, a socket's send) each
 * linked alone, and no program could have net.h and http.h together. The
 * stream and future types of builtins.h are named by their file likewise
 * (wa_wasip3_cli_bytes, wa__wasip3_tcp_result). tests/test_headers.c links
 * every header of a host into one program. */
#define WA__WASI_IMPORT(module, name) __attribute__((import_module(module), import_name(name)))

/* A string (or list<u8>) as the ABI lays it out on wasm32: ptr, then len;
 * never NUL-terminated. */
typedef struct wa__wasip2_str {
    const char *ptr;
    size_t len;
} wa__wasip2_str;
_Static_assert(sizeof(wa__wasip2_str) == 8 || sizeof(void *) != 4, "string layout is (i32 ptr, i32 len)");

/* Frees a string or list of len bytes the host lowered into our memory
 * (through cabi_realloc, so malloc'd). An empty one is never freed, for
 * nothing was allocated for it: cabi_realloc allocates nothing for 0
 * bytes, and jco hands over an empty string as pointer 1 without asking. */
static inline void wa__wasip2_host_free(const void *ptr, size_t len)
{
    if (len)
        free((void *)ptr);
}

#endif
