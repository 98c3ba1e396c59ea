/* SPDX-License-Identifier: MIT */
/* Internal: what futures say of themselves and await, for dumps and
 * traces (describe.c). */
#ifndef WASYNC_CORE_DESCRIBE_H
#define WASYNC_CORE_DESCRIBE_H

#include "text.h"

/* Appends what the future f (a task's: block_on's root is looked through)
 * waits for: its own words (describe), then lead and the futures it
 * awaits, down to the leaves (future.h). */
void wa__text_waits(wa__text *d, const wa_future *f, uint64_t now, const char *lead);

/* The describes of sleeps and intervals (future.h), which their vtables
 * (sleep.c) name weakly: this file comes with wa__text_waits, which only
 * what can ask for a dump or a trace calls (dump.c, diag.c), and in a
 * program without either they are NULL, a vtable's "nothing to say" (a
 * JS host module carries no text for them). */
size_t wa__sleep_describe(const wa_future *f, uint64_t now, char *buf, size_t len) __attribute__((weak));
size_t wa__interval_describe(const wa_future *f, uint64_t now, char *buf, size_t len) __attribute__((weak));

#endif
