/* SPDX-License-Identifier: MIT */
/* A runtime's trace (wasync/trace.h): the public calls, and WASYNC_TRACE;
 * the JSON and its events are trace_file.c's, the path's sink the host's. */
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "trace.h"
#include "why.h"

int wa_trace_start(wa_rt *rt, const char *path)
{
    if (!rt || !path)
        return wa__misuse_in(WA_EINVAL, "wa_trace_start", !rt ? "no runtime (NULL)" : "no path (NULL)");
    rt = wa__rt_home(rt);
    if (rt->trace)
        return WA_EBUSY;
    int rc = wa__trace_open(rt, path);
    if (rc == 0) { /* (after the trace: a wrapped task writes to it) */
        __atomic_store_n(&rt->wrap, wa__diag_wrap, __ATOMIC_RELEASE);
        __atomic_store_n(&rt->why, &wa__why_hooks_traced, __ATOMIC_RELEASE);
    }
    return rc;
}

int wa_trace_stop(wa_rt *rt)
{
    if (!rt)
        return wa__misuse_in(WA_EINVAL, "wa_trace_stop", "no runtime (NULL)");
    rt = wa__rt_home(rt);
    if (!rt->trace)
        return WA_EINVAL;
    __atomic_store_n(&rt->wrap, NULL, __ATOMIC_RELEASE);
    __atomic_store_n(&rt->why, NULL, __ATOMIC_RELEASE);
    return wa__trace_stop_file(rt);
}

void wa__trace_env(wa_rt *rt)
{
    static unsigned runtimes;
    const char *path = wa__trace_sink_env();
    if (!path || !*path)
        return;
    unsigned n = __atomic_add_fetch(&runtimes, 1, __ATOMIC_RELAXED);
    bool own = strcmp(path, "-") == 0; /* (stderr, the glue's: one JSON text, the first runtime's) */
    if (own && n > 1)
        return;
    static const char say[] = "wasync: WASYNC_TRACE: cannot write the trace to ";
    size_t len = sizeof say + strlen(path) + 12;
    char *text = malloc(len);
    if (!text)
        return;
    wa__text d = {text, len, 0};
    wa__text_str(&d, say);
    wa__text_str(&d, path);
    if (n > 1) { /* the first runtime's is FILE, the second's FILE.2 */
        wa__text_str(&d, ".");
        wa__text_uint(&d, n);
    }
    if (wa_trace_start(rt, text + sizeof say - 1) == WA_EIO)
        wa__log(text);
    free(text);
}
