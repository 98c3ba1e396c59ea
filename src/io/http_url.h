/* SPDX-License-Identifier: MIT */
/* Internal: what the HTTP client and server check before they hand a
 * request or response to the host (the URL, the method, headers). Pure
 * functions of their input, with no host in them, so that they build
 * natively too and are fuzzed there (tests/fuzz/fuzz_url.c,
 * fuzz_http_fields.c). */
#ifndef WASYNC_IO_HTTP_URL_H
#define WASYNC_IO_HTTP_URL_H

#include <stddef.h>
#include <string.h>

#include "http_fields.h"
#include "wasync/http.h"

/* len bytes at ptr, not NUL-terminated. */
typedef struct wa__http_slice {
    const char *ptr;
    size_t len;
} wa__http_slice;

/* A URL split as a request carries it: slices of the URL it was parsed
 * from. */
typedef struct wa__http_url {
    wa__http_slice scheme;    /* "http", "https" or another scheme */
    wa__http_slice authority; /* host[:port] */
    wa__http_slice path;      /* path and query; "/" (static) when the URL has none */
} wa__http_url;

/* Parses len bytes of url (borrowed; the slices point into it):
 * scheme "://" host [":" port] [path ["?" query]] ["#" fragment]. The
 * scheme is RFC 3986's; the host a name (unreserved, sub-delims and
 * %-escapes) or an IP literal in brackets; the port 1 to 65535. Every byte
 * must be visible ASCII (no controls, spaces, NULs or 8-bit bytes: they
 * are %-escaped in a URL), every '%' begin an escape. No userinfo ('@':
 * RFC 9110 forbids it in http URLs), no query without a path. The fragment
 * is checked but not part of the result (it is never sent). Returns 0 or
 * WA_EINVAL. */
int wa__http_url_parse(const char *url, size_t len, wa__http_url *u);

/* 1 if the len bytes at s are an RFC 9110 token (a method, a field name):
 * one or more of ALPHA, DIGIT and !#$%&'*+-.^_`|~. Else 0. */
int wa__http_token_ok(const char *s, size_t len);

/* 1 if the len bytes at s are an RFC 9110 field-value: visible ASCII,
 * 8-bit bytes (obs-text), spaces and tabs, but not first or last (those
 * are not part of a value). Empty is a value. Else 0. */
int wa__http_field_value_ok(const char *s, size_t len);

/* Checks n headers an application gives (borrowed): every name a token,
 * every value a field-value, neither NULL. Returns 0 or WA_EINVAL. */
int wa__http_headers_check(const wa_http_header *h, size_t n);

/* Checks a request an application gives (borrowed) before any of it goes
 * to a host: its URL (split into *u), its method (*method, "GET" for NULL:
 * a token), its headers, and wa__http_request_shape's. Returns 0,
 * WA_EINVAL, or WA_E2BIG. The JS host defines its own (src/host/js/http.c:
 * the shape alone, since its fetch checks the rest, and *u unset) and
 * links no other function of this file. */
int wa__http_request_check(const wa_http_request *q, wa__http_url *u, const char **method);

/* What every host checks of a request q (borrowed) itself: a URL, a
 * method (*method, "GET" for NULL), headers with names and values, a body
 * of body_len bytes that is there (else WA_EINVAL), and headers of at most
 * WA_HTTP_HEAD_MAX bytes (else WA_E2BIG). 0 when so. (Inline: the JS host
 * links none of this file's functions.) */
static inline int wa__http_request_shape(const wa_http_request *q, const char **method)
{
    *method = q->method ? q->method : "GET";
    if (!q->url || (q->body_len && !q->body) || (q->nheaders && !q->headers))
        return WA_EINVAL;
    size_t size = 0; /* (each header is a C string: no sum of their lengths wraps) */
    for (size_t i = 0; i < q->nheaders && size <= WA_HTTP_HEAD_MAX; i++) {
        if (!q->headers[i].name || !q->headers[i].value)
            return WA_EINVAL;
        size += strlen(q->headers[i].name) + strlen(q->headers[i].value) + 4;
    }
    return size > WA_HTTP_HEAD_MAX ? WA_E2BIG : 0;
}

/* 1 if q (checked) is to say "Content-Length: 0": a method whose content
 * means something (POST, PUT, PATCH: RFC 9110 8.6 asks for a length, and
 * servers such as nginx answer 411 without one) with no body and no
 * content-length header of its own. Else 0. */
int wa__http_empty_content_length(const wa_http_request *q, const char *method);

#endif
