/* SPDX-License-Identifier: MIT */
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
    WA_AWAIT(t->absolute ? wa_sleep_until_init(&t->s, t->ns) : wa_sleep_init(&t->s, t->ns));
    wake_log[wake_n].at = wa_now(cx->rt);
    wake_log[wake_n++].id = t->id;
    WA_END();
}
static const wa_future_vt logger_vt = {logger_poll, wa_coro_drop, "logger"};

static int spawn_logger(wa_rt *rt, uint64_t ns, int id, int absolute)
{
    logger l;
    wa_coro_init(&l.wa, &logger_vt);
    l.ns = ns;
    l.id = id;
    l.absolute = absolute;
    return check_spawn_of(rt, &l, NULL);
}

static void test_exact_times_and_fifo_ties(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    static const uint64_t ms[NT] = {30, 10, 20, 10, 0, 10};
    wake_n = 0;
    for (int i = 0; i < NT; i++)
        REQUIRE_OR(spawn_logger(rt, WA_MS(ms[i]), i, 0) == 0, wa_rt_free(rt));
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
    memset(out, 0, 50 * sizeof *out); /* (read even if this stops early) */
    wa_rt *rt = check_sim_rt(seed);
    REQUIRE(rt);
    wake_n = 0;
    for (int i = 0; i < 50; i++)
        REQUIRE_OR(spawn_logger(rt, WA_MS(5), i, 0) == 0, wa_rt_free(rt));
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
    REQUIRE(rt);
    wa_sim_advance(wa_rt_backend(rt), WA_MS(100));
    wake_n = 0;
    REQUIRE_OR(spawn_logger(rt, WA_MS(150), 1, 1) == 0, wa_rt_free(rt));
    REQUIRE_OR(spawn_logger(rt, WA_MS(50), 2, 1) == 0, wa_rt_free(rt)); /* in the past: the next tick */
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK_EQ(wake_log[0].id, 2);
    CHECK_EQ(wake_log[0].at, WA_MS(100));
    CHECK_EQ(wake_log[1].at, WA_MS(150));
    CHECK_RT_EMPTY_FREE(rt);
}

/* A task that sleeps until each of its deadlines in turn, logging each. */
typedef struct stepper {
    WA_CORO;
    wa_sleep s;
    const uint64_t *at; /* its deadlines, ascending, 0-terminated */
    int id;
} stepper;

WA_ASYNC(stepper, t, cx)
{
    WA_BEGIN(t, cx);
    for (; *t->at; t->at++) {
        WA_AWAIT(wa_sleep_until_init(&t->s, *t->at));
        wake_log[wake_n].at = wa_now(cx->rt);
        wake_log[wake_n++].id = t->id;
    }
    WA_END();
}

/* A task woken late (its 80 at 125) whose next deadline (120) is already
 * past does not run ahead of the other task's 100, due before it: the
 * tutorial's channel step (examples/tutorial/4_channel.c) on a busy
 * machine. */
static void test_sleep_until_late_keeps_order(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    static const uint64_t a_at[] = {WA_MS(40), WA_MS(80), WA_MS(120), 0}, b_at[] = {WA_MS(100), 0};
    stepper a = {.at = a_at, .id = 1}, b = {.at = b_at, .id = 2};
    stepper_init(&a);
    stepper_init(&b);
    wake_n = 0;
    REQUIRE_OR(check_spawn_of(rt, &a, NULL) == 0 && check_spawn_of(rt, &b, NULL) == 0, wa_rt_free(rt));
    wa_rt_tick(rt, NULL); /* both armed */
    wa_sim_advance(wa_rt_backend(rt), WA_MS(40));
    wa_rt_tick(rt, NULL); /* a's 40 */
    wa_sim_advance(wa_rt_backend(rt), WA_MS(85)); /* a stall: 80 and 100 fire at 125 */
    CHECK_EQ(wa_rt_run(rt), 0);
    static const int order[] = {1, 1, 2, 1};
    CHECK_EQ(wake_n, 4);
    for (int i = 0; i < 4; i++)
        CHECK_EQ(wake_log[i].id, order[i]);
    CHECK_RT_EMPTY_FREE(rt);
}

