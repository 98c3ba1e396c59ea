/* SPDX-License-Identifier: MIT */
/* Internal: the JS host's HTTP client (http.c) and what reads its
 * requests' body streams (stream_bodies.c). */
#ifndef WASYNC_HOST_JS_HTTP_H
#define WASYNC_HOST_JS_HTTP_H

#include "wasync/http.h"

/* wa_read_all_init, where a request may have a body stream (http.h's
 * wa__js_http_stream_bodies links it); weak: else its address is NULL. */
extern wa_future *(*const wa__js_read_all)(wa_read_all *r, wa_stream *s, size_t max) __attribute__((weak));

#endif
