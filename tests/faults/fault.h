/* SPDX-License-Identifier: MIT */
/* Allocation-failure injection, for the WASYNC_FAULT_INJECTION build only:
 * CMake force-includes this header into the library's sources (never the
 * tests'), so that every allocation the library makes goes through a
 * counter, and the Nth one can be made to fail. Environment:
 *   WASYNC_FAIL_AT=N     allocation N (from 1) returns NULL, once
 *   WASYNC_FAIL_REPEAT=1 ...and every one after it too (cleanup paths
 *                        that allocate fail as well)
 *   WASYNC_FAIL_TRACE=1  prints its stack (under a sanitizer)
 *   WASYNC_FAIL_COUNT=1  says at exit how many allocations there were
 * tests/faults/run.sh runs each test and example once per allocation. */
#ifndef WASYNC_TESTS_FAULT_H
#define WASYNC_TESTS_FAULT_H

/* No #include: this comes before a source's own feature macros
 * (_GNU_SOURCE), which must still apply to every system header. Those
 * headers, included later, then declare the renamed functions. */
void *wa_fault_malloc(__SIZE_TYPE__ n);
void *wa_fault_calloc(__SIZE_TYPE__ n, __SIZE_TYPE__ size);
void *wa_fault_realloc(void *p, __SIZE_TYPE__ n);
void *wa_fault_aligned_alloc(__SIZE_TYPE__ align, __SIZE_TYPE__ n);
char *wa_fault_strdup(const char *s);

#define malloc(n) wa_fault_malloc(n)
#define calloc(n, size) wa_fault_calloc(n, size)
#define realloc(p, n) wa_fault_realloc(p, n)
#define aligned_alloc(align, n) wa_fault_aligned_alloc(align, n)
#define strdup(s) wa_fault_strdup(s)

#endif
