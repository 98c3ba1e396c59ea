/* SPDX-License-Identifier: MIT */
/* extlib: see extlib.h. It uses no wasync header on purpose: the registry
 * ABI is declared here as a foreign library would declare it. */
#include "extlib.h"

typedef struct wasip3_task {
    uint32_t version;
    void *ptr;
    void *(*waitable_register)(void *ptr, uint32_t waitable, void (*callback)(void *callback_ptr, uint32_t code),
                               void *callback_ptr);
    void *(*waitable_unregister)(void *ptr, uint32_t waitable);
} wasip3_task;
void *wasip3_task_set(void *ptr);

__attribute__((import_module("wasi:clocks/monotonic-clock@0.3.0"), import_name("[async-lower]wait-for")))
uint32_t extlib_wait_for(int64_t ns);
__attribute__((import_module("$root"), import_name("[subtask-drop]"))) void extlib_subtask_drop(uint32_t subtask);

enum { STARTED = 1, RETURNED = 2 };

/* The executor's current task, as the ABI finds it. */
static wasip3_task *extlib_task(void)
{
    wasip3_task *t = wasip3_task_set(0);
    wasip3_task_set(t);
    return t && t->version >= 1 ? t : 0;
}

/* A registration fires once: STARTED registers again. */
static void extlib_fired(void *arg, uint32_t state)
{
    extlib_sleep *s = arg;
    s->events++;
    if (state == STARTED) {
        wasip3_task *t = extlib_task();
        t->waitable_register(t->ptr, s->subtask, extlib_fired, s);
        return;
    }
    extlib_subtask_drop(s->subtask);
    s->subtask = 0;
    s->done(s->arg);
}

int extlib_sleep_start(extlib_sleep *s, uint64_t ns, void (*done)(void *arg), void *arg)
{
    wasip3_task *t = extlib_task();
    if (!t)
        return -1;
    s->done = done;
    s->arg = arg;
    s->events = 0;
    uint32_t r = extlib_wait_for((int64_t)ns);
    if ((r & 0xf) == RETURNED) {
        s->subtask = 0;
        done(arg);
        return 0;
    }
    s->subtask = r >> 4;
    t->waitable_register(t->ptr, s->subtask, extlib_fired, s);
    return 0;
}
