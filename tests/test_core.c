/* SPDX-License-Identifier: MIT */
/* Core: tasks, wakers, join handles, ticks, coop budget, cancellation,
 * deadlock detection and misuse; the keyed slot table under them. */
#define _GNU_SOURCE /* (mkstemp) */
#include <stdlib.h>
#include <string.h>
#if !defined(__wasm__)
#include <unistd.h>
#endif

#include "../src/core/keys.h"
#include "futures.h"

/* A coroutine that delivers ten times its index after one yield. */
typedef struct indexed {
    WA_CORO;
    int index;
    int *out;
} indexed;

static int indexed_poll(wa_future *f, wa_cx *cx)
{
    indexed *t = (indexed *)f;
    WA_BEGIN(t, cx);
    WA_YIELD();
    *t->out = t->index * 10;
    WA_END();
}
static const wa_future_vt indexed_vt = {indexed_poll, wa_coro_drop, "indexed"};

/* Spawns N children, awaits each handle in order and sums the outputs. */
typedef struct summer {
    WA_CORO;
    wa_join jh[8];
    int out[8];
    int i, n;
    long sum;
} summer;

static int summer_poll(wa_future *f, wa_cx *cx)
{
    summer *t = (summer *)f;
    WA_BEGIN(t, cx);
    for (t->i = 0; t->i < t->n; t->i++) {
        indexed c;
        wa_coro_init(&c.wa, &indexed_vt);
        c.index = t->i;
        c.out = &t->out[t->i];
        if (check_spawn_of(cx->rt, &c, &t->jh[t->i]) != 0)
            WA_RETURN(WA_ENOMEM); /* (the drop drops the handles) */
    }
    for (t->i = 0; t->i < t->n; t->i++) {
        WA_AWAIT(&t->jh[t->i].fut);
        if (WA_STATUS != 0)
            WA_RETURN(WA_STATUS);
        t->sum += t->out[t->i];
    }
    WA_END();
}
/* Drops the handles that were not awaited: the spawns or a child failed. */
static void summer_drop(wa_future *f)
{
    summer *t = (summer *)f;
    wa_coro_drop(f);
    check_joins_drop(t->jh, t->n);
}
static const wa_future_vt summer_vt = {summer_poll, summer_drop, "summer"};

static void test_spawn_join(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    summer s = {.n = 8};
    wa_coro_init(&s.wa, &summer_vt);
    CHECK_EQ(wa_block_on(rt, &s.wa.fut), 0);
    CHECK_EQ(s.sum, 10 * (0 + 1 + 2 + 3 + 4 + 5 + 6 + 7));
    wa_rt_stats st;
    wa_rt_stats_get(rt, &st);
    CHECK_EQ(st.spawned, 9);
    CHECK_RT_EMPTY_FREE(rt);
}

/* Futures of every small size: wa_spawn_of picks an entry point per size
 * in words (1 to 8), wa_spawn copies any size. A sized poll checks that
 * every word after the header arrived (each holds the size in words). */
typedef struct bare {
    wa_future fut;
} bare;

static int bare_polls, sized_ok;

static int bare_poll(wa_future *f, wa_cx *cx)
{
    (void)f;
    (void)cx;
    bare_polls++;
    return WA_READY;
}
static const wa_future_vt bare_vt = {bare_poll, NULL, "bare"};

static int sized_poll(wa_future *f, wa_cx *cx)
{
    (void)cx;
    const uintptr_t *w = (const uintptr_t *)(f + 1);
    uintptr_t n = w[0];
    for (uintptr_t i = 0; i + 1 < n; i++)
        if (w[i] != n)
            return WA_READY;
    sized_ok++;
    return WA_READY;
}
static const wa_future_vt sized_vt = {sized_poll, NULL, "sized"};

#define SIZED(n) struct { wa_future fut; uintptr_t w[(n) - 1]; }
#define SPAWN_SIZED(rt, n, spawned)                          \
    do {                                                     \
        SIZED(n) s_ = {{&sized_vt}, {0}};                    \
        for (int i_ = 0; i_ < (n) - 1; i_++)                 \
            s_.w[i_] = (n);                                  \
        spawned += wa_spawn_of(rt, &s_, NULL) == 0;          \
        spawned += wa_spawn(rt, &s_.fut, sizeof s_, NULL) == 0; \
    } while (0)

static void test_spawn_every_size(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    bare_polls = sized_ok = 0;
    int spawned = 0, bares = 0;
    for (int round = 0; round < 50; round++) {
        bare b = {{&bare_vt}}; /* (4 bytes on wasm32) */
        bares += wa_spawn_of(rt, &b, NULL) == 0;
        bares += wa_spawn(rt, &b.fut, sizeof b, NULL) == 0;
        SPAWN_SIZED(rt, 2, spawned);
        SPAWN_SIZED(rt, 3, spawned);
        SPAWN_SIZED(rt, 4, spawned);
        SPAWN_SIZED(rt, 5, spawned);
        SPAWN_SIZED(rt, 6, spawned);
        SPAWN_SIZED(rt, 7, spawned);
        SPAWN_SIZED(rt, 8, spawned);
        SPAWN_SIZED(rt, 9, spawned);
        SPAWN_SIZED(rt, 40, spawned);
        REQUIRE_OR(bares == 2 * (round + 1) && spawned == 18 * (round + 1), wa_rt_free(rt));
        CHECK_EQ(wa_rt_run(rt), 0);
    }
    CHECK_EQ(bare_polls, bares);
    CHECK_EQ(sized_ok, spawned);
    CHECK_RT_EMPTY_FREE(rt);
}

/* Wakes its own waker three times per poll, for polls_left polls. */
typedef struct waker3 {
    wa_future fut;
    int polls;
    int left;
} waker3;

static int waker3_poll(wa_future *f, wa_cx *cx)
{
    waker3 *w = (waker3 *)f;
    w->polls++;
    if (--w->left == 0)
        return WA_READY;
    for (int i = 0; i < 3; i++)
        wa_waker_wake_by_ref(&cx->waker);
    return WA_PENDING;
}
static const wa_future_vt waker3_vt = {waker3_poll, NULL, "waker3"};

static void test_dedup_fair_ticks(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    waker3 a = {{&waker3_vt}, 0, 5}, b = {{&waker3_vt}, 0, 5};
    wa_join ja, jb;
    REQUIRE_OR(check_spawn_of(rt, &a, &ja) == 0, wa_rt_free(rt));
    REQUIRE_OR(check_spawn_of(rt, &b, &jb) == 0, (wa_join_drop(&ja), wa_rt_free(rt)));
    /* Each tick polls each task once, however often it woke itself. */
    for (int tick = 1; tick <= 4; tick++) {
        CHECK_EQ(wa_rt_tick(rt, NULL), 2);
        wa_rt_stats st;
        wa_rt_stats_get(rt, &st);
        CHECK_EQ(st.polls, 2 * tick);
    }
    CHECK_EQ(wa_rt_tick(rt, NULL), 0);
    CHECK(wa_join_done(&ja) && wa_join_done(&jb));
    CHECK_EQ(((waker3 *)wa_join_output(&ja))->polls, 5);
    wa_join_drop(&ja);
    wa_join_drop(&jb);
    CHECK_RT_EMPTY_FREE(rt);
}

