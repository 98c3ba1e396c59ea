/* wasi:http/types for answering requests (http.h). */
#include <stdlib.h>
#include <string.h>

#include "../core/rt.h"
#include "http.h"
#include "io.h"

#define WA_P2_IMPORT(name) __attribute__((import_module("wasi:http/types@0.2.12"), import_name(name)))
#define I32 int32_t

WA_P2_IMPORT("[constructor]fields") I32 wa_p2_imp_fields_new(void);
WA_P2_IMPORT("[constructor]outgoing-response") I32 wa_p2_imp_response_new(I32);
WA_P2_IMPORT("[method]outgoing-response.set-status-code") I32 wa_p2_imp_set_status(I32, I32);
WA_P2_IMPORT("[method]outgoing-response.body") void wa_p2_imp_response_body(I32, I32);
WA_P2_IMPORT("[method]outgoing-body.write") void wa_p2_imp_body_write(I32, I32);
WA_P2_IMPORT("[static]outgoing-body.finish") void wa_p2_imp_body_finish(I32, I32, I32, I32);
WA_P2_IMPORT("[static]response-outparam.set") void wa_p2_imp_outparam_set(I32, I32, I32, I32, int64_t, I32, I32, I32, I32);
WA_P2_IMPORT("[resource-drop]incoming-request") void wa_p2_imp_request_drop(I32);
WA_P2_IMPORT("[method]incoming-request.path-with-query") void wa_p2_imp_request_path(I32, I32);
WA_P2_IMPORT("[constructor]outgoing-request") I32 wa_p2_imp_request_new(I32);
WA_P2_IMPORT("[method]outgoing-request.set-scheme") I32 wa_p2_imp_set_scheme(I32, I32, I32, I32, I32);
WA_P2_IMPORT("[method]outgoing-request.set-authority") I32 wa_p2_imp_set_authority(I32, I32, I32, I32);
WA_P2_IMPORT("[method]outgoing-request.set-path-with-query") I32 wa_p2_imp_set_path(I32, I32, I32, I32);
WA_P2_IMPORT("[resource-drop]outgoing-request") void wa_p2_imp_request_out_drop(I32);
WA_P2_IMPORT("[method]future-incoming-response.subscribe") I32 wa_p2_imp_future_subscribe(I32);
WA_P2_IMPORT("[method]future-incoming-response.get") void wa_p2_imp_future_get(I32, I32);
WA_P2_IMPORT("[resource-drop]future-incoming-response") void wa_p2_imp_future_drop(I32);
WA_P2_IMPORT("[method]incoming-response.status") I32 wa_p2_imp_response_status(I32);
WA_P2_IMPORT("[method]incoming-response.consume") void wa_p2_imp_response_consume(I32, I32);
WA_P2_IMPORT("[method]incoming-body.stream") void wa_p2_imp_body_stream(I32, I32);
WA_P2_IMPORT("[resource-drop]incoming-body") void wa_p2_imp_incoming_body_drop(I32);
WA_P2_IMPORT("[resource-drop]incoming-response") void wa_p2_imp_incoming_response_drop(I32);
__attribute__((import_module("wasi:http/outgoing-handler@0.2.12"), import_name("handle")))
void wa_p2_imp_http_handle(I32, I32, I32, I32);

uint32_t wa_p2_fields_new(void) { return wa_p2_live++, (uint32_t)wa_p2_imp_fields_new(); }

/* takes the fields, gives a response: no change in the count */
uint32_t wa_p2_response_new(uint32_t headers) { return (uint32_t)wa_p2_imp_response_new((I32)headers); }

void wa_p2_adopt(int n) { wa_p2_live += n; }

int wa_p2_response_set_status(uint32_t resp, uint16_t status)
{
    return wa_p2_imp_set_status((I32)resp, status) ? WA_EINVAL : 0;
}

/* result<own<T>, ()>: a tag byte, the handle at 4 */
static int wa_p2_handle_result(const unsigned char *ret, uint32_t *h)
{
    if (ret[0])
        return WA_EIO;
    memcpy(h, ret + 4, 4);
    wa_p2_live++;
    return 0;
}

int wa_p2_response_body(uint32_t resp, uint32_t *body)
{
    _Alignas(4) unsigned char ret[8];
    wa_p2_imp_response_body((I32)resp, (I32)(uintptr_t)ret);
    return wa_p2_handle_result(ret, body);
}

int wa_p2_body_write(uint32_t body, uint32_t *stream)
{
    _Alignas(4) unsigned char ret[8];
    wa_p2_imp_body_write((I32)body, (I32)(uintptr_t)ret);
    return wa_p2_handle_result(ret, stream);
}

