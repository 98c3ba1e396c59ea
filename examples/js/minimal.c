/* SPDX-License-Identifier: MIT */
/* The smallest useful program for the JS host: one exported async
 * function that sleeps, fetches a URL and resolves with the body's length.
 * From JavaScript: await rt.callAsync('sleep_then_fetch', url). */
#include <stdlib.h>
#include <string.h>

#include "wasync.h"
#include "wasync/http.h"
#include "wasync/js.h"

typedef struct job {
    WA_CORO;
    uint32_t call;
    wa_sleep sleep;
    wa_http_request req;
    wa_http_fetch fetch;
    char url[256];
} job;

WA_ASYNC(job, j, cx)
{
    WA_BEGIN(j, cx);
    WA_AWAIT(wa_sleep_init(&j->sleep, WA_MS(10)));
    if (WA_STATUS < 0) {
        wa_js_settle(j->call, WA_STATUS, NULL, 0, 0); /* the promise rejects */
        WA_RETURN(WA_STATUS);
    }
    j->req = (wa_http_request){.url = j->url};
    WA_AWAIT(wa_http_fetch_init(&j->fetch, &j->req, 0));
    wa_js_settle(j->call, WA_STATUS, NULL, 0, (double)j->fetch.len);
    if (WA_STATUS == 0) {
        wa_http_response_free(j->fetch.response);
        free(j->fetch.data);
    }
    WA_END();
}

__attribute__((export_name("sleep_then_fetch"))) int sleep_then_fetch(uint32_t call, const char *url,
                                                                       size_t len)
{
    job j = {.call = call};
    if (len >= sizeof j.url)
        return WA_EINVAL;
    memcpy(j.url, url, len);
    job_init(&j);
    return wa_spawn_of(wa_js_rt(), &j, NULL);
}
