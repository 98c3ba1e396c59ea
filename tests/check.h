/* SPDX-License-Identifier: MIT */
/* A tiny test harness: CHECK macros, per-test names, and the closing
 * "N passed, N failed" line that every test binary prints. */
#ifndef WASYNC_TESTS_CHECK_H
#define WASYNC_TESTS_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasync.h"

static int check_passed, check_failed;
static const char *check_current = "";

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (cond) {                                                                  \
            check_passed++;                                                          \
        } else {                                                                     \
            check_failed++;                                                          \
            fprintf(stderr, "%s:%d: [%s] CHECK(%s) failed\n", __FILE__, __LINE__,    \
                    check_current, #cond);                                           \
        }                                                                            \
    } while (0)

#define CHECK_EQ(a, b)                                                               \
    do {                                                                             \
        long long check_a_ = (long long)(a), check_b_ = (long long)(b);              \
        if (check_a_ == check_b_) {                                                  \
            check_passed++;                                                          \
        } else {                                                                     \
            check_failed++;                                                          \
            fprintf(stderr, "%s:%d: [%s] CHECK_EQ(%s, %s): %lld != %lld\n", __FILE__,  \
                    __LINE__, check_current, #a, #b, check_a_, check_b_);            \
        }                                                                            \
    } while (0)

/* Text s (a reason: not NULL) has words in it ("": is empty), the text
 * shown when not. */
#define CHECK_HAS(s, words)                                                          \
    do {                                                                             \
        const char *check_s_ = (s), *check_w_ = (words);                             \
        if (check_s_ && (*check_w_ ? strstr(check_s_, check_w_) != NULL : !*check_s_)) { \
            check_passed++;                                                          \
        } else {                                                                     \
            check_failed++;                                                          \
            fprintf(stderr, "%s:%d: [%s] CHECK_HAS(%s, \"%s\"): \"%s\"\n", __FILE__,   \
                    __LINE__, check_current, #s, check_w_, check_s_ ? check_s_ : "(NULL)"); \
        }                                                                            \
    } while (0)

/* Setup a test cannot go on without: a runtime, a channel, a spawn. When
 * it fails (as under tests/faults, which makes allocations fail) REQUIRE
 * counts a failure, says where, and returns from the test; REQUIRE_OR
 * first runs undo, a statement that releases what the test made so far. */
#define REQUIRE_OR(cond, undo)                                                       \
    do {                                                                             \
        if (!(cond)) {                                                               \
            check_failed++;                                                          \
            fprintf(stderr, "%s:%d: [%s] REQUIRE(%s) failed: test stopped\n",         \
                    __FILE__, __LINE__, check_current, #cond);                       \
            undo;                                                                    \
            return;                                                                  \
        }                                                                            \
    } while (0)

#define REQUIRE(cond) REQUIRE_OR(cond, (void)0)

/* Runs a test, then puts the default misuse hook back (a test stopped by
 * REQUIRE may not have). */
#define RUN(fn)                          \
    do {                                 \
        check_current = #fn;             \
        fn();                            \
        wa_misuse_set_hook(NULL);        \
    } while (0)

/* Runs a test that needs wa_rt_new's runtime on a real clock (a task that
 * spins while time passes). On the JS host those runtimes run on the
 * simulated clock, which moves only when nothing is runnable: skipped. */
#if defined(WASYNC_HOST_JS)
#define RUN_REAL_CLOCK(fn) ((void)fn)
#else
#define RUN_REAL_CLOCK(fn) RUN(fn)
#endif

static inline int check_finish(void)
{
    printf("%d passed, %d failed\n", check_passed, check_failed);
    return check_failed != 0;
}

/* How many times word occurs in text. */
static inline int check_count(const char *text, const char *word)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, word)); p++)
        n++;
    return n;
}

/* Reads the file at path into buf (size bytes, NUL-terminated) and
 * removes it; returns the length read. */
static inline size_t check_take_file(const char *path, char *buf, size_t size)
{
    size_t len = 0;
    FILE *f = fopen(path, "r");
    if (f) {
        len = fread(buf, 1, size - 1, f);
        fclose(f);
    }
    buf[len] = 0;
    remove(path);
    return len;
}

/* Misuse reports are counted, not fatal, so tests can provoke them; the
 * last one's text is kept. */
/* Whether the test runs under wasmtime (tests/wasmtime.cmake says so in
 * WASYNC_RUNNER), whose hosts differ from jco's. */
static inline int check_on_wasmtime(void)
{
    const char *r = getenv("WASYNC_RUNNER");
    return r && strcmp(r, "wasmtime") == 0;
}

static int check_misuses;
static char check_misuse_text[320];
static inline void check_count_misuse(const char *what)
{
    snprintf(check_misuse_text, sizeof check_misuse_text, "%s", what);
    check_misuses++;
}
static inline void check_catch_misuse(void) { wa_misuse_set_hook(check_count_misuse); }

/* Checks that expr (misuse caught: check_catch_misuse) returns rc and
 * reports one misuse, whose text names call ("wa_stream_close: "). */
#define CHECK_MISUSE(expr, rc, call)                                            do {                                                                            int misuses_ = check_misuses;                                               check_misuse_text[0] = 0;                                                   CHECK_EQ((expr), (rc));                                                     CHECK_EQ(check_misuses - misuses_, 1);                                      if (!strstr(check_misuse_text, call ": "))                                      printf("  (%s: the report \"%s\" does not name %s)\n",                          check_current, check_misuse_text, call);                         CHECK(strstr(check_misuse_text, call ": ") != NULL);                    } while (0)

/* A runtime on the sim backend (virtual time; seed 0: FIFO ties). */
static inline wa_rt *check_sim_rt(uint64_t seed)
{
    wa_rt *rt = NULL;
    if (wa_rt_new_on(&rt, wa_backend_sim_new(seed)) != 0)
        return NULL;
    return rt;
}

/* wa_spawn, or wa_scope_spawn into s when s is not NULL. A future that
 * could not be spawned is dropped: what it owns (a channel end, a stream
 * moved into it) goes with it. */
static inline int check_spawn(wa_rt *rt, wa_scope *s, wa_future *fut, size_t size, wa_join *join)
{
    int rc = s ? wa_scope_spawn(s, fut, size, join) : wa_spawn(rt, fut, size, join);
    if (rc < 0)
        wa_drop(fut);
    return rc;
}
#define check_spawn_of(rt, ptr, join) check_spawn((rt), NULL, (wa_future *)(ptr), sizeof *(ptr), (join))
#define check_scope_spawn_of(s, ptr, join) check_spawn(NULL, (s), (wa_future *)(ptr), sizeof *(ptr), (join))

/* Drops the handles of js[0..n) that hold a task (a handle from a failed
 * spawn, zeroed beforehand, holds none). */
static inline void check_joins_drop(wa_join *js, int n)
{
    for (int i = 0; i < n; i++)
        if (js[i].task)
            wa_join_drop(&js[i]);
}

/* Asserts that rt holds nothing (tasks, timers, registered sources) and
 * frees it. */
#define CHECK_RT_EMPTY_FREE(rt)                     \
    do {                                            \
        wa_rt_stats st_;                            \
        wa_rt_stats_get((rt), &st_);                \
        CHECK_EQ(st_.tasks, 0);                     \
        CHECK_EQ(st_.timers, 0);                    \
        CHECK_EQ(st_.sources, 0);                   \
        wa_rt_free(rt);                             \
    } while (0)

#endif
