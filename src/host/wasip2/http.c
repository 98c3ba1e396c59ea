/* SPDX-License-Identifier: MIT */
/* wasi:http/types and wasi:http/outgoing-handler (see http.h). Layouts
 * follow the Canonical ABI: a variant's payload sits at its alignment past
 * the tag, and error-code aligns its payload to 8 (its option<u64>s). */
#include <stdlib.h>
#include <string.h>

#include "../../wasi/cabi.h"
#include "../../wasi/lift.h"
#include "http.h"
#include "io.h"

#define WA__WASIP2_HTTP_TYPES "wasi:http/types@0.2.12"
#define I32 int32_t
#define ADDR(p) ((I32)(uintptr_t)(p))

WA__WASI_IMPORT(WA__WASIP2_HTTP_TYPES, "[static]fields.from-list") void wa__wasip2_imp_http_fields_from_list(I32, I32, I32);
WA__WASI_IMPORT(WA__WASIP2_HTTP_TYPES, "[method]fields.entries") void wa__wasip2_imp_http_fields_entries(I32, I32);
WA__WASI_IMPORT(WA__WASIP2_HTTP_TYPES, "[resource-drop]fields") void wa__wasip2_imp_http_fields_drop(I32);
WA__WASI_IMPORT(WA__WASIP2_HTTP_TYPES, "[method]incoming-request.method") void wa__wasip2_imp_http_request_method(I32, I32);
WA__WASI_IMPORT(WA__WASIP2_HTTP_TYPES, "[method]incoming-request.path-with-query") void wa__wasip2_imp_http_request_path(I32, I32);
WA__WASI_IMPORT(WA__WASIP2_HTTP_TYPES, "[method]incoming-request.authority") void wa__wasip2_imp_http_request_authority(I32, I32);
WA__WASI_IMPORT(WA__WASIP2_HTTP_TYPES, "[method]incoming-request.headers") I32 wa__wasip2_imp_http_request_headers(I32);
WA__WASI_IMPORT(WA__WASIP2_HTTP_TYPES, "[method]incoming-request.consume") void wa__wasip2_imp_http_request_consume(I32, I32);
WA__WASI_IMPORT(WA__WASIP2_HTTP_TYPES, "[resource-drop]incoming-request") void wa__wasip2_imp_http_request_drop(I32);
WA__WASI_IMPORT(WA__WASIP2_HTTP_TYPES, "[constructor]outgoing-response") I32 wa__wasip2_imp_http_response_new(I32);
WA__WASI_IMPORT(WA__WASIP2_HTTP_TYPES, "[method]outgoing-response.set-status-code") I32 wa__wasip2_imp_http_set_status(I32, I32);
WA__WASI_IMPORT(WA__WASIP2_HTTP_TYPES, "[method]outgoing-response.body") void wa__wasip2_imp_http_response_body(I32, I32);
WA__WASI_IMPORT(WA__WASIP2_HTTP_TYPES, "[resource-drop]outgoing-response") void wa__wasip2_imp_http_outgoing_response_drop(I32);
WA__WASI_IMPORT(WA__WASIP2_HTTP_TYPES, "[static]response-outparam.set") void wa__wasip2_imp_http_outparam_set(I32, I32, I32, I32, int64_t, I32, I32, I32, I32);
WA__WASI_IMPORT(WA__WASIP2_HTTP_TYPES, "[resource-drop]response-outparam") void wa__wasip2_imp_http_outparam_drop(I32);
WA__WASI_IMPORT(WA__WASIP2_HTTP_TYPES, "[method]outgoing-body.write") void wa__wasip2_imp_http_body_write(I32, I32);
WA__WASI_IMPORT(WA__WASIP2_HTTP_TYPES, "[static]outgoing-body.finish") void wa__wasip2_imp_http_body_finish(I32, I32, I32, I32);
WA__WASI_IMPORT(WA__WASIP2_HTTP_TYPES, "[resource-drop]outgoing-body") void wa__wasip2_imp_http_outgoing_body_drop(I32);
WA__WASI_IMPORT(WA__WASIP2_HTTP_TYPES, "[constructor]outgoing-request") I32 wa__wasip2_imp_http_request_new(I32);
WA__WASI_IMPORT(WA__WASIP2_HTTP_TYPES, "[method]outgoing-request.set-method") I32 wa__wasip2_imp_http_set_method(I32, I32, I32, I32);
WA__WASI_IMPORT(WA__WASIP2_HTTP_TYPES, "[method]outgoing-request.set-scheme") I32 wa__wasip2_imp_http_set_scheme(I32, I32, I32, I32, I32);
WA__WASI_IMPORT(WA__WASIP2_HTTP_TYPES, "[method]outgoing-request.set-authority") I32 wa__wasip2_imp_http_set_authority(I32, I32, I32, I32);
WA__WASI_IMPORT(WA__WASIP2_HTTP_TYPES, "[method]outgoing-request.set-path-with-query") I32 wa__wasip2_imp_http_set_path(I32, I32, I32, I32);
WA__WASI_IMPORT(WA__WASIP2_HTTP_TYPES, "[method]outgoing-request.body") void wa__wasip2_imp_http_request_body(I32, I32);
WA__WASI_IMPORT(WA__WASIP2_HTTP_TYPES, "[resource-drop]outgoing-request") void wa__wasip2_imp_http_request_out_drop(I32);
WA__WASI_IMPORT(WA__WASIP2_HTTP_TYPES, "[method]future-incoming-response.subscribe") I32 wa__wasip2_imp_http_future_subscribe(I32);
WA__WASI_IMPORT(WA__WASIP2_HTTP_TYPES, "[method]future-incoming-response.get") void wa__wasip2_imp_http_future_get(I32, I32);
WA__WASI_IMPORT(WA__WASIP2_HTTP_TYPES, "[resource-drop]future-incoming-response") void wa__wasip2_imp_http_future_drop(I32);
WA__WASI_IMPORT(WA__WASIP2_HTTP_TYPES, "[method]incoming-response.status") I32 wa__wasip2_imp_http_response_status(I32);
WA__WASI_IMPORT(WA__WASIP2_HTTP_TYPES, "[method]incoming-response.headers") I32 wa__wasip2_imp_http_response_headers(I32);
WA__WASI_IMPORT(WA__WASIP2_HTTP_TYPES, "[method]incoming-response.consume") void wa__wasip2_imp_http_response_consume(I32, I32);
WA__WASI_IMPORT(WA__WASIP2_HTTP_TYPES, "[method]incoming-body.stream") void wa__wasip2_imp_http_body_stream(I32, I32);
WA__WASI_IMPORT(WA__WASIP2_HTTP_TYPES, "[resource-drop]incoming-body") void wa__wasip2_imp_http_incoming_body_drop(I32);
WA__WASI_IMPORT(WA__WASIP2_HTTP_TYPES, "[resource-drop]incoming-response") void wa__wasip2_imp_http_incoming_response_drop(I32);
WA__WASI_IMPORT("wasi:http/outgoing-handler@0.2.12", "handle")
void wa__wasip2_imp_http_handle(I32, I32, I32, I32);

