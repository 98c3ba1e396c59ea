/* SPDX-License-Identifier: MIT */
/* wasi:http@0.3.0 (see http.h). The layouts are 0.2's where the types
 * are (lift.h); a resource's methods take their own handle first, and
 * results come back through a return area, as in 0.2. */
#include <stdlib.h>
#include <string.h>

#include "../../wasi/lift.h"
#include "http.h"

#define TYPES "wasi:http/types@0.3.0"
#define I32 int32_t
#define ADDR(p) ((I32)(uintptr_t)(p))

/* request.new names the three types: its contents (stream 0), its
 * trailers (future 1) and its result (future 2). */
WA__WASIP3_STREAM_TYPE(wa__wasip3_http_bytes, TYPES, 0, "[static]request.new");
WA__WASIP3_FUTURE_TYPE(wa__wasip3_http_trailers, TYPES, 1, "[static]request.new");
WA__WASIP3_FUTURE_TYPE(wa__wasip3_http_result, TYPES, 2, "[static]request.new");

WA__WASI_IMPORT(TYPES, "[static]fields.from-list") void wa__wasip3_imp_http_fields_from_list(I32, I32, I32);
WA__WASI_IMPORT(TYPES, "[method]fields.copy-all") void wa__wasip3_imp_http_fields_copy_all(I32, I32);
WA__WASI_IMPORT(TYPES, "[resource-drop]fields") void wa__wasip3_imp_http_fields_drop(I32);
WA__WASI_IMPORT(TYPES, "[static]request.new") void wa__wasip3_imp_http_request_new(I32, I32, I32, I32, I32, I32, I32);
WA__WASI_IMPORT(TYPES, "[method]request.get-method") void wa__wasip3_imp_http_request_get_method(I32, I32);
WA__WASI_IMPORT(TYPES, "[method]request.set-method") I32 wa__wasip3_imp_http_request_set_method(I32, I32, I32, I32);
WA__WASI_IMPORT(TYPES, "[method]request.get-path-with-query") void wa__wasip3_imp_http_request_get_path(I32, I32);
WA__WASI_IMPORT(TYPES, "[method]request.set-path-with-query") I32 wa__wasip3_imp_http_request_set_path(I32, I32, I32, I32);
WA__WASI_IMPORT(TYPES, "[method]request.set-scheme") I32 wa__wasip3_imp_http_request_set_scheme(I32, I32, I32, I32, I32);
WA__WASI_IMPORT(TYPES, "[method]request.get-authority") void wa__wasip3_imp_http_request_get_authority(I32, I32);
WA__WASI_IMPORT(TYPES, "[method]request.set-authority") I32 wa__wasip3_imp_http_request_set_authority(I32, I32, I32, I32);
WA__WASI_IMPORT(TYPES, "[method]request.get-headers") I32 wa__wasip3_imp_http_request_get_headers(I32);
WA__WASI_IMPORT(TYPES, "[static]request.consume-body") void wa__wasip3_imp_http_request_consume_body(I32, I32, I32);
WA__WASI_IMPORT(TYPES, "[resource-drop]request") void wa__wasip3_imp_http_request_drop(I32);
WA__WASI_IMPORT(TYPES, "[static]response.new") void wa__wasip3_imp_http_response_new(I32, I32, I32, I32, I32);
WA__WASI_IMPORT(TYPES, "[method]response.get-status-code") I32 wa__wasip3_imp_http_response_get_status(I32);
WA__WASI_IMPORT(TYPES, "[method]response.set-status-code") I32 wa__wasip3_imp_http_response_set_status(I32, I32);
WA__WASI_IMPORT(TYPES, "[method]response.get-headers") I32 wa__wasip3_imp_http_response_get_headers(I32);
WA__WASI_IMPORT(TYPES, "[static]response.consume-body") void wa__wasip3_imp_http_response_consume_body(I32, I32, I32);
WA__WASI_IMPORT(TYPES, "[resource-drop]response") void wa__wasip3_imp_http_response_drop(I32);
WA__WASI_IMPORT("wasi:http/client@0.3.0", "[async-lower]send") uint32_t wa__wasip3_imp_http_send(I32, I32);
/* result<response, error-code> flattened: tag, then the cases' joined
 * slots (the response's handle in the first) */
WA__WASI_IMPORT("[export]wasi:http/handler@0.3.0", "[task-return]handle")
void wa__wasip3_imp_http_handle_return(I32, I32, I32, int64_t, I32, I32, I32, I32);

void wa__wasip3_http_value_set(wa__wasip3_http_value *v, int failed)
{
    memset(v->b, 0, sizeof v->b); /* ok(none) */
    if (failed) {
        v->b[0] = 1;
        v->b[8] = 38; /* internal-error(none) */
    }
}

