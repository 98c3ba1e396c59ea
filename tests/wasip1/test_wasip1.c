/* SPDX-License-Identifier: MIT */
/* The WASI 0.1 backend under Node's node:wasi: it is the default one, real
 * sleeps share one clock subscription per wait, a registered fd nobody
 * waits on cannot wake anyone (WA_EDEADLK, not a hang), and a wait on a
 * registration that goes away ends with WA_ECLOSED. */
#include "../futures.h"

#include <stdlib.h>

/* A runtime on the default backend (wasip1 here), or NULL. */
static wa_rt *p1_rt(void)
{
    wa_rt *rt;
    return wa_rt_new(&rt) == 0 ? rt : NULL;
}

static void test_default_backend(void)
{
    wa_rt *rt = p1_rt();
    REQUIRE(rt);
    CHECK(!strcmp(wa_rt_backend(rt)->vt->name, "wasip1"));
    CHECK_RT_EMPTY_FREE(rt);
}

/* Three 100 ms sleeps and 1,000 more over 20 deadlines: on time, in few
 * waits. */
static void test_sleeps(void)
{
    wa_rt *rt = p1_rt();
    REQUIRE(rt);
    static sleeper s[1003];
    static uint64_t woke[3];
    for (int i = 0; i < 1003; i++) {
        sleeper_init(&s[i], i < 3 ? WA_MS(100) : WA_MS(5 * (i % 20 + 1)), 0);
        s[i].woke = i < 3 ? &woke[i] : NULL;
        REQUIRE_OR(check_spawn_of(rt, &s[i], NULL) == 0, wa_rt_free(rt));
    }
    uint64_t t0 = wa_now(rt);
    CHECK_EQ(wa_rt_run(rt), 0);
    for (int i = 0; i < 3; i++)
        CHECK(woke[i] - t0 >= WA_MS(100) && woke[i] - t0 < WA_SEC(2));
    wa_rt_stats st;
    wa_rt_stats_get(rt, &st);
    /* Each sleep counts from its own arm (rounded up to the whole ms the
     * host waits in), so a group spreads over the ms the spawning tick
     * took: a few waits per deadline, never one per sleep. */
    CHECK(st.waits <= 100);
    CHECK_RT_EMPTY_FREE(rt);
}

/* Registered, but no waiter and no timer: nothing can ever wake a task. */
static void test_deadlock_with_fd(void)
{
    wa_rt *rt = p1_rt();
    REQUIRE(rt);
    wa_fd_key key;
    REQUIRE_OR(wa_fd_register(rt, 1, &key) == 0, wa_rt_free(rt));
    int drops = 0;
    never n;
    CHECK_EQ(wa_block_on(rt, never_init(&n, &drops)), WA_EDEADLK);
    CHECK_EQ(drops, 1);
    CHECK_EQ(wa_fd_deregister(rt, key), 0);
    CHECK_RT_EMPTY_FREE(rt);
}

/* Deregistering a key a wait is pending on ends the wait: WA_ECLOSED. */
typedef struct waiter {
    WA_CORO;
    wa_fd_wait w;
    wa_fd_key key;
} waiter;

static int waiter_poll(wa_future *f, wa_cx *cx)
{
    waiter *t = (waiter *)f;
    WA_BEGIN(t, cx);
    WA_AWAIT(wa_fd_wait_init(&t->w, t->key, WA_READABLE));
    WA_RETURN(WA_STATUS);
    WA_END();
}
static const wa_future_vt waiter_vt = {waiter_poll, wa_coro_drop, "waiter"};

static void test_deregister_wakes(void)
{
    wa_rt *rt = p1_rt();
    REQUIRE(rt);
    waiter w = {0};
    REQUIRE_OR(wa_fd_register(rt, 0, &w.key) == 0, wa_rt_free(rt));
    wa_coro_init(&w.wa, &waiter_vt);
    wa_join j;
    REQUIRE_OR(check_spawn_of(rt, &w, &j) == 0, wa_rt_free(rt));
    wa_rt_tick(rt, NULL);
    CHECK(!wa_join_done(&j));
    CHECK_EQ(wa_fd_deregister(rt, w.key), 0);
    wa_rt_tick(rt, NULL);
    CHECK(wa_join_done(&j));
    CHECK_EQ(wa_join_status(&j), WA_ECLOSED);
    wa_join_drop(&j);
    CHECK_RT_EMPTY_FREE(rt);
}

int main(void)
{
    RUN(test_default_backend);
    RUN(test_sleeps);
    RUN(test_deadlock_with_fd);
    RUN(test_deregister_wakes);
    return check_finish();
}
