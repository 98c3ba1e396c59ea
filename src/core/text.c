/* SPDX-License-Identifier: MIT */
/* Text built without stdio (a wasm build carries none): strings, numbers,
 * durations, JSON strings, and what a future waits for, through the
 * vtables' awaits and describe (future.h), for dumps and traces. Calls
 * nothing of the library's but the vtables it is given. */
#include <string.h>

#include "rt.h"
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

/* Appends what f describes of itself (future.h), in parentheses. */
static void wa__text_describe(wa__text *d, const wa_future *f, uint64_t now)
{
    char what[96];
    if (!f->vt->describe)
        return;
    f->vt->describe(f, now, what, sizeof what);
    if (!what[0])
        return;
    wa__text_str(d, " (");
    wa__text_str(d, what);
    wa__text_str(d, ")");
}

/* Appends the futures f awaits, after lead, down to the leaves: "a > b
 * (what b waits for)", or "[a, b]" for more than one; depth bounds it. */
static void wa__text_awaits(wa__text *d, const wa_future *f, uint64_t now, unsigned depth, const char *lead)
{
    const wa_future *c0 = f->vt->awaits ? f->vt->awaits(f, 0) : NULL;
    if (!c0)
        return;
    const wa_future *c1 = f->vt->awaits(f, 1);
    wa__text_str(d, lead);
    if (c1)
        wa__text_str(d, "[");
    const wa_future *c = c0;
    for (unsigned i = 1; c; c = f->vt->awaits(f, i++)) {
        if (i > 1)
            wa__text_str(d, ", ");
        wa__text_str(d, c->vt->name ? c->vt->name : "?");
        wa__text_describe(d, c, now);
        if (depth)
            wa__text_awaits(d, c, now, depth - 1, " > ");
        else if (c->vt->awaits && c->vt->awaits(c, 0))
            wa__text_str(d, " > ...");
    }
    if (c1)
        wa__text_str(d, "]");
}

void wa__text_waits(wa__text *d, const wa_future *f, uint64_t now, const char *lead)
{
    if (f->vt == &wa__root_vt)
        f = ((const wa__root *)f)->inner;
    wa__text_describe(d, f, now);
    wa__text_awaits(d, f, now, 8, lead);
}

