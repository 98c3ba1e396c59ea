/* SPDX-License-Identifier: MIT */
/* Lifting host lists of strings into C, and lowering headers for the
 * host (see lift.h). Each lift sizes its
 * result first, reading only lengths, then checks the bytes, then copies:
 * a list whose lengths lie is refused before its strings are touched. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lift.h"
#include "wasync/error.h"

int wa_p2_list_check(wa_p2_str *list, size_t n, size_t k)
{
    if (n <= WA_P2_MEM_MAX / (k * sizeof *list))
        return 0;
    wa_p2_host_free(list, n);
    return WA_E2BIG;
}

void wa_p2_list_free(wa_p2_str *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        wa_p2_host_free(list[i].ptr, list[i].len);
    wa_p2_host_free(list, n);
}

/* A block of head bytes followed by the n strings at s, each with one more
 * byte (its NUL or '='). NULL with *rc: WA_E2BIG past WA_P2_MEM_MAX (each
 * step checked, so no sum wraps), WA_EINVAL for a NUL byte (unless
 * nul_ok), WA_ENOMEM. */
static void *wa_p2_block(const wa_p2_str *s, size_t n, size_t head, int nul_ok, int *rc)
{
    size_t size = head; /* (at most WA_P2_MEM_MAX throughout) */
    for (size_t i = 0; i < n; i++) {
        if (s[i].len >= WA_P2_MEM_MAX - size)
            return *rc = WA_E2BIG, NULL;
        size += s[i].len + 1;
    }
    for (size_t i = 0; !nul_ok && i < n; i++)
        if (memchr(s[i].ptr, 0, s[i].len))
            return *rc = WA_EINVAL, NULL;
    void *b = malloc(size ? size : 1);
    *rc = b ? 0 : WA_ENOMEM;
    return b;
}

/* Writes the k strings at s to p, joined by '=' and NUL-terminated (in a
 * header, with NUL, CR and LF as spaces); returns the byte after. */
static char *wa_p2_join(char *p, const wa_p2_str *s, size_t k, int header)
{
    for (size_t j = 0; j < k; j++) {
        memcpy(p, s[j].ptr, s[j].len);
        for (size_t i = 0; header && i < s[j].len; i++)
            if (p[i] == '\0' || p[i] == '\r' || p[i] == '\n')
                p[i] = ' ';
        p += s[j].len;
        *p++ = j + 1 < k ? '=' : '\0';
    }
    return p;
}

int wa_p2_lift_str(wa_p2_str s, char **out)
{
    int rc;
    char *c = wa_p2_block(&s, 1, 0, 0, &rc);
    if (c) {
        wa_p2_join(c, &s, 1, 0);
        *out = c;
    }
    return rc;
}

int wa_p2_lift_strv(wa_p2_str *list, size_t n, size_t k, char ***out)
{
    int rc = wa_p2_list_check(list, n, k);
    if (rc < 0)
        return rc;
    char **v = wa_p2_block(list, n * k, (n + 1) * sizeof *v, 0, &rc);
    if (v) {
        char *p = (char *)(v + n + 1);
        for (size_t i = 0; i < n; i++) {
            v[i] = p;
            p = wa_p2_join(p, list + i * k, k, 0);
        }
        v[n] = NULL;
        *out = v;
    }
    wa_p2_list_free(list, n * k);
    return rc < 0 ? rc : (int)n; /* (n < 2^29: it fits) */
}

int wa_p2_lift_fields(wa_p2_str *list, size_t n, wa_http_header **out)
{
    int rc = wa_p2_list_check(list, n, 2);
    if (rc < 0)
        return rc;
    wa_http_header *h = wa_p2_block(list, 2 * n, n * sizeof *h, 1, &rc);
    if (h) {
        char *p = (char *)(h + n);
        for (size_t i = 0; i < n; i++) {
            h[i].name = p;
            p = wa_p2_join(p, &list[2 * i], 1, 1);
            h[i].value = p;
            p = wa_p2_join(p, &list[2 * i + 1], 1, 1);
        }
        *out = h;
    }
    wa_p2_list_free(list, 2 * n);
    return rc;
}

