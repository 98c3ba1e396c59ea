/* SPDX-License-Identifier: MIT */
/* Reading requests with llhttp (see http_parse.h). llhttp checks the
 * syntax (the request line, field names and values, chunked framing,
 * conflicting lengths); this file keeps the head's bytes as C strings,
 * counts them against the limits, and pauses the parser where the
 * connection has something to do: once a head is whole (the handler runs
 * before its body is read) and once a message ends (a pipelined request
 * waits for the answer to the one before). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../../core/grow.h"
#include "../../io/http_url.h"
#include "http_parse.h"

static wa__native_http_parse *wa__native_http_of(llhttp_t *p) { return (wa__native_http_parse *)p; }

/* Refuses the request with status; stops the parser. */
static int wa__native_http_refuse(wa__native_http_parse *p, int status)
{
    p->status = status;
    return HPE_USER;
}

/* Appends n bytes of the head, within its limit (the target's is 414's). */
static int wa__native_http_head_add(wa__native_http_parse *p, const char *at, size_t n, int target)
{
    if (n > p->limits->head_max || p->len + n > p->limits->head_max)
        return wa__native_http_refuse(p, target ? 414 : 431);
    if (p->len + n + 1 > p->cap && wa__grow(&p->buf, 1, &p->cap, p->len + n + 1, 256, (size_t)-1) < 0)
        return wa__native_http_refuse(p, 503);
    memcpy(p->buf + p->len, at, n);
    p->len += n;
    return 0;
}

/* Ends a string of the head (the NUL counts as the ": " or CRLF would). */
static int wa__native_http_head_end(wa__native_http_parse *p) { return wa__native_http_head_add(p, "", 1, 0); }

static int wa__native_http_on_begin(llhttp_t *lp)
{
    wa__native_http_of(lp)->begun = 1;
    return 0;
}

static int wa__native_http_on_url(llhttp_t *lp, const char *at, size_t n)
{
    return wa__native_http_head_add(wa__native_http_of(lp), at, n, 1);
}

static int wa__native_http_on_url_complete(llhttp_t *lp) { return wa__native_http_head_end(wa__native_http_of(lp)); }

static int wa__native_http_on_field(llhttp_t *lp, const char *at, size_t n)
{
    wa__native_http_parse *p = wa__native_http_of(lp);
    if (!p->naming) { /* a field begins */
        if (p->nfields >= p->limits->headers_max)
            return wa__native_http_refuse(p, 431);
        if (p->nfields == p->fcap &&
            wa__grow(&p->fields, sizeof *p->fields, &p->fcap, p->nfields + 1, 16, (size_t)-1) < 0)
            return wa__native_http_refuse(p, 503);
        p->fields[p->nfields++] = (wa__native_http_span){.name = p->len};
        p->naming = 1;
    }
    return wa__native_http_head_add(p, at, n, 0);
}

static int wa__native_http_on_field_complete(llhttp_t *lp)
{
    wa__native_http_parse *p = wa__native_http_of(lp);
    size_t name = p->fields[p->nfields - 1].name;
    /* llhttp 8 passes a space before the colon on as part of the name:
     * RFC 9112 5.1 has a server refuse it (a proxy may read the field
     * otherwise: "content-length :" smuggles a body) */
    if (!wa__http_token_ok(p->buf + name, p->len - name))
        return wa__native_http_refuse(p, 400);
    p->naming = 0;
    int rc = wa__native_http_head_end(p);
    p->fields[p->nfields - 1].value = p->len;
    return rc;
}

static int wa__native_http_on_value(llhttp_t *lp, const char *at, size_t n)
{
    return wa__native_http_head_add(wa__native_http_of(lp), at, n, 0);
}

static int wa__native_http_on_value_complete(llhttp_t *lp)
{
    wa__native_http_parse *p = wa__native_http_of(lp);
    wa__native_http_span *f = &p->fields[p->nfields - 1];
    f->vlen = p->len - f->value;
    return wa__native_http_head_end(p);
}

/* A field's value as the getters give it: a NUL, CR or LF a space (as on
 * every host: http.h), no whitespace at its end. */
static void wa__native_http_value_clean(char *v, size_t *n)
{
    for (size_t i = 0; i < *n; i++)
        if (v[i] == '\0' || v[i] == '\r' || v[i] == '\n')
            v[i] = ' ';
    while (*n && (v[*n - 1] == ' ' || v[*n - 1] == '\t'))
        v[--*n] = '\0';
}

/* The head's strings: the target split into authority and path (an
 * absolute-form target carries its authority), the headers' list, the
 * checks a request's head must pass. Returns 0 or a refusal's status. */