/* Keeps a clone of its waker in *out, finishes on its second poll. */
typedef struct keeper {
    wa_future fut;
    wa_waker *out;
    int polls;
} keeper;

static int keeper_poll(wa_future *f, wa_cx *cx)
{
    keeper *k = (keeper *)f;
    if (k->polls++ == 0) {
        *k->out = wa_waker_clone(&cx->waker);
        wa_waker_wake_by_ref(&cx->waker);
        return WA_PENDING;
    }
    return WA_READY;
}
static const wa_future_vt keeper_vt = {keeper_poll, NULL, "keeper"};

static void test_wake_finished_is_noop(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_waker w = {0};
    keeper k = {{&keeper_vt}, &w, 0};
    REQUIRE_OR(check_spawn_of(rt, &k, NULL) == 0, wa_rt_free(rt));
    CHECK_EQ(wa_rt_run(rt), 0);
    wa_rt_stats st;
    wa_rt_stats_get(rt, &st);
    CHECK_EQ(st.tasks, 0);
    uint64_t polls = st.polls;
    wa_waker_wake_by_ref(&w); /* the task is done: nothing is queued */
    CHECK_EQ(wa_rt_tick(rt, NULL), 0);
    wa_rt_stats_get(rt, &st);
    CHECK_EQ(st.polls, polls);
    wa_waker_wake(&w); /* consumes the last reference: frees the task */
    CHECK(w.vt == NULL);
    wa_rt_free(rt);
}

static int fn_calls, fn_drops;
static int fn_task(void *arg, wa_cx *cx)
{
    int *left = arg;
    if (!cx) { /* dropped before it finished */
        fn_drops++;
        return 0;
    }
    fn_calls++;
    if (--*left == 0)
        return WA_READY;
    wa_waker_wake_by_ref(&cx->waker);
    return WA_PENDING;
}

static void test_spawn_fn(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    int left = 3;
    wa_join j;
    REQUIRE_OR(wa_spawn_fn(rt, fn_task, &left, &j) == 0, wa_rt_free(rt));
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK_EQ(fn_calls, 3);
    CHECK_EQ(fn_drops, 0);
    CHECK_EQ(wa_join_status(&j), 0);
    wa_join_drop(&j);
    /* dropped before it finished: told once, with cx NULL */
    left = 100;
    REQUIRE_OR(wa_spawn_fn(rt, fn_task, &left, &j) == 0, wa_rt_free(rt));
    wa_rt_tick(rt, NULL);
    CHECK_EQ(wa_join_abort(&j), 0);
    CHECK_EQ(fn_drops, 1);
    wa_join_drop(&j);
    CHECK_RT_EMPTY_FREE(rt);
}

/* Yields forever. */
typedef struct spinner {
    WA_CORO;
    long spins;
} spinner;

static int spinner_poll(wa_future *f, wa_cx *cx)
{
    spinner *t = (spinner *)f;
    WA_BEGIN(t, cx);
    for (;;) {
        t->spins++;
        WA_YIELD();
    }
    WA_END();
}
static const wa_future_vt spinner_vt = {spinner_poll, wa_coro_drop, "spinner"};

static void test_no_starvation_by_spinner(void)
{
    wa_rt *rt;
    REQUIRE(wa_rt_new(&rt) == 0); /* real clock */
    spinner sp;
    wa_coro_init(&sp.wa, &spinner_vt);
    sp.spins = 0;
    wa_join js;
    REQUIRE_OR(check_spawn_of(rt, &sp, &js) == 0, wa_rt_free(rt));
    sleeper sl;
    sleeper_init(&sl, WA_MS(20), 0);
    uint64_t t0 = wa_now(rt);
    CHECK_EQ(wa_block_on(rt, &sl.wa.fut), 0);
    uint64_t took = wa_now(rt) - t0;
    CHECK(took >= WA_MS(20));
    CHECK(took < WA_MS(500));
    CHECK_EQ(wa_join_abort(&js), 0);
    CHECK_EQ(wa_join_status(&js), WA_ECANCELED);
    wa_join_drop(&js);
    CHECK_RT_EMPTY_FREE(rt);
}

/* Receives everything from an always-full channel without ever waiting. */
typedef struct drainer {
    WA_CORO;
    wa_rx rx;
    wa_recv r;
    int v, got;
    int *other_polls;
    int other_seen_at; /* how many we had received when the other first ran */
} drainer;

static int drainer_poll(wa_future *f, wa_cx *cx)
{
    drainer *t = (drainer *)f;
    WA_BEGIN(t, cx);
    for (;;) {
        WA_AWAIT(wa_recv_init(&t->r, &t->rx, &t->v));
        if (WA_STATUS != 0)
            break;
        if (*t->other_polls && t->other_seen_at < 0)
            t->other_seen_at = t->got;
        t->got++;
    }
    WA_END();
}
static void drainer_drop(wa_future *f)
{
    wa_coro_drop(f);
    wa_rx_drop(&((drainer *)f)->rx);
}
static const wa_future_vt drainer_vt = {drainer_poll, drainer_drop, "drainer"};

/* Counts its polls in *arg and stays runnable forever. */
static int busy_task(void *arg, wa_cx *cx)
{
    if (!cx)
        return 0;
    (*(int *)arg)++;
    wa_waker_wake_by_ref(&cx->waker);
    return WA_PENDING;
}

static void test_coop_budget(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_tx tx;
    drainer d;
    wa_coro_init(&d.wa, &drainer_vt);
    REQUIRE_OR(wa_mpsc_new(1000, sizeof(int), &tx, &d.rx) == 0, wa_rt_free(rt));
    for (int i = 0; i < 1000; i++)
        CHECK_EQ(wa_tx_try_send(&tx, &i), 0);
    wa_tx_drop(&tx);
    int other = 0;
    d.got = 0;
    d.other_polls = &other;
    d.other_seen_at = -1;
    wa_join jd, jo;
    REQUIRE_OR(check_spawn_of(rt, &d, &jd) == 0, wa_rt_free(rt));
    REQUIRE_OR(wa_spawn_fn(rt, busy_task, &other, &jo) == 0, (wa_join_drop(&jd), wa_rt_free(rt)));
    for (int i = 0; i < 50 && !wa_join_done(&jd); i++)
        wa_rt_tick(rt, NULL);
    CHECK(wa_join_done(&jd));
    drainer *out = (drainer *)wa_join_output(&jd);
    CHECK_EQ(out->got, 1000);
    /* Every receive was ready at once, yet the drainer yielded when its
     * budget ran out and the other task ran long before the end. */
    CHECK(out->other_seen_at > 0 && out->other_seen_at <= 200);
    CHECK(other >= 1000 / 200);
    wa_join_abort(&jo);
    wa_join_drop(&jo);
    wa_join_drop(&jd);
    CHECK_RT_EMPTY_FREE(rt);
}

/* Cooperative cancellation with async cleanup, nested two deep. */

typedef struct inner_c {
    WA_CORO;
    wa_sleep s;
} inner_c;