/* result<own<T>, E> with E at most 4 bytes: a tag byte, the handle at 4. */
static int wa__wasip2_handle_result(const unsigned char *ret, uint32_t *h)
{
    if (ret[0])
        return WA_EIO;
    memcpy(h, ret + 4, 4);
    wa__wasip2_live++;
    return 0;
}

/* ---- fields ---- */

int wa__wasip2_fields_from_list(const wa_http_header *h, size_t n, uint32_t *fields)
{
    uint32_t *list = wa__wasip2_lower_fields(h, n);
    if (!list)
        return WA_ENOMEM;
    _Alignas(4) unsigned char ret[8];
    wa__wasip2_imp_http_fields_from_list(ADDR(list), (I32)n, ADDR(ret));
    free(list);
    return wa__wasip2_handle_result(ret, fields) < 0 ? WA_EINVAL : 0;
}

static int wa__wasip2_fields_entries(uint32_t fields, wa_http_header **out, size_t *n)
{
    uint32_t ret[2] __attribute__((aligned(4)));
    wa__wasip2_imp_http_fields_entries((I32)fields, ADDR(ret));
    /* list<tuple<string, list<u8>>>: on wasm32, (name, value) wa__wasip2_strs */
    int rc = wa__wasip2_lift_fields((wa__wasip2_str *)(uintptr_t)ret[0], ret[1], out);
    *n = rc < 0 ? 0 : ret[1];
    return rc;
}

void wa__wasip2_fields_drop(uint32_t fields)
{
    wa__wasip2_live--;
    wa__wasip2_imp_http_fields_drop((I32)fields);
}

/* ---- the server side ---- */

void wa__wasip2_adopt(int n) { wa__wasip2_live += n; }

int wa__wasip2_request_method(uint32_t req, const char **method, char **owned)
{
    _Alignas(4) unsigned char ret[12];
    wa__wasip2_imp_http_request_method((I32)req, ADDR(ret));
    return wa__wasip2_lift_method(ret, method, owned);
}

