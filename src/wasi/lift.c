/* SPDX-License-Identifier: MIT */
/* Lifting host lists of strings into C, and lowering headers for the
 * host (see lift.h). Each lift sizes its
 * result first, reading only lengths, then checks the bytes, then copies:
 * a list whose lengths lie is refused before its strings are touched. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lift.h"
#include "wasync/error.h"

int wa__wasip2_list_check(wa__wasip2_str *list, size_t n, size_t k)
{
    if (n <= WA__WASIP2_MEM_MAX / (k * sizeof *list))
        return 0;
    wa__wasip2_host_free(list, n);
    return WA_E2BIG;
}

void wa__wasip2_list_free(wa__wasip2_str *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        wa__wasip2_host_free(list[i].ptr, list[i].len);
    wa__wasip2_host_free(list, n);
}

/* A block of head bytes followed by the n strings at s, each with one more
 * byte (its NUL or '='). NULL with *rc: WA_E2BIG past WA__WASIP2_MEM_MAX (each
 * step checked, so no sum wraps), WA_EINVAL for a NUL byte (unless
 * nul_ok), WA_ENOMEM. */
static void *wa__wasip2_block(const wa__wasip2_str *s, size_t n, size_t head, int nul_ok, int *rc)
{
    size_t size = head; /* (at most WA__WASIP2_MEM_MAX throughout) */
    for (size_t i = 0; i < n; i++) {
        if (s[i].len >= WA__WASIP2_MEM_MAX - size)
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
static char *wa__wasip2_join(char *p, const wa__wasip2_str *s, size_t k, int header)
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

int wa__wasip2_lift_str(wa__wasip2_str s, char **out)
{
    int rc;
    char *c = wa__wasip2_block(&s, 1, 0, 0, &rc);
    if (c) {
        wa__wasip2_join(c, &s, 1, 0);
        *out = c;
    }
    return rc;
}

int wa__wasip2_lift_strv(wa__wasip2_str *list, size_t n, size_t k, char ***out)
{
    int rc = wa__wasip2_list_check(list, n, k);
    if (rc < 0)
        return rc;
    char **v = wa__wasip2_block(list, n * k, (n + 1) * sizeof *v, 0, &rc);
    if (v) {
        char *p = (char *)(v + n + 1);
        for (size_t i = 0; i < n; i++) {
            v[i] = p;
            p = wa__wasip2_join(p, list + i * k, k, 0);
        }
        v[n] = NULL;
        *out = v;
    }
    wa__wasip2_list_free(list, n * k);
    return rc < 0 ? rc : (int)n; /* (n < 2^29: it fits) */
}

int wa__wasip2_lift_fields(wa__wasip2_str *list, size_t n, wa_http_header **out)
{
    int rc = wa__wasip2_list_check(list, n, 2);
    if (rc < 0)
        return rc;
    wa_http_header *h = wa__wasip2_block(list, 2 * n, n * sizeof *h, 1, &rc);
    if (h) {
        char *p = (char *)(h + n);
        for (size_t i = 0; i < n; i++) {
            h[i].name = p;
            p = wa__wasip2_join(p, &list[2 * i], 1, 1);
            h[i].value = p;
            p = wa__wasip2_join(p, &list[2 * i + 1], 1, 1);
        }
        *out = h;
    }
    wa__wasip2_list_free(list, 2 * n);
    return rc;
}

/* ---- wasi:http (0.2 and 0.3 share these layouts) ---- */

/* The method variant's cases, in order; the tenth is other(string). */
const char *const wa__wasip2_http_methods[] = {"GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"};

uint32_t wa__wasip2_lift_u32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* The (ptr, len) string the host lowered at `at`, as a C string in *out
 * (wa__wasip2_lift_str: 0, WA_EINVAL, WA_ENOMEM); the host's block is freed. */
int wa__wasip2_lift_take_str(const unsigned char *at, char **out)
{
    wa__wasip2_str s;
    memcpy(&s, at, sizeof s);
    int rc = wa__wasip2_lift_str(s, out);
    wa__wasip2_host_free(s.ptr, s.len);
    return rc;
}

/* option<string> at `at` (tag, then (ptr, len) at 4): NULL when none. */
int wa__wasip2_lift_option_str(const unsigned char *at, char **out)
{
    *out = NULL;
    return at[0] ? wa__wasip2_lift_take_str(at + 4, out) : 0;
}

int wa__wasip2_lift_method(const unsigned char *at, const char **method, char **owned)
{
    *owned = NULL;
    if (at[0] < WA__WASIP2_HTTP_METHOD_OTHER) {
        *method = wa__wasip2_http_methods[at[0]];
        return 0;
    }
    int rc = wa__wasip2_lift_take_str(at + 4, owned);
    *method = *owned;
    return rc;
}

uint32_t *wa__wasip2_lower_fields(const wa_http_header *h, size_t n)
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

int wa__wasip2_lower_method(const char *m)
{
    int i = 0;
    while (i < WA__WASIP2_HTTP_METHOD_OTHER && strcmp(m, wa__wasip2_http_methods[i]))
        i++;
    return i;
}

int wa__wasip2_lower_scheme(wa__wasip2_str s)
{
    if (s.len == 4 && !strncasecmp(s.ptr, "http", 4))
        return 0;
    return s.len == 5 && !strncasecmp(s.ptr, "https", 5) ? 1 : 2;
}

/* The error-code variant's cases, in declaration order (wasi:http 0.2
 * and 0.3 alike). */
static const char *const wa__wasip2_error_cases[] = {
    "DNS-timeout", "DNS-error", "destination-not-found", "destination-unavailable", "destination-IP-prohibited",
    "destination-IP-unroutable", "connection-refused", "connection-terminated", "connection-timeout",
    "connection-read-timeout", "connection-write-timeout", "connection-limit-reached", "TLS-protocol-error",
    "TLS-certificate-error", "TLS-alert-received", "HTTP-request-denied", "HTTP-request-length-required",
    "HTTP-request-body-size", "HTTP-request-method-invalid", "HTTP-request-URI-invalid", "HTTP-request-URI-too-long",
    "HTTP-request-header-section-size", "HTTP-request-header-size", "HTTP-request-trailer-section-size",
    "HTTP-request-trailer-size", "HTTP-response-incomplete", "HTTP-response-header-section-size",
    "HTTP-response-header-size", "HTTP-response-body-size", "HTTP-response-trailer-section-size",
    "HTTP-response-trailer-size", "HTTP-response-transfer-coding", "HTTP-response-content-coding",
    "HTTP-response-timeout", "HTTP-upgrade-failed", "HTTP-protocol-error", "loop-detected", "configuration-error",
    "internal-error"};

/* The WA_E* code of each case: what a caller can do about it. */
static const signed char wa__wasip2_error_codes[] = {
    WA_ETIMEDOUT, WA_ENOTFOUND, WA_ENOTFOUND, WA_EIO, WA_EIO, WA_EIO,  /* DNS, destination */
    WA_ECONNREFUSED, WA_ECONNRESET, WA_ETIMEDOUT, WA_ETIMEDOUT, WA_ETIMEDOUT, WA_EIO, /* connection */
    WA_EPROTO, WA_EPROTO, WA_EPROTO,                                   /* TLS */
    WA_EIO, WA_EIO, WA_EIO, WA_EINVAL, WA_EINVAL, WA_E2BIG,           /* request (a body-size: not its length) */
    WA_E2BIG, WA_E2BIG, WA_E2BIG, WA_E2BIG,                            /* request's sizes */
    WA_EPROTO, WA_E2BIG, WA_E2BIG, WA_EIO, WA_E2BIG, WA_E2BIG,        /* response */
    WA_EPROTO, WA_EPROTO, WA_ETIMEDOUT, WA_EPROTO, WA_EPROTO,          /* response, protocol */
    WA_EIO, WA_EIO, WA_EIO};                                           /* the rest */
_Static_assert(sizeof wa__wasip2_error_codes == sizeof wa__wasip2_error_cases / sizeof wa__wasip2_error_cases[0], "one code a case");

/* A reason being written into p: at most cap bytes with its NUL (cut
 * beyond), n of them so far. */
typedef struct wa__wasip2_why {
    char *p;
    size_t cap, n;
} wa__wasip2_why;

/* Appends len bytes of s; a control byte becomes a space (a reason is one
 * line of text, whatever the host put in its strings). */
static void wa__wasip2_why_add(wa__wasip2_why *w, const char *s, size_t len)
{
    for (size_t i = 0; i < len && w->n + 1 < w->cap; i++) {
        unsigned char c = (unsigned char)s[i];
        w->p[w->n++] = (char)(c < ' ' || c == 0x7f ? ' ' : c);
    }
    if (w->cap)
        w->p[w->n] = 0;
}

static void wa__wasip2_why_num(wa__wasip2_why *w, const char *fmt, unsigned long long v)
{
    char b[48];
    int n = snprintf(b, sizeof b, fmt, v);
    wa__wasip2_why_add(w, b, n > 0 ? (size_t)n : 0);
}

/* Appends sep and the option<string> the host lowered at `at`, if some;
 * frees its block either way. */
static void wa__wasip2_why_str(wa__wasip2_why *w, const char *sep, const unsigned char *at)
{
    if (!at[0])
        return;
    const char *str = (const char *)(uintptr_t)wa__wasip2_lift_u32(at + 4);
    uint32_t len = wa__wasip2_lift_u32(at + 8);
    wa__wasip2_why_add(w, sep, strlen(sep));
    wa__wasip2_why_add(w, str, len);
    wa__wasip2_host_free((void *)str, len);
}

/* A field-size-payload at `at`: its field's name and size. */
static void wa__wasip2_why_field(wa__wasip2_why *w, const unsigned char *at)
{
    wa__wasip2_why_str(w, ": ", at);
    if (at[12])
        wa__wasip2_why_num(w, " (%llu bytes)", wa__wasip2_lift_u32(at + 16));
}

/* jco gives Node's failures of its HTTP parser (llhttp) and of TLS as
 * internal-error with Node's message ("Error: Parse Error: Header
 * overflow", "Error: write EPROTO ..."): their kind, read from it. */
static int wa__wasip2_node_error(const char *msg)
{
    if (strstr(msg, "Parse Error: Header overflow"))
        return WA_E2BIG;
    return strstr(msg, "Parse Error: ") || strstr(msg, " EPROTO ") ? WA_EPROTO : WA_EIO;
}

int wa__wasip2_lift_error_code(const unsigned char *ec, char *why, size_t cap)
{
    const unsigned char *pl = ec + 8; /* (the payload, 8-aligned) */
    unsigned c = ec[0];
    char own[WA_REASON_MAX]; /* (the reason decides internal-error's code) */
    if (cap == 0)
        why = own, cap = sizeof own;
    wa__wasip2_why w = {why, cap, 0};
    const char *name = c < sizeof wa__wasip2_error_codes ? wa__wasip2_error_cases[c] : "error-code";
    wa__wasip2_why_add(&w, name, strlen(name));
    switch (c) {
    case 1: /* DNS-error: rcode, info-code (an option<u16> at 12) */
        wa__wasip2_why_str(&w, ": ", pl);
        if (pl[12])
            wa__wasip2_why_num(&w, " (info-code %llu)", (unsigned)pl[14] | (unsigned)pl[15] << 8);
        break;
    case 14: /* TLS-alert-received: alert-id (option<u8>), alert-message at 4 */
        if (pl[0])
            wa__wasip2_why_num(&w, ": alert %llu", pl[1]);
        wa__wasip2_why_str(&w, pl[0] ? " " : ": ", pl + 4);
        break;
    case 17: /* option<u64> */
    case 28: {
        uint64_t v = wa__wasip2_lift_u32(pl + 8) | (uint64_t)wa__wasip2_lift_u32(pl + 12) << 32;
        if (pl[0])
            wa__wasip2_why_num(&w, ": %llu bytes", v);
        break;
    }
    case 21: /* option<u32> */
    case 23:
    case 26:
    case 29:
        if (pl[0])
            wa__wasip2_why_num(&w, ": %llu bytes", wa__wasip2_lift_u32(pl + 4));
        break;
    case 22: /* option<field-size-payload>, the record at 4 */
        if (pl[0])
            wa__wasip2_why_field(&w, pl + 4);
        break;
    case 24: /* field-size-payload */
    case 27:
    case 30:
        wa__wasip2_why_field(&w, pl);
        break;
    case 31: /* option<string> */
    case 32:
    case 38:
        wa__wasip2_why_str(&w, ": ", pl);
        break;
    }
    if (c == 38)
        return wa__wasip2_node_error(why);
    return c < sizeof wa__wasip2_error_codes ? wa__wasip2_error_codes[c] : WA_EIO;
}

const unsigned char *wa__wasip2_error_code_string(const unsigned char *ec)
{
    const unsigned char *pl = ec + 8; /* (as wa__wasip2_lift_error_code reads it) */
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