static int inner_poll(wa_future *f, wa_cx *cx)
{
    inner_c *t = (inner_c *)f;
    WA_BEGIN(t, cx);
    mark('i');
    WA_AWAIT(wa_sleep_init(&t->s, WA_SEC(100)));
    mark('X'); /* never: cancelled while sleeping */
    WA_ON_CANCEL();
    mark('c');
    WA_AWAIT(wa_sleep_init(&t->s, WA_MS(5))); /* async cleanup, shielded */
    mark('C');
    WA_END();
}
static const wa_future_vt inner_vt = {inner_poll, wa_coro_drop, "inner"};

typedef struct outer_c {
    WA_CORO;
    inner_c in;
    wa_sleep s;
} outer_c;

static int outer_poll(wa_future *f, wa_cx *cx)
{
    outer_c *t = (outer_c *)f;
    WA_BEGIN(t, cx);
    mark('o');
    WA_AWAIT(wa_coro_init(&t->in.wa, &inner_vt));
    mark('Y'); /* never */
    WA_ON_CANCEL();
    mark('d');
    WA_AWAIT(wa_sleep_init(&t->s, WA_MS(1)));
    mark('D');
    WA_END();
}
static const wa_future_vt outer_vt = {outer_poll, wa_coro_drop, "outer"};

static void test_cancel_cooperative_nested(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    trail[0] = 0;
    outer_c o;
    wa_coro_init(&o.wa, &outer_vt);
    wa_join j;
    REQUIRE_OR(check_spawn_of(rt, &o, &j) == 0, wa_rt_free(rt));
    wa_rt_tick(rt, NULL);
    CHECK(strcmp(trail, "oi") == 0);
    CHECK_EQ(wa_join_cancel(&j), 0);
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK(strcmp(trail, "oicCdD") == 0);
    CHECK_EQ(wa_join_status(&j), WA_ECANCELED);
    CHECK_EQ(wa_now(rt), WA_MS(6)); /* both cleanups ran to the end, in order */
    wa_join_drop(&j);
    CHECK_RT_EMPTY_FREE(rt);
}

static void test_cancel_hard_fallback_and_abort(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    int drops = 0;
    never n1 = {{&never_vt}, &drops}, n2 = {{&never_vt}, &drops}, n3 = {{&never_vt}, &drops};
    wa_join j[4] = {0};
    REQUIRE_OR(check_spawn_of(rt, &n1, &j[0]) == 0, wa_rt_free(rt));
    REQUIRE_OR(check_spawn_of(rt, &n2, &j[1]) == 0, (check_joins_drop(j, 4), wa_rt_free(rt)));
    REQUIRE_OR(check_spawn_of(rt, &n3, &j[2]) == 0, (check_joins_drop(j, 4), wa_rt_free(rt)));
    wa_rt_tick(rt, NULL);
    /* A plain future cannot take the request: it is hard-dropped. */
    wa_join_cancel(&j[0]);
    wa_rt_tick(rt, NULL);
    CHECK_EQ(drops, 1);
    CHECK_EQ(wa_join_status(&j[0]), WA_ECANCELED);
    /* abort drops at once */
    wa_join_abort(&j[1]);
    CHECK_EQ(drops, 2);
    CHECK_EQ(wa_join_status(&j[1]), WA_ECANCELED);
    /* cancel before the first poll: dropped without being polled */
    never n4 = {{&never_vt}, &drops};
    REQUIRE_OR(check_spawn_of(rt, &n4, &j[3]) == 0, (check_joins_drop(j, 4), wa_rt_free(rt)));
    wa_join_cancel(&j[3]);
    wa_rt_tick(rt, NULL);
    CHECK_EQ(drops, 3);
    wa_join_drop(&j[0]);
    wa_join_drop(&j[1]);
    wa_join_drop(&j[3]);
    /* a detached task is dropped with the runtime */
    wa_join_drop(&j[2]);
    wa_rt_free(rt);
    CHECK_EQ(drops, 4);
}

/* Receives from a channel whose sender nobody will ever use. */
typedef struct stuck {
    WA_CORO;
    wa_rx rx;
    wa_recv r;
    int v;
} stuck;

static int stuck_poll(wa_future *f, wa_cx *cx)
{
    stuck *t = (stuck *)f;
    WA_BEGIN(t, cx);
    WA_AWAIT(wa_recv_init(&t->r, &t->rx, &t->v));
    WA_END();
}
static const wa_future_vt stuck_vt = {stuck_poll, wa_coro_drop, "stuck"};

static char report[1024];
static void capture(void *arg, const char *text)
{
    (void)arg;
    snprintf(report, sizeof report, "%s", text);
}

static void test_deadlock_detected(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_rt_set_report(rt, capture, NULL);
    wa_tx tx;
    stuck s;
    wa_coro_init(&s.wa, &stuck_vt);
    REQUIRE_OR(wa_mpsc_new(1, sizeof(int), &tx, &s.rx) == 0, wa_rt_free(rt));
    int drops = 0;
    never n = {{&never_vt}, &drops};
    REQUIRE_OR(check_spawn_of(rt, &n, NULL) == 0, (wa_tx_drop(&tx), wa_rx_drop(&s.rx), wa_rt_free(rt)));
    CHECK_EQ(wa_block_on(rt, &s.wa.fut), WA_EDEADLK);
    CHECK(strstr(report, "deadlock") != NULL);
    CHECK(strstr(report, "\"block_on(stuck)\"") != NULL);
    CHECK(strstr(report, "\"never\"") != NULL);
    wa_tx_drop(&tx);
    wa_rx_drop(&s.rx);
    wa_rt_free(rt);
    CHECK_EQ(drops, 1);
    /* with the real backend too: nothing registered, no timer */
    REQUIRE(wa_rt_new(&rt) == 0);
    wa_rt_set_report(rt, capture, NULL);
    never n2 = {{&never_vt}, &drops};
    CHECK_EQ(wa_block_on(rt, &n2.fut), WA_EDEADLK);
    CHECK_EQ(drops, 2);
    wa_rt_free(rt);
}

static void test_tick_reports_deadline(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    sleeper sl;
    sleeper_init(&sl, WA_MS(7), 0);
    wa_join j;
    REQUIRE_OR(check_spawn_of(rt, &sl, &j) == 0, wa_rt_free(rt));
    uint64_t deadline = 0;
    CHECK_EQ(wa_rt_tick(rt, &deadline), 0);
    CHECK_EQ(deadline, WA_MS(7));
    wa_sim_advance(wa_rt_backend(rt), WA_MS(7));
    /* due timers fire at the start of a tick and their tasks run in it */
    CHECK_EQ(wa_rt_tick(rt, &deadline), 0);
    CHECK_EQ(deadline, WA_NEVER);
    CHECK(wa_join_done(&j));
    wa_join_drop(&j);
    CHECK_RT_EMPTY_FREE(rt);
}

/* A task named at its spawn is dumped by its name and its future's, with
 * how long it has waited and its polls' busy and idle times (the sim's
 * clock: no time passes in a poll); its output is its own future's. */
