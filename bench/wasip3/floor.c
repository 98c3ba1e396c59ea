/* SPDX-License-Identifier: MIT */
/* The host floor for HTTP on WASI 0.3: a wasi:http/handler@0.3.0 component
 * that answers every request as examples/http_hello.c answers "/" (200,
 * content-type: text/plain, "hello from wasync\n") with the raw bindings
 * (src/host/wasip3/http.h, builtins.h) and no runtime: handle is lifted async
 * with a callback written here against the Canonical ABI. The call makes the
 * response, starts its body's write and returns the response (task.return),
 * then ends the body and writes its trailers future ok(none), each at once
 * or, when the host is not reading yet, after the event its callback gets. It
 * reads the path, as any server that routes must (http_hello does). The write
 * goes before task.return, as http_hello's does: preview3-shim then finds it
 * waiting when it reads (docs/http.md, "The floor on WASI 0.3").
 *
 * The fewest host calls the semantics allow: each call waits on a set of
 * its own, so that its events reach its own task (an event of a shared set
 * goes to any task waiting on it), taken from a pool of empty sets made
 * once; the callback finds the call by the event's waitable, with no
 * context slot. What is left of a request's cost is the host's. */
#include <stdlib.h>

#include "builtins.h"
#include "http.h"

#define HANDLE "wasi:http/handler@0.3.0#handle"

static const char msg[] = "hello from wasync\n";

typedef struct floor_call {
    struct floor_call *next; /* live calls, or the pool's free sets */
    uint32_t set;            /* its own waitable set */
    uint32_t body;           /* the body's writable end, until written whole */
    uint32_t sent;           /* bytes of msg written */
    uint32_t trailers;       /* the trailers' writable end, until written */
    uint32_t req;            /* the request, dropped at the end as http_hello's */
    wa__wasip3_http_value ok;     /* ok(none), the trailers' value */
} floor_call;

static floor_call *live, *pool; /* (pool: calls kept for their empty set) */

/* Joins end to c's set and asks to be called back with its event. */
static uint32_t floor_wait(floor_call *c, uint32_t end)
{
    wa__wasip3_waitable_join(end, c->set);
    return wa__wasip3_callback_wait(c->set);
}

/* Counts a body write's result r (not BLOCKED); the end goes once the
 * body is whole or the reader is gone (a drop leaves the set). */
static void floor_sent(floor_call *c, uint32_t r)
{
    c->sent += wa__wasip3_copy_count(r);
    if (c->sent == sizeof msg - 1 || wa__wasip3_copy_status(r) != WA__WASIP3_COPY_COMPLETED) {
        wa__wasip3_http_bytes.drop_writable(c->body);
        c->body = 0;
    }
}

/* Goes on with c: writes the rest of the body, then the trailers, then
 * ends the call (its set, empty again, back to the pool). */
static uint32_t floor_step(floor_call *c)
{
    while (c->body) {
        uint32_t r = wa__wasip3_http_bytes.write(c->body, msg + c->sent, sizeof msg - 1 - c->sent);
        if (r == WA__WASIP3_BLOCKED)
            return floor_wait(c, c->body);
        floor_sent(c, r);
    }
    if (c->trailers) {
        uint32_t r = wa__wasip3_http_trailers.write(c->trailers, &c->ok);
        if (r == WA__WASIP3_BLOCKED)
            return floor_wait(c, c->trailers);
        wa__wasip3_http_trailers.drop_writable(c->trailers);
        c->trailers = 0;
    }
    wa__wasip3_request_drop(c->req);
    floor_call **p = &live;
    while (*p != c)
        p = &(*p)->next;
    *p = c->next;
    c->next = pool;
    pool = c;
    return WA__WASIP3_CALLBACK_EXIT;
}

__attribute__((export_name("[async-lift]" HANDLE))) uint32_t floor_handle(uint32_t req);
uint32_t floor_handle(uint32_t req)
{
    static const wa_http_header type[] = {{"content-type", "text/plain"}};
    floor_call *c = pool;
    char *path; /* read, as a server that routes must; every path gets the answer */
    uint32_t fields, resp, result;
    if (wa__wasip3_request_path(req, &path) == 0)
        free(path);
    if (c)
        pool = c->next;
    else if ((c = calloc(1, sizeof *c)) != NULL)
        c->set = wa__wasip3_waitable_set_new();
    if (!c || wa__wasip3_fields_from_list(type, 1, &fields) < 0) {
        free(c); /* (never with a set: a pooled one has fields) */
        wa__wasip3_request_drop(req);
        wa__wasip3_handler_return_error(); /* the host answers */
        return WA__WASIP3_CALLBACK_EXIT;
    }
    uint64_t bytes = wa__wasip3_http_bytes.new_(), trailers = wa__wasip3_http_trailers.new_();
    wa__wasip3_response_new(fields, (uint32_t)bytes, (uint32_t)trailers, 200, &resp, &result);
    wa__wasip3_http_result.drop_readable(result); /* (how the host sent it: not asked) */
    c->body = (uint32_t)(bytes >> 32);
    c->trailers = (uint32_t)(trailers >> 32);
    c->sent = 0;
    c->req = req;
    wa__wasip3_http_value_set(&c->ok, 0);
    c->next = live;
    live = c;
    /* The body's write goes first: the host finds it waiting when it reads. */
    uint32_t r = wa__wasip3_http_bytes.write(c->body, msg, sizeof msg - 1);
    wa__wasip3_handler_return(resp);
    if (r == WA__WASIP3_BLOCKED)
        return floor_wait(c, c->body);
    floor_sent(c, r);
    return floor_step(c);
}

__attribute__((export_name("[callback][async-lift]" HANDLE))) uint32_t floor_callback(uint32_t event, uint32_t p1,
                                                                                      uint32_t p2);
uint32_t floor_callback(uint32_t event, uint32_t p1, uint32_t p2)
{
    floor_call *c = live; /* (no TASK_CANCELLED: the call returned before waiting) */
    while (c && c->body != p1 && c->trailers != p1)
        c = c->next;
    if (!c)
        abort(); /* an event of no call of ours: a host bug */
    if (event == WA__WASIP3_EVENT_STREAM_WRITE) {
        floor_sent(c, p2); /* (a rest is written joined: async copies may be) */
    } else if (event == WA__WASIP3_EVENT_FUTURE_WRITE) {
        wa__wasip3_http_trailers.drop_writable(c->trailers);
        c->trailers = 0;
    }
    return floor_step(c);
}
