/* SPDX-License-Identifier: MIT */
/* Internal: Canonical ABI bindings of wasi:http@0.3.0 (types, client.send,
 * the handler's task.return). Strings and error-codes are lifted as for
 * 0.2 (lift.h). Resource handles held (fields, request, response) are
 * counted in wa__wasip3_resources; stream and future ends in wa__wasip3_live_ends
 * by whoever takes them (an end made here and handed to the host at once
 * is never counted). */
#ifndef WASYNC_HOST_WASIP3_HTTP_H
#define WASYNC_HOST_WASIP3_HTTP_H

#include <stddef.h>
#include <stdint.h>

#include "../../io/http_url.h"
#include "../../wasi/cabi.h"
#include "builtins.h"
#include "wasync/http.h"

/* The types' built-ins: stream<u8>, future<result<option<trailers>,
 * error-code>> and future<result<_, error-code>>. */
extern const struct wa_wasip3_stream_type wa__wasip3_http_bytes;
extern const struct wa_wasip3_future_type wa__wasip3_http_trailers;
extern const struct wa_wasip3_future_type wa__wasip3_http_result;

/* The values those futures carry, in memory (40 bytes, 8-aligned): a tag
 * at 0, the payload at 8 (ok: option<trailers>; err: an error-code). */
typedef struct wa__wasip3_http_value {
    _Alignas(8) unsigned char b[40];
} wa__wasip3_http_value;
/* ok(none), or err(internal-error(none)) when failed. */
void wa__wasip3_http_value_set(wa__wasip3_http_value *v, int failed);

/* Writes ok(none) (or, failed, an error) into the writable end of a
 * future of type t at once and drops it: 0, or WA_EAGAIN when no reader
 * took it yet (the write is cancelled and the end kept: the spec traps on
 * dropping a writable end that wrote nothing). Where a task can wait, use
 * wa_wasip3_future_write_init. */
int wa__wasip3_future_finish(const struct wa_wasip3_future_type *t, uint32_t end, int failed);

/* A new fields from n headers: 0, WA_EINVAL (refused), WA_ENOMEM. */
int wa__wasip3_fields_from_list(const wa_http_header *h, size_t n, uint32_t *fields);

/* A request's or response's headers, read whole (wa__http_fields_load). */
int wa__wasip3_request_header_list(uint32_t req, wa_http_header **list, size_t *n);
int wa__wasip3_response_header_list(uint32_t resp, wa_http_header **list, size_t *n);

/* The request line, as wa__wasip2_request_method and friends
 * (src/host/wasip2/http.h). */
int wa__wasip3_request_method(uint32_t req, const char **method, char **owned);
int wa__wasip3_request_path(uint32_t req, char **path);
int wa__wasip3_request_authority(uint32_t req, char **authority);

/* consume-body of a request or response (taken) with res, the readable end
 * of our result future (taken): its body's readable end and its trailers'
 * future, both owned (not counted). */
void wa__wasip3_request_consume_body(uint32_t req, uint32_t res, uint32_t *body, uint32_t *trailers);
void wa__wasip3_response_consume_body(uint32_t resp, uint32_t res, uint32_t *body, uint32_t *trailers);
void wa__wasip3_request_drop(uint32_t req);
void wa__wasip3_response_drop(uint32_t resp);

/* A new response with headers (taken), contents (a readable end, taken; 0:
 * none) and trailers (a readable end, taken), and status: 0 with the
 * response and the readable end of the host's result future (owned, not
 * counted), or WA_EINVAL for a status the host refuses (both dropped). */
int wa__wasip3_response_new(uint32_t headers, uint32_t contents, uint32_t trailers, int status, uint32_t *resp,
                       uint32_t *result);
int wa__wasip3_response_status(uint32_t resp);

/* A new request as wa__wasip3_response_new, with the method, scheme, authority
 * and path set: 0, or WA_EINVAL (a part refused: dropped then). */
int wa__wasip3_request_new(uint32_t headers, uint32_t contents, uint32_t trailers, const char *method,
                      const wa__http_url *u, uint32_t *req, uint32_t *result);

/* The result_error of a body's stream (stream.h) for its trailers'
 * future<result<option<trailers>, error-code>> at value: the error-code
 * (the host's words in why: a body cut short, a bad length), or 0, the
 * trailers dropped unread. */
int wa__wasip3_http_trailers_error(const unsigned char *value, int dir, char *why);

/* client.send, async-lowered: takes req; the result<response,
 * error-code> goes to ret (an area given to the call's wa_subtask). Returns
 * the packed state | subtask << 4 (wa_subtask_init). */
uint32_t wa__wasip3_client_send(uint32_t req, wa__wasip3_http_value *ret);
/* The send's result at ret: 0 with the response (owned), or the error
 * and why (NULL, or WA_REASON_MAX bytes: wa__wasip2_lift_error_code). */
int wa__wasip3_client_result(wa__wasip3_http_value *ret, uint32_t *resp, char *why);
/* The late hook of a send's area (a wa__wasip3_http_value: wa_subtask_area_new):
 * once the host's write of a cancelled send's result is whole, drops the
 * response or frees the error's string and returns 1; else 0. */
int wa__wasip3_client_late(void *area);

/* handler.handle's task.return of ok(resp) (taken). */
void wa__wasip3_handler_return(uint32_t resp);
/* ...or of err(internal-error(none)): no response at all. */
void wa__wasip3_handler_return_error(void);

#endif
