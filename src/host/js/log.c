/* SPDX-License-Identifier: MIT */
/* Diagnostics on the JavaScript host go to the glue's log (js/wasync.mjs:
 * the console). It imports from "wasync":
 *
 *   log(ptr, len)
 */
#include <string.h>

#include "../../core/rt.h"
#include "reactor.h"

WA_JS_IMPORT(log) void wa_js_log_(const char *p, size_t n);

void wa_log_(const char *text) { wa_js_log_(text, strlen(text)); }
