/* Internal: the Canonical ABI bindings of wasi:http@0.2.12 that a server
 * needs to answer (types: fields, outgoing-response, outgoing-body,
 * response-outparam, incoming-request). */
#ifndef WASYNC_WASI_HTTP_H
#define WASYNC_WASI_HTTP_H

#include <stdint.h>

uint32_t wa_p2_fields_new(void);
uint32_t wa_p2_response_new(uint32_t headers); /* takes headers */
int wa_p2_response_set_status(uint32_t resp, uint16_t status);
int wa_p2_response_body(uint32_t resp, uint32_t *body);
int wa_p2_body_write(uint32_t body, uint32_t *stream);
int wa_p2_body_finish(uint32_t body); /* takes body; no trailers */
void wa_p2_outparam_set_ok(uint32_t param, uint32_t resp); /* takes both */
void wa_p2_request_drop(uint32_t req);
/* Counts n handles the host gave us (a handler's request and outparam). */
void wa_p2_adopt(int n);
/* The request's path and query, in a cabi_realloc buffer the caller frees
 * (NULL when it has none). */
char *wa_p2_request_path(uint32_t req, uint32_t *len);

/* The client side (wasi:http/outgoing-handler). */
/* A GET request for http://authority/path (fields and request made here). */
int wa_p2_request_get(const char *authority, const char *path, uint32_t *req);
/* Sends req (taken): a future-incoming-response handle. */
int wa_p2_http_send(uint32_t req, uint32_t *future);
uint32_t wa_p2_future_subscribe(uint32_t future);
/* 1 with the response in *resp, 0 not yet, < 0 failed. */
int wa_p2_future_get(uint32_t future, uint32_t *resp);
void wa_p2_future_drop(uint32_t future);
int wa_p2_response_status(uint32_t resp);
int wa_p2_response_consume(uint32_t resp, uint32_t *body, uint32_t *stream);
void wa_p2_incoming_body_drop(uint32_t body);
void wa_p2_incoming_response_drop(uint32_t resp);

#endif
