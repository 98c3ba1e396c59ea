/* SPDX-License-Identifier: MIT */
/* A module whose requests have no body stream when their init sees them,
 * so that it links no stream reads (wasync/http.h): a body_stream set
 * after the init is misuse, reported (fetch.test.mjs). */
#include "wasync.h"
#include "wasync/http.h"
#include "wasync/js.h"

typedef struct late {
    WA_CORO;
    uint32_t call;
    wa_http_request req;
    wa_http_send send;
} late;

WA_ASYNC(late, t, cx)
{
    WA_BEGIN(t, cx);
    t->req = (wa_http_request){.url = "http://127.0.0.1:9/"};
    wa_http_send_init(&t->send, &t->req);
    t->req.body_stream = (wa_stream *)&t->req; /* (never read: the send refuses it first) */
    WA_AWAIT(&t->send.fut);
    wa_js_settle(t->call, WA_STATUS, NULL, 0, 0);
    WA_END();
}

/* late_body(): rejects with the send's status. */
__attribute__((export_name("late_body"))) int late_body(uint32_t call)
{
    late t = {.call = call};
    late_init(&t);
    return wa_spawn_of(wa_js_rt(), &t, NULL);
}
