/* SPDX-License-Identifier: MIT */
/* extlib: a tiny library that knows nothing of wasync, only the
 * wasip3_task registry ABI (as wit-bindgen's runtimes do): it starts an
 * async-lowered monotonic-clock wait-for and registers its subtask with
 * whatever executor is polling, which calls it back when the subtask
 * resolves. */
#ifndef EXTLIB_H
#define EXTLIB_H

#include <stdint.h>

typedef struct extlib_sleep {
    void (*done)(void *arg); /* called once the sleep ended */
    void *arg;
    uint32_t subtask;
    unsigned events; /* callbacks the registry made */
} extlib_sleep;

/* Starts a sleep of ns; done(arg) is called when it ends (at once if the
 * call returned at once). Returns 0, or -1 outside an executor's poll. */
int extlib_sleep_start(extlib_sleep *s, uint64_t ns, void (*done)(void *arg), void *arg);

#endif
