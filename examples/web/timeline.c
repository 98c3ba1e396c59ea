/* SPDX-License-Identifier: MIT */
/* The web demo's program: named tasks that sleep, fetch and finish. The
 * page draws them live from the runtime's trace (wasync/trace.h: the
 * glue's option trace and onTraceEvent): each task's row, what each poll
 * left it awaiting, its wakes and its end. The module has the trace by
 * its link (-Wl,--undefined=wa_trace_start: tests/js/CMakeLists.txt). */
#include <stdlib.h>
#include <string.h>

#include "wasync.h"
#include "wasync/http.h"
#include "wasync/js.h"

typedef struct step {
    WA_CORO;
    uint64_t sleep_ms;
    const char *path; /* NULL: no fetch */
    char url[160];    /* the page's origin, then path */
    wa_sleep sleep;
    wa_http_request req;
    wa_http_fetch fetch;
} step;

WA_ASYNC(step, t, cx)
{
    WA_BEGIN(t, cx);
    if (t->sleep_ms)
        WA_TRY(wa_sleep_init(&t->sleep, WA_MS(t->sleep_ms)));
    if (t->path) {
        t->req = (wa_http_request){.url = t->url};
        WA_TRY(wa_http_fetch_init(&t->fetch, &t->req, 0));
        wa_http_response_free(t->fetch.response);
        free(t->fetch.data);
    }
    WA_END();
}

enum { STEPS = 7 };

/* The steps, each a task of its own; the call settles when every one
 * finished, with the first failure. */
typedef struct show {
    WA_CORO;
    uint32_t call;
    char origin[128]; /* the page's: "http://host:port" */
    int rc;
    int i, spawned;
    wa_join join[STEPS];
} show;

WA_ASYNC(show, t, cx)
{
    WA_BEGIN(t, cx);
    static const struct {
        const char *name;
        uint64_t sleep_ms;
        const char *path;
    } plan[STEPS] = {
        {"sleep 1 s", 1000, NULL}, {"sleep 1 s", 1000, NULL}, {"sleep 1 s", 1000, NULL}, /* together */
        {"fetch 300 ms", 0, "/api/slow?ms=300"}, {"fetch 800 ms", 0, "/api/slow?ms=800"}, /* answered late */
        {"sleep, fetch", 400, "/api/slow?ms=400"}, {"sleep 1.5 s", 1500, NULL},
    };
    for (t->spawned = 0; t->spawned < STEPS; t->spawned++) {
        step s = {.sleep_ms = plan[t->spawned].sleep_ms, .path = plan[t->spawned].path};
        if (s.path) { /* (http.h takes whole URLs; both fit: see run_timeline) */
            strcpy(s.url, t->origin);
            strcat(s.url, s.path);
        }
        step_init(&s);
        if ((t->rc = wa_spawn_of_named(cx->rt, &s, &t->join[t->spawned], plan[t->spawned].name)) < 0) {
            for (t->i = 0; t->i < t->spawned; t->i++) /* (each still awaited below) */
                wa_join_cancel(&t->join[t->i]);
            break;
        }
    }
    for (t->i = 0; t->i < t->spawned; t->i++) {
        WA_AWAIT(&t->join[t->i].fut);
        if (WA_STATUS < 0 && t->rc == 0)
            t->rc = WA_STATUS;
    }
    wa_js_settle(t->call, t->rc, NULL, 0, 0);
    WA_END();
}

/* run_timeline(origin): the page's origin, which the fetches' paths are on. */
__attribute__((export_name("run_timeline"))) int run_timeline(uint32_t call, const char *origin, size_t len)
{
    show s = {.call = call};
    if (len >= sizeof s.origin)
        return WA_EINVAL;
    memcpy(s.origin, origin, len);
    show_init(&s);
    return wa_spawn_of_named(wa_js_rt(), &s, NULL, "timeline");
}
