/* Time under the sim clock: exact firing times and order, seeded ties,
 * disarm on drop, timeout, interval, and the heap under load. */
#include <stdlib.h>

#include "futures.h"

#define NT 6

/* Wakes are logged in order as (time, id). */
static struct {
    uint64_t at;
    int id;
} wake_log[20000];
static int wake_n;

typedef struct logger {
    WA_CORO;
    wa_sleep s;
    uint64_t ns;
    int id;
    int absolute;
} logger;

static int logger_poll(wa_future *f, wa_cx *cx)
{
    logger *t = (logger *)f;
    WA_BEGIN(t, cx);
    WA_AWAIT(t->absolute ? wa_sleep_until(&t->s, t->ns) : wa_sleep_init(&t->s, t->ns));
    wake_log[wake_n].at = wa_now(cx->rt);
    wake_log[wake_n++].id = t->id;
    WA_END();
}
static const wa_future_vt logger_vt = {logger_poll, wa_coro_drop, "logger"};

static void spawn_logger(wa_rt *rt, uint64_t ns, int id, int absolute)
{
    logger l;
    wa_coro_init(&l.wa, &logger_vt);
    l.ns = ns;
    l.id = id;
    l.absolute = absolute;
    wa_spawn_of(rt, &l, NULL);
}

static void test_exact_times_and_fifo_ties(void)
{
    wa_rt *rt = check_sim_rt(0);
    static const uint64_t ms[NT] = {30, 10, 20, 10, 0, 10};
    wake_n = 0;
    for (int i = 0; i < NT; i++)
        spawn_logger(rt, WA_MS(ms[i]), i, 0);
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK_EQ(wake_n, NT);
    static const int order[NT] = {4, 1, 3, 5, 2, 0};
    for (int i = 0; i < NT; i++) {
        CHECK_EQ(wake_log[i].id, order[i]);
        CHECK_EQ(wake_log[i].at, WA_MS(ms[order[i]]));
    }
    CHECK_EQ(wa_now(rt), WA_MS(30));
    CHECK_RT_EMPTY_FREE(rt);
}

/* The order of 50 equal deadlines under one seed. */
static void tie_order(uint64_t seed, int *out)
{
    wa_rt *rt = check_sim_rt(seed);
    wake_n = 0;
    for (int i = 0; i < 50; i++)
        spawn_logger(rt, WA_MS(5), i, 0);
    wa_rt_run(rt);
    for (int i = 0; i < 50; i++)
        out[i] = wake_log[i].id;
    CHECK_RT_EMPTY_FREE(rt);
}

static void test_seeded_ties(void)
{
    int a[50], b[50], c[50];
    tie_order(7, a);
    tie_order(7, b);
    tie_order(8, c);
    CHECK(memcmp(a, b, sizeof a) == 0); /* reproducible */
    CHECK(memcmp(a, c, sizeof a) != 0); /* and the seed matters */
    int fifo = 1, seen[50] = {0};
    for (int i = 0; i < 50; i++) {
        fifo &= a[i] == i;
        seen[a[i]]++;
    }
    CHECK(!fifo);
    for (int i = 0; i < 50; i++)
        CHECK_EQ(seen[i], 1);
}

static void test_sleep_until(void)
{
    wa_rt *rt = check_sim_rt(0);
    wa_sim_advance(wa_rt_backend(rt), WA_MS(100));
    wake_n = 0;
    spawn_logger(rt, WA_MS(150), 1, 1);
    spawn_logger(rt, WA_MS(50), 2, 1); /* in the past: ready at once */
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK_EQ(wake_log[0].id, 2);
    CHECK_EQ(wake_log[0].at, WA_MS(100));
    CHECK_EQ(wake_log[1].at, WA_MS(150));
    CHECK_RT_EMPTY_FREE(rt);
}

static void test_drop_disarms(void)
{
    wa_rt *rt = check_sim_rt(0);
    sleeper s;
    sleeper_init(&s, WA_SEC(10), 0);
    wa_join j;
    wa_spawn_of(rt, &s, &j);
    wa_rt_tick(rt, NULL);
    wa_rt_stats st;
    wa_rt_stats_get(rt, &st);
    CHECK_EQ(st.timers, 1);
    wa_join_abort(&j);
    wa_rt_stats_get(rt, &st);
    CHECK_EQ(st.timers, 0);
    uint64_t deadline;
    wa_rt_tick(rt, &deadline);
    CHECK_EQ(deadline, WA_NEVER);
    wa_join_drop(&j);
    CHECK_RT_EMPTY_FREE(rt);
}

typedef struct timed {
    WA_CORO;
    wa_timeout to;
    sleeper inner;
    uint64_t inner_ns, limit;
    int inner_drops;
} timed;

