/* The web demo's program: tasks that sleep, fetch and finish, each step
 * reported to the page, which draws them on a timeline as they happen. */
#include <stdlib.h>
#include <string.h>

#include "wasync.h"
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
    const char *url; /* NULL: no fetch */
    wa_sleep sleep;
    wa_js_op fetch;
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
    if (t->url) {
        event(t->id, EV_FETCH, t->url);
        WA_AWAIT(wa_js_fetch_init(&t->fetch, t->url));
        free(t->fetch.data);
        if (WA_STATUS < 0)
            WA_RETURN(step_failed(t, WA_STATUS));
    }
    event(t->id, EV_DONE, "done");
    WA_END();
}

/* All steps run in one scope; the call settles when every one finished. */
typedef struct show {
    WA_CORO;
    uint32_t call;
    wa_scope scope;
    int rc; /* a failed spawn's error */
} show;

WA_ASYNC(show, t, cx)
{
    WA_BEGIN(t, cx);
    static const struct {
        uint64_t sleep_ms;
        const char *url;
    } plan[] = {
        {1000, NULL}, {1000, NULL}, {1000, NULL},        /* three 1 s sleeps together */
        {0, "/api/slow?ms=300"}, {0, "/api/slow?ms=800"}, /* fetches answered late */
        {400, "/api/slow?ms=400"}, {1500, NULL},          /* sleep, then fetch; a long sleep */
    };
    wa_scope_init(&t->scope, cx->rt, 0);
    for (int i = 0; i < (int)(sizeof plan / sizeof plan[0]); i++) {
        step s = {.id = i, .sleep_ms = plan[i].sleep_ms, .url = plan[i].url};
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

__attribute__((export_name("run_timeline"))) int run_timeline(uint32_t call)
{
    show s = {.call = call};
    show_init(&s);
    return wa_spawn_of(wa_js_rt(), &s, NULL);
}
