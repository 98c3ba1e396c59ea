/* SPDX-License-Identifier: MIT */
/* Internal: Canonical ABI bindings of wasi:http@0.2.12 (types and
 * outgoing-handler). Strings the host returns come back NUL-terminated in
 * malloc'd buffers, lifted by lift.h (what a NUL byte does there is said
 * below); error-codes are mapped to WA_E* codes (their strings freed).
 * Every call that gives or takes a handle keeps wa__wasip2_live exact. */
#ifndef WASYNC_HOST_WASIP2_HTTP_H
#define WASYNC_HOST_WASIP2_HTTP_H

#include <stddef.h>
#include <stdint.h>

#include "../../io/http_url.h"
#include "../../wasi/cabi.h"
#include "wasync/http.h"

/* fields: built from n headers in one call (WA_EINVAL for a name or value
 * the host refuses, WA_ENOMEM); read whole, as one malloc'd block of *n
 * headers with their strings (free() it: the *_header_list calls below), a NUL, CR or LF in them turned
 * into a space (wa__wasip2_lift_fields: 0, WA_E2BIG, WA_ENOMEM). */
int wa__wasip2_fields_from_list(const wa_http_header *h, size_t n, uint32_t *fields);
void wa__wasip2_fields_drop(uint32_t fields);

/* Counts n handles the host gave us (a handler's request and outparam). */
void wa__wasip2_adopt(int n);

/* incoming-request. The method's name is static, or a malloc'd string
 * also in *owned; the path and authority are malloc'd, NULL when absent.
 * Each returns 0, WA_ENOMEM, or WA_EINVAL when the string holds a NUL byte
 * (wa__wasip2_lift_str: the request cannot be served as it was asked). */
int wa__wasip2_request_method(uint32_t req, const char **method, char **owned);
int wa__wasip2_request_path(uint32_t req, char **path);
int wa__wasip2_request_authority(uint32_t req, char **authority);
/* The request's headers, read whole (wa__http_fields_load). */
int wa__wasip2_request_header_list(uint32_t req, wa_http_header **list, size_t *n);
int wa__wasip2_request_consume(uint32_t req, uint32_t *body, uint32_t *stream);
void wa__wasip2_request_drop(uint32_t req);

/* The answer: an outgoing-response with headers (taken) and status, and
 * its outgoing-body; the outparam set (both taken); the body's stream;
 * finish (takes the body) or drop (aborts it). A call that can fail with
 * an error-code says why in why (NULL, or WA_REASON_MAX bytes:
 * wa__wasip2_lift_error_code). */
int wa__wasip2_response_new(uint32_t headers, int status, uint32_t *resp, uint32_t *body);
void wa__wasip2_outparam_set_ok(uint32_t param, uint32_t resp);
void wa__wasip2_outparam_drop(uint32_t param);
int wa__wasip2_body_write(uint32_t body, uint32_t *stream);
int wa__wasip2_body_finish(uint32_t body, char *why);
void wa__wasip2_outgoing_body_drop(uint32_t body);

/* The client: an outgoing-request (takes headers) and its body; send it
 * (takes the request): a future-incoming-response. */
int wa__wasip2_request_new(uint32_t headers, const char *method, const wa__http_url *u,
                      uint32_t *req, uint32_t *body);
int wa__wasip2_http_send(uint32_t req, uint32_t *future, char *why);
uint32_t wa__wasip2_future_subscribe(uint32_t future);
/* 1 with the response in *resp, 0 not yet, < 0 failed. */
int wa__wasip2_future_get(uint32_t future, uint32_t *resp, char *why);
void wa__wasip2_future_drop(uint32_t future);
int wa__wasip2_response_status(uint32_t resp);
int wa__wasip2_response_header_list(uint32_t resp, wa_http_header **list, size_t *n);
int wa__wasip2_response_consume(uint32_t resp, uint32_t *body, uint32_t *stream);
void wa__wasip2_incoming_body_drop(uint32_t body);
void wa__wasip2_incoming_response_drop(uint32_t resp);

#endif