/* ---- wasi:http (0.2 and 0.3 share these layouts) ---- */

/* The method variant's cases, in order; the tenth is other(string). */
const char *const wa_p2_http_methods[] = {"GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"};

uint32_t wa_p2_lift_u32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* The (ptr, len) string the host lowered at `at`, as a C string in *out
 * (wa_p2_lift_str: 0, WA_EINVAL, WA_ENOMEM); the host's block is freed. */
int wa_p2_lift_take_str(const unsigned char *at, char **out)
{
    wa_p2_str s;
    memcpy(&s, at, sizeof s);
    int rc = wa_p2_lift_str(s, out);
    wa_p2_host_free(s.ptr, s.len);
    return rc;
}

/* option<string> at `at` (tag, then (ptr, len) at 4): NULL when none. */
int wa_p2_lift_option_str(const unsigned char *at, char **out)
{
    *out = NULL;
    return at[0] ? wa_p2_lift_take_str(at + 4, out) : 0;
}

int wa_p2_lift_method(const unsigned char *at, const char **method, char **owned)
{
    *owned = NULL;
    if (at[0] < WA_P2_HTTP_METHOD_OTHER) {
        *method = wa_p2_http_methods[at[0]];
        return 0;
    }
    int rc = wa_p2_lift_take_str(at + 4, owned);
    *method = *owned;
    return rc;
}

uint32_t *wa_p2_lower_fields(const wa_http_header *h, size_t n)
{
    uint32_t *list = calloc(n ? n : 1, 16); /* (calloc: n * 16 may not fit) */
    for (size_t i = 0; list && i < n; i++) {
        list[4 * i] = (uint32_t)(uintptr_t)h[i].name;
        list[4 * i + 1] = (uint32_t)strlen(h[i].name);
        list[4 * i + 2] = (uint32_t)(uintptr_t)h[i].value;
        list[4 * i + 3] = (uint32_t)strlen(h[i].value);
    }
    return list;
}

int wa_p2_lower_method(const char *m)
{
    int i = 0;
    while (i < WA_P2_HTTP_METHOD_OTHER && strcmp(m, wa_p2_http_methods[i]))
        i++;
    return i;
}

int wa_p2_lower_scheme(wa_p2_str s)
{
    if (s.len == 4 && !strncasecmp(s.ptr, "http", 4))
        return 0;
    return s.len == 5 && !strncasecmp(s.ptr, "https", 5) ? 1 : 2;
}

/* Frees an option<string> at `at` the host lowered. */
static void wa_p2_option_free(const unsigned char *at)
{
    if (at[0])
        wa_p2_host_free((void *)(uintptr_t)wa_p2_lift_u32(at + 4), wa_p2_lift_u32(at + 8));
}

const unsigned char *wa_p2_error_code_string(const unsigned char *ec)
{
    const unsigned char *pl = ec + 8; /* the payload */
    switch (ec[0]) {
    case 14: /* TLS-alert-received: alert-message after option<u8> */
        return pl + 4;
    case 22: /* HTTP-request-header-size: option<field-size-payload> */
        return pl[0] ? pl + 4 : NULL;
    case 1:  /* DNS-error: rcode */
    case 24: /* the field-size-payloads: field-name */
    case 27:
    case 30:
    case 31: /* transfer- and content-coding */
    case 32:
    case 38: /* internal-error */
        return pl;
    default:
        return NULL;
    }
}

/* An error-code at ec, as a WA_E* code; the string its case may carry is
 * freed. */
int wa_p2_lift_error_code(const unsigned char *ec)
{
    const unsigned char *str = wa_p2_error_code_string(ec);
    if (str)
        wa_p2_option_free(str);
    switch (ec[0]) {
    case 6:
        return WA_ECONNREFUSED;
    case 7:
        return WA_ECONNRESET;
    case 0:
    case 8:
    case 9:
    case 10:
    case 33:
        return WA_ETIMEDOUT;
    default:
        return WA_EIO;
    }
}
