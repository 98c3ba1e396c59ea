/* SPDX-License-Identifier: MIT */
/* The HTTP client's URL parser (src/io/http_url.c) on any bytes. A URL it
 * takes must hold only visible ASCII (no control, space, NUL or 8-bit
 * byte), whole %-escapes, an RFC 3986 scheme, a host and a port from 1 to
 * 65535; its slices must lie in the input, in order, and put back together
 * (what is sent) must parse to the same slices. */
#include <ctype.h>

#include "../../src/io/http_url.h"
#include "fuzz.h"

/* The port after the host of the authority a, if any: 1 to 65535. */
static void check_port(const char *a, size_t n)
{
    size_t host = 0;
    if (a[0] == '[') {
        const char *close = memchr(a, ']', n);
        FUZZ_CHECK(close != NULL);
        host = (size_t)(close - a) + 1;
    } else {
        while (host < n && a[host] != ':')
            host++;
    }
    FUZZ_CHECK(host > 0);
    if (host == n)
        return;
    FUZZ_CHECK(a[host] == ':' && n - host >= 2 && n - host <= 6);
    unsigned long port = 0;
    for (size_t i = host + 1; i < n; i++) {
        FUZZ_CHECK(isdigit((unsigned char)a[i]));
        port = port * 10 + (unsigned long)(a[i] - '0');
    }
    FUZZ_CHECK(port >= 1 && port <= 65535);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *url = (const char *)data;
    wa__http_url u;
    if (wa__http_url_parse(url, size, &u) < 0)
        return 0;
    for (size_t i = 0; i < size; i++) {
        FUZZ_CHECK(data[i] > ' ' && data[i] < 0x7f);
        FUZZ_CHECK(data[i] != '%' || (i + 2 < size && isxdigit(data[i + 1]) && isxdigit(data[i + 2])));
    }
    FUZZ_CHECK(u.scheme.ptr == url && u.scheme.len > 0 && isalpha(data[0]));
    for (size_t i = 0; i < u.scheme.len; i++)
        FUZZ_CHECK(isalnum(data[i]) || strchr("+-.", data[i]));
    size_t a = u.scheme.len + 3, p = a + u.authority.len;
    FUZZ_CHECK(!memcmp(url + u.scheme.len, "://", 3) && u.authority.ptr == url + a && u.authority.len > 0);
    for (size_t i = a; i < p; i++)
        FUZZ_CHECK(!strchr("/?#@", data[i]));
    check_port(u.authority.ptr, u.authority.len);
    /* the path is in the URL, or "/" for a URL that has none */
    int in_url = u.path.ptr == url + p;
    FUZZ_CHECK(u.path.len > 0 && u.path.ptr[0] == '/' && (in_url || u.path.len == 1));
    FUZZ_CHECK(!memchr(u.path.ptr, '#', u.path.len));
    size_t end = in_url ? p + u.path.len : p;
    FUZZ_CHECK(end == size || data[end] == '#'); /* then only the fragment */

    /* what is sent, parsed again: the same */
    size_t cap = p + u.path.len + 1;
    char *sent = malloc(cap);
    size_t n = (size_t)snprintf(sent, cap, "%.*s://%.*s%.*s", (int)u.scheme.len, u.scheme.ptr, (int)u.authority.len,
                                u.authority.ptr, (int)u.path.len, u.path.ptr);
    wa__http_url v;
    FUZZ_CHECK(n == cap - 1 && wa__http_url_parse(sent, n, &v) == 0);
    FUZZ_CHECK(v.scheme.len == u.scheme.len && v.authority.len == u.authority.len && v.path.len == u.path.len);
    FUZZ_CHECK(!memcmp(v.path.ptr, u.path.ptr, u.path.len) && v.path.ptr == sent + p);
    free(sent);
    return 0;
}
