/* SPDX-License-Identifier: MIT */
/* Growing an array by doubling (grow.h): every table, heap and buffer of
 * the library that grows does it here. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "wasync/error.h"

int wa__grow(void *items, size_t size, size_t *cap, size_t need, size_t first, size_t max)
{
    if (need <= *cap)
        return 0;
    size_t lim = max < SIZE_MAX / size ? max : SIZE_MAX / size; /* (n * size fits) */
    if (need > lim)
        return WA_ENOMEM;
    size_t n = *cap ? *cap : first ? first : 1;
    while (n < need)
        n = n > lim / 2 ? lim : n * 2;
    void *old; /* (the caller's T *, read and written as bytes: any T) */
    memcpy(&old, items, sizeof old);
    void *p = realloc(old, n * size);
    if (!p)
        return WA_ENOMEM;
    memcpy(items, &p, sizeof p);
    *cap = n;
    return 0;
}
