/* wasync/http.h - an HTTP client (WASI 0.2: wasi:http/outgoing-handler).
 *
 * A GET as a future: the response's status and whole body. Dropping it
 * (a timeout, a lost race) releases every handle and pollable it held.
 */
#ifndef WASYNC_HTTP_H
#define WASYNC_HTTP_H

#include "stream.h"
#include "wasi.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wa_http_get {
    wa_future fut;
    wa_rt *rt;
    const char *authority, *path; /* borrowed until completion */
    int step;
    uint32_t future, resp, body;
    wa_pollable_key key;
    int registered, waiting, reading;
    wa_pollable_wait wait;
    wa_stream *in;
    wa_read rd;
    int status;          /* the HTTP status, once ready */
    unsigned char *data; /* the body: the caller's once ready (free()) */
    size_t len, cap;
} wa_http_get;

/* GET http://authority path (e.g. "127.0.0.1:8080", "/x?y=1"). Status 0
 * once the whole body is in; WA_EIO if the request failed. */
wa_future *wa_http_get_init(wa_http_get *g, wa_rt *rt, const char *authority, const char *path);

#ifdef __cplusplus
}
#endif
#endif