int wa__wasip3_fields_from_list(const wa_http_header *h, size_t n, uint32_t *fields)
{
    uint32_t *list = wa__wasip2_lower_fields(h, n);
    if (!list)
        return WA_ENOMEM;
    _Alignas(4) unsigned char ret[20]; /* result<fields, header-error> */
    wa__wasip3_imp_http_fields_from_list(ADDR(list), (I32)n, ADDR(ret));
    free(list);
    if (ret[0]) {
        char *other;
        if (ret[4] == 4 && wa__wasip2_lift_option_str(ret + 8, &other) == 0) /* other(option<string>) */
            free(other);
        return WA_EINVAL;
    }
    *fields = wa__wasip2_lift_u32(ret + 4);
    wa__wasip3_resources++;
    return 0;
}

/* The entries of a child fields handle of owner (get-headers), dropped. */
static int wa__wasip3_header_list(I32 (*get)(I32), uint32_t owner, wa_http_header **list, size_t *n)
{
    I32 h = get((I32)owner);
    uint32_t ret[2] __attribute__((aligned(4)));
    wa__wasip3_imp_http_fields_copy_all(h, ADDR(ret));
    wa__wasip3_imp_http_fields_drop(h);
    int rc = wa__wasip2_lift_fields((wa__wasip2_str *)(uintptr_t)ret[0], ret[1], list);
    *n = rc < 0 ? 0 : ret[1];
    return rc;
}

int wa__wasip3_request_header_list(uint32_t req, wa_http_header **list, size_t *n)
{
    return wa__wasip3_header_list(wa__wasip3_imp_http_request_get_headers, req, list, n);
}

int wa__wasip3_response_header_list(uint32_t resp, wa_http_header **list, size_t *n)
{
    return wa__wasip3_header_list(wa__wasip3_imp_http_response_get_headers, resp, list, n);
}

int wa__wasip3_request_method(uint32_t req, const char **method, char **owned)
{
    _Alignas(4) unsigned char ret[12];
    wa__wasip3_imp_http_request_get_method((I32)req, ADDR(ret));
    return wa__wasip2_lift_method(ret, method, owned);
}

static int wa__wasip3_request_str(void (*imp)(I32, I32), uint32_t req, char **out)
{
    _Alignas(4) unsigned char ret[12];
    imp((I32)req, ADDR(ret));
    return wa__wasip2_lift_option_str(ret, out);
}

int wa__wasip3_request_path(uint32_t req, char **path) { return wa__wasip3_request_str(wa__wasip3_imp_http_request_get_path, req, path); }

int wa__wasip3_request_authority(uint32_t req, char **authority)
{
    return wa__wasip3_request_str(wa__wasip3_imp_http_request_get_authority, req, authority);
}

/* A tuple of two handles through a return area. */
static void wa__wasip3_consume(void (*imp)(I32, I32, I32), uint32_t owner, uint32_t res, uint32_t *body,
                          uint32_t *trailers)
{
    _Alignas(4) uint32_t ret[2];
    wa__wasip3_resources--;
    imp((I32)owner, (I32)res, ADDR(ret));
    *body = ret[0];
    *trailers = ret[1];
}

void wa__wasip3_request_consume_body(uint32_t req, uint32_t res, uint32_t *body, uint32_t *trailers)
{
    wa__wasip3_consume(wa__wasip3_imp_http_request_consume_body, req, res, body, trailers);
}

void wa__wasip3_response_consume_body(uint32_t resp, uint32_t res, uint32_t *body, uint32_t *trailers)
{
    wa__wasip3_consume(wa__wasip3_imp_http_response_consume_body, resp, res, body, trailers);
}

void wa__wasip3_request_drop(uint32_t req)
{
    wa__wasip3_resources--;
    wa__wasip3_imp_http_request_drop((I32)req);
}

void wa__wasip3_response_drop(uint32_t resp)
{
    wa__wasip3_resources--;
    wa__wasip3_imp_http_response_drop((I32)resp);
}

int wa__wasip3_response_new(uint32_t headers, uint32_t contents, uint32_t trailers, int status, uint32_t *resp,
                       uint32_t *result)
{
    _Alignas(4) uint32_t ret[2];
    wa__wasip3_imp_http_response_new((I32)headers, contents != 0, (I32)contents, (I32)trailers, ADDR(ret));
    *resp = ret[0];
    *result = ret[1];
    /* (a new response says 200 already: no host call for it) */
    if (status < 100 || status > 999 || (status != 200 && wa__wasip3_imp_http_response_set_status((I32)ret[0], status))) {
        wa__wasip3_response_drop(ret[0]);
        wa__wasip3_http_result.drop_readable(ret[1]);
        return WA_EINVAL;
    }
    return 0; /* (the fields became the response: the count stays) */
}

