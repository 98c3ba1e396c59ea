/* SPDX-License-Identifier: MIT */
/* The WASI 0.2 backend under a real component host (jco + preview2-shim):
 * real-time sleeps, one timer pollable shared by all sleeps, registered
 * pollables, stale keys, and the host calls each costs; then the direct
 * bindings of random, environment and wall-clock. */
#include "../futures.h"
#include "../../src/host/wasip2/clocks.h"
#include "wasync/net.h"
#include "wasync/wasi.h"

#include <stdlib.h>
#include <time.h>

/* A runtime on the default backend (wasip2 here), or NULL. */
static wa_rt *p2_rt(void)
{
    wa_rt *rt;
    return wa_rt_new(&rt) == 0 ? rt : NULL;
}

static void test_concurrent_sleeps(void)
{
    wa_rt *rt = p2_rt();
    REQUIRE(rt);
    sleeper s[3];
    uint64_t woke[3], t0 = wa_now(rt);
    wa_join j[3] = {0};
    for (int i = 0; i < 3; i++) { /* (one deadline: relative sleeps count from their own arms) */
        sleeper_init(&s[i], t0 + WA_MS(100), 0);
        s[i].absolute = 1;
        s[i].woke = &woke[i];
        REQUIRE_OR(check_spawn_of(rt, &s[i], &j[i]) == 0, (check_joins_drop(j, 3), wa_rt_free(rt)));
    }
    CHECK_EQ(wa_rt_run(rt), 0);
    for (int i = 0; i < 3; i++) {
        /* each task's copy wrote through the pointer */
        CHECK(woke[i] - t0 >= WA_MS(100));
        CHECK(woke[i] - t0 < WA_SEC(2)); /* (a loaded host is slow) */
        wa_join_drop(&j[i]);
    }
    wa_wasip2_stats st;
    CHECK_EQ(wa_wasip2_stats_get(rt, &st), 0);
    /* three sleeps with one deadline: one timer pollable, not three */
    CHECK_EQ(st.subscribes, 1);
    CHECK_EQ(st.drops, 1);
    CHECK_RT_EMPTY_FREE(rt);
}

/* Waits for a registered pollable. */
typedef struct waiter {
    WA_CORO;
    wa_pollable_wait w;
    wa_pollable_key key;
} waiter;

static int waiter_poll(wa_future *f, wa_cx *cx)
{
    waiter *t = (waiter *)f;
    WA_BEGIN(t, cx);
    WA_AWAIT(wa_pollable_wait_init(&t->w, t->key));
    WA_RETURN(WA_STATUS);
    WA_END();
}
static const wa_future_vt waiter_vt = {waiter_poll, wa_coro_drop, "waiter"};

static void test_registered_pollable(void)
{
    wa_rt *rt = p2_rt();
    REQUIRE(rt);
    wa_pollable_key key;
    uint64_t t0 = wa_now(rt); /* (before the host's 30 ms start) */
    REQUIRE_OR(wa_pollable_register(rt, wa__wasip2_subscribe_duration(WA_MS(30)), &key) == 0, wa_rt_free(rt));
    waiter w;
    wa_coro_init(&w.wa, &waiter_vt);
    w.key = key;
    CHECK_EQ(wa_block_on(rt, &w.wa.fut), 0);
    uint64_t took = wa_now(rt) - t0;
    CHECK(took >= WA_MS(30) && took < WA_SEC(2)); /* (a loaded host is slow) */
    wa_rt_stats rs;
    wa_rt_stats_get(rt, &rs);
    CHECK_EQ(rs.sources, 1); /* registered, though nobody waits on it now */
    CHECK_EQ(wa_pollable_deregister(rt, key), 0);
    check_catch_misuse();
    int before = check_misuses;
    CHECK_EQ(wa_pollable_deregister(rt, key), WA_ESTALE);
    CHECK_EQ(check_misuses, before + 1);
    wa_misuse_set_hook(NULL);
    CHECK_RT_EMPTY_FREE(rt);
}

