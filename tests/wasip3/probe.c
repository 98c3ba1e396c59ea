/* SPDX-License-Identifier: MIT */
/* The async built-ins under jco + preview3-shim, checked and timed: an
 * async export of wasi:cli/run@0.3.0 whose callback drives one waitable
 * set. Two async-lowered wait-for calls (20 and 40 ms) must report SUBTASK
 * events in order, a third is cancelled while pending, the task's context
 * slot survives between callbacks; then the costs: an async-lowered call
 * that completes at once, and how late 1 ms and 20 ms waits wake. Output
 * ends with "N passed, M failed". */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "../../src/host/wasip3/builtins.h"

#define MS 1000000ull
#define ROUNDS 20 /* zero waits timed */
#define LATE 5    /* 1 ms and 20 ms waits timed, each */

__attribute__((import_module("[export]wasi:cli/run@0.3.0"), import_name("[task-return]run")))
void task_return_run(uint32_t is_err);

typedef struct probe {
    int phase, passed, failed;
    uint32_t set, a, b;
    int seen;          /* SUBTASK events seen in phase 0 */
    uint64_t t0, t1;   /* phase start, current call */
    int round;
    uint64_t zero_total, zero_call, zero_max;
    int zero_at_once;
    uint64_t late[2][LATE];
    long host_calls;   /* built-ins and imports we called */
} probe;

static probe P;

static void check(int ok, const char *what)
{
    if (ok)
        P.passed++;
    else
        P.failed++;
    printf("%s: %s\n", ok ? "ok" : "FAILED", what);
}

static uint64_t now(void)
{
    P.host_calls++;
    return wa__wasip3_now();
}

/* Starts wait-for(ns); returns the subtask joined to the set, or 0 when
 * the call completed at once. */
static uint32_t start_wait(uint64_t ns)
{
    P.host_calls++;
    uint32_t r = wa__wasip3_wait_for(ns);
    if (wa__wasip3_state(r) == WA__WASIP3_SUBTASK_RETURNED)
        return 0;
    uint32_t st = wa__wasip3_subtask(r);
    P.host_calls++;
    wa__wasip3_waitable_join(st, P.set);
    return st;
}

static void drop(uint32_t st)
{
    P.host_calls++;
    wa__wasip3_subtask_drop(st);
}

static uint64_t late_ns(int which) { return which ? 20 * MS : 1 * MS; }

/* Starts the next step of the phase; returns the callback code. */
static uint32_t step(void)
{
    for (;;) {
        if (P.phase == 1) { /* zero waits, one at a time */
            if (P.round == ROUNDS) {
                P.phase = 2, P.round = 0;
                continue;
            }
            P.t1 = now();
            uint32_t st = start_wait(0);
            P.zero_call += now() - P.t1;
            if (st) {
                P.a = st;
                return wa__wasip3_callback_wait(P.set);
            }
            P.zero_at_once++;
            uint64_t d = now() - P.t1;
            P.zero_total += d;
            if (d > P.zero_max)
                P.zero_max = d;
            P.round++;
            continue;
        }
        if (P.phase == 2) { /* 1 ms, then 20 ms waits, one at a time */
            if (P.round == 2 * LATE) {
                P.phase = 3;
                continue;
            }
            P.t1 = now();
            P.a = start_wait(late_ns(P.round / LATE));
            if (P.a)
                return wa__wasip3_callback_wait(P.set);
            P.late[P.round / LATE][P.round % LATE] = 0;
            P.round++;
            continue;
        }
        /* phase 3: the rest, then the report */
        wa__wasip3_backpressure_inc();
        wa__wasip3_backpressure_dec();
        P.host_calls += 2;
        check(1, "backpressure-inc then -dec");
        wa__wasip3_event e = wa__wasip3_waitable_set_poll(P.set);
        P.host_calls++;
        check(e.code == WA__WASIP3_EVENT_NONE, "waitable-set-poll of an idle set: NONE");
        P.host_calls++;
        check(!wa__wasip3_thread_yield(), "thread-yield: not cancelled");
        /* A blocking wait (the core stack suspends) on a set of its own;
         * the subtask is unjoined before its drop. */
        uint32_t set = wa__wasip3_waitable_set_new();
        P.t1 = now();
        uint32_t r = wa__wasip3_wait_for(5 * MS), st = wa__wasip3_subtask(r);
        wa__wasip3_waitable_join(st, set);
        e = wa__wasip3_waitable_set_wait(set);
        uint64_t took = now() - P.t1;
        P.host_calls += 4;
        check(wa__wasip3_state(r) == WA__WASIP3_SUBTASK_STARTED && e.code == WA__WASIP3_EVENT_SUBTASK && e.p1 == st &&
              e.p2 == WA__WASIP3_SUBTASK_RETURNED && took >= 5 * MS, "waitable-set-wait blocks until the 5 ms wait returns");
        printf("  after %.2f ms\n", took / 1e6);
        wa__wasip3_waitable_join(st, 0);
        drop(st);
        wa__wasip3_waitable_set_drop(set);
        P.host_calls += 2;
        P.host_calls++;
        wa__wasip3_waitable_set_drop(P.set);
        printf("zero wait-for: %d of %d completed at once; the call %.1f us, to completion %.3f ms (max %.3f ms) on average\n",
               P.zero_at_once, ROUNDS, P.zero_call / 1e3 / ROUNDS, P.zero_total / 1e6 / ROUNDS, P.zero_max / 1e6);
        for (int w = 0; w < 2; w++) {
            uint64_t sum = 0, max = 0;
            for (int i = 0; i < LATE; i++) {
                sum += P.late[w][i];
                if (P.late[w][i] > max)
                    max = P.late[w][i];
            }
            printf("wait-for %" PRIu64 " ms woke %.2f ms late on average (max %.2f ms)\n",
                   late_ns(w) / MS, sum / 1e6 / LATE, max / 1e6);
            check(sum > 0 || w == 0, "waits end after their duration");
        }
        /* For scale: a synchronous import (now), 1,000 times. */
        uint64_t t = now();
        for (int i = 0; i < 1000; i++)
            wa__wasip3_now();
        P.host_calls += 1001;
        printf("monotonic-clock now (synchronous): %.2f us a call\n", (now() - t) / 1e3 / 1000);
        printf("host calls made by the guest: %ld\n", P.host_calls);
        printf("%d passed, %d failed\n", P.passed, P.failed);
        fflush(stdout);
        task_return_run(P.failed != 0);
        return WA__WASIP3_CALLBACK_EXIT;
    }
}

