/* SPDX-License-Identifier: MIT */
/* What reads a request's body stream (http.c), linked by http.h's inits
 * for a request that may have one: a module whose requests have none
 * carries no stream reads. */
#include "http.h"

void wa__js_http_stream_bodies(void) {}

wa_future *(*const wa__js_read_all)(wa_read_all *r, wa_stream *s, size_t max) = wa_read_all_init;
