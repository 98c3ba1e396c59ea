/* SPDX-License-Identifier: MIT */
/* Text built without stdio (a wasm build carries none): strings, numbers,
 * durations, JSON strings, for dumps, reports, describes and traces.
 * Calls nothing of the library's. */
#include <string.h>

#include "text.h"

void wa__text_str(wa__text *d, const char *s)
{
    for (; *s; s++, d->need++)
        if (d->need + 1 < d->len)
            d->buf[d->need] = *s;
    if (d->len)
        d->buf[d->need < d->len ? d->need : d->len - 1] = 0;
}

void wa__text_uint(wa__text *d, uint64_t v)
{
    char tmp[21], *p = tmp + sizeof tmp - 1;
    *p = 0;
    do
        *--p = (char)('0' + v % 10);
    while (v /= 10);
    wa__text_str(d, p);
}

void wa__text_json(wa__text *d, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        char e[7] = {'\\', (char)c, 0};
        if (c == '"' || c == '\\') {
            wa__text_str(d, e);
        } else if (c < 0x20) {
            memcpy(e, "\\u00", 4);
            e[4] = hex[c >> 4];
            e[5] = hex[c & 15];
            e[6] = 0;
            wa__text_str(d, e);
        } else {
            wa__text_str(d, e + 1);
        }
    }
}

/* (the unit chosen so that the number has at most four digits) */
void wa__text_ns(wa__text *d, uint64_t ns)
{
    static const char *const unit[] = {" ns", " us", " ms", " s"};
    unsigned u = 0;
    for (; u < 3 && ns >= 10000; u++)
        ns /= 1000;
    wa__text_uint(d, ns);
    wa__text_str(d, unit[u]);
}
