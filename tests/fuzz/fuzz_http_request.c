/* SPDX-License-Identifier: MIT */
/* The native HTTP server's reading of requests (src/host/native/
 * http_parse.c): bytes from a connection through llhttp into heads and
 * bodies, within limits. The first byte picks the limits (small ones, so
 * that each is reached) and the size of the pieces the rest comes in, as
 * a connection's reads would cut it. Each head must be C strings with no
 * CR or LF in a value, lowercase token names, at most the limits; a
 * refusal one of the statuses the server answers. And the pieces do not
 * matter: what the requests are (a transcript of heads, bodies and
 * whether a refusal ended them) is the same as with the input in one
 * piece. */
#include <ctype.h>

#include "../../src/host/native/http_parse.h"
#include "../../src/io/http_url.h"
#include "fuzz.h"

typedef struct transcript {
    char *s;
    size_t len, cap;
    size_t mark; /* its length after the last head or end */
} transcript;

static void note(transcript *t, const void *p, size_t n)
{
    if (t->len + n + 1 > t->cap) {
        t->cap = (t->len + n + 1) * 2;
        t->s = realloc(t->s, t->cap);
    }
    memcpy(t->s + t->len, p, n);
    t->len += n;
    t->s[t->len] = '\0';
}

static void note_str(transcript *t, const char *s)
{
    note(t, s, strlen(s));
    note(t, "", 1); /* (a NUL apart: "ab","c" is not "a","bc") */
}

static void check_head(const wa__native_http_parse *p, const wa_http_limits *l)
{
    FUZZ_CHECK(p->method && p->path && p->authority);
    FUZZ_CHECK(wa__http_token_ok(p->method, strlen(p->method)));
    FUZZ_CHECK(p->nheaders <= l->headers_max);
    size_t bytes = strlen(p->path);
    for (size_t i = 0; i < p->nheaders; i++) {
        const char *name = p->headers[i].name, *value = p->headers[i].value;
        FUZZ_CHECK(wa__http_token_ok(name, strlen(name)));
        for (const char *c = name; *c; c++)
            FUZZ_CHECK(!isupper((unsigned char)*c));
        FUZZ_CHECK(!strpbrk(value, "\r\n"));
        bytes += strlen(name) + strlen(value);
    }
    FUZZ_CHECK(bytes <= l->head_max);
}

/* The requests in data, fed piece bytes at a time (0: at once). */
static void run(const uint8_t *data, size_t size, size_t piece, const wa_http_limits *l, transcript *t)
{
    wa__native_http_parse p;
    wa__native_http_parse_init(&p, l);
    size_t off = 0, end = piece ? (piece < size ? piece : size) : size;
    char body[256];
    for (;;) {
        size_t used;
        int r = wa__native_http_parse_feed(&p, (const char *)data + off, end - off, &used);
        FUZZ_CHECK(used <= end - off);
        off += used;
        size_t n;
        while ((n = wa__native_http_parse_body_take(&p, body, sizeof body)) > 0)
            note(t, body, n);
        FUZZ_CHECK(!l->body_max || p.body_total <= l->body_max);
        if (r == WA__NATIVE_HTTP_HEAD) {
            check_head(&p, l);
            note_str(t, "HEAD");
            note_str(t, p.method);
            note_str(t, p.path);
            note_str(t, p.authority);
            for (size_t i = 0; i < p.nheaders; i++) {
                note_str(t, p.headers[i].name);
                note_str(t, p.headers[i].value);
            }
            t->mark = t->len;
        } else if (r == WA__NATIVE_HTTP_END) {
            note_str(t, p.keep_alive ? "END keep-alive" : "END");
            t->mark = t->len;
            if (!p.keep_alive)
                break; /* (the server closes: an upgrade too) */
            wa__native_http_parse_next(&p);
        } else if (r == WA__NATIVE_HTTP_ERROR) {
            FUZZ_CHECK(p.status == 400 || p.status == 413 || p.status == 414 || p.status == 431 || p.status == 501);
            /* Where a refusal is seen, and so which, depends on the pieces:
             * llhttp hands a span over at its end, or at the end of the
             * bytes fed; a limit counts what was handed, a syntax error
             * stops at once. What was read whole before it is the same. */
            t->len = t->mark;
            note_str(t, "ERROR");
            break;
        } else if (off == end) { /* MORE: the next piece, if any */
            if (end == size)
                break;
            end = piece && size - end > piece ? end + piece : size;
        }
    }
    wa__native_http_parse_free(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!size)
        return 0;
    int b = data[0];
    wa_http_limits l = {.head_max = b & 1 ? 200 : WA_HTTP_HEAD_MAX,
                        .headers_max = b & 2 ? 4 : 100,
                        .body_max = b & 4 ? 16 : 0};
    size_t piece = (size_t)(b >> 3) + 1; /* 1 to 32 bytes */
    transcript whole = {0}, pieces = {0};
    run(data + 1, size - 1, 0, &l, &whole);
    run(data + 1, size - 1, piece, &l, &pieces);
    FUZZ_CHECK(whole.len == pieces.len && (!whole.len || !memcmp(whole.s, pieces.s, whole.len)));
    free(whole.s);
    free(pieces.s);
    return 0;
}
