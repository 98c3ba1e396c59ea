/* Internal: Canonical ABI bindings for wasi:io/poll@0.2.12, written by
 * hand (one file per WASI package; names and flat signatures checked
 * against wit-component's dummy module by scripts/component.mjs --check).
 * Handles are i32 indices into the component's resource table. */
#ifndef WASYNC_WASI_IO_H
#define WASYNC_WASI_IO_H

#include <stddef.h>
#include <stdint.h>

typedef uint32_t wa_p2_pollable; /* own<pollable> */

/* Owned resource handles alive: every binding that returns an own<T>
 * counts one up, every drop (or a call that consumes one) one down, so a
 * leak shows as growth (wa_wasi_live_handles). */
extern long wa_p2_live;

/* wasi:io/poll */
void wa_p2_pollable_drop(wa_p2_pollable p);
/* poll(list<borrow<pollable>>) -> list<u32>: the indices of the ready
 * pollables, in a buffer from cabi_realloc the caller frees (wa_p2_host_free). */
uint32_t *wa_p2_poll(const wa_p2_pollable *list, size_t n, size_t *nready);

#endif