static void test_dump_named_task(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    sleeper sl;
    sleeper_init(&sl, WA_MS(100), 0);
    wa_join j;
    REQUIRE_OR(wa_spawn_of_named(rt, &sl, &j, "nap 1") == 0, wa_rt_free(rt));
    char buf[256];
    wa_rt_dump(rt, buf, sizeof buf);
    CHECK(strcmp(buf, "  task 1 \"nap 1\" (sleeper) queued [0 polls, busy 0 ns, idle 0 ns]\n") == 0);
    CHECK_EQ(wa_rt_tick(rt, NULL), 0);
    wa_sim_advance(wa_rt_backend(rt), WA_MS(30));
    wa_rt_dump(rt, buf, sizeof buf);
    CHECK(strcmp(buf, "  task 1 \"nap 1\" (sleeper) waiting for 30 ms [1 poll, busy 0 ns, idle 30 ms]\n") == 0);
    wa_sim_advance(wa_rt_backend(rt), WA_MS(70));
    CHECK_EQ(wa_rt_tick(rt, NULL), 0);
    CHECK(wa_join_done(&j));
    CHECK_EQ(wa_rt_dump(rt, buf, sizeof buf), 0);
    const sleeper *out = (const sleeper *)wa_join_output(&j); /* the task's own future */
    CHECK(out && out->ns == WA_MS(100) && out->wa.fut.vt == &sleeper_vt);
    wa_join_drop(&j);
    CHECK_RT_EMPTY_FREE(rt);
}

/* A scope's children and a join set's tasks take names too; a dropped
 * scope or set is reported for the named call. */
static void test_dump_named_children(void)
{
    check_catch_misuse();
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_scope sc;
    wa_scope_init(&sc, rt, 0);
    wa_join_set set;
    wa_join_set_init(&set, rt);
    sleeper a, b;
    sleeper_init(&a, WA_MS(100), 0);
    sleeper_init(&b, WA_MS(100), 0);
    CHECK_EQ(wa_scope_spawn_of_named(&sc, &a, NULL, "child a"), 0);
    CHECK_EQ(wa_join_set_spawn_of_named(&set, &b, "member b"), 0);
    char buf[512];
    wa_rt_dump(rt, buf, sizeof buf);
    CHECK(strstr(buf, "\"child a\" (sleeper) queued") != NULL);
    CHECK(strstr(buf, "\"member b\" (sleeper) queued") != NULL);
    CHECK_EQ(wa_join_set_spawn_of_named(&set, &b, NULL), 0); /* (no name: as wa_join_set_spawn) */
    CHECK_EQ(wa_join_set_len(&set), 2);
    wa_join_set_drop(&set);
    CHECK_MISUSE(wa_join_set_spawn_of_named(&set, &b, "late"), WA_EMISUSE, "wa_join_set_spawn_named");
    wa_drop(wa_scope_wait(&sc));
    CHECK_MISUSE(wa_scope_spawn_of_named(&sc, &a, NULL, "late"), WA_ESTALE, "wa_scope_spawn_named");
    CHECK_RT_EMPTY_FREE(rt);
}

/* What tasks await, in dumps: a coroutine's child, a race's children, a
 * sleep's deadline, a join handle's task, a pipe's fd. */
typedef struct slow {
    WA_CORO;
    wa_sleep s;
} slow;

WA_ASYNC(slow, t, cx)
{
    WA_BEGIN(t, cx);
    WA_TRY(wa_sleep_init(&t->s, WA_SEC(3)));
    WA_END();
}

typedef struct racer {
    WA_CORO;
    WA_COMBO(2) race;
    wa_sleep s;
    slow sl;
} racer;

WA_ASYNC(racer, t, cx)
{
    WA_BEGIN(t, cx);
    WA_TRY(wa_race_init(&t->race, wa_sleep_init(&t->s, WA_MS(100)), slow_init(&t->sl)));
    WA_END();
}

typedef struct awaiter {
    WA_CORO;
    wa_join j;
} awaiter;

WA_ASYNC(awaiter, t, cx)
{
    WA_BEGIN(t, cx);
    WA_TRY(&t->j.fut);
    WA_END();
}

static void test_dump_awaits(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    racer r = {0};
    racer_init(&r);
    awaiter a = {0};
    awaiter_init(&a);
    REQUIRE_OR(check_spawn_of(rt, &r, &a.j) == 0, wa_rt_free(rt));
    REQUIRE_OR(wa_spawn_of_named(rt, &a, NULL, "waits for the racer") == 0, (wa_join_drop(&a.j), wa_rt_free(rt)));
    CHECK_EQ(wa_rt_tick(rt, NULL), 0);
    wa_sim_advance(wa_rt_backend(rt), WA_MS(40));
    char buf[512];
    wa_rt_dump(rt, buf, sizeof buf);
    CHECK(strstr(buf, "  task 1 \"racer\" waiting: join (race, 2 of 2 left) > "
                      "[sleep (due in 60 ms), slow > sleep (due in 2960 ms)]\n") != NULL);
    CHECK(strstr(buf, "  task 2 \"waits for the racer\" (awaiter) waiting for 40 ms [1 poll, busy 0 ns, "
                      "idle 40 ms]: join (task 1 \"racer\")\n") != NULL);
    if (!strstr(buf, "racer\")\n"))
        printf("%s", buf);
    wa_sim_advance(wa_rt_backend(rt), WA_MS(60));
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK_EQ(wa_rt_dump(rt, buf, sizeof buf), 0);
    CHECK_RT_EMPTY_FREE(rt);
}

#if !defined(__wasm__)
/* A traced sleep says why its task woke: on the task's track, its timer
 * armed (in 20 ms) and fired (20 ms after it was armed, on time: the
 * simulated clock), then the wake "by" "timer (due 20 ms after armed)";
 * on the runtime's, the backend's wait for it, a host wait slice with its
 * timeout, which no source ended. */
static void test_trace_timer_wake(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    char path[] = "/tmp/wasync-trace-XXXXXX";
    int fd = mkstemp(path);
    REQUIRE_OR(fd >= 0, wa_rt_free(rt));
    close(fd);
    REQUIRE_OR(wa_trace_start(rt, path) == 0, (wa_rt_free(rt), remove(path)));
    sleeper sl;
    sleeper_init(&sl, WA_MS(20), 0);
    CHECK_EQ(wa_block_on(rt, &sl.wa.fut), 0);
    wa_rt_free(rt);
    static char text[1 << 16];
    check_take_file(path, text, sizeof text);
    CHECK_EQ(check_count(text, "\"name\":\"timer armed\",\"id\":1,"), 1);
    CHECK_EQ(check_count(text, "\"args\":{\"in\":\"20 ms\"}"), 1);
    CHECK_EQ(check_count(text, "\"name\":\"timer fired\",\"id\":1,"), 1);
    CHECK_EQ(check_count(text, "\"args\":{\"after_armed\":\"20 ms\",\"late\":\"0 ns\"}"), 1);
    CHECK_EQ(check_count(text, "\"args\":{\"by\":\"timer (due 20 ms after armed)\"}"), 1);
    CHECK_EQ(check_count(text, "\"ph\":\"B\",\"cat\":\"task\",\"name\":\"host wait\""), 1);
    CHECK_EQ(check_count(text, "\"args\":{\"timeout\":\"20 ms\"}"), 1);
    CHECK_EQ(check_count(text, "\"ph\":\"E\",\"cat\":\"task\",\"name\":\"host wait\""), 1);
    CHECK_EQ(check_count(text, "\"args\":{\"ready\":0}"), 1);
    /* the order on the task's track: armed, fired, woken */
    const char *armed = strstr(text, "timer armed"), *fired = strstr(text, "timer fired");
    const char *woken = strstr(text, "\"by\":\"timer");
    CHECK(armed && fired && woken && armed < fired && fired < woken);
}
#endif

