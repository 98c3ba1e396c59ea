/* SPDX-License-Identifier: MIT */
/* Diagnostics on the JavaScript host go to the glue's log (js/wasync.mjs:
 * the console). It imports from "wasync":
 *
 *   log(ptr, len)
 */
#include <string.h>

#include "../../core/rt.h"
#include "reactor.h"

WA__JS_IMPORT(log) void wa__js_log(const char *p, size_t n);

void wa__log(const char *text) { wa__js_log(text, strlen(text)); }