static int timed_poll(wa_future *f, wa_cx *cx)
{
    timed *t = (timed *)f;
    WA_BEGIN(t, cx);
    sleeper_init(&t->inner, t->inner_ns, 0);
    t->inner.drops = &t->inner_drops;
    WA_AWAIT(wa_timeout_init(&t->to, &t->inner.wa.fut, t->limit));
    WA_RETURN(WA_STATUS);
    WA_END();
}
static const wa_future_vt timed_vt = {timed_poll, wa_coro_drop, "timed"};

static int run_timed(uint64_t inner_ms, uint64_t limit_ms, uint64_t *end, int *drops)
{
    wa_rt *rt = check_sim_rt(0);
    timed t;
    wa_coro_init(&t.wa, &timed_vt);
    t.inner_ns = WA_MS(inner_ms);
    t.limit = WA_MS(limit_ms);
    t.inner_drops = 0;
    int rc = wa_block_on(rt, &t.wa.fut);
    *end = wa_now(rt);
    *drops = t.inner_drops;
    CHECK_RT_EMPTY_FREE(rt);
    return rc;
}

static void test_timeout(void)
{
    uint64_t end;
    int drops;
    CHECK_EQ(run_timed(5, 10, &end, &drops), 0);
    CHECK_EQ(end, WA_MS(5));
    CHECK_EQ(drops, 1);
    CHECK_EQ(run_timed(50, 10, &end, &drops), WA_ETIMEDOUT);
    CHECK_EQ(end, WA_MS(10));
    CHECK_EQ(drops, 1); /* the inner future was dropped: its timer is gone */
}

typedef struct ticker {
    WA_CORO;
    wa_interval iv;
    int i;
    uint64_t at[5];
} ticker;

static int ticker_poll(wa_future *f, wa_cx *cx)
{
    ticker *t = (ticker *)f;
    WA_BEGIN(t, cx);
    wa_interval_init(&t->iv, WA_MS(10));
    for (t->i = 0; t->i < 5; t->i++) {
        WA_AWAIT(wa_interval_tick(&t->iv));
        t->at[t->i] = wa_now(cx->rt);
        if (t->i == 2) /* busy for 25 ms: late, one tick at 45, then 50 */
            wa_sim_advance(wa_rt_backend(cx->rt), WA_MS(25));
    }
    wa_interval_drop(&t->iv);
    WA_END();
}
static const wa_future_vt ticker_vt = {ticker_poll, wa_coro_drop, "ticker"};

static void test_interval(void)
{
    wa_rt *rt = check_sim_rt(0);
    ticker t;
    wa_coro_init(&t.wa, &ticker_vt);
    CHECK_EQ(wa_block_on(rt, &t.wa.fut), 0);
    static const uint64_t want[5] = {0, 10, 20, 45, 50};
    for (int i = 0; i < 5; i++)
        CHECK_EQ(t.at[i], WA_MS(want[i]));
    CHECK_RT_EMPTY_FREE(rt);
}

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* 10,000 random sleeps fire in deadline order, at their deadlines; half of
 * another 10,000 are aborted and leave no timer behind. */
static void test_many_timers(void)
{
    wa_rt *rt = check_sim_rt(0);
    uint64_t seed = 42;
    wake_n = 0;
    for (int i = 0; i < 10000; i++)
        spawn_logger(rt, WA_US(splitmix(&seed) % 100000), i, 0);
    static wa_join js[10000]; /* static: too big for a wasm stack */
    sleeper s;
    for (int i = 0; i < 10000; i++) {
        sleeper_init(&s, WA_SEC(1) + splitmix(&seed) % WA_SEC(1), 0);
        wa_spawn_of(rt, &s, &js[i]);
    }
    wa_rt_tick(rt, NULL);
    wa_rt_stats st;
    wa_rt_stats_get(rt, &st);
    CHECK_EQ(st.timers, 20000);
    for (int i = 0; i < 10000; i += 2)
        wa_join_abort(&js[i]);
    wa_rt_stats_get(rt, &st);
    CHECK_EQ(st.timers, 15000);
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK_EQ(wake_n, 10000);
    int sorted = 1;
    for (int i = 1; i < wake_n; i++)
        sorted &= wake_log[i - 1].at <= wake_log[i].at;
    CHECK(sorted);
    int done = 0;
    for (int i = 0; i < 10000; i++) {
        done += wa_join_status(&js[i]) == (i % 2 ? 0 : WA_ECANCELED);
        wa_join_drop(&js[i]);
    }
    CHECK_EQ(done, 10000);
    CHECK_RT_EMPTY_FREE(rt);
}

int main(void)
{
    RUN(test_exact_times_and_fifo_ties);
    RUN(test_seeded_ties);
    RUN(test_sleep_until);
    RUN(test_drop_disarms);
    RUN(test_timeout);
    RUN(test_interval);
    RUN(test_many_timers);
    return check_finish();
}
