/* SPDX-License-Identifier: MIT */
/* HTTP headers both ways. Going out (src/io/http_url.c): names must be
 * RFC 9110 tokens and values field-values, checked here against the
 * RFC's grammar written out again. Coming in (src/wasi/lift.c): a fields'
 * entries as the host lowers them, lengths that lie included; every byte
 * is kept, NUL, CR and LF as spaces, so that no value is cut short at a
 * NUL nor carries a line break. The first byte picks the direction. */
#include <ctype.h>

#include "../../src/io/http_url.h"
#include "fuzz.h"

/* RFC 9110 5.6.2: tchar; 5.5: field-vchar = VCHAR / obs-text */
static int ref_tchar(unsigned c) { return (c < 0x80 && isalnum((int)c)) || (c && strchr("!#$%&'*+-.^_`|~", (int)c)); }
static int ref_vchar(unsigned c) { return (c > 0x20 && c < 0x7f) || c >= 0x80; }

static int ref_token(const uint8_t *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!ref_tchar(s[i]))
            return 0;
    return n > 0;
}

/* field-value = *field-content; field-content = field-vchar
 * [ 1*( SP / HTAB / field-vchar ) field-vchar ] */
static int ref_value(const uint8_t *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!ref_vchar(s[i]) && s[i] != ' ' && s[i] != '\t')
            return 0;
    return n == 0 || (ref_vchar(s[0]) && ref_vchar(s[n - 1]));
}

/* The n bytes at s as an application gives them: a C string, cut at a NUL. */
static char *cstr(const uint8_t *s, size_t n)
{
    const uint8_t *nul = memchr(s, 0, n);
    if (nul)
        n = (size_t)(nul - s);
    char *c = malloc(n + 1);
    memcpy(c, s, n);
    c[n] = '\0';
    return c;
}

/* A name (a length byte, then its bytes) and a value (the rest). */
static void outgoing(fuzz_in *in)
{
    size_t n = (size_t)(fuzz_byte(in) & 0xff);
    if (n > in->n)
        n = in->n;
    const uint8_t *name = in->p, *value = in->p + n;
    size_t vn = in->n - n;
    FUZZ_CHECK(wa__http_token_ok((const char *)name, n) == ref_token(name, n));
    FUZZ_CHECK(wa__http_field_value_ok((const char *)value, vn) == ref_value(value, vn));
    char *cname = cstr(name, n), *cvalue = cstr(value, vn);
    wa_http_header h[2] = {{"ok", "fine"}, {cname, cvalue}};
    int ok = ref_token((const uint8_t *)cname, strlen(cname)) && ref_value((const uint8_t *)cvalue, strlen(cvalue));
    FUZZ_CHECK(wa__http_headers_check(h, 2) == (ok ? 0 : WA_EINVAL));
    h[1].value = NULL;
    FUZZ_CHECK(wa__http_headers_check(h, 2) == WA_EINVAL);
    free(cname);
    free(cvalue);
}

/* The entries of a fields: (name, value) pairs. */
static void incoming(fuzz_in *in)
{
    fuzz_list l;
    fuzz_list_read(in, 64, &l);
    fuzz_list_trim(&l, 2);
    size_t n = l.n / 2;
    if (l.lied && !fuzz_over(&l, l.n, n * sizeof(wa_http_header))) {
        wa__wasip2_list_free(l.s, l.n); /* a lie within the limit would be read: not a case */
        return;
    }
    /* what each string must become, before the list is taken */
    char *want[64];
    for (size_t i = 0; !l.lied && i < l.n; i++) {
        want[i] = malloc(l.s[i].len + 1);
        for (size_t j = 0; j < l.s[i].len; j++) {
            char c = l.s[i].ptr[j];
            want[i][j] = c == '\0' || c == '\r' || c == '\n' ? ' ' : c;
        }
        want[i][l.s[i].len] = '\0';
    }
    int lied = l.lied;
    wa_http_header *h = NULL;
    int rc = wa__wasip2_lift_fields(l.s, n, &h);
    if (lied) {
        FUZZ_CHECK(rc == WA_E2BIG && !h);
        return;
    }
    FUZZ_CHECK(rc == 0);
    for (size_t i = 0; i < n; i++) {
        FUZZ_CHECK(!strcmp(h[i].name, want[2 * i]) && !strcmp(h[i].value, want[2 * i + 1]));
        FUZZ_CHECK(!strpbrk(h[i].name, "\r\n") && !strpbrk(h[i].value, "\r\n"));
        free(want[2 * i]);
        free(want[2 * i + 1]);
    }
    free(h);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = {data, size};
    if (!size)
        return 0;
    if (fuzz_byte(&in) & 1)
        incoming(&in);
    else
        outgoing(&in);
    return 0;
}
