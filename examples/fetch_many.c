/* SPDX-License-Identifier: MIT */
/* fetch-many: N concurrent GETs of URL, each with a timeout, in a scope;
 * one line per request ("3 200 5": id, status, body length; or "3 timed
 * out"), then how many event sources (sockets, timers) are still
 * registered with the runtime and, on WASI 0.2 and 0.3, how many WASI
 * handles are still held: 0 and 0 once every request, answered or timed
 * out, has let go of what it had. One source for
 * every host with an HTTP client:
 *   ./fetch_many http://127.0.0.1:8080/hello 20 500
 *   jco run fetch_many.component.wasm http://127.0.0.1:8080/hello 20 500
 *   node tests/js/call.mjs fetch_many.wasm fetch_many http://127.0.0.1:8080/hello 20 500
 * (a JS host module has no main: the glue calls its export fetch_many). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasync.h"
#include "wasync/http.h"
#include "wasync/js.h"
#include "wasync/wasi.h"

typedef struct get {
    WA_CORO;
    wa_timeout to;
    wa_http_request req;
    wa_http_fetch fetch;
    uint64_t timeout_ms;
    int id;
} get;

WA_ASYNC(get, t, cx)
{
    WA_BEGIN(t, cx);
    WA_AWAIT(wa_timeout_init(&t->to, wa_http_fetch_init(&t->fetch, &t->req, 0), WA_MS(t->timeout_ms)));
    if (WA_STATUS == WA_ETIMEDOUT)
        printf("%d timed out\n", t->id);
    else if (WA_STATUS < 0)
        printf("%d failed: %s\n", t->id, wa_strerror(WA_STATUS));
    else
        printf("%d %d %zu\n", t->id, wa_http_response_status(t->fetch.response), t->fetch.len);
    if (WA_STATUS == 0) {
        wa_http_response_free(t->fetch.response);
        free(t->fetch.data);
    }
    WA_END();
}

typedef struct many {
    WA_CORO;
    wa_scope scope;
    get proto;
    int n;
    int rc; /* a failed spawn's error */
    uint32_t call; /* the JS host's call to settle */
    char url[1024];
} many;

WA_ASYNC(many, t, cx)
{
    WA_BEGIN(t, cx);
    t->proto.req.url = t->url;
    wa_scope_init(&t->scope, cx->rt, 0);
    for (int i = 0; i < t->n; i++) {
        get g = t->proto;
        g.id = i;
        get_init(&g);
        if ((t->rc = wa_scope_spawn_of(&t->scope, &g, NULL)) < 0) {
            wa_scope_cancel(&t->scope); /* the requests spawned stop; still awaited */
            break;
        }
    }
    WA_AWAIT(wa_scope_wait(&t->scope));
    if (t->rc == 0)
        t->rc = WA_STATUS;
    wa_rt_stats st;
    wa_rt_stats_get(cx->rt, &st);
    printf("event sources still registered: %zu (0 once every request, answered or timed out, has let go)\n",
           st.sources);
#if defined(WASYNC_HOST_JS)
    wa_js_settle(t->call, t->rc, NULL, 0, 0);
#endif
    WA_RETURN(t->rc);
    WA_END();
}

/* A many for url (copied: at most 1023 bytes), n requests, each with
 * timeout_ms. 0 or WA_EINVAL. */
static int many_set(many *m, const char *url, size_t len, int n, uint64_t timeout_ms)
{
    if (len >= sizeof m->url)
        return WA_EINVAL;
    memcpy(m->url, url, len);
    m->n = n;
    m->proto.timeout_ms = timeout_ms;
    many_init(m);
    return 0;
}

#if defined(WASYNC_HOST_JS)
/* fetch_many(url, n, timeout_ms): main's work as a task; its promise
 * settles once every request ended (rejects with a failed spawn's error). */
__attribute__((export_name("fetch_many"))) int fetch_many(uint32_t call, const char *url, size_t len, double n,
                                                          double timeout_ms)
{
    many m = {.call = call};
    int rc = many_set(&m, url, len, (int)n, (uint64_t)timeout_ms);
    return rc < 0 ? rc : wa_spawn_of(wa_js_rt(), &m, NULL);
}
#else
int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: fetch_many URL N TIMEOUT_MS\n");
        return 2;
    }
    wa_rt *rt;
    if (wa_rt_new(&rt) < 0)
        return 1;
    many m = {0};
    if (many_set(&m, argv[1], strlen(argv[1]), atoi(argv[2]), (uint64_t)atol(argv[3])) < 0)
        return 2;
    int rc = wa_block_on(rt, &m.wa.fut);
    wa_rt_free(rt); /* (a backend may hold a timer until then) */
#if defined(WASYNC_HOST_WASIP2) || defined(WASYNC_HOST_WASIP3)
    printf("WASI handles still held: %ld (0 likewise)\n", wa_wasi_live_handles());
#endif
    if (rc < 0)
        fprintf(stderr, "fetch-many: %s\n", wa_strerror(rc));
    return rc < 0;
}
#endif
