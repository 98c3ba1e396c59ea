/* SPDX-License-Identifier: MIT */
/* floor.c with wit-bindgen's C bindings of the world proxy in place of the
 * hand-written ones (src/host/wasip2): the same answer, the same calls in
 * the same order, no runtime, so that the host calls per request and the
 * size of the two compare the bindings alone (docs/wasip3.md, "Hand
 * bindings and generated ones"). What the generated API adds is kept: the
 * C structs of a list of headers, of an option and of the results, and
 * each error's free. */
#include <stdlib.h>

#include "proxy.h"

#define P2(name) wasi_http_0_2_12_types_##name
#define IO(name) wasi_io_streams_##name

static const char msg[] = "hello from wasync\n";

/* Writes the body and finishes it (a failure leaves the host to end the
 * answer it has). */
static void floor_body(P2(own_outgoing_body_t) body)
{
    IO(own_output_stream_t) out;
    IO(stream_error_t) err;
    P2(error_code_t) why;
    uint64_t room;
    bool ok = false;
    if (!P2(method_outgoing_body_write)(P2(borrow_outgoing_body)(body), &out)) {
        P2(outgoing_body_drop_own)(body);
        return;
    }
    if (!IO(method_output_stream_check_write)(IO(borrow_output_stream)(out), &room, &err)) {
        IO(stream_error_free)(&err);
    } else if (room >= sizeof msg - 1) {
        proxy_list_u8_t bytes = {(uint8_t *)msg, sizeof msg - 1};
        if (!(ok = IO(method_output_stream_blocking_write_and_flush)(IO(borrow_output_stream)(out), &bytes, &err)))
            IO(stream_error_free)(&err);
    }
    IO(output_stream_drop_own)(out); /* the stream goes before its body */
    if (!ok)
        P2(outgoing_body_drop_own)(body);
    else if (!P2(static_outgoing_body_finish)(body, NULL, &why))
        P2(error_code_free)(&why);
}

void exports_wasi_http_0_2_12_incoming_handler_handle(P2(own_incoming_request_t) req,
                                                      P2(own_response_outparam_t) outparam)
{
    static char name[] = "content-type", value[] = "text/plain";
    P2(tuple2_field_name_field_value_t) type = {{(uint8_t *)name, sizeof name - 1},
                                               {(uint8_t *)value, sizeof value - 1}};
    P2(list_tuple2_field_name_field_value_t) list = {&type, 1};
    P2(result_own_outgoing_response_error_code_t) answer = {0};
    P2(own_fields_t) fields;
    P2(header_error_t) bad;
    P2(own_outgoing_body_t) body;
    proxy_string_t path; /* read, as a server that routes must; every path gets the answer */
    if (P2(method_incoming_request_path_with_query)(P2(borrow_incoming_request)(req), &path))
        proxy_string_free(&path);
    if (!P2(static_fields_from_list)(&list, &fields, &bad)) {
        P2(header_error_free)(&bad);
        P2(response_outparam_drop_own)(outparam); /* the host answers */
    } else {
        answer.val.ok = P2(constructor_outgoing_response)(fields);
        if (!P2(method_outgoing_response_body)(P2(borrow_outgoing_response)(answer.val.ok), &body)) {
            P2(outgoing_response_drop_own)(answer.val.ok);
            P2(response_outparam_drop_own)(outparam);
        } else {
            P2(static_response_outparam_set)(outparam, &answer);
            floor_body(body);
        }
    }
    P2(incoming_request_drop_own)(req);
}
