/* SPDX-License-Identifier: MIT */
/* Canonical ABI support every WASI 0.2 module of ours needs: the allocator
 * the host (and the preview1 adapter) call, and a command entry that keeps
 * wasm-ld from wrapping the exports. */
#include <stddef.h>
#include <stdlib.h>

void *cabi_realloc(void *old, size_t old_size, size_t align, size_t new_size);
void _start(void);
void __wasm_call_ctors(void);
void __wasm_call_dtors(void);
int __main_void(void);

/* The host allocates returned lists and strings here, and the adapter its
 * state. A plain realloc (malloc aligns to 16, more than any Canonical ABI
 * type needs), except for 0 bytes: then nothing is allocated and align
 * stands for the block, as wit-bindgen's guests do, so that an empty string
 * or list is never freed whichever host lowered it (jco allocates empty
 * lists, not empty strings: wa__wasip2_host_free cannot tell them apart). No
 * caller could handle a failure: abort. */
__attribute__((export_name("cabi_realloc")))
void *cabi_realloc(void *old, size_t old_size, size_t align, size_t new_size)
{
    if (!new_size) {
        if (old_size)
            free(old);
        return (void *)align;
    }
    void *p = realloc(old_size ? old : NULL, new_size);
    if (!p)
        abort();
    return p;
}

/* The entry of a command, replacing crt1-command.o (wasync_component links
 * commands with -nostartfiles; wasm-ld exports the entry itself, and drops
 * it from reactors). Debian's 2022 crt1 never calls __wasm_call_ctors, so
 * wasm-ld wraps EVERY export in ctors/call/dtors: the adapter's first
 * cabi_realloc call then runs the dtors, which flush stdio from inside the
 * adapter's own first call, and a line of stdout is lost. Referencing the
 * ctors here stops the wrapping; this does what a newer crt1 does.
 * __main_void is main(void) itself, or libc's wrapper that sets up argv. */
void _start(void)
{
    __wasm_call_ctors();
    int r = __main_void();
    __wasm_call_dtors();
    if (r)
        _Exit(r);
}
