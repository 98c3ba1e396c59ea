/* SPDX-License-Identifier: MIT */
/* The web demo's program: tasks that sleep, fetch and finish, each step
 * reported to the page, which draws them on a timeline as they happen. */
#include <stdlib.h>
#include <string.h>

#include "wasync.h"
#include "wasync/http.h"
#include "wasync/js.h"

/* The page's hook: task id, what happened, and a label. */
__attribute__((import_module("demo"), import_name("event"))) void demo_event(int task, int what, const char *label,
                                                                           size_t len);
enum { EV_START, EV_SLEEP, EV_FETCH, EV_DONE, EV_FAIL };

static void event(int task, int what, const char *label) { demo_event(task, what, label, strlen(label)); }

typedef struct step {
    WA_CORO;
    int id;
    uint64_t sleep_ms;
    const char *path; /* NULL: no fetch */
    char url[160];    /* the page's origin, then path */
    wa_sleep sleep;
    wa_http_request req;
    wa_http_fetch fetch;
} step;

/* Tells the page that step t failed with err; returns err. */
static int step_failed(const step *t, int err)
{
    event(t->id, EV_FAIL, wa_strerror(err));
    return err;
}

WA_ASYNC(step, t, cx)
{
    WA_BEGIN(t, cx);
    event(t->id, EV_START, "");
    if (t->sleep_ms) {
        event(t->id, EV_SLEEP, "sleep");
        WA_AWAIT(wa_sleep_init(&t->sleep, WA_MS(t->sleep_ms)));
        if (WA_STATUS < 0)
            WA_RETURN(step_failed(t, WA_STATUS));
    }
    if (t->path) {
        event(t->id, EV_FETCH, t->path);
        t->req = (wa_http_request){.url = t->url};
        WA_AWAIT(wa_http_fetch_init(&t->fetch, &t->req, 0));
        if (WA_STATUS < 0)
            WA_RETURN(step_failed(t, WA_STATUS));
        wa_http_response_free(t->fetch.response);
        free(t->fetch.data);
    }
    event(t->id, EV_DONE, "done");
    WA_END();
}

/* All steps run in one scope; the call settles when every one finished. */
typedef struct show {
    WA_CORO;
    uint32_t call;
    wa_scope scope;
    char origin[128]; /* the page's: "http://host:port" */
    int rc;           /* a failed spawn's error */
} show;

WA_ASYNC(show, t, cx)
{
    WA_BEGIN(t, cx);
    static const struct {
        uint64_t sleep_ms;
        const char *path;
    } plan[] = {
        {1000, NULL}, {1000, NULL}, {1000, NULL},        /* three 1 s sleeps together */
        {0, "/api/slow?ms=300"}, {0, "/api/slow?ms=800"}, /* fetches answered late */
        {400, "/api/slow?ms=400"}, {1500, NULL},          /* sleep, then fetch; a long sleep */
    };
    wa_scope_init(&t->scope, cx->rt, 0);
    for (int i = 0; i < (int)(sizeof plan / sizeof plan[0]); i++) {
        step s = {.id = i, .sleep_ms = plan[i].sleep_ms, .path = plan[i].path};
        if (s.path) { /* (http.h takes whole URLs; both fit: see run_timeline) */
            strcpy(s.url, t->origin);
            strcat(s.url, s.path);
        }
        step_init(&s);
        if ((t->rc = wa_scope_spawn_of(&t->scope, &s, NULL)) < 0) {
            wa_scope_cancel(&t->scope); /* the steps spawned stop; still awaited */
            break;
        }
    }
    WA_AWAIT(wa_scope_wait(&t->scope));
    wa_js_settle(t->call, t->rc < 0 ? t->rc : WA_STATUS, NULL, 0, 0);
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
    return wa_spawn_of(wa_js_rt(), &s, NULL);
}
