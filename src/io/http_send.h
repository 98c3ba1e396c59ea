/* SPDX-License-Identifier: MIT */
/* Internal: what every host's HTTP client shares (http_send.c). The send
 * future checks the request and leaves the rest to its host's
 * wa__http_client_host (src/host/: wasip2/http_client.c,
 * wasip3/http_client.c, native/http.c, js/http.c: one links); the
 * response's getters read the head that every host's struct
 * wa_http_response begins with. */
#ifndef WASYNC_IO_HTTP_SEND_H
#define WASYNC_IO_HTTP_SEND_H


#include "http_fields.h"
#include "http_url.h"
#include "reason.h"
#include "wasync/http.h"

/* A send's steps; a host with more than one step counts them from
 * WA__SEND_RUN. */
enum { WA__SEND_START, WA__SEND_DONE, WA__SEND_RUN };

/* What every host's response begins with. */
typedef struct wa__http_response_head {
    int status;
    wa_stream *body;          /* NULL once the host let it go */
    wa__http_fields fields;    /* loaded from owner by load on first use */
    wa__http_fields_load load; /* (NULL: fields loaded from the start) */
    uint32_t owner;
} wa__http_response_head;

/* What a host does of a send. */
typedef struct wa__http_client_ops {
    /* Starts s (step WA__SEND_RUN) on rt for its checked request, split
     * into u with its method (both borrowed): 0, or an error. What it
     * made is in s->call either way, for call_free. */
    int (*start)(wa_http_send *s, wa_rt *rt, const wa__http_url *u, const char *method);
    /* Polls a started s: WA_PENDING, an error, or 0 with s->response (a
     * new response, no longer in the call). start and run say why they
     * failed in s->reason, in the host's words, when it has any. */
    int (*run)(wa_http_send *s, wa_cx *cx);
    /* Frees s->call (not NULL) with whatever it still holds. */
    void (*call_free)(wa_http_send *s);
} wa__http_client_ops;

extern const wa__http_client_ops wa__http_client_host;

/* Frees response r (taken; NULL: nothing) with what it holds: the host's
 * (the same files of src/host/). A user's handle to a response is a key
 * of the handle table (core/handles.h), which wa_http_response_free looks
 * up before it calls this. */
void wa__http_response_release(wa_http_response *r);

/* A fetch's read of its body, the host's: http_body_read.c's reads the
 * response's body stream (wa_read_all in f->body); the JS host's appends
 * the glue's chunks itself (js/http.c), so that a module that reads no
 * stream carries none. start begins it once f->response is there; poll
 * gives WA_PENDING, 0 with f->data (f->len bytes and a NUL, at most
 * f->max: WA_E2BIG past it), or an error with the host's words for it in
 * f->send's reason ("" if it has none); drop ends it unfinished (what was
 * read goes too). */
void wa__http_fetch_body_start(wa_http_fetch *f);
int wa__http_fetch_body_poll(wa_http_fetch *f, wa_cx *cx);
void wa__http_fetch_body_drop(wa_http_fetch *f);

/* Sets s's reason to len bytes of text (reason.h: cut to fit). (Inline:
 * the hosts' files call it, and this front end's calls run down to
 * them.) */
static inline void wa__http_reason_set(wa_http_send *s, const char *text, size_t len)
{
    wa__reason_set(s->reason, NULL, text, len);
}

#endif
