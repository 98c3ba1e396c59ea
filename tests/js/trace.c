/* SPDX-License-Identifier: MIT */
/* A traced JS-host module (tests/js/trace.test.mjs, and in Chromium): its
 * export traced runs named tasks on the module's runtime, which the glue
 * traces (its option trace): a sleeper, a joiner awaiting it, and a
 * dawdler cancelled in its sleep. errors checks wa_trace_start's and
 * wa_trace_stop's refusals, which also links the trace into the module. */
#include "wasync.h"
#include "wasync/trace.h"

typedef struct sleeper {
    WA_CORO;
    uint64_t ns;
    wa_sleep s;
} sleeper;

WA_ASYNC(sleeper, t, cx)
{
    WA_BEGIN(t, cx);
    WA_TRY(wa_sleep_init(&t->s, t->ns));
    WA_END();
}

/* Awaits the sleeper, cancels the dawdler, and settles the call. */
typedef struct joiner {
    WA_CORO;
    uint32_t call;
    wa_join sleeper, dawdler;
} joiner;

WA_ASYNC(joiner, t, cx)
{
    WA_BEGIN(t, cx);
    WA_AWAIT(&t->sleeper.fut);
    int rc = WA_STATUS;
    wa_join_cancel(&t->dawdler);
    WA_AWAIT(&t->dawdler.fut);
    wa_js_settle(t->call, rc == 0 && WA_STATUS == WA_ECANCELED ? 0 : WA_EIO, NULL, 0, 0);
    WA_END();
}

__attribute__((export_name("traced"))) int traced(uint32_t call)
{
    wa_rt *rt = wa_js_rt();
    sleeper a, b;
    joiner j = {.call = call};
    sleeper_init(&a);
    sleeper_init(&b);
    joiner_init(&j);
    a.ns = WA_MS(20);
    b.ns = WA_SEC(100);
    int rc = wa_spawn_of_named(rt, &a, &j.sleeper, "sleeper");
    if (rc < 0)
        return rc;
    if ((rc = wa_spawn_of_named(rt, &b, &j.dawdler, "dawdler")) < 0) {
        wa_join_drop(&j.sleeper);
        return rc;
    }
    if ((rc = wa_spawn_of_named(rt, &j, NULL, "joiner")) < 0) {
        wa_join_drop(&j.sleeper);
        wa_join_abort(&j.dawdler);
        wa_join_drop(&j.dawdler);
    }
    return rc;
}

/* The refusals, on the module's runtime (traced by the glue) and on a
 * runtime of its own: 0 when each is as trace.h says, else the line. */
__attribute__((export_name("errors"))) int errors(const char *bad, size_t len)
{
    char path[256];
    if (len >= sizeof path)
        return -1;
    for (size_t i = 0; i < len; i++)
        path[i] = bad[i];
    path[len] = 0;
    if (wa_trace_start(wa_js_rt(), "-") != WA_EBUSY)
        return __LINE__;
    wa_rt *rt;
    if (wa_rt_new(&rt) != 0)
        return __LINE__;
    int line = wa_trace_stop(rt) != WA_EINVAL          ? __LINE__
               : wa_trace_start(rt, path) != WA_EIO     ? __LINE__
               : wa_trace_start(rt, "-") != 0           ? __LINE__
               : wa_trace_start(rt, "-") != WA_EBUSY    ? __LINE__
               : wa_trace_stop(rt) != 0                 ? __LINE__
               : wa_trace_stop(rt) != WA_EINVAL         ? __LINE__
                                                        : 0;
    wa_rt_free(rt);
    return line;
}