/* A waiter whose pollable is deregistered is woken with WA_ECLOSED. */
static void test_deregister_wakes(void)
{
    wa_rt *rt = p2_rt();
    REQUIRE(rt);
    wa_pollable_key key;
    REQUIRE_OR(wa_pollable_register(rt, wa__wasip2_subscribe_duration(WA_SEC(60)), &key) == 0, wa_rt_free(rt));
    waiter w;
    wa_coro_init(&w.wa, &waiter_vt);
    w.key = key;
    wa_join j;
    REQUIRE_OR(check_spawn_of(rt, &w, &j) == 0, wa_rt_free(rt));
    wa_rt_tick(rt, NULL);
    CHECK_EQ(wa_pollable_deregister(rt, key), 0);
    wa_rt_tick(rt, NULL);
    CHECK(wa_join_done(&j));
    CHECK_EQ(wa_join_status(&j), WA_ECLOSED);
    wa_join_drop(&j);
    CHECK_RT_EMPTY_FREE(rt);
}

/* Two tasks wait on one pollable: both are woken when it is ready (the
 * second used to replace the first, which then waited for ever); a third,
 * dropped while waiting, leaves the others alone. */
static void test_two_waiters_one_pollable(void)
{
    wa_rt *rt = p2_rt();
    REQUIRE(rt);
    wa_pollable_key key;
    REQUIRE_OR(wa_pollable_register(rt, wa__wasip2_subscribe_duration(WA_MS(20)), &key) == 0, wa_rt_free(rt));
    waiter w[3];
    wa_join j[3] = {0};
    for (int i = 0; i < 3; i++) {
        wa_coro_init(&w[i].wa, &waiter_vt);
        w[i].key = key;
        REQUIRE_OR(check_spawn_of(rt, &w[i], &j[i]) == 0, (check_joins_drop(j, 3), wa_rt_free(rt)));
    }
    wa_rt_tick(rt, NULL);
    CHECK_EQ(wa_join_abort(&j[1]), 0);
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK_EQ(wa_join_status(&j[0]), 0);
    CHECK_EQ(wa_join_status(&j[1]), WA_ECANCELED);
    CHECK_EQ(wa_join_status(&j[2]), 0);
    for (int i = 0; i < 3; i++)
        wa_join_drop(&j[i]);
    CHECK_EQ(wa_pollable_deregister(rt, key), 0);
    CHECK_RT_EMPTY_FREE(rt);
}

/* Many sleeps, few host calls: 1,000 sleeps over 20 distinct deadlines. */
static void test_host_calls_per_sleep(void)
{
    wa_rt *rt = p2_rt();
    REQUIRE(rt);
    static sleeper s[1000];
    for (int i = 0; i < 1000; i++) {
        sleeper_init(&s[i], WA_MS(5 * (i % 20 + 1)), 0);
        REQUIRE_OR(check_spawn_of(rt, &s[i], NULL) == 0, wa_rt_free(rt));
    }
    CHECK_EQ(wa_rt_run(rt), 0);
    wa_wasip2_stats st;
    wa_wasip2_stats_get(rt, &st);
    /* One timer pollable per distinct deadline reached (often fewer: one
     * wait can pass several). Each sleep counts from its own arm, rounded
     * up to the millisecond, so a group spreads over the milliseconds the
     * spawning tick took: a few per deadline, never one per sleep. */
    CHECK(st.subscribes <= 100);
    CHECK(st.polls <= 200);
    CHECK_RT_EMPTY_FREE(rt);
}

/* I/O wakeups while a far timer is armed read no clock: the wait knows the
 * timer pollable was not ready, so the tick after it has no timer to fire
 * (10 wakeups: the first and last ticks' reads; 10 or more without). One
 * run: the wakeups it took in *wakeups (several waiters may wake at once). */
