/* SPDX-License-Identifier: MIT */
/* join / race: completion times, fail-fast, losers dropped and their
 * timers released, and per-child wakes. */
#include <stdlib.h>

#include "futures.h"

typedef struct combo3 {
    WA_CORO;
    WA_COMBO(3) j;
    sleeper s[3];
    uint64_t ms[3];
    int rc[3];
    int mode;
    int drops;
} combo3;

static int combo3_poll(wa_future *f, wa_cx *cx)
{
    combo3 *t = (combo3 *)f;
    WA_BEGIN(t, cx);
    for (int i = 0; i < 3; i++) {
        sleeper_init(&t->s[i], WA_MS(t->ms[i]), t->rc[i]);
        t->s[i].drops = &t->drops;
    }
    if (t->mode == WA_RACE)
        WA_AWAIT(wa_race_init(&t->j, &t->s[0].wa.fut, &t->s[1].wa.fut, &t->s[2].wa.fut));
    else
        WA_AWAIT(wa_combo_init(&t->j.c, t->mode, t->j.br, 3,
                               (wa_future *[]){&t->s[0].wa.fut, &t->s[1].wa.fut, &t->s[2].wa.fut}));
    WA_RETURN(WA_STATUS);
    WA_END();
}
static const wa_future_vt combo3_vt = {combo3_poll, wa_coro_drop, "combo3"};

/* Runs a combinator of three sleeps; returns its status, the end time and
 * the drop count, and the winner for races. */
static int run3(int mode, uint64_t a, uint64_t b, uint64_t c, int rca, int rcb, int rcc,
                uint64_t *end, int *drops, int *winner)
{
    *end = 0;
    *drops = 0;
    *winner = -1;
    wa_rt *rt = check_sim_rt(0);
    if (!rt)
        return WA_ENOMEM;
    combo3 t = {.ms = {a, b, c}, .rc = {rca, rcb, rcc}, .mode = mode};
    wa_coro_init(&t.wa, &combo3_vt);
    int rc = wa_block_on(rt, &t.wa.fut);
    *end = wa_now(rt);
    *drops = t.drops;
    *winner = t.j.c.winner;
    CHECK_RT_EMPTY_FREE(rt);
    return rc;
}

static void test_join_all(void)
{
    uint64_t end;
    int drops, winner;
    CHECK_EQ(run3(WA_ALL, 5, 9, 7, 0, 0, 0, &end, &drops, &winner), 0);
    CHECK_EQ(end, WA_MS(9));
    CHECK_EQ(drops, 3);
    /* fail fast: the error at 3 ms ends it and drops the others */
    CHECK_EQ(run3(WA_ALL, 5, 3, 7, 0, WA_EIO, 0, &end, &drops, &winner), WA_EIO);
    CHECK_EQ(end, WA_MS(3));
    CHECK_EQ(drops, 3);
    /* settled: waits for all, whatever failed */
    CHECK_EQ(run3(WA_ALL_SETTLED, 5, 3, 7, 0, WA_EIO, 0, &end, &drops, &winner), 0);
    CHECK_EQ(end, WA_MS(7));
}

static void test_race(void)
{
    uint64_t end;
    int drops, winner;
    CHECK_EQ(run3(WA_RACE, 50, 20, 70, 0, WA_ETIMEDOUT, 0, &end, &drops, &winner), WA_ETIMEDOUT);
    CHECK_EQ(end, WA_MS(20));
    CHECK_EQ(winner, 1);
    CHECK_EQ(drops, 3); /* the losers were dropped: CHECK_RT_EMPTY_FREE saw no timer */
}

/* Counts its polls; finishes when *go is set; parks its waker in *slot. */
typedef struct probe {
    wa_future fut;
    int polls;
    int *go;
    wa_waker *slot;
} probe;

static int probe_poll(wa_future *f, wa_cx *cx)
{
    probe *p = (probe *)f;
    p->polls++;
    if (*p->go)
        return WA_READY;
    wa_waker_store(p->slot, cx);
    return WA_PENDING;
}
static void probe_drop(wa_future *f) { wa_waker_drop(((probe *)f)->slot); }
static const wa_future_vt probe_vt = {probe_poll, probe_drop, "probe"};