static int wa__native_http_head_make(wa__native_http_parse *p)
{
    char *target = p->buf;
    int hosts = 0;
    p->method = llhttp_method_name((llhttp_method_t)llhttp_get_method(&p->p));
    if (llhttp_get_method(&p->p) == HTTP_CONNECT)
        return 501; /* no tunnels */
    if (p->nfields && !(p->headers = malloc(p->nfields * sizeof *p->headers)))
        return 503;
    for (size_t i = 0; i < p->nfields; i++) {
        wa__native_http_span *f = &p->fields[i];
        char *name = p->buf + f->name, *value = p->buf + f->value;
        for (char *c = name; *c; c++)
            *c = (char)tolower((unsigned char)*c);
        if (!strcmp(name, "host")) {
            if (hosts++ || memchr(value, '\0', f->vlen))
                return 400; /* RFC 9112 3.2: one host, and no C string holds a NUL */
            p->authority = value;
        }
        if (!strcmp(name, "expect") && !strcasecmp(value, "100-continue"))
            p->expect_continue = 1;
        wa__native_http_value_clean(value, &f->vlen);
        p->headers[i] = (wa_http_header){name, value};
    }
    p->nheaders = p->nfields;
    p->minor = llhttp_get_http_minor(&p->p);
    if (llhttp_get_http_major(&p->p) == 1 && p->minor >= 1 && !hosts)
        return 400; /* RFC 9112 3.2: an HTTP/1.1 request without a host */
    char *scheme = strstr(target, "://");
    if (target[0] != '/' && target[0] != '*' && scheme) { /* absolute-form: its authority wins (RFC 9112 3.2.2) */
        char *auth = scheme + 3, *path = strchr(auth, '/');
        size_t n = path ? (size_t)(path - auth) : strlen(auth);
        /* the authority moves to the scheme's place, NUL-terminated there */
        memmove(target, auth, n);
        target[n] = '\0';
        p->authority = target;
        p->path = path ? path : "/";
    } else {
        p->path = target;
    }
    if (!p->authority)
        p->authority = "";
    p->keep_alive = llhttp_should_keep_alive(&p->p) && !llhttp_get_upgrade(&p->p);
    if ((p->p.flags & F_CONTENT_LENGTH) && p->limits->body_max && p->p.content_length > p->limits->body_max)
        return 413;
    return 0;
}

static int wa__native_http_on_headers_complete(llhttp_t *lp)
{
    wa__native_http_parse *p = wa__native_http_of(lp);
    int status = wa__native_http_head_make(p);
    if (status)
        return wa__native_http_refuse(p, status);
    p->state = WA__NATIVE_HTTP_HEAD;
    return HPE_PAUSED;
}

static int wa__native_http_on_body(llhttp_t *lp, const char *at, size_t n)
{
    wa__native_http_parse *p = wa__native_http_of(lp);
    if (p->limits->body_max && p->body_total + n > p->limits->body_max)
        return wa__native_http_refuse(p, 413);
    p->body_total += n;
    if (p->body_off == p->body_len)
        p->body_off = p->body_len = 0;
    if (p->body_len + n > p->body_cap &&
        wa__grow(&p->body, 1, &p->body_cap, p->body_len + n, 4096, (size_t)-1) < 0)
        return wa__native_http_refuse(p, 503);
    memcpy(p->body + p->body_len, at, n);
    p->body_len += n;
    return 0;
}

static int wa__native_http_on_message_complete(llhttp_t *lp)
{
    wa__native_http_of(lp)->state = WA__NATIVE_HTTP_END;
    return HPE_PAUSED;
}

static const llhttp_settings_t wa__native_http_settings = {
    .on_message_begin = wa__native_http_on_begin,
    .on_url = wa__native_http_on_url,
    .on_header_field = wa__native_http_on_field,
    .on_header_value = wa__native_http_on_value,
    .on_headers_complete = wa__native_http_on_headers_complete,
    .on_body = wa__native_http_on_body,
    .on_message_complete = wa__native_http_on_message_complete,
    .on_url_complete = wa__native_http_on_url_complete,
    .on_header_field_complete = wa__native_http_on_field_complete,
    .on_header_value_complete = wa__native_http_on_value_complete,
};

void wa__native_http_parse_init(wa__native_http_parse *p, const wa_http_limits *limits)
{
    memset(p, 0, sizeof *p);
    llhttp_init(&p->p, HTTP_REQUEST, &wa__native_http_settings);
    p->limits = limits;
}

int wa__native_http_parse_feed(wa__native_http_parse *p, const char *data, size_t len, size_t *used)
{
    *used = 0;
    if (p->state == WA__NATIVE_HTTP_ERROR || p->state == WA__NATIVE_HTTP_END)
        return p->state;
    p->state = WA__NATIVE_HTTP_MORE;
    llhttp_errno_t err = llhttp_execute(&p->p, data, len);
    if (err == HPE_OK) {
        *used = len;
        return p->state;
    }
    if (err == HPE_PAUSED) { /* a head or a message ended: the rest waits */
        *used = (size_t)(llhttp_get_error_pos(&p->p) - data);
        llhttp_resume(&p->p);
        return p->state;
    }
    if (err == HPE_PAUSED_UPGRADE) { /* (not taken: the connection closes after it) */
        *used = len;
        return p->state = WA__NATIVE_HTTP_END;
    }
    if (!p->status)
        p->status = 400; /* what llhttp refused: the request's syntax */
    return p->state = WA__NATIVE_HTTP_ERROR;
}

int wa__native_http_parse_started(const wa__native_http_parse *p)
{
    return p->begun && p->state != WA__NATIVE_HTTP_HEAD && !p->method;
}

size_t wa__native_http_parse_body_take(wa__native_http_parse *p, void *buf, size_t cap)
{
    size_t n = p->body_len - p->body_off;
    if (n > cap)
        n = cap;
    if (!n)
        return 0;
    memcpy(buf, p->body + p->body_off, n);
    p->body_off += n;
    return n;
}

void wa__native_http_parse_next(wa__native_http_parse *p)
{
    free(p->headers);
    p->headers = NULL;
    p->nheaders = p->nfields = p->len = 0;
    p->method = p->path = p->authority = NULL;
    p->expect_continue = p->keep_alive = p->begun = p->naming = 0;
    p->body_off = p->body_len = 0;
    p->body_total = 0;
    if (p->state == WA__NATIVE_HTTP_END)
        p->state = WA__NATIVE_HTTP_MORE;
}

void wa__native_http_parse_free(wa__native_http_parse *p)
{
    free(p->headers);
    free(p->buf);
    free(p->fields);
    free(p->body);
}
