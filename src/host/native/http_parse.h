/* SPDX-License-Identifier: MIT */
/* Internal: the native HTTP/1.1 server's reading of requests (http_parse.c):
 * bytes from a connection through llhttp into a request's head (method,
 * path, authority, headers as C strings) and its body's bytes, within the
 * listener's limits, or the status that refuses the request. No socket in
 * it, so that it is fuzzed alone (tests/fuzz/fuzz_http_request.c). */
#ifndef WASYNC_HOST_NATIVE_HTTP_PARSE_H
#define WASYNC_HOST_NATIVE_HTTP_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include <llhttp.h>

#include "wasync/http.h"

/* What a feed stopped at. */
enum {
    WA__NATIVE_HTTP_MORE,  /* every byte taken: feed more */
    WA__NATIVE_HTTP_HEAD,  /* a request's head is whole (the getters below) */
    WA__NATIVE_HTTP_END,   /* its message ended: wa__native_http_parse_next */
    WA__NATIVE_HTTP_ERROR, /* refused: answer ->status, then close */
};

/* A field's place in the head's bytes. */
typedef struct wa__native_http_span {
    size_t name, value, vlen;
} wa__native_http_span;

typedef struct wa__native_http_parse {
    llhttp_t p;
    const wa_http_limits *limits; /* borrowed */
    int status;      /* the refusal (400, 413, 414, 431, 501), once ERROR */
    int state;       /* what the last feed stopped at */
    /* the head being read: the target, then each name and value, each
     * NUL-terminated, in buf; a field's places in fields */
    char *buf;
    size_t len, cap;
    wa__native_http_span *fields;
    size_t nfields, fcap;
    int naming;      /* a field's name is being read */
    int begun;       /* a request's first byte came */
    /* the head, once whole: pointers into buf (headers malloc'd) */
    const char *method, *path, *authority;
    wa_http_header *headers;
    size_t nheaders;
    int expect_continue; /* "Expect: 100-continue" */
    int keep_alive;      /* another request may follow this one */
    int minor;           /* HTTP/1.minor */
    /* the body's bytes not yet taken (buffered as they come) */
    unsigned char *body;
    size_t body_off, body_len, body_cap;
    uint64_t body_total; /* bytes of the body so far */
} wa__native_http_parse;

/* Sets p up to read requests within limits (borrowed). */
void wa__native_http_parse_init(wa__native_http_parse *p, const wa_http_limits *limits);

/* Feeds up to len bytes of data (borrowed); *used says how many were
 * taken. Returns what it stopped at (above). A feed after HEAD goes on
 * with the body; after END, wa__native_http_parse_next first; after ERROR,
 * ERROR. Out of memory is ERROR with status 503. */
int wa__native_http_parse_feed(wa__native_http_parse *p, const char *data, size_t len, size_t *used);

/* 1 if some bytes of a next request's head came (its timeout runs). */
int wa__native_http_parse_started(const wa__native_http_parse *p);

/* Takes up to cap body bytes into buf; returns how many. */
size_t wa__native_http_parse_body_take(wa__native_http_parse *p, void *buf, size_t cap);

/* Forgets the request that ended, to read the next one. */
void wa__native_http_parse_next(wa__native_http_parse *p);

/* Frees what p holds. */
void wa__native_http_parse_free(wa__native_http_parse *p);

#endif
