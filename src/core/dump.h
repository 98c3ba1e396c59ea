/* SPDX-License-Identifier: MIT */
/* Internal: task dumps and deadlock reports (dump.c), a task named in
 * text (task_name.c), and the text they are built with (text.h). */
#ifndef WASYNC_CORE_DUMP_H
#define WASYNC_CORE_DUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "text.h"
#include "wasync/future.h"

/* task_name.c: appends `task N "name"` (block_on's task is named after
 * its future). */
void wa__text_task(wa__text *d, const wa_task *t);

/* Appends t's line after indent: its state, and with look (its future
 * may be read: no poll of it runs meanwhile) what its diagnostics say;
 * now is the backend's clock. */
void wa__dump_task(wa__text *d, const wa_task *t, const char *indent, bool look, uint64_t now);

/* task_name.c: a join handle's describe (future.h), the task it awaits. */
size_t wa__join_describe(const wa_future *f, uint64_t now, char *buf, size_t len);

/* Reports a deadlock through rt's report hook (default: wa__log), with
 * the task dump dump makes (wa_rt_dump, or the many-threads one). */
void wa__report_deadlock(wa_rt *rt, size_t (*dump)(const wa_rt *rt, char *buf, size_t len));

#endif
