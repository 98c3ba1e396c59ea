/* SPDX-License-Identifier: MIT */
/* Internal: the JavaScript host's export ABI, the functions the glue
 * (js/wasync.mjs) calls and nothing else does (exports.c defines them,
 * promises.c the promises' five, which come with wa_js_await_init, and
 * trace_sink.c the trace's; docs/reactor.md says when the glue calls
 * each). Not in a public header:
 * no C code of a user's calls them. */
#ifndef WASYNC_HOST_JS_EXPORTS_H
#define WASYNC_HOST_JS_EXPORTS_H

#include <stddef.h>
#include <stdint.h>

/* Exports a definition to the glue under its own name. */
#define WA__JS_EXPORT(name) __attribute__((export_name(#name)))

int wasync_init(void);        /* creates the runtime: 0 or WA_ENOMEM */
int wasync_tick(void);        /* one round; returns the runnable count */
void *wasync_alloc(size_t n); /* memory the host fills for wasync_deliver */
/* Frees p, which wasync_alloc returned (taken). */
void wasync_free(void *p);
/* Completes host op id with status (WA_PENDING: a chunk, more to come),
 * the n bytes at p (taken) and a number. Stale ids are ignored. */
void wasync_deliver(uint32_t id, int status, void *p, size_t n, double number);
/* Up to n new promise handles (pending) into out: how many (fewer when
 * memory ran out). */
size_t wasync_adopt_n(uint32_t *out, size_t n);
/* The promise of handle settled (status 0 or WA_EIO), bytes at p taken. */
void wasync_settled(uint32_t handle, int status, void *p, size_t n, double number);
/* Room for n (at most 1024) outcomes in the module's settlement table, 24
 * bytes each: f64 number, u32 handle, i32 status, u32 p, u32 n, as
 * wasync_settled takes them; NULL when out of memory. */
void *wasync_outcomes(size_t n);
/* Settles the first n outcomes of the table in order, as wasync_settled
 * does each: a batch of settlements in one call. */
void wasync_settled_n(size_t n);
/* Forgets handle (wa_js_release, from the glue). */
void wasync_release(uint32_t handle);
/* Starts the module's runtime's trace as WASYNC_TRACE would (the glue's
 * option trace): 0, or WA_ENOSYS when the module has no trace. Defined by
 * trace_sink.c, in a module that has the trace only. */
int wasync_trace_env(void);

#endif