/* An incoming-request's option<string> (imp) as *out. */
static int wa__wasip2_request_str(void (*imp)(I32, I32), uint32_t req, char **out)
{
    _Alignas(4) unsigned char ret[12];
    imp((I32)req, ADDR(ret));
    return wa__wasip2_lift_option_str(ret, out);
}

int wa__wasip2_request_path(uint32_t req, char **path)
{
    return wa__wasip2_request_str(wa__wasip2_imp_http_request_path, req, path);
}

int wa__wasip2_request_authority(uint32_t req, char **authority)
{
    return wa__wasip2_request_str(wa__wasip2_imp_http_request_authority, req, authority);
}

/* The entries of a child fields handle (headers), dropped after. */
static int wa__wasip2_header_list(I32 (*headers)(I32), uint32_t owner, wa_http_header **list, size_t *n)
{
    uint32_t h = (uint32_t)headers((I32)owner);
    wa__wasip2_live++;
    int rc = wa__wasip2_fields_entries(h, list, n);
    wa__wasip2_fields_drop(h);
    return rc;
}

int wa__wasip2_request_header_list(uint32_t req, wa_http_header **list, size_t *n)
{
    return wa__wasip2_header_list(wa__wasip2_imp_http_request_headers, req, list, n);
}

/* An incoming-body's stream (a child of the body, dropped before it). */
static int wa__wasip2_body_stream(uint32_t body, uint32_t *stream)
{
    _Alignas(4) unsigned char ret[8];
    wa__wasip2_imp_http_body_stream((I32)body, ADDR(ret));
    if (wa__wasip2_handle_result(ret, stream) < 0) {
        wa__wasip2_incoming_body_drop(body);
        return WA_EIO;
    }
    return 0;
}

/* consume() of a request or a response (imp), then the body's stream. */
static int wa__wasip2_consume(void (*imp)(I32, I32), uint32_t owner, uint32_t *body, uint32_t *stream)
{
    _Alignas(4) unsigned char ret[8];
    imp((I32)owner, ADDR(ret));
    int rc = wa__wasip2_handle_result(ret, body);
    return rc < 0 ? rc : wa__wasip2_body_stream(*body, stream);
}

int wa__wasip2_request_consume(uint32_t req, uint32_t *body, uint32_t *stream)
{
    return wa__wasip2_consume(wa__wasip2_imp_http_request_consume, req, body, stream);
}

void wa__wasip2_request_drop(uint32_t req)
{
    wa__wasip2_live--;
    wa__wasip2_imp_http_request_drop((I32)req);
}

/* Completes a new outgoing request or response r (made from the fields,
 * whose count it takes over): when its set-up failed (bad), or its body()
 * (body_of) fails, drops it; else gives it and its body (one more handle). */
static int wa__wasip2_outgoing(I32 r, int bad, void (*body_of)(I32, I32), void (*drop)(I32), uint32_t *out, uint32_t *body)
{
    _Alignas(4) unsigned char ret[8];
    if (!bad)
        body_of(r, ADDR(ret));
    if (bad || ret[0]) {
        drop(r);
        wa__wasip2_live--;
        return bad ? WA_EINVAL : WA_EIO;
    }
    *out = (uint32_t)r;
    *body = wa__wasip2_lift_u32(ret + 4);
    wa__wasip2_live++;
    return 0;
}

int wa__wasip2_response_new(uint32_t headers, int status, uint32_t *resp, uint32_t *body)
{
    I32 r = wa__wasip2_imp_http_response_new((I32)headers); /* takes the fields */
    /* (a new response says 200 already: no host call for it) */
    int bad = status < 100 || status > 999 || (status != 200 && wa__wasip2_imp_http_set_status(r, status));
    return wa__wasip2_outgoing(r, bad, wa__wasip2_imp_http_response_body, wa__wasip2_imp_http_outgoing_response_drop, resp, body);
}

void wa__wasip2_outparam_set_ok(uint32_t param, uint32_t resp)
{
    wa__wasip2_live -= 2;
    wa__wasip2_imp_http_outparam_set((I32)param, 0, (I32)resp, 0, 0, 0, 0, 0, 0);
}

void wa__wasip2_outparam_drop(uint32_t param)
{
    wa__wasip2_live--;
    wa__wasip2_imp_http_outparam_drop((I32)param);
}

int wa__wasip2_body_write(uint32_t body, uint32_t *stream)
{
    _Alignas(4) unsigned char ret[8];
    wa__wasip2_imp_http_body_write((I32)body, ADDR(ret));
    return wa__wasip2_handle_result(ret, stream);
}

