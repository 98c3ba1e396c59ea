/* SPDX-License-Identifier: MIT */
/* fetch_late URL ROUNDS N TIMEOUT_MS, against fetch_late.test.mjs's server,
 * which answers every other request of URL only after the timeout: ROUNDS
 * rounds of N concurrent GETs (URL?i), each with TIMEOUT_MS, so half of
 * them are cancelled mid-flight and their responses come late, while the
 * next round's calls reuse the memory. One line a round ("round 2: 50
 * answered, 50 timed out"), then, after two seconds (up to ten while 0.3
 * holds areas) for the late responses to land: "sources N", "handles N"
 * and, on 0.3, "areas N" (the call areas kept from the host: 0 once every
 * late response was seen whole). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasync.h"
#include "wasync/http.h"
#include "wasync/wasi.h"
#if defined(WASYNC_HOST_WASIP3)
#include "wasync/component.h"
#endif

typedef struct get {
    WA_CORO;
    wa_timeout to;
    wa_http_request req;
    wa_http_fetch fetch;
    uint64_t timeout_ms;
    int *answered, *timed_out;
    char url[96];
} get;

WA_ASYNC(get, t, cx)
{
    WA_BEGIN(t, cx);
    t->req.url = t->url;
    WA_AWAIT(wa_timeout_init(&t->to, wa_http_fetch_init(&t->fetch, &t->req, 0), WA_MS(t->timeout_ms)));
    if (WA_STATUS == WA_ETIMEDOUT) {
        ++*t->timed_out;
    } else if (WA_STATUS < 0) {
        printf("%s failed: %s\n", t->url, wa_strerror(WA_STATUS));
    } else {
        ++*t->answered;
        wa_http_response_free(t->fetch.response);
        free(t->fetch.data);
    }
    WA_END();
}

/* Cancelled calls' areas still held from the host (0.3), else 0. */
static long late_pending(void)
{
#if defined(WASYNC_HOST_WASIP3)
    return wa_wasip3_held_areas();
#else
    return 0;
#endif
}

typedef struct rounds {
    WA_CORO;
    wa_scope scope;
    wa_sleep sleep;
    const char *url;
    int rounds, n, round, answered, timed_out, waited;
    uint64_t timeout_ms;
} rounds;

WA_ASYNC(rounds, t, cx)
{
    WA_BEGIN(t, cx);
    for (t->round = 1; t->round <= t->rounds; t->round++) {
        t->answered = t->timed_out = 0;
        wa_scope_init(&t->scope, cx->rt, 0);
        for (int i = 0; i < t->n; i++) {
            get g = {.timeout_ms = t->timeout_ms, .answered = &t->answered, .timed_out = &t->timed_out};
            snprintf(g.url, sizeof g.url, "%s?%d", t->url, i);
            get_init(&g);
            if (wa_scope_spawn_of(&t->scope, &g, NULL) < 0) {
                wa_scope_cancel(&t->scope);
                break;
            }
        }
        WA_AWAIT(wa_scope_wait(&t->scope));
        printf("round %d: %d answered, %d timed out\n", t->round, t->answered, t->timed_out);
    }
    /* the late responses land: two seconds, and on 0.3 up to ten while
     * an area waits for its write (a loaded machine is slow) */
    for (t->waited = 0; t->waited < 2000 || (late_pending() && t->waited < 10000); t->waited += 200)
        WA_AWAIT(wa_sleep_init(&t->sleep, WA_MS(200)));
    wa_rt_stats st;
    wa_rt_stats_get(cx->rt, &st);
    printf("sources %zu\n", st.sources);
    WA_END();
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: fetch_late URL ROUNDS N TIMEOUT_MS\n");
        return 2;
    }
    wa_rt *rt;
    if (wa_rt_new(&rt) < 0)
        return 1;
    rounds r = {.url = argv[1], .rounds = atoi(argv[2]), .n = atoi(argv[3]), .timeout_ms = (uint64_t)atol(argv[4])};
    rounds_init(&r);
    int rc = wa_block_on(rt, &r.wa.fut);
    wa_rt_free(rt);
    printf("handles %ld\n", wa_wasi_live_handles());
#if defined(WASYNC_HOST_WASIP3)
    printf("areas %ld\n", wa_wasip3_held_areas());
#endif
    if (rc < 0)
        fprintf(stderr, "fetch_late: %s\n", wa_strerror(rc));
    return rc < 0;
}