/* wa_trace_start and wa_trace_stop on the local executor: a task that
 * ends, one aborted before its first poll and one left to wa_rt_free each
 * have their slice closed, with their status; a second start is refused
 * while one runs, a stop without a trace too, a file that cannot be made
 * is WA_EIO, and a trace can start again after its stop. On wasm, "-"
 * (stderr on WASI, the glue's on the JS host): the test runs without a
 * directory to write in (node:wasi, jco and wasmtime preopen none here; the
 * glue's Node writes files, a browser's none). */
static void test_trace_start_stop(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    CHECK_EQ(wa_trace_stop(rt), WA_EINVAL);
    int rc = wa_trace_start(rt, "/no such dir/t.json");
    REQUIRE_OR(rc != WA_ENOMEM, wa_rt_free(rt)); /* (allocation-failure injection) */
    CHECK_EQ(rc, WA_EIO);
    CHECK_EQ(wa_trace_stop(rt), WA_EINVAL);
#if defined(__wasm__)
    REQUIRE_OR(wa_trace_start(rt, "-") == 0, wa_rt_free(rt));
    CHECK_EQ(wa_trace_start(rt, "-"), WA_EBUSY);
    CHECK_EQ(wa_trace_stop(rt), 0);
    CHECK_EQ(wa_trace_stop(rt), WA_EINVAL);
    wa_rt_free(rt);
#else
    char one[] = "/tmp/wasync-trace-XXXXXX", two[] = "/tmp/wasync-trace-XXXXXX";
    int fd1 = mkstemp(one), fd2 = mkstemp(two);
    if (fd1 >= 0)
        close(fd1);
    if (fd2 >= 0)
        close(fd2);
#define UNDO (wa_rt_free(rt), unlink(one), unlink(two))
    REQUIRE_OR(fd1 >= 0 && fd2 >= 0, UNDO);
    REQUIRE_OR(wa_trace_start(rt, one) == 0, UNDO);
    CHECK_EQ(wa_trace_start(rt, one), WA_EBUSY);
    sleeper a, b, c;
    sleeper_init(&a, WA_MS(5), WA_EIO);
    sleeper_init(&b, WA_MS(5), 0);
    sleeper_init(&c, WA_SEC(100), 0);
    wa_join ja, jb;
    REQUIRE_OR(check_spawn_of(rt, &a, &ja) == 0, UNDO);
    REQUIRE_OR(wa_spawn_of_named(rt, &b, &jb, "b \"quoted\"") == 0, (wa_join_drop(&ja), UNDO));
    REQUIRE_OR(check_spawn_of(rt, &c, NULL) == 0, (wa_join_drop(&ja), wa_join_drop(&jb), UNDO));
    wa_join_abort(&jb); /* before its first poll */
    CHECK_EQ(wa_rt_tick(rt, NULL), 0);
    wa_sim_advance(wa_rt_backend(rt), WA_MS(5));
    CHECK_EQ(wa_rt_tick(rt, NULL), 0);
    CHECK_EQ(wa_join_status(&ja), WA_EIO);
    CHECK_EQ(wa_join_status(&jb), WA_ECANCELED);
    wa_join_drop(&ja);
    wa_join_drop(&jb);
    CHECK_EQ(wa_trace_stop(rt), 0);
    CHECK_EQ(wa_trace_stop(rt), WA_EINVAL);
    CHECK_EQ(wa_trace_start(rt, two), 0); /* again, anew */
    wa_rt_free(rt);                       /* drops c, closes the second trace */
    static char text[2][1 << 16];
    size_t len[2] = {0, 0};
    for (int i = 0; i < 2; i++) {
        len[i] = check_take_file(i ? two : one, text[i], sizeof text[i]);
        CHECK(len[i] > 4 && strcmp(text[i] + len[i] - 4, "\n]}\n") == 0);
    }
#undef UNDO
    /* the first: three tasks began, a ended with WA_EIO, b (never
     * polled) with WA_ECANCELED, c not yet */
    CHECK_EQ(check_count(text[0], "\"ph\":\"b\",\"cat\":\"task\",\"name\":\"sleeper\""), 2);
    CHECK_EQ(check_count(text[0], "\"name\":\"b \\\"quoted\\\"\""), 1);
    CHECK_EQ(check_count(text[0], "\"name\":\"task\""), 2);
    CHECK_EQ(check_count(text[0], "\"status\":-10}"), 1);
    CHECK_EQ(check_count(text[0], "\"status\":-3}"), 1);
    CHECK_EQ(check_count(text[0], "\"name\":\"poll\""), 2 * 3); /* a twice, c once */
    /* the second: nothing of the first's tasks (c's end is not its) */
    CHECK_EQ(check_count(text[1], "\"id\":"), 0);
#endif
}

static int fails_io(void *arg, wa_cx *cx)
{
    (void)arg;
    return cx ? WA_EIO : 0;
}

/* A poll that finds the task finished releases it: the handle keeps the
 * status, its output is gone, and a drop after it is accepted once. */
static void test_join_poll_releases(void)
{
    check_catch_misuse();
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_join j;
    REQUIRE_OR(wa_spawn_fn(rt, fails_io, NULL, &j) == 0, wa_rt_free(rt));
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK(wa_join_output(&j) != NULL);
    wa_cx cx = {WA_NOOP_WAKER, rt, NULL, 0, NULL};
    int before = check_misuses;
    CHECK_EQ(wa_poll(&j.fut, &cx), WA_EIO);
    CHECK(wa_join_done(&j));
    CHECK_EQ(wa_join_status(&j), WA_EIO);
    CHECK(wa_join_output(&j) == NULL);
    CHECK_EQ(wa_poll(&j.fut, &cx), WA_EIO); /* polled again: the same */
    CHECK_EQ(wa_join_cancel(&j), 0);
    CHECK_EQ(wa_join_abort(&j), 0);
    CHECK_EQ(wa_join_drop(&j), 0);
    CHECK_EQ(wa_join_drop(&j), WA_EMISUSE); /* double drop */
    CHECK_EQ(check_misuses, before + 1);
    CHECK_RT_EMPTY_FREE(rt);
    wa_misuse_set_hook(NULL);
}

