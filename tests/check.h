/* A tiny test harness: CHECK macros, per-test names, and the closing
 * "N passed, N failed" line that every test binary prints. */
#ifndef WASYNC_TESTS_CHECK_H
#define WASYNC_TESTS_CHECK_H

#include <stdio.h>
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

#define RUN(fn)                   \
    do {                          \
        check_current = #fn;      \
        fn();                     \
    } while (0)

static inline int check_finish(void)
{
    printf("%d passed, %d failed\n", check_passed, check_failed);
    return check_failed != 0;
}

/* Misuse reports are counted, not fatal, so tests can provoke them. */
static int check_misuses;
static inline void check_count_misuse(const char *what)
{
    (void)what;
    check_misuses++;
}
static inline void check_catch_misuse(void) { wa_set_misuse_hook(check_count_misuse); }

/* A runtime on the sim backend (virtual time; seed 0: FIFO ties). */
static inline wa_rt *check_sim_rt(uint64_t seed)
{
    wa_rt *rt = NULL;
    if (wa_rt_new(&rt, wa_backend_sim_new(seed)) != 0)
        return NULL;
    return rt;
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
