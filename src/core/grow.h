/* SPDX-License-Identifier: MIT */
/* Internal: the one way the library grows an array. */
#ifndef WASYNC_CORE_GROW_H
#define WASYNC_CORE_GROW_H

#include <stddef.h>

/* Grows the array whose pointer is at items (a T **; *cap elements of size
 * bytes each) to hold at least need elements: its capacity doubles from
 * first (when it is 0) until it does, to at most max. Returns 0 with the
 * array and *cap updated, or WA_ENOMEM with both as they were (need over
 * max, or no memory). */
int wa__grow(void *items, size_t size, size_t *cap, size_t need, size_t first, size_t max);

#endif
