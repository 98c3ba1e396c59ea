/* fetch-many: N concurrent GETs of URL, each with a timeout, in a scope;
 * one line per request ("3 200 5": id, status, body length; or "3 timed
 * out"), then "sources N" (the event sources still registered: 0 when
 * every request, finished or cancelled, released what it had) and, on
 * WASI 0.2 and 0.3, "handles N" (the WASI handles still held). One source for
 * every host with an HTTP client:
 *   ./fetch_many http://127.0.0.1:8080/hello 20 500
 *   jco run fetch_many.component.wasm http://127.0.0.1:8080/hello 20 500 */
#include <stdio.h>
#include <stdlib.h>

#include "wasync.h"
#include "wasync/http.h"
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
} many;

WA_ASYNC(many, t, cx)
{
    WA_BEGIN(t, cx);
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
    WA_RETURN(t->rc < 0 ? t->rc : WA_STATUS);
    WA_END();
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: fetch_many URL N TIMEOUT_MS\n");
        return 2;
    }
    wa_rt *rt;
    if (wa_rt_new(&rt) < 0)
        return 1;
    many m = {.n = atoi(argv[2]), .proto = {.req = {.url = argv[1]}, .timeout_ms = (uint64_t)atol(argv[3])}};
    int rc = wa_block_on(rt, many_init(&m));
    wa_rt_stats st;
    wa_rt_stats_get(rt, &st);
    printf("sources %zu\n", st.sources);
    wa_rt_free(rt); /* (a backend may hold a timer until then) */
#if defined(WASYNC_HOST_WASIP2) || defined(WASYNC_HOST_WASIP3)
    printf("handles %ld\n", wa_wasi_live_handles());
#endif
    if (rc < 0)
        fprintf(stderr, "fetch-many: %s\n", wa_strerror(rc));
    return rc < 0;
}