static uint32_t on_event(uint32_t code, uint32_t p1, uint32_t p2)
{
    P.host_calls++;
    if (wa__wasip3_context_get() != &P) {
        check(0, "the context slot keeps its value between callbacks");
        return WA__WASIP3_CALLBACK_EXIT; /* (and the host reports the missing task.return) */
    }
    if (code != WA__WASIP3_EVENT_SUBTASK || p2 != WA__WASIP3_SUBTASK_RETURNED) {
        printf("unexpected event %u (%u, %u) in phase %d\n", code, p1, p2, P.phase);
        P.failed++;
        return step();
    }
    uint64_t t = now();
    if (P.phase == 0) {
        P.seen++;
        if (P.seen == 1) {
            check(p1 == P.a, "the 20 ms wait reports first");
            check(t - P.t0 >= 20 * MS, "...not before 20 ms");
            printf("  after %.2f ms\n", (t - P.t0) / 1e6);
        } else {
            check(p1 == P.b, "the 40 ms wait reports second");
            check(t - P.t0 >= 40 * MS, "...not before 40 ms");
            printf("  after %.2f ms\n", (t - P.t0) / 1e6);
        }
        drop(p1);
        if (P.seen < 2)
            return wa__wasip3_callback_wait(P.set);
        check(1, "the context slot keeps its value between callbacks");
        P.phase = 1;
        return step();
    }
    if (p1 != P.a) {
        printf("event for subtask %u, expected %u\n", p1, P.a);
        P.failed++;
    }
    drop(p1);
    if (P.phase == 1) {
        uint64_t d = t - P.t1;
        P.zero_total += d;
        if (d > P.zero_max)
            P.zero_max = d;
    } else {
        uint64_t want = late_ns(P.round / LATE);
        P.late[P.round / LATE][P.round % LATE] = t - P.t1 > want ? t - P.t1 - want : 0;
        if (t - P.t1 < want)
            check(0, "a wait ended early");
    }
    P.round++;
    return step();
}

__attribute__((export_name("[async-lift]wasi:cli/run@0.3.0#run")))
uint32_t run_start(void)
{
    wa__wasip3_context_set(&P);
    P.host_calls++;
    P.set = wa__wasip3_waitable_set_new();
    P.host_calls++;
    check(P.set != 0, "waitable-set-new");
    P.t0 = now();
    uint32_t ra = wa__wasip3_wait_for(20 * MS), rb = wa__wasip3_wait_for(40 * MS), rc = wa__wasip3_wait_for(1000 * MS);
    P.host_calls += 3;
    printf("wait-for 20, 40, 1000 ms: states %u %u %u, subtasks %u %u %u\n", wa__wasip3_state(ra), wa__wasip3_state(rb),
           wa__wasip3_state(rc), wa__wasip3_subtask(ra), wa__wasip3_subtask(rb), wa__wasip3_subtask(rc));
    check(wa__wasip3_state(ra) == WA__WASIP3_SUBTASK_STARTED && wa__wasip3_state(rb) == WA__WASIP3_SUBTASK_STARTED &&
          wa__wasip3_state(rc) == WA__WASIP3_SUBTASK_STARTED, "the three waits are pending (STARTED)");
    P.a = wa__wasip3_subtask(ra), P.b = wa__wasip3_subtask(rb);
    uint32_t c = wa__wasip3_subtask(rc);
    uint32_t cancelled = wa__wasip3_subtask_cancel(c);
    P.host_calls++;
    printf("subtask-cancel of the 1000 ms wait: state %u\n", cancelled);
    check(cancelled == WA__WASIP3_SUBTASK_CANCELLED_BEFORE_RETURNED, "subtask-cancel returns CANCELLED_BEFORE_RETURNED");
    if (cancelled != WA__WASIP3_BLOCKED)
        drop(c);
    wa__wasip3_waitable_join(P.a, P.set);
    wa__wasip3_waitable_join(P.b, P.set);
    P.host_calls += 2;
    return wa__wasip3_callback_wait(P.set);
}

__attribute__((export_name("[callback][async-lift]wasi:cli/run@0.3.0#run")))
uint32_t run_callback(uint32_t code, uint32_t p1, uint32_t p2)
{
    return on_event(code, p1, p2);
}