int wa__wasip3_response_status(uint32_t resp) { return wa__wasip3_imp_http_response_get_status((I32)resp); }

/* option<scheme>: some(HTTP | HTTPS | other(string)) */
static I32 wa__wasip3_set_scheme(I32 r, wa__wasip2_str s)
{
    I32 c = wa__wasip2_lower_scheme(s);
    return c < 2 ? wa__wasip3_imp_http_request_set_scheme(r, 1, c, 0, 0)
                 : wa__wasip3_imp_http_request_set_scheme(r, 1, c, ADDR(s.ptr), (I32)s.len);
}

static I32 wa__wasip3_set_method(I32 r, const char *m)
{
    I32 c = wa__wasip2_lower_method(m);
    return c < WA__WASIP2_HTTP_METHOD_OTHER ? wa__wasip3_imp_http_request_set_method(r, c, 0, 0)
                                       : wa__wasip3_imp_http_request_set_method(r, c, ADDR(m), (I32)strlen(m));
}

int wa__wasip3_request_new(uint32_t headers, uint32_t contents, uint32_t trailers, const char *method,
                      const wa__http_url *u, uint32_t *req, uint32_t *result)
{
    _Alignas(4) uint32_t ret[2];
    wa__wasip3_imp_http_request_new((I32)headers, contents != 0, (I32)contents, (I32)trailers, 0, 0, ADDR(ret));
    I32 r = (I32)ret[0];
    *req = ret[0];
    *result = ret[1];
    if (wa__wasip3_set_method(r, method) || wa__wasip3_set_scheme(r, (wa__wasip2_str){u->scheme.ptr, u->scheme.len}) ||
        wa__wasip3_imp_http_request_set_authority(r, 1, ADDR(u->authority.ptr), (I32)u->authority.len) ||
        wa__wasip3_imp_http_request_set_path(r, 1, ADDR(u->path.ptr), (I32)u->path.len)) {
        wa__wasip3_request_drop(ret[0]);
        wa__wasip3_http_result.drop_readable(ret[1]);
        return WA_EINVAL;
    }
    return 0;
}

uint32_t wa__wasip3_client_send(uint32_t req, wa__wasip3_http_value *ret)
{
    wa__wasip3_resources--;
    return wa__wasip3_imp_http_send((I32)req, ADDR(ret->b));
}

int wa__wasip3_client_result(wa__wasip3_http_value *ret, uint32_t *resp, char *why)
{
    if (ret->b[0])
        return wa__wasip2_lift_error_code(ret->b + 8, why, why ? WA_REASON_MAX : 0);
    *resp = wa__wasip2_lift_u32(ret->b + 8);
    wa__wasip3_resources++;
    return 0;
}

int wa__wasip3_http_trailers_error(const unsigned char *value, int dir, char *why)
{
    (void)dir;
    if (value[0]) /* err(error-code): the body did not end as it should */
        return wa__wasip2_lift_error_code(value + 8, why, WA_REASON_MAX);
    if (value[8]) /* ok(some(trailers)): not read, dropped */
        wa__wasip3_imp_http_fields_drop((I32)wa__wasip2_lift_u32(value + 12));
    return 0;
}

int wa__wasip3_client_late(void *area)
{
    wa__wasip3_http_value *ret = area;
    if (!wa_subtask_written(ret->b, 1) || !wa_subtask_written(ret->b + 8, 4))
        return 0; /* (the tag and the response or error case come at once) */
    const unsigned char *str = ret->b[0] ? wa__wasip2_error_code_string(ret->b + 8) : NULL;
    if (str && str[0] && !wa_subtask_written(str + 4, 4))
        return 0; /* its string is still being lowered (its pointer comes last) */
    uint32_t resp;
    if (wa__wasip3_client_result(ret, &resp, NULL) == 0)
        wa__wasip3_response_drop(resp);
    return 1;
}

void wa__wasip3_handler_return(uint32_t resp)
{
    wa__wasip3_resources--;
    wa__wasip3_imp_http_handle_return(0, (I32)resp, 0, 0, 0, 0, 0, 0);
}

void wa__wasip3_handler_return_error(void)
{
    wa__wasip3_imp_http_handle_return(1, 38, 0, 0, 0, 0, 0, 0); /* err(internal-error(none)) */
}

int wa__wasip3_future_finish(const struct wa_wasip3_future_type *t, uint32_t end, int failed)
{
    wa__wasip3_http_value v;
    wa__wasip3_http_value_set(&v, failed);
    uint32_t r = t->write(end, &v);
    if (r == WA__WASIP3_BLOCKED && wa__wasip3_copy_status(t->cancel_write(end)) == WA__WASIP3_COPY_CANCELLED)
        return WA_EAGAIN; /* nobody reads it yet: the end stays */
    t->drop_writable(end);
    return 0;
}