static void no_clock_read_run(uint64_t *wakeups)
{
    wa_rt *rt = p2_rt();
    REQUIRE(rt);
    sleeper far;
    sleeper_init(&far, WA_SEC(60), 0);
    wa_join jf, jw[10] = {0};
    REQUIRE_OR(check_spawn_of(rt, &far, &jf) == 0, wa_rt_free(rt));
    waiter w[10];
    for (int i = 0; i < 10; i++) {
        wa_coro_init(&w[i].wa, &waiter_vt);
        int rc = wa_pollable_register(rt, wa__wasip2_subscribe_duration(WA_MS(10 * (i + 1))), &w[i].key);
        if (rc == 0)
            rc = check_spawn_of(rt, &w[i], &jw[i]);
        REQUIRE_OR(rc == 0, (check_joins_drop(jw, 10), wa_join_drop(&jf), wa_rt_free(rt)));
    }
    wa_rt_tick(rt, NULL); /* all wait now: the sleep read the clock once */
    wa_wasip2_stats st;
    wa_wasip2_stats_get(rt, &st);
    uint64_t nows = st.nows, polls = st.polls;
    CHECK_EQ(wa_block_on(rt, &jw[9].fut), 0); /* the others end meanwhile, mostly */
    wa_wasip2_stats_get(rt, &st);
    *wakeups = st.polls - polls;
    CHECK(st.nows - nows <= 2);
    for (int i = 0; i < 10; i++) {
        /* jco can report a pollable ready after a later one (it re-arms one
         * that fired early): the last wait may not have seen the others */
        if (i < 9)
            CHECK_EQ(wa_block_on(rt, &jw[i].fut), 0);
        CHECK_EQ(wa_pollable_deregister(rt, w[i].key), 0);
    }
    wa_join_abort(&jf);
    wa_join_drop(&jf);
    CHECK_RT_EMPTY_FREE(rt);
}

static void test_no_clock_read_per_wakeup(void)
{
    /* The check tells only over 5 wakeups or more; a stall of the machine
     * brings the 10 ms steps together into fewer: up to three runs. */
    uint64_t wakeups = 0;
    for (int i = 0; i < 3 && wakeups < 5; i++)
        no_clock_read_run(&wakeups);
    CHECK(wakeups >= 5);
}

/* DNS: localhost resolves to a loopback address; lookups hold no handle
 * once done, whether they found something or failed; a lookup polled
 * after its end is misuse. */
static void test_dns(void)
{
    wa_rt *rt = p2_rt();
    REQUIRE(rt);
    long before = wa_wasi_live_handles();
    wa_dns d;
    CHECK_EQ(wa_block_on(rt, wa_dns_lookup_init(&d, rt, "localhost")), 0);
    CHECK(d.n >= 1);
    int loopback = 0;
    for (int i = 0; i < d.n; i++) {
        static const uint8_t v6[16] = {[15] = 1};
        loopback |= d.addrs[i].v6 ? !memcmp(d.addrs[i].bytes, v6, 16) : d.addrs[i].bytes[0] == 127;
    }
    CHECK(loopback);
    CHECK_HAS(wa_dns_reason(&d), "");
    CHECK_EQ(wa_wasi_live_handles(), before);
    /* the runtime's words for it: its call and error-code's case */
    int rc = wa_block_on(rt, wa_dns_lookup_init(&d, rt, "no-such-host.invalid"));
    CHECK(rc == WA_ENOTFOUND || rc == WA_ETIMEDOUT || rc == WA_EIO);
    CHECK_HAS(wa_dns_reason(&d), "resolve-");
    printf("  no-such-host.invalid: %s (%s)\n", wa_strerror(rc), wa_dns_reason(&d));
    CHECK_EQ(wa_wasi_live_handles(), before);
    check_catch_misuse(); /* polled after its end: not looked up again */
    CHECK_MISUSE(wa_block_on(rt, &d.fut), WA_EMISUSE, "wa__dns_lookup");
    wa_misuse_set_hook(NULL);
    CHECK_EQ(wa_wasi_live_handles(), before);
    CHECK_RT_EMPTY_FREE(rt);
}

