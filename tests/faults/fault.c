/* SPDX-License-Identifier: MIT */
/* Allocation-failure injection (fault.h): the counter and the wrappers. */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "fault.h"

/* Here the real ones are meant. */
#undef malloc
#undef calloc
#undef realloc
#undef aligned_alloc
#undef strdup

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Under a sanitizer: the failing allocation's stack, to tell the site. */
extern void __sanitizer_print_stack_trace(void) __attribute__((weak));

static atomic_ulong wa_fault_calls;
static unsigned long wa_fault_at; /* 0: none fails */
static bool wa_fault_repeat, wa_fault_trace;

static void wa_fault_report(void)
{
    fprintf(stderr, "wasync-faults: %lu allocations\n", atomic_load(&wa_fault_calls));
}

__attribute__((constructor)) static void wa_fault_setup(void)
{
    const char *at = getenv("WASYNC_FAIL_AT");
    wa_fault_at = at ? strtoul(at, NULL, 10) : 0;
    wa_fault_repeat = getenv("WASYNC_FAIL_REPEAT") != NULL;
    wa_fault_trace = getenv("WASYNC_FAIL_TRACE") != NULL;
    if (getenv("WASYNC_FAIL_COUNT"))
        atexit(wa_fault_report);
}

/* Counts an allocation; true for one that must fail. (Atomic: DNS lookups
 * run on threads.) */
static bool wa_fault_fails(void)
{
    unsigned long n = atomic_fetch_add_explicit(&wa_fault_calls, 1, memory_order_relaxed) + 1;
    if (!wa_fault_at || n < wa_fault_at)
        return false;
    if (n > wa_fault_at)
        return wa_fault_repeat;
    fprintf(stderr, "wasync-faults: allocation %lu fails\n", wa_fault_at);
    if (wa_fault_trace && __sanitizer_print_stack_trace) /* (symbolizing is slow) */
        __sanitizer_print_stack_trace();
    return true;
}

void *wa_fault_malloc(size_t n) { return wa_fault_fails() ? NULL : malloc(n); }

void *wa_fault_calloc(size_t n, size_t size) { return wa_fault_fails() ? NULL : calloc(n, size); }

void *wa_fault_realloc(void *p, size_t n) { return wa_fault_fails() ? NULL : realloc(p, n); }

void *wa_fault_aligned_alloc(size_t align, size_t n) { return wa_fault_fails() ? NULL : aligned_alloc(align, n); }

char *wa_fault_strdup(const char *s) { return wa_fault_fails() ? NULL : strdup(s); }
