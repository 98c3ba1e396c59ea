/* SPDX-License-Identifier: MIT */
/* What the fuzzers share: the entry point, a check that crashes (so that
 * libFuzzer keeps the input), and host lists built from fuzz input the way
 * a WASI host lowers them into our memory. */
#ifndef WASYNC_TESTS_FUZZ_H
#define WASYNC_TESTS_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/wasi/lift.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A failed check aborts: libFuzzer keeps the input, a replay fails. */
#define FUZZ_CHECK(cond)                                                                  \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            fprintf(stderr, "%s:%d: FUZZ_CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
            abort();                                                                      \
        }                                                                                 \
    } while (0)

/* The input, read from the front. */
typedef struct fuzz_in {
    const uint8_t *p;
    size_t n;
} fuzz_in;

static inline int fuzz_byte(fuzz_in *in)
{
    if (!in->n)
        return -1;
    in->n--;
    return *in->p++;
}

/* A host list of up to max strings, each as the host lowers it: its own
 * malloc'd block, or pointer 1 and nothing allocated when empty (jco's
 * empty string). A string is a length byte, then that many bytes (fewer
 * at the input's end); a length byte from 0xf0 claims a length the block
 * does not have, a lie of 0xffffffff down to 0x11111111 (0xff: SIZE_MAX),
 * which *over then says the lift must refuse. */
typedef struct fuzz_list {
    wa__wasip2_str *s; /* the list's block (pointer 4 and none when empty) */
    size_t n;
    int lied;
} fuzz_list;

/* Drops the strings past the last whole entry of k, and an empty list's
 * block (as cabi_realloc would not have made one). */
static inline void fuzz_list_trim(fuzz_list *l, size_t k)
{
    for (; l->n % k; l->n--)
        wa__wasip2_host_free(l->s[l->n - 1].ptr, l->s[l->n - 1].len);
    if (!l->n && l->s != (wa__wasip2_str *)4) {
        free(l->s);
        l->s = (wa__wasip2_str *)4;
    }
}

static inline void fuzz_list_read(fuzz_in *in, size_t max, fuzz_list *l)
{
    l->s = malloc(max * sizeof *l->s);
    l->n = 0;
    l->lied = 0;
    int b;
    while (l->n < max && (b = fuzz_byte(in)) >= 0) {
        wa__wasip2_str *s = &l->s[l->n++];
        if (b >= 0xf0) {
            s->len = b == 0xff ? SIZE_MAX : 0xffffffffu - (size_t)(b - 0xf0) * 0x11111111u;
            s->ptr = malloc(1);
            l->lied = 1;
            continue;
        }
        s->len = (size_t)b < in->n ? (size_t)b : in->n;
        char *p = s->len ? malloc(s->len) : (char *)1;
        if (s->len)
            memcpy(p, in->p, s->len);
        s->ptr = p;
        in->p += s->len;
        in->n -= s->len;
    }
    fuzz_list_trim(l, 1);
}

/* Whether head bytes plus the first n strings of l, one byte more each,
 * pass WA__WASIP2_MEM_MAX (counted without wrapping). */
static inline int fuzz_over(const fuzz_list *l, size_t n, uint64_t head)
{
    uint64_t total = head;
    for (size_t i = 0; i < n; i++) {
        if (l->s[i].len > WA__WASIP2_MEM_MAX)
            return 1;
        total += l->s[i].len + 1;
    }
    return total > WA__WASIP2_MEM_MAX;
}

#endif