/* wasi:random/random: fresh bytes each call, any length. */
static void test_random(void)
{
    static const unsigned char zero[32];
    unsigned char a[32] = {0}, b[32] = {0};
    CHECK_EQ(wa_wasi_random(a, sizeof a), 0);
    CHECK_EQ(wa_wasi_random(b, sizeof b), 0);
    CHECK(memcmp(a, b, sizeof a) != 0);
    CHECK(memcmp(a, zero, sizeof a) != 0);
    CHECK_EQ(wa_wasi_random(a, 0), 0);
    /* past Web Crypto's 64 KiB cap on one getRandomValues call */
    size_t big = (1u << 20) + 1;
    unsigned char *p = calloc(1, big);
    REQUIRE(p);
    CHECK_EQ(wa_wasi_random(p, big), 0);
    CHECK(memcmp(p + big - sizeof zero, zero, sizeof zero) != 0);
    free(p);
    CHECK(wa_wasi_random_u64() != wa_wasi_random_u64());
}

/* wasi:cli/environment: CMake sets WASYNC_TEST_ENV and an empty
 * WASYNC_TEST_EMPTY for this test; jco run passes its environment on. */
static void test_environment(void)
{
    char *v = wa_wasi_getenv("WASYNC_TEST_ENV");
    CHECK(v && strcmp(v, "a=b c") == 0); /* split at the first '=' only */
    free(v);
    v = wa_wasi_getenv("WASYNC_TEST_EMPTY");
    CHECK(v && *v == '\0');
    free(v);
    CHECK(wa_wasi_getenv("WASYNC_TEST") == NULL); /* a prefix is not a match */
    CHECK(wa_wasi_getenv("WASYNC_NO_SUCH_VARIABLE") == NULL);

    char **env;
    int n = wa_wasi_environ(&env);
    CHECK(n >= 2);
    int found = 0;
    for (int i = 0; i < n; i++)
        found += strcmp(env[i], "WASYNC_TEST_ENV=a=b c") == 0 || strcmp(env[i], "WASYNC_TEST_EMPTY=") == 0;
    CHECK_EQ(found, 2);
    CHECK(n < 0 || env[n] == NULL);
    if (n >= 0)
        free(env);

    char **argv;
    int argc = wa_wasi_args(&argv);
    CHECK_EQ(argc, 1); /* jco run passes none but the name */
    if (argc >= 1) {
        CHECK(strstr(argv[0], "test_wasip2") != NULL);
        CHECK(argv[argc] == NULL);
        free(argv);
    }
}

/* wasi:clocks/wall-clock: after 2020-01-01, and what libc's time() (the
 * adapter's way to the same clock) says, give or take a second. */
static void test_wall_clock(void)
{
    wa_wasi_datetime t = wa_wasi_wall_clock();
    CHECK(t.sec > 1577836800u);
    CHECK(t.nsec < 1000000000u);
    long long libc = (long long)time(NULL);
    CHECK(libc - (long long)t.sec <= 1 && (long long)t.sec - libc <= 1);
    wa_wasi_datetime r = wa_wasi_wall_clock_resolution();
    CHECK(r.sec > 0 || r.nsec > 0);
    CHECK(r.nsec < 1000000000u);
}

int main(void)
{
    RUN(test_concurrent_sleeps);
    RUN(test_registered_pollable);
    RUN(test_deregister_wakes);
    RUN(test_two_waiters_one_pollable);
    RUN(test_host_calls_per_sleep);
    RUN(test_no_clock_read_per_wakeup);
    RUN(test_dns);
    RUN(test_random);
    RUN(test_environment);
    RUN(test_wall_clock);
    return check_finish();
}