static void test_misuse_detected(void)
{
    check_catch_misuse();
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    int drops = 0;
    never n = {{&never_vt}, &drops};
    wa_join j;
    REQUIRE_OR(check_spawn_of(rt, &n, &j) == 0, wa_rt_free(rt));
    int before = check_misuses;
    CHECK_EQ(wa_join_drop(&j), 0);
    CHECK_EQ(wa_join_drop(&j), WA_EMISUSE); /* double drop */
    CHECK_EQ(wa_join_cancel(&j), WA_ESTALE); /* stale handle */
    CHECK_EQ(check_misuses, before + 2);
    /* polling a finished coroutine */
    sleeper sl;
    sleeper_init(&sl, 0, 0);
    wa_cx cx = {WA_NOOP_WAKER, rt, NULL, 0, NULL};
    CHECK_EQ(wa_poll(&sl.wa.fut, &cx), 0);
    CHECK_EQ(wa_poll(&sl.wa.fut, &cx), WA_EMISUSE);
    CHECK_HAS(check_misuse_text, "poll of a finished or freed coroutine");
    CHECK_EQ(check_misuses, before + 3);
    /* double drop of channel ends */
    wa_tx tx;
    wa_rx rx;
    REQUIRE_OR(wa_mpsc_new(1, 1, &tx, &rx) == 0, wa_rt_free(rt));
    CHECK_EQ(wa_tx_drop(&tx), 0);
    CHECK_EQ(wa_tx_drop(&tx), WA_EMISUSE);
    CHECK_EQ(wa_rx_drop(&rx), 0);
    CHECK_EQ(check_misuses, before + 4);
    CHECK(strcmp(wa_strerror(WA_EDEADLK), "deadlock: pending with nothing left to wake it") == 0);
    CHECK(strcmp(wa_strerror(12345), "unknown error") == 0);
    wa_rt_free(rt);
    CHECK_EQ(drops, 1);
    wa_misuse_set_hook(NULL);
}

/* The last misuse report, for tests that read it. */
static char misuse_text[512];
static void copy_misuse(const char *what)
{
    check_misuses++;
    snprintf(misuse_text, sizeof misuse_text, "%s", what);
}

/* A task that calls the runtime the ways a poll must not: block_on (of its
 * own runtime and of another), tick, run, free. Each is refused and
 * reported naming the call and the task; the task goes on unharmed (ASan:
 * this was a re-entrant poll and a use after free). */
typedef struct nester {
    wa_future fut;
    wa_rt *other;
    int rc[5];
    char text[512];
} nester;

static int nester_poll(wa_future *f, wa_cx *cx)
{
    nester *t = (nester *)f;
    wa_yield y;
    t->rc[0] = wa_block_on(cx->rt, wa_yield_init(&y));
    snprintf(t->text, sizeof t->text, "%s", misuse_text);
    t->rc[1] = wa_block_on(t->other, wa_yield_init(&y));
    t->rc[2] = wa_rt_tick(cx->rt, NULL);
    t->rc[3] = wa_rt_run(t->other);
    wa_rt_free(cx->rt);
    t->rc[4] = 0;
    return 0;
}
static const wa_future_vt nester_vt = {nester_poll, NULL, "nester"};

static void test_nested_block_on(void)
{
    wa_misuse_set_hook(copy_misuse);
    wa_rt *rt = check_sim_rt(0), *other = check_sim_rt(0);
    if (!rt || !other) {
        CHECK(rt && other);
        wa_rt_free(rt);
        wa_rt_free(other);
        return;
    }
    nester n = {{&nester_vt}, other, {1, 1, 1, 1, 1}, ""};
    int before = check_misuses;
    CHECK_EQ(wa_block_on(rt, &n.fut), 0);
    for (int i = 0; i < 4; i++)
        CHECK_EQ(n.rc[i], WA_EMISUSE);
    CHECK_EQ(n.rc[4], 0);
    CHECK_EQ(check_misuses - before, 5);
    CHECK(strstr(n.text, "wa_block_on") && strstr(n.text, "\"block_on(nester)\""));
    CHECK(strstr(misuse_text, "wa_rt_free"));
    CHECK_RT_EMPTY_FREE(rt);
    CHECK_RT_EMPTY_FREE(other);
    wa_misuse_set_hook(NULL);
}

#if defined(__linux__)
#include <pthread.h>

/* A runtime driven from a thread that is not its own: refused and
 * reported, not a silent hang. */
static void *foreign_thread(void *arg)
{
    wa_rt *rt = arg;
    wa_yield y;
    static int rc[2];
    rc[0] = wa_block_on(rt, wa_yield_init(&y));
    rc[1] = wa_rt_tick(rt, NULL);
    return rc;
}

static void test_foreign_thread(void)
{
    wa_misuse_set_hook(copy_misuse);
    wa_rt *rt = check_sim_rt(0);
    pthread_t th;
    if (!rt || pthread_create(&th, NULL, foreign_thread, rt) != 0) {
        CHECK(0);
        wa_rt_free(rt);
        return;
    }
    void *out;
    pthread_join(th, &out);
    CHECK_EQ(((int *)out)[0], WA_EMISUSE);
    CHECK_EQ(((int *)out)[1], WA_EMISUSE);
    CHECK(strstr(misuse_text, "not the runtime's"));
    CHECK_RT_EMPTY_FREE(rt);
    wa_misuse_set_hook(NULL);
}
#endif

/* Bad arguments to the runtime's calls are reported, never a crash or a
 * bogus task: NULLs, a size too small or too large, a NULL backend (a
 * failed constructor is not the default), awaiting a dropped handle
 * (reported once). */
typedef struct await_join {
    WA_CORO;
    wa_join *j;
} await_join;

static int await_join_poll(wa_future *f, wa_cx *cx)
{
    await_join *t = (await_join *)f;
    WA_BEGIN(t, cx);
    WA_AWAIT(&t->j->fut);
    WA_RETURN(WA_STATUS);
    WA_END();
}
static const wa_future_vt await_join_vt = {await_join_poll, wa_coro_drop, "await_join"};

/* A runtime freed or shut down through one copy of its pointer: a second
 * free or shutdown through another is reported by the call, without
 * touching the freed runtime. */
static void test_rt_copies(void)
{
    check_catch_misuse();
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_rt *copy = rt;
    wa_rt_free(rt);
    CHECK_MISUSE((wa_rt_free(copy), 0), 0, "wa_rt_free");
    CHECK_MISUSE(wa_rt_shutdown(copy, 0), WA_EMISUSE, "wa_rt_shutdown");
    rt = check_sim_rt(0);
    REQUIRE(rt);
    copy = rt;
    CHECK_EQ(wa_rt_shutdown(rt, WA_MS(1)), 0);
    CHECK_MISUSE(wa_rt_shutdown(copy, WA_MS(1)), WA_EMISUSE, "wa_rt_shutdown");
    CHECK_MISUSE((wa_rt_free(copy), 0), 0, "wa_rt_free");
}

