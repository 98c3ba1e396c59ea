/* SPDX-License-Identifier: MIT */
/* Internal: text built without stdio (a wasm build carries none), task
 * dumps and deadlock reports (dump.c). */
#ifndef WASYNC_CORE_DUMP_H
#define WASYNC_CORE_DUMP_H

#include <stddef.h>
#include <stdint.h>

#include "wasync/future.h"

/* Text built into a buffer of len bytes, always NUL-terminated; need counts
 * what the whole text takes (as snprintf). */
typedef struct wa_text {
    char *buf;
    size_t len, need;
} wa_text;
void wa_text_str_(wa_text *d, const char *s);
void wa_text_uint_(wa_text *d, uint64_t v);
/* Appends `task N "name"` (block_on's task is named after its future). */
void wa_text_task_(wa_text *d, const wa_task *t);

/* Appends a line per task of the owner list l, after indent. */
void wa_dump_tasks_(wa_text *d, const wa_list *l, const char *indent);

/* Reports a deadlock through rt's report hook (default: wa_log_), with
 * the task dump dump makes (wa_rt_dump, or the many-threads one). */
void wa_report_deadlock_(wa_rt *rt, size_t (*dump)(const wa_rt *rt, char *buf, size_t len));

#endif
