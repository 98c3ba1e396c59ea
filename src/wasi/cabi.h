/* SPDX-License-Identifier: MIT */
/* Internal: Canonical ABI helpers shared by the bindings. */
#ifndef WASYNC_WASI_CABI_H
#define WASYNC_WASI_CABI_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* Declares a function as the import `name` of the WASI interface `module`
 * ("wasi:io/streams@0.2.12"): the core names wit-component expects. */
#define WA_P2_IMPORT(module, name) __attribute__((import_module(module), import_name(name)))

/* A string (or list<u8>) as the ABI lays it out on wasm32: ptr, then len;
 * never NUL-terminated. */
typedef struct wa_p2_str {
    const char *ptr;
    size_t len;
} wa_p2_str;
_Static_assert(sizeof(wa_p2_str) == 8 || sizeof(void *) != 4, "string layout is (i32 ptr, i32 len)");

/* Frees a string or list of len bytes the host lowered into our memory
 * (through cabi_realloc, so malloc'd). An empty one is never freed, for
 * nothing was allocated for it: cabi_realloc allocates nothing for 0
 * bytes, and jco hands over an empty string as pointer 1 without asking. */
static inline void wa_p2_host_free(const void *ptr, size_t len)
{
    if (len)
        free((void *)ptr);
}

#endif