static void test_bad_arguments(void)
{
    wa_misuse_set_hook(copy_misuse);
    wa_rt *rt = NULL;
    CHECK_EQ(wa_rt_new_on(&rt, NULL), WA_EINVAL);
    CHECK(rt == NULL);
    int before = check_misuses;
    CHECK_EQ(wa_rt_new_on(NULL, wa_backend_sim_new(0)), WA_EINVAL);
    CHECK_EQ(wa_rt_new(NULL), WA_EINVAL);
    rt = check_sim_rt(0);
    if (!rt) {
        CHECK(rt != NULL);
        return;
    }
    int drops = 0;
    never n = {{&never_vt}, &drops};
    wa_join j;
    CHECK_EQ(wa_spawn(rt, &n.fut, 0, NULL), WA_EINVAL);
    CHECK_EQ(wa_spawn(rt, &n.fut, sizeof(wa_future) - 1, NULL), WA_EINVAL);
    CHECK_EQ(wa_spawn(rt, &n.fut, SIZE_MAX, &j), WA_E2BIG);
    CHECK_EQ(wa_spawn(rt, NULL, sizeof n, NULL), WA_EINVAL);
    CHECK_EQ(wa_spawn(NULL, &n.fut, sizeof n, NULL), WA_EINVAL);
    wa_future novt = {NULL};
    CHECK_EQ(wa_spawn(rt, &novt, sizeof novt, NULL), WA_EINVAL);
    CHECK_EQ(wa_block_on(rt, NULL), WA_EINVAL);
    CHECK_EQ(wa_block_on(NULL, &n.fut), WA_EINVAL);
    CHECK_EQ(drops, 1); /* taken even then */
    CHECK_EQ(wa_rt_tick(NULL, NULL), WA_EINVAL);
    wa_rt_stats_get(rt, NULL);
    CHECK_EQ(check_misuses - before, 11); /* E2BIG is an answer, not misuse */
    CHECK(strstr(misuse_text, "wa_rt_stats_get"));
    /* awaiting a dropped join handle: one report */
    REQUIRE_OR(check_spawn_of(rt, &n, &j) == 0, wa_rt_free(rt));
    CHECK_EQ(wa_join_drop(&j), 0);
    await_join a = {.j = &j};
    wa_coro_init(&a.wa, &await_join_vt);
    before = check_misuses;
    CHECK_EQ(wa_block_on(rt, &a.wa.fut), WA_EMISUSE);
    CHECK_EQ(check_misuses - before, 1);
    wa_rt_free(rt);
    wa_misuse_set_hook(NULL);
}

/* WA_ASYNC with a cleanup: declared once, run once on every path (a normal
 * end, an error from WA_TRY, a cooperative cancel, a hard drop, a drop
 * before the first poll). */
typedef struct holder {
    WA_CORO;
    wa_timeout to;
    wa_sleep s;
    uint64_t ns, limit;
    int *cleanups;
    int after; /* reached the line after WA_TRY */
} holder;

static void holder_cleanup(holder *h) { ++*h->cleanups; }

WA_ASYNC(holder, h, cx, holder_cleanup)
{
    WA_BEGIN(h, cx);
    WA_TRY(wa_timeout_init(&h->to, wa_sleep_init(&h->s, h->ns), h->limit));
    h->after = 1;
    WA_END();
}

static void test_async_cleanup_every_path(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    int cleanups = 0;
    /* a normal end */
    holder h = {.ns = WA_MS(1), .limit = WA_SEC(1), .cleanups = &cleanups};
    CHECK_EQ(wa_block_on(rt, holder_init(&h)), 0);
    CHECK_EQ(h.after, 1);
    CHECK_EQ(cleanups, 1);
    /* WA_TRY ends the coroutine with its child's error */
    holder e = {.ns = WA_SEC(1), .limit = WA_MS(1), .cleanups = &cleanups};
    CHECK_EQ(wa_block_on(rt, holder_init(&e)), WA_ETIMEDOUT);
    CHECK_EQ(e.after, 0);
    CHECK_EQ(cleanups, 2);
    /* a cooperative cancel and a hard drop of running tasks */
    holder c = {.ns = WA_SEC(5), .limit = WA_SEC(9), .cleanups = &cleanups}, d = c;
    wa_join jc = {0}, jd = {0};
    holder_init(&c);
    holder_init(&d);
    REQUIRE_OR(check_spawn_of(rt, &c, &jc) == 0, wa_rt_free(rt));
    REQUIRE_OR(check_spawn_of(rt, &d, &jd) == 0, (wa_join_drop(&jc), wa_rt_free(rt)));
    wa_rt_tick(rt, NULL);
    CHECK_EQ(cleanups, 2);
    wa_join_cancel(&jc);
    wa_join_abort(&jd);
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK_EQ(wa_join_status(&jc), WA_ECANCELED);
    CHECK_EQ(wa_join_status(&jd), WA_ECANCELED);
    CHECK_EQ(cleanups, 4);
    wa_join_drop(&jc);
    wa_join_drop(&jd);
    /* dropped before its first poll */
    holder u = {.cleanups = &cleanups};
    wa_drop(holder_init(&u));
    CHECK_EQ(cleanups, 5);
    CHECK_RT_EMPTY_FREE(rt);
}

/* The classic mistake: the awaited future is a local of the poll
 * function, whose storage ends when the poll returns (a crash at -O0; at
 * -O2 a false deadlock, then a hang in the next block_on). Reported naming
 * the future, its task ends with WA_EMISUSE, its timer gone with it; an
 * await of the same in a caller's frame (block_on's caller here) is
 * right, and so is a local that completes before the poll returns. */
typedef struct local_await {
    WA_CORO;
    uint64_t ns;
    wa_sleep *theirs; /* NULL: a local of the poll */
    int after;
} local_await;

WA_ASYNC(local_await, t, cx)
{
    wa_sleep mine;
    WA_BEGIN(t, cx);
    WA_AWAIT(wa_sleep_init(t->theirs ? t->theirs : &mine, t->ns));
    t->after = WA_STATUS == 0;
    WA_END();
}

/* Awaits a local_await of its own: the misuse is its child's status. */
typedef struct local_outer {
    WA_CORO;
    local_await inner;
    int status;
} local_outer;

WA_ASYNC(local_outer, t, cx)
{
    WA_BEGIN(t, cx);
    WA_AWAIT(local_await_init(&t->inner));
    t->status = WA_STATUS;
    WA_END();
}

/* Task-local values: each task its own, not inherited by a child, kept
 * across awaits; a set replaces (dropping the old value); every value's
 * drop runs once when its task ends, however it ends (normally, cancelled
 * before it started, aborted while pending, or with the runtime). */
static int local_dropped;
static void local_drop(void *v) { local_dropped += *(int *)v; }
static const wa_task_local key_owned = {local_drop};
static const wa_task_local key_borrowed = {NULL};

typedef struct localer {
    WA_CORO;
    wa_yield y;
    wa_join child;
    int id, weight, spawn_child, wait, quick;
    int *bad;
    never n;
} localer;

static int localer_poll(wa_future *f, wa_cx *cx)
{
    localer *t = (localer *)f;
    WA_BEGIN(t, cx);
    if (wa_task_local_get(&key_owned) || wa_task_local_get(&key_borrowed))
        (*t->bad)++; /* not inherited, not another task's */
    if (wa_task_local_set(&key_owned, &t->weight) < 0 || wa_task_local_set(&key_borrowed, &t->id) < 0)
        WA_RETURN(WA_ENOMEM);
    if (t->quick) /* ends in the poll that set them */
        WA_RETURN(0);
    if (t->spawn_child) {
        localer c = {.id = t->id + 1, .weight = 100, .bad = t->bad};
        wa_coro_init(&c.wa, f->vt);
        if (wa_spawn_of(cx->rt, &c, &t->child) < 0)
            WA_RETURN(WA_ENOMEM);
        WA_AWAIT(&t->child.fut);
    }
    WA_AWAIT(wa_yield_init(&t->y));
    if (wa_task_local_get(&key_borrowed) != &t->id || wa_task_local_get(&key_owned) != &t->weight)
        (*t->bad)++;
    if (t->wait)
        WA_AWAIT(never_init(&t->n, &t->wait));
    WA_END();
}
static const wa_future_vt localer_vt = {localer_poll, wa_coro_drop, "localer"};