/* Polls a future it does not own the memory of, and drops it. */
typedef struct {
    wa_future fut;
    wa_future *inner;
} by_ref;
static int by_ref_poll(wa_future *f, wa_cx *cx) { return wa_poll(((by_ref *)f)->inner, cx); }
static void by_ref_drop(wa_future *f) { wa_drop(((by_ref *)f)->inner); }
static const wa_future_vt by_ref_vt = {by_ref_poll, by_ref_drop, "by_ref"};

#define NP 1000

static void test_wake_polls_only_the_woken_child(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    static probe p[NP];
    static wa_waker slots[NP];
    static int go[NP];
    wa_future *futs[NP];
    for (int i = 0; i < NP; i++) {
        p[i] = (probe){{&probe_vt}, 0, &go[i], &slots[i]};
        futs[i] = &p[i].fut;
    }
    wa_combo c;
    wa_future *f = wa_combo_init(&c, WA_ALL, NULL, NP, futs);
    REQUIRE_OR(c.status != WA_ENOMEM, (wa_drop(f), wa_rt_free(rt)));
    wa_join j;
    /* the combinator stays here (pinned); a task polls it in place */
    by_ref r = {{&by_ref_vt}, f};
    REQUIRE_OR(check_spawn_of(rt, &r, &j) == 0, wa_rt_free(rt));
    wa_rt_tick(rt, NULL);
    int total = 0;
    for (int i = 0; i < NP; i++)
        total += p[i].polls;
    CHECK_EQ(total, NP); /* first poll: each child once */
    go[123] = 1;
    wa_waker_wake_by_ref(&slots[123]);
    wa_rt_tick(rt, NULL);
    total = 0;
    for (int i = 0; i < NP; i++)
        total += p[i].polls;
    CHECK_EQ(total, NP + 1); /* only the woken child was polled */
    CHECK_EQ(p[123].polls, 2);
    for (int i = 0; i < NP; i++)
        go[i] = 1;
    for (int i = 0; i < NP; i++)
        wa_waker_wake_by_ref(&slots[i]);
    wa_rt_tick(rt, NULL);
    CHECK(wa_join_done(&j));
    CHECK_EQ(wa_join_status(&j), 0);
    wa_join_drop(&j);
    CHECK_RT_EMPTY_FREE(rt);
}

/* A dynamic join: N decided at run time. */
typedef struct dyn {
    WA_CORO;
    wa_combo c;
    sleeper *s;
    wa_future **futs;
    int n;
} dyn;

static int dyn_poll(wa_future *f, wa_cx *cx)
{
    dyn *t = (dyn *)f;
    WA_BEGIN(t, cx);
    for (int i = 0; i < t->n; i++)
        t->futs[i] = sleeper_init(&t->s[i], WA_MS(i + 1), 0);
    WA_AWAIT(wa_combo_init(&t->c, WA_ALL, NULL, (size_t)t->n, t->futs));
    WA_RETURN(WA_STATUS);
    WA_END();
}
static const wa_future_vt dyn_vt = {dyn_poll, wa_coro_drop, "dyn"};

static void test_dynamic_join(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    dyn t = {.n = 100};
    wa_coro_init(&t.wa, &dyn_vt);
    t.s = calloc(100, sizeof *t.s);
    t.futs = calloc(100, sizeof *t.futs);
    REQUIRE_OR(t.s && t.futs, (free(t.s), free(t.futs), wa_rt_free(rt)));
    CHECK_EQ(wa_block_on(rt, &t.wa.fut), 0);
    CHECK_EQ(wa_now(rt), WA_MS(100));
    free(t.s);
    free(t.futs);
    CHECK_RT_EMPTY_FREE(rt);
}

/* A child that sleeps long; on cancellation it awaits a cleanup of
 * clean_ms and marks its name in upper case. */
typedef struct tidy {
    WA_CORO;
    wa_sleep s;
    uint64_t clean_ms;
    char name;
} tidy;

static int tidy_poll(wa_future *f, wa_cx *cx)
{
    tidy *t = (tidy *)f;
    WA_BEGIN(t, cx);
    mark(t->name);
    WA_AWAIT(wa_sleep_init(&t->s, WA_SEC(100)));
    WA_ON_CANCEL();
    WA_AWAIT(wa_sleep_init(&t->s, WA_MS(t->clean_ms)));
    mark((char)(t->name - 'a' + 'A'));
    WA_END();
}
static const wa_future_vt tidy_vt = {tidy_poll, wa_coro_drop, "tidy"};

