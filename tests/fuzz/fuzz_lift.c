/* SPDX-License-Identifier: MIT */
/* The WASI bindings' lifting of host strings (src/wasi/lift.c): one string
 * (a request's method, path, authority; an environment value), and lists
 * of entries of k strings (arguments: k = 1; the environment: k = 2), each
 * lowered as a host would, lengths that lie included. The first byte picks
 * the case; the rest are the strings (fuzz.h).
 *
 * Checked: a string with a NUL byte is refused, never cut short; lengths
 * that add up past a 32-bit memory are refused before a byte is read;
 * otherwise the result holds every byte, in order; every host block is
 * freed exactly once (ASan: no leak, no double free). */
#include "fuzz.h"

static int has_nul(const fuzz_list *l, size_t from, size_t n)
{
    for (size_t i = from; i < from + n; i++)
        if (memchr(l->s[i].ptr, 0, l->s[i].len))
            return 1;
    return 0;
}

static void one_string(fuzz_in *in)
{
    fuzz_list l;
    fuzz_list_read(in, 1, &l);
    if (!l.n || (l.lied && !fuzz_over(&l, 1, 0))) {
        wa__wasip2_list_free(l.s, l.n); /* a lie within the limit would be read: not a case */
        return;
    }
    char *c = NULL;
    if (l.lied) {
        FUZZ_CHECK(wa__wasip2_lift_str(l.s[0], &c) == WA_E2BIG && !c);
    } else if (has_nul(&l, 0, 1)) {
        FUZZ_CHECK(wa__wasip2_lift_str(l.s[0], &c) == WA_EINVAL && !c);
    } else {
        FUZZ_CHECK(wa__wasip2_lift_str(l.s[0], &c) == 0);
        FUZZ_CHECK(strlen(c) == l.s[0].len && !memcmp(c, l.s[0].ptr, l.s[0].len));
        free(c);
    }
    wa__wasip2_list_free(l.s, l.n); /* (borrowed by the lift) */
}

static void entries(fuzz_in *in, size_t k)
{
    fuzz_list l;
    fuzz_list_read(in, 64, &l);
    fuzz_list_trim(&l, k);
    size_t n = l.n / k;
    if (l.lied && !fuzz_over(&l, l.n, (n + 1) * sizeof(char *))) {
        wa__wasip2_list_free(l.s, l.n); /* a lie within the limit would be read: not a case */
        return;
    }
    /* the expectation, before the list is taken */
    int want = l.lied ? WA_E2BIG : has_nul(&l, 0, l.n) ? WA_EINVAL : (int)n;
    char *joined[64];
    for (size_t i = 0; want >= 0 && i < n; i++) {
        size_t len = 0;
        for (size_t j = 0; j < k; j++)
            len += l.s[i * k + j].len + 1;
        char *p = joined[i] = malloc(len);
        for (size_t j = 0; j < k; j++) {
            memcpy(p, l.s[i * k + j].ptr, l.s[i * k + j].len);
            p += l.s[i * k + j].len;
            *p++ = j + 1 < k ? '=' : '\0';
        }
    }
    char **v = NULL;
    FUZZ_CHECK(wa__wasip2_lift_strv(l.s, n, k, &v) == want);
    for (size_t i = 0; want >= 0 && i < n; i++) {
        FUZZ_CHECK(!strcmp(v[i], joined[i]));
        free(joined[i]);
    }
    FUZZ_CHECK(want < 0 ? !v : v[n] == NULL);
    free(v);
}

/* A list whose length says more entries than a 32-bit memory could hold:
 * refused, its block freed, its entries not read. */
static void too_long(fuzz_in *in)
{
    int b = fuzz_byte(in) & 0xff;
    size_t k = b & 1 ? 2 : 1, n = b < 0x80 ? WA__WASIP2_MEM_MAX / (k * sizeof(wa__wasip2_str)) + 1 + (size_t)b : SIZE_MAX;
    wa__wasip2_str *list = malloc(sizeof *list);
    char **v = NULL;
    FUZZ_CHECK(wa__wasip2_lift_strv(list, n, k, &v) == WA_E2BIG && !v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = {data, size};
    if (!size)
        return 0;
    switch (fuzz_byte(&in) & 3) {
    case 0:
        one_string(&in);
        break;
    case 1:
        entries(&in, 1);
        break;
    case 2:
        entries(&in, 2);
        break;
    default:
        too_long(&in);
    }
    return 0;
}