int wa_p2_body_finish(uint32_t body)
{
    /* result<_, error-code>: a big variant; only the tag matters here */
    _Alignas(8) unsigned char ret[64];
    wa_p2_live--;
    wa_p2_imp_body_finish((I32)body, 0, 0, (I32)(uintptr_t)ret);
    return ret[0] ? WA_EIO : 0;
}

void wa_p2_outparam_set_ok(uint32_t param, uint32_t resp)
{
    wa_p2_live -= 2;
    wa_p2_imp_outparam_set((I32)param, 0, (I32)resp, 0, 0, 0, 0, 0, 0);
}

void wa_p2_request_drop(uint32_t req)
{
    wa_p2_live--;
    wa_p2_imp_request_drop((I32)req);
}

char *wa_p2_request_path(uint32_t req, uint32_t *len)
{
    /* option<string>: a tag byte, then (ptr, len) at 4 */
    _Alignas(4) unsigned char ret[12];
    wa_p2_imp_request_path((I32)req, (I32)(uintptr_t)ret);
    if (!ret[0])
        return NULL;
    uint32_t p;
    memcpy(&p, ret + 4, 4);
    memcpy(len, ret + 8, 4);
    return (char *)(uintptr_t)p;
}

int wa_p2_request_get(const char *authority, const char *path, uint32_t *req)
{
    I32 r = wa_p2_imp_request_new(wa_p2_imp_fields_new()); /* takes the fields */
    if (wa_p2_imp_set_scheme(r, 1, 0, 0, 0) || /* some(HTTP) */
        wa_p2_imp_set_authority(r, 1, (I32)(uintptr_t)authority, (I32)strlen(authority)) ||
        wa_p2_imp_set_path(r, 1, (I32)(uintptr_t)path, (I32)strlen(path))) {
        wa_p2_imp_request_out_drop(r);
        return WA_EINVAL;
    }
    wa_p2_live++;
    *req = (uint32_t)r;
    return 0;
}

int wa_p2_http_send(uint32_t req, uint32_t *future)
{
    /* result<own<future-incoming-response>, error-code>: the error-code
     * variant aligns the payload to 8 */
    _Alignas(8) unsigned char ret[48];
    wa_p2_live--;
    wa_p2_imp_http_handle((I32)req, 0, 0, (I32)(uintptr_t)ret);
    if (ret[0])
        return WA_EIO;
    memcpy(future, ret + 8, 4);
    wa_p2_live++;
    return 0;
}

uint32_t wa_p2_future_subscribe(uint32_t future) { return wa_p2_live++, (uint32_t)wa_p2_imp_future_subscribe((I32)future); }

int wa_p2_future_get(uint32_t future, uint32_t *resp)
{
    /* option<result<result<own<incoming-response>, error-code>, ()>>: each
     * level's payload 8 bytes on */
    _Alignas(8) unsigned char ret[64];
    wa_p2_imp_future_get((I32)future, (I32)(uintptr_t)ret);
    if (!ret[0])
        return 0;
    if (ret[8] || ret[16])
        return WA_EIO;
    memcpy(resp, ret + 24, 4);
    wa_p2_live++;
    return 1;
}

void wa_p2_future_drop(uint32_t future)
{
    wa_p2_live--;
    wa_p2_imp_future_drop((I32)future);
}

int wa_p2_response_status(uint32_t resp) { return wa_p2_imp_response_status((I32)resp); }

int wa_p2_response_consume(uint32_t resp, uint32_t *body, uint32_t *stream)
{
    _Alignas(4) unsigned char ret[8];
    wa_p2_imp_response_consume((I32)resp, (I32)(uintptr_t)ret);
    if (ret[0])
        return WA_EIO;
    memcpy(body, ret + 4, 4);
    wa_p2_imp_body_stream((I32)*body, (I32)(uintptr_t)ret);
    wa_p2_live++;
    if (ret[0]) {
        wa_p2_incoming_body_drop(*body);
        return WA_EIO;
    }
    memcpy(stream, ret + 4, 4);
    wa_p2_live++;
    return 0;
}

void wa_p2_incoming_body_drop(uint32_t body)
{
    wa_p2_live--;
    wa_p2_imp_incoming_body_drop((I32)body);
}

void wa_p2_incoming_response_drop(uint32_t resp)
{
    wa_p2_live--;
    wa_p2_imp_incoming_response_drop((I32)resp);
}
