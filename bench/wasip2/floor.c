/* SPDX-License-Identifier: MIT */
/* The host floor for HTTP under jco serve: a wasi:http/proxy component
 * that answers every request as examples/http_hello.c answers "/"
 * (200, content-type: text/plain, "hello from wasync\n") with the raw
 * bindings (src/host/wasip2/http.h, io.h) and no runtime: the response
 * built and its body written synchronously in the export call, with the
 * fewest host
 * calls the semantics allow. It reads the path, as any server that routes
 * must (http_hello does), and checks the room before its one
 * blocking-write-and-flush, as a writer that must not block does. What is
 * left of a request's cost is the host's. */
#include <stdlib.h>
#include <string.h>

#include "http.h"
#include "io.h"

static const char msg[] = "hello from wasync\n";

/* Writes the body and finishes it: 0 or a negative code. */
static int floor_body(uint32_t body)
{
    uint32_t out;
    uint64_t room;
    int rc = wa__wasip2_body_write(body, &out);
    if (rc < 0)
        return rc;
    if ((rc = wa__wasip2_check_write(out, &room)) == 0)
        rc = room < sizeof msg - 1 ? WA_EAGAIN : wa__wasip2_write_flush(out, msg, sizeof msg - 1);
    wa__wasip2_output_drop(out); /* the stream goes before its body */
    if (rc < 0)
        return wa__wasip2_outgoing_body_drop(body), rc;
    return wa__wasip2_body_finish(body, NULL);
}

__attribute__((export_name("wasi:http/incoming-handler@0.2.12#handle"))) void floor_handle(uint32_t req,
                                                                                           uint32_t outparam);
void floor_handle(uint32_t req, uint32_t outparam)
{
    static const wa_http_header type[] = {{"content-type", "text/plain"}};
    uint32_t fields, resp, body;
    char *path; /* read, as a server that routes must; every path gets the answer */
    wa__wasip2_adopt(2);
    if (wa__wasip2_request_path(req, &path) == 0)
        free(path);
    if (wa__wasip2_fields_from_list(type, 1, &fields) < 0 || wa__wasip2_response_new(fields, 200, &resp, &body) < 0) {
        wa__wasip2_outparam_drop(outparam); /* the host answers */
    } else {
        wa__wasip2_outparam_set_ok(outparam, resp);
        floor_body(body);
    }
    wa__wasip2_request_drop(req);
}
