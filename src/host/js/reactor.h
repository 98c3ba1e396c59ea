/* SPDX-License-Identifier: MIT */
/* Internal: the JS reactor (reactor.c) as the layers above it see it. It
 * hands JavaScript keys for the host operations of ops.c and the promise
 * handles of promises.c (each live key is a source of wakes); the module's runtime
 * (runtime.c) is made on it and keeps its host timer. */
#ifndef WASYNC_HOST_JS_REACTOR_H
#define WASYNC_HOST_JS_REACTOR_H

#include <stdint.h>

#include "wasync/js.h"

/* Declares a function of the import module "wasync" (js/wasync.mjs). Its C
 * name is wa__js_<name>_, whatever file declares it, so that no C name
 * stands for two imports (wasm-ld refuses that program: src/wasi/cabi.h). */
#define WA__JS_IMPORT(name) __attribute__((import_module("wasync"), import_name(#name)))

/* What a key stands for: a host operation, a promise, or something the
 * glue keeps for C (a handle: nothing is delivered to it). */
enum { WA__JS_KEY_OP = 1, WA__JS_KEY_PROMISE, WA__JS_KEY_HANDLE };

/* Creates the module's runtime on a new JS reactor, once: 0 (also when it
 * exists) or WA_ENOMEM (runtime.c, the glue's wasync_init). */
int wa__js_start(void);
/* Runs one round of the runtime and keeps the host timer on its earliest
 * deadline: returns the runnable count, or WA_EINVAL before wa__js_start
 * (runtime.c, the glue's wasync_tick). */
int wa__js_tick(void);
/* Returns a new JS reactor, the one there is (NULL with *err WA_EMISUSE
 * while it lives, or WA_ENOMEM). */
wa_backend *wa__backend_js_new(int *err);
/* Arms the one host timer for deadline (WA_NEVER: none), unless it is. */
void wa__js_arm(uint64_t deadline);
/* The bytes a key keeps for what it stands for (the address of a host
 * operation or of what a handle is to: ops.c; a promise's outcome:
 * promises.c):
 * aligned for a double, at one address while the key lives. */
#define WA__JS_KEY_RECORD 24
/* Stores a new key of kind in *key and its record (zeroed) in *rec: 0,
 * WA_EINVAL before wa__js_start, or WA_ENOMEM. */
int wa__js_key_new(int kind, uint32_t *key, void **rec);
/* The record of a live key of this kind (borrowed); NULL when the key is
 * stale, of another kind, or there is no reactor. */
void *wa__js_key_get(uint32_t key, int kind);
/* Frees a live key: later lookups of it find nothing. */
void wa__js_key_free(uint32_t key);

#endif
