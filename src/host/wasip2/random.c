/* SPDX-License-Identifier: MIT */
/* wasi:random/random (wasync/wasi.h). get-random-bytes returns a list<u8>
 * that the host allocates through cabi_realloc: (ptr, len) in a return
 * area. */
#include <string.h>

#include "../../wasi/cabi.h"
#include "wasync/wasi.h"

#define WA__WASIP2_RANDOM "wasi:random/random@0.2.12"

WA__WASI_IMPORT(WA__WASIP2_RANDOM, "get-random-bytes") void wa__wasip2_imp_random_bytes(int64_t len, int32_t ret);
WA__WASI_IMPORT(WA__WASIP2_RANDOM, "get-random-u64") int64_t wa__wasip2_imp_random_u64(void);

int wa_wasi_random(void *buf, size_t len)
{
    if (len == 0) /* nothing to ask for (and buf may be NULL) */
        return 0;
    uint32_t ret[2];
    wa__wasip2_imp_random_bytes((int64_t)len, (int32_t)(uintptr_t)ret);
    unsigned char *bytes = (unsigned char *)(uintptr_t)ret[0];
    /* the host owes exactly len bytes: fewer would leave buf partly unset */
    int rc = ret[1] == len ? 0 : WA_EIO;
    if (rc == 0)
        memcpy(buf, bytes, len);
    wa__wasip2_host_free(bytes, ret[1]); /* (not free(): an empty list was not allocated) */
    return rc;
}

uint64_t wa_wasi_random_u64(void) { return (uint64_t)wa__wasip2_imp_random_u64(); }
