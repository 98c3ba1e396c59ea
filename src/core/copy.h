/* SPDX-License-Identifier: MIT */
/* Internal: copies of small, variable-sized values (futures into tasks,
 * elements through channels) without a call to memcpy for the usual sizes. */
#ifndef WASYNC_CORE_COPY_H
#define WASYNC_CORE_COPY_H

#include <string.h>

static inline void wa_memcpy_(void *dst, const void *src, size_t n)
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

#endif
