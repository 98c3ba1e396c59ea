/* SPDX-License-Identifier: MIT */
/* Internal: copies of small, variable-sized values (futures into tasks,
 * elements through channels) without a call to memcpy for the usual sizes. */
#ifndef WASYNC_CORE_COPY_H
#define WASYNC_CORE_COPY_H

#include <stdint.h>
#include <string.h>

static inline void wa__memcpy(void *dst, const void *src, size_t n)
{
    switch (n) {
    case 4: memcpy(dst, src, 4); break;
    case 8: memcpy(dst, src, 8); break;
    case 16: memcpy(dst, src, 16); break;
    case 24: memcpy(dst, src, 24); break;
    case 32: memcpy(dst, src, 32); break;
    case 48: memcpy(dst, src, 48); break;
    case 64: memcpy(dst, src, 64); break;
    default: memcpy(dst, src, n); break;
    }
}

/* Copies n bytes, 8 <= n <= 64, between buffers that do not overlap: two
 * copies of a fixed size that overlap in the middle (a future's copy into
 * its task, without a call or a jump table). */
static inline void wa__memcpy_8_64(void *restrict dst, const void *restrict src, size_t n)
{
    char *d = dst;
    const char *s = src;
    if (n > 32) {
        memcpy(d, s, 32);
        memcpy(d + n - 32, s + n - 32, 32);
    } else if (n > 16) {
        memcpy(d, s, 16);
        memcpy(d + n - 16, s + n - 16, 16);
    } else {
        memcpy(d, s, 8);
        memcpy(d + n - 8, s + n - 8, 8);
    }
}

#endif
