/* SPDX-License-Identifier: MIT */
/* floor.c with wit-bindgen's C bindings of the world service-p3 in place of
 * the hand-written ones (src/host/wasip3): the same answer, the same calls
 * in the same order, no runtime, so that the host calls per request and
 * the size of the two compare the bindings alone (docs/wasip3.md, "Hand
 * bindings and generated ones"). What the generated API adds is kept: the
 * C structs of a list of headers, of an option and of the results, and the
 * result of response.new read whole. */
#include <stdlib.h>

#include "service_p3.h"

#define P3(name) wasi_http_0_3_0_types_##name
#define BYTES(name) P3(stream_u8_##name)
#define TRAILERS(name) P3(future_result_option_own_trailers_error_code_##name)

static const char msg[] = "hello from wasync\n";

typedef struct floor_call {
    struct floor_call *next;      /* live calls, or the pool's free sets */
    service_p3_waitable_set_t set; /* its own waitable set */
    uint32_t body;                /* the body's writable end, until written whole */
    uint32_t sent;                /* bytes of msg written */
    uint32_t trailers;            /* the trailers' writable end, until written */
    P3(own_request_t) req;        /* the request, dropped at the end as http_hello's */
    P3(result_option_own_trailers_error_code_t) ok; /* ok(none), the trailers' value */
} floor_call;

static floor_call *live, *pool; /* (pool: calls kept for their empty set) */

/* Joins end to c's set and asks to be called back with its event. */
static service_p3_callback_code_t floor_wait(floor_call *c, uint32_t end)
{
    service_p3_waitable_join(end, c->set);
    return SERVICE_P3_CALLBACK_CODE_WAIT(c->set);
}

/* Counts a body write's result r (not BLOCKED); the end goes once the
 * body is whole or the reader is gone (a drop leaves the set). */
static void floor_sent(floor_call *c, service_p3_waitable_status_t r)
{
    c->sent += SERVICE_P3_WAITABLE_COUNT(r);
    if (c->sent == sizeof msg - 1 || SERVICE_P3_WAITABLE_STATE(r) != SERVICE_P3_WAITABLE_COMPLETED) {
        BYTES(drop_writable)(c->body);
        c->body = 0;
    }
}

/* Goes on with c: writes the rest of the body, then the trailers, then
 * ends the call (its set, empty again, back to the pool). */
static service_p3_callback_code_t floor_step(floor_call *c)
{
    while (c->body) {
        service_p3_waitable_status_t r =
            BYTES(write)(c->body, (const uint8_t *)msg + c->sent, sizeof msg - 1 - c->sent);
        if (r == SERVICE_P3_WAITABLE_STATUS_BLOCKED)
            return floor_wait(c, c->body);
        floor_sent(c, r);
    }
    if (c->trailers) {
        if (TRAILERS(write)(c->trailers, &c->ok) == SERVICE_P3_WAITABLE_STATUS_BLOCKED)
            return floor_wait(c, c->trailers);
        TRAILERS(drop_writable)(c->trailers);
        c->trailers = 0;
    }
    P3(request_drop_own)(c->req);
    floor_call **p = &live;
    while (*p != c)
        p = &(*p)->next;
    *p = c->next;
    c->next = pool;
    pool = c;
    return SERVICE_P3_CALLBACK_CODE_EXIT;
}

/* A list of one header for fields.from-list. */
static P3(list_tuple2_field_name_field_value_t) floor_headers(void)
{
    static char name[] = "content-type", value[] = "text/plain";
    static P3(tuple2_field_name_field_value_t) type = {
        {(uint8_t *)name, sizeof name - 1}, {(uint8_t *)value, sizeof value - 1}};
    return (P3(list_tuple2_field_name_field_value_t)){&type, 1};
}

service_p3_callback_code_t exports_wasi_http_0_3_0_handler_handle(P3(own_request_t) req)
{
    P3(list_tuple2_field_name_field_value_t) list = floor_headers();
    exports_wasi_http_0_3_0_handler_result_own_response_error_code_t answer = {0};
    P3(own_fields_t) fields;
    P3(header_error_t) bad;
    service_p3_string_t path; /* read, as a server that routes must; every path gets the answer */
    floor_call *c = pool;
    if (P3(method_request_get_path_with_query)(P3(borrow_request)(req), &path))
        service_p3_string_free(&path);
    if (c)
        pool = c->next;
    else if ((c = calloc(1, sizeof *c)) != NULL)
        c->set = service_p3_waitable_set_new();
    if (!c || !P3(static_fields_from_list)(&list, &fields, &bad)) {
        if (c) { /* back to the pool, with its set */
            P3(header_error_free)(&bad);
            c->next = pool;
            pool = c;
        }
        P3(request_drop_own)(req);
        answer.is_err = true; /* the host answers */
        answer.val.err.tag = WASI_HTTP_0_3_0_TYPES_ERROR_CODE_INTERNAL_ERROR;
        exports_wasi_http_0_3_0_handler_handle_return(answer);
        return SERVICE_P3_CALLBACK_CODE_EXIT;
    }
    P3(stream_u8_t) bytes = BYTES(new)(&c->body);
    P3(future_result_option_own_trailers_error_code_t) trailers = TRAILERS(new)(&c->trailers);
    P3(tuple2_own_response_future_result_void_error_code_t) made;
    P3(static_response_new)(fields, &bytes, trailers, &made);
    P3(future_result_void_error_code_drop_readable)(made.f1); /* (how the host sent it: not asked) */
    c->sent = 0;
    c->req = req;
    c->ok = (P3(result_option_own_trailers_error_code_t)){0}; /* ok(none) */
    c->next = live;
    live = c;
    /* The body's write goes first: the host finds it waiting when it reads. */
    service_p3_waitable_status_t r = BYTES(write)(c->body, (const uint8_t *)msg, sizeof msg - 1);
    answer.val.ok = made.f0;
    exports_wasi_http_0_3_0_handler_handle_return(answer);
    if (r == SERVICE_P3_WAITABLE_STATUS_BLOCKED)
        return floor_wait(c, c->body);
    floor_sent(c, r);
    return floor_step(c);
}

service_p3_callback_code_t exports_wasi_http_0_3_0_handler_handle_callback(service_p3_event_t *event)
{
    floor_call *c = live; /* (no CANCEL: the call returned before waiting) */
    while (c && c->body != event->waitable && c->trailers != event->waitable)
        c = c->next;
    if (!c)
        abort(); /* an event of no call of ours: a host bug */
    if (event->event == SERVICE_P3_EVENT_STREAM_WRITE) {
        floor_sent(c, event->code); /* (a rest is written joined: async copies may be) */
    } else if (event->event == SERVICE_P3_EVENT_FUTURE_WRITE) {
        TRAILERS(drop_writable)(c->trailers);
        c->trailers = 0;
    }
    return floor_step(c);
}