typedef struct tidy_pair {
    WA_CORO;
    WA_COMBO(3) j;
    tidy a, b;
    wa_sleep leaf;
    int mode;
} tidy_pair;

static int tidy_pair_poll(wa_future *f, wa_cx *cx)
{
    tidy_pair *t = (tidy_pair *)f;
    WA_BEGIN(t, cx);
    wa_coro_init(&t->a.wa, &tidy_vt);
    wa_coro_init(&t->b.wa, &tidy_vt);
    t->a.name = 'a', t->a.clean_ms = 3;
    t->b.name = 'b', t->b.clean_ms = 7;
    WA_AWAIT(wa_combo_init(&t->j.c, t->mode, t->j.br, 3,
                           (wa_future *[]){&t->a.wa.fut, &t->b.wa.fut,
                                           wa_sleep_init(&t->leaf, WA_SEC(100))}));
    mark('X'); /* never: the cancellation unwinds us */
    WA_END();
}
static const wa_future_vt tidy_pair_vt = {tidy_pair_poll, wa_coro_drop, "tidy_pair"};

/* Cancelling the task reaches the children of a join or a race: each runs
 * its async cleanup, the combinator waits for both, the leaf is dropped. */
static void test_cancel_reaches_children(void)
{
    int modes[] = {WA_ALL, WA_RACE};
    for (int m = 0; m < 2; m++) {
        wa_rt *rt = check_sim_rt(0);
        REQUIRE(rt);
        trail[0] = 0;
        tidy_pair t = {.mode = modes[m]};
        wa_coro_init(&t.wa, &tidy_pair_vt);
        wa_join j;
        REQUIRE_OR(check_spawn_of(rt, &t, &j) == 0, wa_rt_free(rt));
        wa_rt_tick(rt, NULL);
        CHECK(strcmp(trail, "ab") == 0);
        wa_join_cancel(&j);
        CHECK_EQ(wa_rt_run(rt), 0);
        CHECK(strcmp(trail, "abAB") == 0);
        CHECK_EQ(wa_now(rt), WA_MS(7));
        CHECK_EQ(wa_join_status(&j), WA_ECANCELED);
        wa_join_drop(&j);
        CHECK_RT_EMPTY_FREE(rt);
    }
}

static void test_empty(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_combo c;
    wa__branch br[1];
    CHECK_EQ(wa_block_on(rt, wa_combo_init(&c, WA_ALL, br, 0, NULL)), 0);
    CHECK_EQ(wa_block_on(rt, wa_combo_init(&c, WA_RACE, br, 0, NULL)), WA_EINVAL);
    CHECK_RT_EMPTY_FREE(rt);
}

/* A join held in the coroutine's struct over a child that is a local of
 * the poll function: the join would outlive it. Reported at the init,
 * naming the child; the join finishes with WA_EMISUSE, every timer gone. */
typedef struct local_child {
    WA_CORO;
    WA_COMBO(2) j;
    wa_sleep b;
} local_child;

WA_ASYNC(local_child, t, cx)
{
    wa_sleep a;
    WA_BEGIN(t, cx);
    WA_AWAIT(wa_all_init(&t->j, wa_sleep_init(&a, WA_MS(5)), wa_sleep_init(&t->b, WA_MS(5))));
    WA_RETURN(WA_STATUS);
    WA_END();
}

static char misuse_text[512];
static void copy_misuse(const char *what)
{
    check_misuses++;
    snprintf(misuse_text, sizeof misuse_text, "%s", what);
}

static void test_local_child_refused(void)
{
    wa_misuse_set_hook(copy_misuse);
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    int before = check_misuses;
    local_child t = {0};
    CHECK_EQ(wa_block_on(rt, local_child_init(&t)), WA_EMISUSE);
    CHECK_EQ(check_misuses - before, 1);
    CHECK(strstr(misuse_text, "wa_combo_init: the future \"sleep\" is in the poll's own stack frame"));
    CHECK_EQ(wa_now(rt), 0);
    CHECK_RT_EMPTY_FREE(rt);
}

int main(void)
{
    RUN(test_join_all);
    RUN(test_race);
    RUN(test_wake_polls_only_the_woken_child);
    RUN(test_dynamic_join);
    RUN(test_cancel_reaches_children);
    RUN(test_empty);
    RUN(test_local_child_refused);
    return check_finish();
}