static void test_task_local(void)
{
    check_catch_misuse();
    int v = 1, bad = 0;
    CHECK_MISUSE(wa_task_local_set(&key_owned, &v), WA_EMISUSE, "wa_task_local_set"); /* no task */
    CHECK(wa_task_local_get(&key_owned) == NULL);
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    /* a parent and its child; a set that replaces drops the old value */
    localer a = {.id = 10, .weight = 1, .spawn_child = 1, .bad = &bad};
    wa_coro_init(&a.wa, &localer_vt);
    local_dropped = 0;
    int rc = wa_block_on(rt, &a.wa.fut);
    REQUIRE_OR(rc != WA_ENOMEM, wa_rt_free(rt));
    CHECK_EQ(rc, 0);
    CHECK_EQ(bad, 0);
    CHECK_EQ(local_dropped, 101);
    localer q = {.id = 20, .weight = 10, .quick = 1, .bad = &bad};
    wa_coro_init(&q.wa, &localer_vt);
    REQUIRE_OR(check_spawn_of(rt, &q, NULL) == 0, wa_rt_free(rt));
    wa_rt_tick(rt, NULL);
    CHECK_EQ(local_dropped, 111);

    /* cancelled before its first poll (sets nothing), aborted while
     * pending, and pending when the runtime is freed */
    wa_join j[3] = {{0}};
    int waits[3] = {1, 1, 1};
    for (int i = 0; i < 3; i++) {
        localer l = {.id = i, .weight = 1000, .bad = &bad, .wait = waits[i]};
        wa_coro_init(&l.wa, &localer_vt);
        REQUIRE_OR(check_spawn_of(rt, &l, &j[i]) == 0, (check_joins_drop(j, 3), wa_rt_free(rt)));
    }
    CHECK_EQ(wa_join_cancel(&j[0]), 0);
    local_dropped = 0;
    wa_rt_tick(rt, NULL);
    wa_rt_tick(rt, NULL);
    CHECK_EQ(wa_join_status(&j[0]), WA_ECANCELED);
    CHECK_EQ(local_dropped, 0);
    CHECK_EQ(wa_join_abort(&j[1]), 0);
    CHECK_EQ(local_dropped, 1000);
    check_joins_drop(j, 3);
    wa_rt_free(rt);
    CHECK_EQ(local_dropped, 2000);
    CHECK_EQ(bad, 0);
}

static void test_await_local_refused(void)
{
    wa_misuse_set_hook(copy_misuse);
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    int before = check_misuses;
    local_await bad = {.ns = WA_MS(5)};
    CHECK_EQ(wa_block_on(rt, local_await_init(&bad)), WA_EMISUSE);
    CHECK_EQ(check_misuses - before, 1);
    CHECK(strstr(misuse_text, "WA_AWAIT: the future \"sleep\" is in the poll's own stack frame"));
    CHECK(strstr(misuse_text, "\"block_on(local_await)\""));
    CHECK_EQ(bad.after, 0);
    local_outer outer = {.inner = {.ns = WA_MS(5)}};
    CHECK_EQ(wa_block_on(rt, local_outer_init(&outer)), 0);
    CHECK_EQ(outer.status, WA_EMISUSE);
    CHECK_EQ(check_misuses - before, 2);
    /* right: in the caller's frame, or a local done at once */
    wa_sleep caller;
    local_await good = {.ns = WA_MS(5), .theirs = &caller}, now = {.ns = 0};
    CHECK_EQ(wa_block_on(rt, local_await_init(&good)), 0);
    CHECK_EQ(good.after, 1);
    CHECK_EQ(wa_block_on(rt, local_await_init(&now)), 0);
    CHECK_EQ(now.after, 1);
    CHECK_EQ(check_misuses - before, 2);
    CHECK_RT_EMPTY_FREE(rt);
    wa_misuse_set_hook(NULL);
}

/* A slot of the keyed table stays where it is while the table grows
 * (growing copies nothing), and keeps what was written in it. */
static void test_keys_never_move(void)
{
    enum { N = 1000 };
    typedef struct {
        wa__keyslot slot;
        uint32_t mark[3]; /* (an odd size: 24 bytes) */
    } item;
    static item *at[N];
    static uint64_t key[N];
    wa__keys k;
    wa__keys_init(&k, sizeof(item), WA__KEY_GENS, WA__KEY_SLOTS);
    for (uint32_t i = 0; i < N; i++) {
        uint32_t j;
        REQUIRE_OR(wa__keys_alloc(&k, &j) == 0, wa__keys_free(&k));
        CHECK_EQ(j, i);
        at[i] = (item *)wa__keys_at(&k, j);
        CHECK_EQ(at[i]->mark[0] | at[i]->mark[1] | at[i]->mark[2], 0u); /* zeroed */
        at[i]->mark[0] = at[i]->mark[2] = i;
        key[i] = wa__keys_key(&k, j);
    }
    for (uint32_t i = 0; i < N; i++) {
        CHECK(wa__keys_find(&k, key[i]) == at[i]);
        CHECK_EQ(at[i]->mark[0], i);
        CHECK_EQ(at[i]->mark[2], i);
    }
    wa__keys_release(&k, 700);
    CHECK(wa__keys_find(&k, key[700]) == NULL); /* stale */
    uint32_t j;
    CHECK_EQ(wa__keys_alloc(&k, &j), 0); /* the freed slot, zeroed again */
    CHECK_EQ(j, 700u);
    CHECK(wa__keys_at(&k, j) == &at[700]->slot);
    CHECK_EQ(at[700]->mark[0], 0u);
    CHECK(wa__keys_find(&k, wa__keys_key(&k, j)) == at[700]);
    wa__keys_free(&k);
}

int main(void)
{
    RUN(test_spawn_join);
    RUN(test_spawn_every_size);
    RUN(test_dedup_fair_ticks);
    RUN(test_wake_finished_is_noop);
    RUN(test_spawn_fn);
    RUN_REAL_CLOCK(test_no_starvation_by_spinner);
    RUN(test_coop_budget);
    RUN(test_cancel_cooperative_nested);
    RUN(test_cancel_hard_fallback_and_abort);
    RUN(test_deadlock_detected);
    RUN(test_tick_reports_deadline);
    RUN(test_misuse_detected);
    RUN(test_join_poll_releases);
    RUN(test_nested_block_on);
#if defined(__linux__)
    RUN(test_foreign_thread);
#endif
    RUN(test_bad_arguments);
    RUN(test_rt_copies);
    RUN(test_async_cleanup_every_path);
    RUN(test_await_local_refused);
    RUN(test_task_local);
    RUN(test_dump_named_task);
    RUN(test_dump_named_children);
    RUN(test_dump_awaits);
    RUN(test_trace_start_stop);
    RUN(test_keys_never_move);
#if !defined(__wasm__)
    RUN(test_trace_timer_wake);
#endif
    return check_finish();
}