int wa__wasip2_body_finish(uint32_t body, char *why)
{
    _Alignas(8) unsigned char ret[40]; /* result<_, error-code> */
    wa__wasip2_live--;
    wa__wasip2_imp_http_body_finish((I32)body, 0, 0, ADDR(ret));
    return ret[0] ? wa__wasip2_lift_error_code(ret + 8, why, why ? WA_REASON_MAX : 0) : 0;
}

void wa__wasip2_outgoing_body_drop(uint32_t body)
{
    wa__wasip2_live--;
    wa__wasip2_imp_http_outgoing_body_drop((I32)body);
}

/* ---- the client side ---- */

/* option<scheme>: some(HTTP | HTTPS | other(string)) */
static I32 wa__wasip2_set_scheme(I32 r, wa__wasip2_str s)
{
    I32 c = wa__wasip2_lower_scheme(s);
    return c < 2 ? wa__wasip2_imp_http_set_scheme(r, 1, c, 0, 0) : wa__wasip2_imp_http_set_scheme(r, 1, c, ADDR(s.ptr), (I32)s.len);
}

static I32 wa__wasip2_set_method(I32 r, const char *m)
{
    I32 c = wa__wasip2_lower_method(m);
    return c < WA__WASIP2_HTTP_METHOD_OTHER ? wa__wasip2_imp_http_set_method(r, c, 0, 0)
                                       : wa__wasip2_imp_http_set_method(r, c, ADDR(m), (I32)strlen(m));
}

int wa__wasip2_request_new(uint32_t headers, const char *method, const wa__http_url *u, uint32_t *req, uint32_t *body)
{
    I32 r = wa__wasip2_imp_http_request_new((I32)headers); /* takes the fields */
    int bad = wa__wasip2_set_method(r, method) || wa__wasip2_set_scheme(r, (wa__wasip2_str){u->scheme.ptr, u->scheme.len}) ||
              wa__wasip2_imp_http_set_authority(r, 1, ADDR(u->authority.ptr), (I32)u->authority.len) ||
              wa__wasip2_imp_http_set_path(r, 1, ADDR(u->path.ptr), (I32)u->path.len);
    return wa__wasip2_outgoing(r, bad, wa__wasip2_imp_http_request_body, wa__wasip2_imp_http_request_out_drop, req, body);
}

int wa__wasip2_http_send(uint32_t req, uint32_t *future, char *why)
{
    _Alignas(8) unsigned char ret[40]; /* result<own<future-incoming-response>, error-code> */
    wa__wasip2_live--;
    wa__wasip2_imp_http_handle((I32)req, 0, 0, ADDR(ret));
    if (ret[0])
        return wa__wasip2_lift_error_code(ret + 8, why, why ? WA_REASON_MAX : 0);
    memcpy(future, ret + 8, 4);
    wa__wasip2_live++;
    return 0;
}

uint32_t wa__wasip2_future_subscribe(uint32_t future) { return wa__wasip2_live++, (uint32_t)wa__wasip2_imp_http_future_subscribe((I32)future); }

int wa__wasip2_future_get(uint32_t future, uint32_t *resp, char *why)
{
    /* option<result<result<own<incoming-response>, error-code>, ()>>:
     * each level's payload 8 bytes on */
    _Alignas(8) unsigned char ret[56];
    wa__wasip2_imp_http_future_get((I32)future, ADDR(ret));
    if (!ret[0])
        return 0;
    if (ret[8]) /* taken already */
        return wa_misuse(WA_EMISUSE, "a response taken twice");
    if (ret[16])
        return wa__wasip2_lift_error_code(ret + 24, why, why ? WA_REASON_MAX : 0);
    memcpy(resp, ret + 24, 4);
    wa__wasip2_live++;
    return 1;
}

void wa__wasip2_future_drop(uint32_t future)
{
    wa__wasip2_live--;
    wa__wasip2_imp_http_future_drop((I32)future);
}

int wa__wasip2_response_status(uint32_t resp) { return wa__wasip2_imp_http_response_status((I32)resp); }

int wa__wasip2_response_header_list(uint32_t resp, wa_http_header **list, size_t *n)
{
    return wa__wasip2_header_list(wa__wasip2_imp_http_response_headers, resp, list, n);
}

int wa__wasip2_response_consume(uint32_t resp, uint32_t *body, uint32_t *stream)
{
    return wa__wasip2_consume(wa__wasip2_imp_http_response_consume, resp, body, stream);
}

void wa__wasip2_incoming_body_drop(uint32_t body)
{
    wa__wasip2_live--;
    wa__wasip2_imp_http_incoming_body_drop((I32)body);
}

void wa__wasip2_incoming_response_drop(uint32_t resp)
{
    wa__wasip2_live--;
    wa__wasip2_imp_http_incoming_response_drop((I32)resp);
}
