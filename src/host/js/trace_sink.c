/* SPDX-License-Identifier: MIT */
/* A trace's sink on the JavaScript host (src/core/trace.h): the glue
 * (js/trace.mjs) collects the events, hands each to a live callback and,
 * in Node, writes the file a path names ("-": collected only); and the
 * export wasync_trace_env, which starts the module's runtime's trace when
 * the glue wants one. Linked with the trace only (trace_file.c calls it),
 * so that a module that does not trace has none of it: the glue calls
 * the export when the module has it. It imports from "wasync":
 *
 *   trace_open(path, len) -> sink or WA_EIO
 *   trace_write(sink, ptr, len) -> 0 or WA_EIO
 *   trace_close(sink) -> 0 or WA_EIO
 *   trace_env(buf, cap) -> len: the path the glue wants (its option
 *     trace, WASYNC_TRACE in Node's environment) into buf, or 0
 */
#include <string.h>

#include "../../core/trace.h"
#include "exports.h"
#include "reactor.h"

/* (weak: trace.c, which calls this file, is in a module that calls
 * wa_trace_start or is linked with -Wl,--undefined=wa_trace_start; one
 * that only names its tasks has the sink without it) */
extern void wa__trace_env(wa_rt *rt) __attribute__((weak));

WA__JS_IMPORT(trace_open) int wa__js_trace_open(const char *path, size_t len);
WA__JS_IMPORT(trace_write) int wa__js_trace_write(int sink, const char *p, size_t n);
WA__JS_IMPORT(trace_close) int wa__js_trace_close(int sink);
WA__JS_IMPORT(trace_env) size_t wa__js_trace_env(char *buf, size_t cap);

int wa__trace_sink_open(const char *path) { return wa__js_trace_open(path, strlen(path)); }

int wa__trace_sink_write(int sink, const char *p, size_t n) { return wa__js_trace_write(sink, p, n); }

int wa__trace_sink_close(int sink) { return wa__js_trace_close(sink); }

const char *wa__trace_sink_env(void)
{
    static char path[1024];
    size_t n = wa__js_trace_env(path, sizeof path - 1);
    if (!n || n >= sizeof path)
        return NULL;
    path[n] = 0;
    return path;
}

__attribute__((export_name("wasync_trace_env"))) int wasync_trace_env(void)
{
    if (!wa__trace_env || !wa_js_rt())
        return WA_ENOSYS;
    wa__trace_env(wa_js_rt());
    return 0;
}