static void test_drop_disarms(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    sleeper s;
    sleeper_init(&s, WA_SEC(10), 0);
    wa_join j;
    REQUIRE_OR(check_spawn_of(rt, &s, &j) == 0, wa_rt_free(rt));
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
    *end = 0;
    *drops = 0;
    wa_rt *rt = check_sim_rt(0);
    if (!rt)
        return WA_ENOMEM;
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

/* A timeout at an absolute deadline: the inner future finishing first
 * keeps its status; past the deadline it is dropped, WA_ETIMEDOUT. */
static void test_timeout_until(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_sim_advance(wa_rt_backend(rt), WA_MS(100));
    int drops = 0;
    never n;
    wa_timeout to;
    CHECK_EQ(wa_block_on(rt, wa_timeout_until_init(&to, never_init(&n, &drops), WA_MS(130))), WA_ETIMEDOUT);
    CHECK_EQ(wa_now(rt), WA_MS(130));
    CHECK_EQ(drops, 1);
    wa_sleep s;
    CHECK_EQ(wa_block_on(rt, wa_timeout_until_init(&to, wa_sleep_init(&s, WA_MS(5)), WA_MS(200))), 0);
    CHECK_EQ(wa_now(rt), WA_MS(135));
    CHECK_EQ(wa_block_on(rt, wa_timeout_until_init(&to, never_init(&n, &drops), WA_MS(50))), WA_ETIMEDOUT);
    CHECK_EQ(wa_now(rt), WA_MS(135)); /* a deadline past: at once */
    CHECK_EQ(drops, 2);
    CHECK_RT_EMPTY_FREE(rt);
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
    REQUIRE(rt);
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
    REQUIRE(rt);
    uint64_t seed = 42;
    wake_n = 0;
    for (int i = 0; i < 10000; i++)
        REQUIRE_OR(spawn_logger(rt, WA_US(splitmix(&seed) % 100000), i, 0) == 0, wa_rt_free(rt));
    static wa_join js[10000]; /* static: too big for a wasm stack */
    sleeper s;
    for (int i = 0; i < 10000; i++) {
        sleeper_init(&s, WA_SEC(1) + splitmix(&seed) % WA_SEC(1), 0);
        REQUIRE_OR(check_spawn_of(rt, &s, &js[i]) == 0, (check_joins_drop(js, i), wa_rt_free(rt)));
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

/* A sleep armed late in a long tick (the sim clock moved 250 ms inside the
 * poll, as 200 HTTP starts take on jco) counts from its first poll, not
 * from the tick's start: it wakes 100 ms after the arm, never before. The
 * timeout around a future that never ends does the same. */
typedef struct late_arm {
    WA_CORO;
    wa_sleep s;
    wa_timeout to;
    never n;
    int drops, timeout_rc;
    uint64_t armed, woke, timed_out;
} late_arm;

static int late_arm_poll(wa_future *f, wa_cx *cx)
{
    late_arm *t = (late_arm *)f;
    WA_BEGIN(t, cx);
    t->armed = wa_now(cx->rt); /* (the tick's time, as any task may read) */
    wa_sim_advance(wa_rt_backend(cx->rt), WA_MS(250)); /* a long tick */
    WA_AWAIT(wa_sleep_init(&t->s, WA_MS(100)));
    t->woke = wa_now(cx->rt);
    wa_sim_advance(wa_rt_backend(cx->rt), WA_MS(250));
    WA_AWAIT(wa_timeout_init(&t->to, never_init(&t->n, &t->drops), WA_MS(300)));
    t->timeout_rc = WA_STATUS;
    t->timed_out = wa_now(cx->rt);
    WA_END();
}
static const wa_future_vt late_arm_vt = {late_arm_poll, wa_coro_drop, "late_arm"};

static void test_late_arm(void)
{
    wa_rt *rt = check_sim_rt(0);
    if (!rt) {
        CHECK(rt != NULL);
        return;
    }
    late_arm t = {.drops = 0};
    wa_coro_init(&t.wa, &late_arm_vt);
    CHECK_EQ(wa_block_on(rt, &t.wa.fut), 0);
    CHECK_EQ(t.armed, 0);
    CHECK_EQ(t.woke, WA_MS(350));
    CHECK_EQ(t.timeout_rc, WA_ETIMEDOUT);
    CHECK_EQ(t.timed_out, WA_MS(350 + 250 + 300));
    CHECK_EQ(t.drops, 1);
    CHECK_RT_EMPTY_FREE(rt);
}

/* The same on the host's real clock (every host this suite runs on but
 * JS, whose wa_rt_new is simulated): a poll busy for 30 ms, then a 50 ms
 * sleep, measured with the backend's clock from the end of the busy poll. */
typedef struct busy_then_sleep {
    WA_CORO;
    wa_sleep s;
    uint64_t armed, woke;
} busy_then_sleep;

static uint64_t host_now(wa_rt *rt)
{
    wa_backend *b = wa_rt_backend(rt);
    return b->vt->now(b);
}

static int busy_then_sleep_poll(wa_future *f, wa_cx *cx)
{
    busy_then_sleep *t = (busy_then_sleep *)f;
    WA_BEGIN(t, cx);
    (void)wa_now(cx->rt); /* the tick's time, read (and cached) first */
    uint64_t start = host_now(cx->rt);
    while (host_now(cx->rt) - start < WA_MS(30)) {
    }
    t->armed = host_now(cx->rt);
    WA_AWAIT(wa_sleep_init(&t->s, WA_MS(50)));
    t->woke = host_now(cx->rt);
    WA_END();
}
static const wa_future_vt busy_then_sleep_vt = {busy_then_sleep_poll, wa_coro_drop, "busy_then_sleep"};

static void test_late_arm_real_clock(void)
{
    wa_rt *rt;
    int rc = wa_rt_new(&rt);
    CHECK_EQ(rc, 0);
    if (rc < 0)
        return;
    busy_then_sleep t;
    wa_coro_init(&t.wa, &busy_then_sleep_vt);
    CHECK_EQ(wa_block_on(rt, &t.wa.fut), 0);
    CHECK(t.woke - t.armed >= WA_MS(50));
    CHECK_RT_EMPTY_FREE(rt);
}

/* Huge durations mean never: a sleep or timeout of WA_NEVER (or
 * UINT64_MAX ms, which saturates) loses every race against 200 ms, an
 * interval of WA_NEVER ticks once, and a never-sleep alone is a deadlock,
 * not an instant wake. */
typedef struct huge {
    WA_CORO;
    WA_COMBO(2) race;
    wa_sleep a, b;
    wa_timeout to;
    wa_interval iv;
    never n;
    int drops, winners[3], ticks;
    uint64_t at[3];
} huge;

static int huge_poll(wa_future *f, wa_cx *cx)
{
    huge *t = (huge *)f;
    WA_BEGIN(t, cx);
    WA_AWAIT(wa_race_init(&t->race, wa_sleep_init(&t->a, WA_MS(UINT64_MAX)), wa_sleep_init(&t->b, WA_MS(200))));
    t->winners[0] = wa_race_winner(&t->race.c);
    t->at[0] = wa_now(cx->rt);
    WA_AWAIT(wa_race_init(&t->race, wa_timeout_init(&t->to, never_init(&t->n, &t->drops), WA_NEVER),
                     wa_sleep_init(&t->b, WA_MS(200))));
    t->winners[1] = wa_race_winner(&t->race.c);
    t->at[1] = wa_now(cx->rt);
    wa_interval_init(&t->iv, WA_NEVER);
    WA_AWAIT(wa_interval_tick(&t->iv)); /* the first: at once */
    t->ticks++;
    WA_AWAIT(wa_race_init(&t->race, wa_interval_tick(&t->iv), wa_sleep_init(&t->b, WA_MS(200))));
    t->winners[2] = wa_race_winner(&t->race.c);
    t->at[2] = wa_now(cx->rt);
    wa_interval_drop(&t->iv);
    WA_END();
}
static const wa_future_vt huge_vt = {huge_poll, wa_coro_drop, "huge"};

static void test_huge_durations(void)
{
    CHECK(WA_MS(UINT64_MAX) == WA_NEVER && WA_SEC(UINT64_MAX / 1000) == WA_NEVER && WA_US(3) == 3000);
    wa_rt *rt = check_sim_rt(0);
    if (!rt) {
        CHECK(rt != NULL);
        return;
    }
    huge t = {.drops = 0, .ticks = 0};
    wa_coro_init(&t.wa, &huge_vt);
    wa_sim_advance(wa_rt_backend(rt), WA_SEC(1)); /* (from 0, now + UINT64_MAX would not wrap) */
    CHECK_EQ(wa_block_on(rt, &t.wa.fut), 0);
    CHECK(t.winners[0] == 1 && t.winners[1] == 1 && t.winners[2] == 1);
    CHECK(t.at[0] == WA_MS(1200) && t.at[1] == WA_MS(1400) && t.at[2] == WA_MS(1600));
    CHECK_EQ(t.ticks, 1);
    CHECK_EQ(t.drops, 1);
    wa_sleep s;
    wa_rt_set_report(rt, NULL, NULL);
    CHECK_EQ(wa_block_on(rt, wa_sleep_init(&s, WA_NEVER)), WA_EDEADLK);
    CHECK_EQ(wa_block_on(rt, wa_sleep_until_init(&s, WA_NEVER)), WA_EDEADLK);
    CHECK_EQ(wa_now(rt), WA_MS(1600));
    CHECK_RT_EMPTY_FREE(rt);
}

/* A timeout held in the coroutine's struct over a future that is a local
 * of the poll function: the timeout would outlive it. Reported at the
 * init, naming it; the timeout ends with WA_EMISUSE, no timer left. */
typedef struct local_inner {
    WA_CORO;
    wa_timeout to;
} local_inner;

WA_ASYNC(local_inner, t, cx)
{
    wa_sleep s;
    WA_BEGIN(t, cx);
    WA_AWAIT(wa_timeout_init(&t->to, wa_sleep_init(&s, WA_MS(5)), WA_MS(9)));
    WA_RETURN(WA_STATUS);
    WA_END();
}

static int local_inner_misuses;
static char local_inner_text[512];
static void local_inner_misuse(const char *what)
{
    local_inner_misuses++;
    snprintf(local_inner_text, sizeof local_inner_text, "%s", what);
}

static void test_timeout_local_inner_refused(void)
{
    wa_misuse_set_hook(local_inner_misuse);
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    local_inner t = {0};
    CHECK_EQ(wa_block_on(rt, local_inner_init(&t)), WA_EMISUSE);
    CHECK_EQ(local_inner_misuses, 1);
    CHECK(strstr(local_inner_text, "wa_timeout_init: the future \"sleep\" is in the poll's own stack frame"));
    CHECK_EQ(wa_now(rt), 0);
    CHECK_RT_EMPTY_FREE(rt);
}

int main(void)
{
    RUN(test_exact_times_and_fifo_ties);
    RUN(test_seeded_ties);
    RUN(test_sleep_until);
    RUN(test_sleep_until_late_keeps_order);
    RUN(test_drop_disarms);
    RUN(test_timeout);
    RUN(test_timeout_until);
    RUN(test_timeout_local_inner_refused);
    RUN(test_interval);
    RUN(test_many_timers);
    RUN(test_late_arm);
    RUN_REAL_CLOCK(test_late_arm_real_clock);
    RUN(test_huge_durations);
    return check_finish();
}
