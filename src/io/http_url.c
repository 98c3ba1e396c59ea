/* SPDX-License-Identifier: MIT */
/* The checks of what goes out over HTTP (see http_url.h): byte classes of
 * RFC 3986 (URLs) and RFC 9110 (tokens, field values), on unsigned bytes
 * (an 8-bit byte is never a negative char that happens to match). */
#include <string.h>

#include "http_url.h"
#include "wasync/error.h"

static int wa__is_alpha(unsigned c) { return (c | 0x20) - 'a' < 26; }
static int wa__is_digit(unsigned c) { return c - '0' < 10; }
static int wa__is_hex(unsigned c) { return wa__is_digit(c) || (c | 0x20) - 'a' < 6; }
static int wa__in(unsigned c, const char *set) { return c && c < 0x80 && strchr(set, (int)c); }

/* A host name byte: unreserved, sub-delims, or an escape's '%'. */
static int wa__is_host(unsigned c) { return wa__is_alpha(c) || wa__is_digit(c) || wa__in(c, "-._~!$&'()*+,;=%"); }

/* The host at s[0..n): an IP literal in brackets, or a name; then an
 * optional ":port". */
static int wa__http_authority_ok(const unsigned char *s, size_t n)
{
    size_t i = 0;
    if (n && s[0] == '[') {
        int colons = 0;
        for (i = 1; i < n && s[i] != ']'; i++) {
            if (!wa__is_hex(s[i]) && s[i] != ':' && s[i] != '.')
                return 0;
            colons += s[i] == ':';
        }
        if (i == n || !colons)
            return 0;
        i++; /* the ']' */
    } else {
        while (i < n && wa__is_host(s[i]))
            i++;
        if (i == 0)
            return 0;
    }
    if (i == n)
        return 1;
    if (s[i] != ':' || n - i < 2 || n - i > 6)
        return 0; /* not a port, or an empty one, or past 5 digits */
    unsigned port = 0;
    for (i++; i < n; i++) {
        if (!wa__is_digit(s[i]))
            return 0;
        port = port * 10 + (s[i] - '0');
    }
    return port >= 1 && port <= 65535;
}

int wa__http_url_parse(const char *url, size_t len, wa__http_url *u)
{
    const unsigned char *s = (const unsigned char *)url;
    if (!url || !len || !wa__is_alpha(s[0]))
        return WA_EINVAL;
    for (size_t k = 0; k < len; k++)
        if (s[k] <= ' ' || s[k] >= 0x7f ||
            (s[k] == '%' && (len - k < 3 || !wa__is_hex(s[k + 1]) || !wa__is_hex(s[k + 2]))))
            return WA_EINVAL;
    size_t i = 1;
    while (i < len && (wa__is_alpha(s[i]) || wa__is_digit(s[i]) || wa__in(s[i], "+-.")))
        i++;
    if (len - i < 3 || memcmp(s + i, "://", 3) != 0)
        return WA_EINVAL;
    size_t a = i + 3, p = a;
    while (p < len && !wa__in(s[p], "/?#@"))
        p++;
    if ((p < len && (s[p] == '?' || s[p] == '@')) || !wa__http_authority_ok(s + a, p - a))
        return WA_EINVAL; /* a query with no path, or userinfo */
    const char *hash = memchr(url + p, '#', len - p);
    size_t path_len = (hash ? (size_t)(hash - url) : len) - p;
    u->scheme = (wa__http_slice){url, i};
    u->authority = (wa__http_slice){url + a, p - a};
    u->path = path_len ? (wa__http_slice){url + p, path_len} : (wa__http_slice){"/", 1};
    return 0;
}

int wa__http_token_ok(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned c = (unsigned char)s[i];
        if (!wa__is_alpha(c) && !wa__is_digit(c) && !wa__in(c, "!#$%&'*+-.^_`|~"))
            return 0;
    }
    return len > 0;
}

int wa__http_field_value_ok(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned c = (unsigned char)s[i];
        if ((c < ' ' && c != '\t') || c == 0x7f)
            return 0;
    }
    return len == 0 || (!wa__in((unsigned char)s[0], " \t") && !wa__in((unsigned char)s[len - 1], " \t"));
}

int wa__http_headers_check(const wa_http_header *h, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!h[i].name || !h[i].value || !wa__http_token_ok(h[i].name, strlen(h[i].name)) ||
            !wa__http_field_value_ok(h[i].value, strlen(h[i].value)))
            return WA_EINVAL;
    return 0;
}

int wa__http_request_check(const wa_http_request *q, wa__http_url *u, const char **method)
{
    int rc = wa__http_request_shape(q, method);
    if (rc != WA_EINVAL && (wa__http_url_parse(q->url, strlen(q->url), u) < 0 || !wa__http_token_ok(*method, strlen(*method)) ||
                            wa__http_headers_check(q->headers, q->nheaders) < 0))
        return WA_EINVAL; /* (before WA_E2BIG) */
    return rc;
}

int wa__http_empty_content_length(const wa_http_request *q, const char *method)
{
    static const char *const with_content[] = {"POST", "PUT", "PATCH"};
    if (q->body_stream || q->body_len || wa__http_headers_find(q->headers, q->nheaders, "content-length"))
        return 0;
    for (size_t i = 0; i < sizeof with_content / sizeof with_content[0]; i++)
        if (!strcmp(method, with_content[i]))
            return 1;
    return 0;
}
