/* join / race: completion times, fail-fast, losers dropped and their
 * timers released, and per-child wakes. */
#include <stdlib.h>

#include "futures.h"

typedef struct combo3 {
    WA_CORO;
    WA_JOIN(3) j;
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
        WA_AWAIT(wa_race(&t->j, &t->s[0].wa.fut, &t->s[1].wa.fut, &t->s[2].wa.fut));
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
    wa_rt *rt = check_sim_rt(0);
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
    static probe p[NP];
    static wa_waker slots[NP];
    static int go[NP];
    wa_future *futs[NP];
    for (int i = 0; i < NP; i++) {
        p[i] = (probe){{&probe_vt}, 0, &go[i], &slots[i]};
        futs[i] = &p[i].fut;
    }
    wa_combo c;
    wa_future *f = wa_combo_new(&c, WA_ALL, NP, futs);
    wa_join j;
    /* the combinator stays here (pinned); a task polls it in place */
    by_ref r = {{&by_ref_vt}, f};
    wa_spawn_of(rt, &r, &j);
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
    WA_AWAIT(wa_combo_new(&t->c, WA_ALL, (size_t)t->n, t->futs));
    WA_RETURN(WA_STATUS);
    WA_END();
}
static const wa_future_vt dyn_vt = {dyn_poll, wa_coro_drop, "dyn"};

static void test_dynamic_join(void)
{
    wa_rt *rt = check_sim_rt(0);
    dyn t = {.n = 100};
    wa_coro_init(&t.wa, &dyn_vt);
    t.s = calloc(100, sizeof *t.s);
    t.futs = calloc(100, sizeof *t.futs);
    CHECK_EQ(wa_block_on(rt, &t.wa.fut), 0);
    CHECK_EQ(wa_now(rt), WA_MS(100));
    free(t.s);
    free(t.futs);
    CHECK_RT_EMPTY_FREE(rt);
}

static void test_empty(void)
{
    wa_rt *rt = check_sim_rt(0);
    wa_combo c;
    wa_branch br[1];
    CHECK_EQ(wa_block_on(rt, wa_combo_init(&c, WA_ALL, br, 0, NULL)), 0);
    CHECK_EQ(wa_block_on(rt, wa_combo_init(&c, WA_RACE, br, 0, NULL)), WA_EINVAL);
    CHECK_RT_EMPTY_FREE(rt);
}

int main(void)
{
    RUN(test_join_all);
    RUN(test_race);
    RUN(test_wake_polls_only_the_woken_child);
    RUN(test_dynamic_join);
    RUN(test_empty);
    return check_finish();
}
