/* SPDX-License-Identifier: MIT */
/* The WASI 0.3 backend under a real component host (jco + preview3-shim,
 * or wasmtime):
 * sleeps sharing one wait-until, the timer replaced only when the deadline
 * moves earlier, waitable registrations and their stale keys, and
 * wa_subtask over an async-lowered call of our own binding (as a user
 * binds an async import), cancelled when dropped. Host calls are counted
 * and bounded: on this host an async-lowered call costs about 1 ms. */
#include "../futures.h"
#include "../../src/host/wasip3/builtins.h"
#include <stdlib.h>

/* (Pending calls last 1 s at most: preview3-shim does not clear the
 * setTimeout of a cancelled wait, which keeps Node running until it ends.)
 *
 * The async import as a program binds it: wasi:clocks' wait-for, lowered
 * async; the result is state | subtask << 4. */
__attribute__((import_module("wasi:clocks/monotonic-clock@0.3.0"), import_name("[async-lower]wait-for")))
uint32_t test_wait_for(int64_t ns);
/* ...and the built-ins it needs for a subtask it keeps for itself. */
__attribute__((import_module("$root"), import_name("[subtask-cancel]"))) uint32_t test_subtask_cancel(uint32_t s);
__attribute__((import_module("$root"), import_name("[subtask-drop]"))) void test_subtask_drop(uint32_t s);

static wa_rt *p3_rt(void)
{
    wa_rt *rt;
    return wa_rt_new(&rt) == 0 ? rt : NULL;
}

static uint64_t host_calls(const wa_wasip3_stats *st)
{
    return st->async_calls + st->waits + st->polls + st->joins + st->cancels + st->drops + st->nows;
}

/* 100 sleeps of 100 different lengths (20 to 119 ms) share one wait-until
 * at a time: one per wakeup, not one per sleep, and none wakes early. */
static void test_sleeps_share_one_wait(void)
{
    wa_rt *rt = p3_rt();
    REQUIRE(rt);
    CHECK(strcmp(wa_rt_backend(rt)->vt->name, "wasip3") == 0);
    enum { N = 100 };
    static sleeper s[N];
    static uint64_t woke[N];
    uint64_t t0 = wa_now(rt); /* (absolute deadlines: one clock read for all) */
    for (int i = 0; i < N; i++) {
        sleeper_init(&s[i], t0 + WA_MS(20 + i), 0);
        s[i].absolute = 1;
        s[i].woke = &woke[i];
        REQUIRE_OR(check_spawn_of(rt, &s[i], NULL) == 0, wa_rt_free(rt));
    }
    CHECK_EQ(wa_rt_run(rt), 0);
    uint64_t took = wa_now(rt) - t0;
    int early = 0;
    for (int i = 0; i < N; i++)
        early += woke[i] < t0 + WA_MS(20 + i);
    CHECK_EQ(early, 0);
    wa_wasip3_stats st;
    CHECK_EQ(wa_wasip3_stats_get(rt, &st), 0);
    uint64_t calls = host_calls(&st);
    printf("100 sleeps of 20-119 ms: %.1f ms; %llu wait-until calls, %llu waits, %llu host calls: "
           "%.2f per sleep, %.2f per wakeup\n",
           took / 1e6, (unsigned long long)st.async_calls, (unsigned long long)st.waits, (unsigned long long)calls,
           calls / (double)N, calls / (double)(st.waits ? st.waits : 1));
    /* One wait-until per wakeup, and jco wakes about every 10 ms: some 10
     * over 100 ms. 50 leaves room for a loaded machine's late wakeups,
     * which pass more deadlines each, never fewer; a call per sleep would
     * be 100. wasmtime wakes on time to the millisecond, the deadlines'
     * spacing: a wakeup per deadline or two (72 seen), never more than one
     * per sleep. */
    CHECK(st.async_calls >= 1 && st.async_calls <= (check_on_wasmtime() ? N : 50));
    /* A wakeup: the wait, the timer's drop, the drain's empty poll, the
     * runtime's clock read, then the next wait-until, its join and the
     * check that its deadline is ahead: 7 per wait-until. (A wait-until
     * whose deadline passed while it was called, about 1 ms, returns at
     * once, with no wait.) A sleep costs no call of its own: per sleep it
     * is 7 times the wait-untils over 100. On a loaded machine a wakeup
     * that finds more deadlines passed runs more rounds, each reading the
     * clock once: 9 per wait-until was seen there (63 for 7). */
    CHECK(calls <= 10 * st.async_calls + 4);
    if (!check_on_wasmtime())
        CHECK(calls <= 2 * N); /* (jco's 10 ms wakeups) */
    CHECK(took >= WA_MS(119) && took < WA_SEC(5)); /* (a loaded host is slow) */
    CHECK_EQ(st.stale, 0);
    CHECK_RT_EMPTY_FREE(rt);
}

/* Awaits a wa_subtask in the caller's storage (so the caller can read it
 * after the task is gone), then sleeps `then` ns; aborts *victim first if
 * it is set. */
typedef struct caller {
    WA_CORO;
    wa_subtask *sub;
    uint32_t packed;
    uint64_t then;
    wa_join *victim;
    wa_sleep sleep;
} caller;

static int caller_poll(wa_future *f, wa_cx *cx)
{
    caller *t = (caller *)f;
    WA_BEGIN(t, cx);
    WA_AWAIT(wa_subtask_init(t->sub, t->packed));
    if (WA_STATUS < 0)
        WA_RETURN(WA_STATUS);
    if (t->victim)
        wa_join_abort(t->victim);
    if (t->then)
        WA_AWAIT(wa_sleep_init(&t->sleep, t->then));
    WA_RETURN(WA_STATUS);
    WA_END();
}
static const wa_future_vt caller_vt = {caller_poll, wa_coro_drop, "caller"};

static wa_future *caller_init(caller *t, wa_subtask *sub, uint32_t packed, uint64_t then, wa_join *victim)
{
    wa_coro_init(&t->wa, &caller_vt);
    t->sub = sub;
    t->packed = packed;
    t->then = then;
    t->victim = victim;
    return &t->wa.fut;
}

/* The deadline moving earlier replaces the wait-until (cancel, drop, a new
 * call); moving later keeps it, and its early firing is only a wakeup. */
static void test_deadline_moves(void)
{
    long live = wa_wasip3_live_subtasks();
    wa_rt *rt = p3_rt();
    REQUIRE(rt);
    sleeper far, near;
    wa_join jfar, jnear;
    sleeper_init(&far, WA_SEC(1), 0);
    REQUIRE_OR(check_spawn_of(rt, &far, &jfar) == 0, wa_rt_free(rt));
    /* While the 1 s wait-until is pending, a 20 ms subtask returns; then
     * a 30 ms sleep moves the deadline earlier. */
    wa_subtask sub;
    caller c;
    CHECK_EQ(wa_block_on(rt, caller_init(&c, &sub, test_wait_for(WA_MS(20)), WA_MS(30), NULL)), 0);
    wa_wasip3_stats st;
    wa_wasip3_stats_get(rt, &st);
    CHECK_EQ(st.async_calls, 2); /* 1 s, then 30 ms */
    CHECK_EQ(st.cancels, 1);     /* the 1 s one */
    CHECK_EQ(sub.state, WA_SUBTASK_RETURNED);
    /* Now a 30 ms sleep, cut short after 10 ms: the 1 s sleep's deadline
     * is later than the 30 ms wait-until, which is kept and fires early. */
    sleeper_init(&near, WA_MS(30), 0);
    REQUIRE_OR(check_spawn_of(rt, &near, &jnear) == 0, (wa_join_abort(&jfar), wa_join_drop(&jfar), wa_rt_free(rt)));
    CHECK_EQ(wa_block_on(rt, caller_init(&c, &sub, test_wait_for(WA_MS(10)), WA_MS(80), &jnear)), 0);
    wa_wasip3_stats st2;
    wa_wasip3_stats_get(rt, &st2);
    CHECK_EQ(st2.cancels, st.cancels); /* kept, not replaced */
    /* a wait-until for 30 ms, then one for the 80 ms sleep once it fired
     * (and one for 1 s if the runtime waited again before returning) */
    CHECK(st2.async_calls - st.async_calls >= 2 && st2.async_calls - st.async_calls <= 3);
    CHECK_EQ(wa_join_status(&jnear), WA_ECANCELED);
    wa_join_drop(&jnear);
    wa_join_abort(&jfar);
    wa_join_drop(&jfar);
    CHECK_RT_EMPTY_FREE(rt);
    CHECK_EQ(wa_wasip3_live_subtasks(), live); /* the pending timer went with the backend */
}

/* Stale and foreign keys are misuse (WA_ESTALE), counted by the hook;
 * other backends have no waitables (WA_ENOSYS). */
static void test_stale_keys(void)
{
    wa_rt *rt = p3_rt(), *rt2 = p3_rt();
    REQUIRE_OR(rt && rt2, (rt ? wa_rt_free(rt) : (void)0, rt2 ? wa_rt_free(rt2) : (void)0));
    uint32_t r = test_wait_for(WA_SEC(1));
    REQUIRE_OR(wa__wasip3_subtask(r) != 0, (wa_rt_free(rt), wa_rt_free(rt2)));
    uint32_t w = wa__wasip3_subtask(r);
    wa_waitable_key key;
    REQUIRE_OR(wa_waitable_register(rt, w, &key) == 0, (wa_rt_free(rt), wa_rt_free(rt2)));
    wa_rt_stats rs;
    wa_rt_stats_get(rt, &rs);
    CHECK_EQ(rs.sources, 1);
    uint32_t payload = 99;
    CHECK_EQ(wa_waitable_payload(rt, key, &payload), 0);
    CHECK_EQ(payload, 0); /* no event yet */
    check_catch_misuse();
    int before = check_misuses;
    CHECK_EQ(wa_waitable_deregister(rt2, key), WA_ESTALE); /* another runtime's key */
    wa_waitable_wait ww;
    CHECK_EQ(wa_block_on(rt2, wa_waitable_wait_init(&ww, key)), WA_ESTALE);
    CHECK_EQ(wa_waitable_deregister(rt, key), 0);
    CHECK_EQ(wa_waitable_deregister(rt, key), WA_ESTALE); /* stale */
    CHECK_EQ(wa_waitable_payload(rt, key, &payload), WA_ESTALE);
    CHECK_EQ(wa_block_on(rt, wa_waitable_wait_init(&ww, key)), WA_ESTALE);
    CHECK_EQ(check_misuses, before + 5);
    wa_misuse_set_hook(NULL);
    /* (deregistered: out of the set, so it can be cancelled) */
    CHECK_EQ(test_subtask_cancel(w), WA__WASIP3_SUBTASK_CANCELLED_BEFORE_RETURNED);
    test_subtask_drop(w);
    wa_rt *sim = check_sim_rt(0);
    REQUIRE_OR(sim, (wa_rt_free(rt), wa_rt_free(rt2)));
    wa_wasip3_stats st;
    CHECK_EQ(wa_waitable_register(sim, 1, &key), WA_ENOSYS);
    CHECK_EQ(wa_wasip3_stats_get(sim, &st), WA_ENOSYS);
    wa_rt_free(sim);
    CHECK_RT_EMPTY_FREE(rt2);
    CHECK_RT_EMPTY_FREE(rt);
}

/* A waitable registered but waited on by nobody, and no timer: nothing
 * can wake the runtime, so block_on says WA_EDEADLK rather than hang. */
static void test_unwaited_registration_deadlocks(void)
{
    wa_rt *rt = p3_rt();
    REQUIRE(rt);
    uint32_t r = test_wait_for(WA_SEC(1));
    REQUIRE_OR(wa__wasip3_subtask(r) != 0, wa_rt_free(rt));
    uint32_t w = wa__wasip3_subtask(r);
    wa_waitable_key key;
    REQUIRE_OR(wa_waitable_register(rt, w, &key) == 0, wa_rt_free(rt));
    int drops = 0;
    never n;
    CHECK_EQ(wa_block_on(rt, never_init(&n, &drops)), WA_EDEADLK);
    CHECK_EQ(drops, 1);
    CHECK_EQ(wa_waitable_deregister(rt, key), 0);
    test_subtask_cancel(w);
    test_subtask_drop(w);
    CHECK_RT_EMPTY_FREE(rt);
}

/* A pending subtask: registered while awaited (one source), dropped when
 * it returns; a call that returned at once needs no registration. */
static void test_subtask_completes(void)
{
    long live = wa_wasip3_live_subtasks();
    wa_rt *rt = p3_rt();
    REQUIRE(rt);
    wa_subtask s;
    uint64_t t0 = wa_now(rt);
    CHECK_EQ(wa_block_on(rt, wa_subtask_init(&s, test_wait_for(WA_MS(20)))), 0);
    uint64_t took = wa_now(rt) - t0;
    CHECK(took >= WA_MS(20) && took < WA_SEC(5));
    CHECK_EQ(s.state, WA_SUBTASK_RETURNED);
    CHECK_EQ(s.subtask, 0);
    wa_wasip3_stats st;
    wa_wasip3_stats_get(rt, &st);
    CHECK_EQ(st.drops, 1);
    CHECK_EQ(st.cancels, 0);
    CHECK_EQ(st.stale, 0);
    printf("a pending subtask awaited: %.1f ms, %llu host calls besides the call and the test's clock reads\n",
           took / 1e6, (unsigned long long)(host_calls(&st) - st.nows));
    /* join, wait, the drain's poll, drop: 4 (on jco the call starts
     * STARTED); a host that reports STARTED first adds one more round. The
     * subtask is not unjoined: having returned, it leaves the set with its
     * drop. */
    CHECK_EQ(st.joins, 1);
    CHECK(host_calls(&st) - st.nows >= 4 && host_calls(&st) - st.nows <= 10);
    /* returned at once: ready at its first poll, nothing registered */
    uint32_t r = test_wait_for(0);
    CHECK_EQ(wa__wasip3_state(r), WA__WASIP3_SUBTASK_RETURNED);
    CHECK_EQ(wa__wasip3_subtask(r), 0);
    CHECK_EQ(wa_block_on(rt, wa_subtask_init(&s, r)), 0);
    wa_wasip3_stats st2;
    wa_wasip3_stats_get(rt, &st2);
    CHECK_EQ(st2.joins, st.joins);
    CHECK_EQ(wa_wasip3_live_subtasks(), live);
    /* a result with no subtask that did not return is misuse */
    check_catch_misuse();
    int before = check_misuses;
    CHECK_EQ(wa_block_on(rt, wa_subtask_init(&s, WA__WASIP3_SUBTASK_STARTED)), WA_EINVAL);
    CHECK_EQ(check_misuses, before + 1);
    wa_misuse_set_hook(NULL);
    CHECK_RT_EMPTY_FREE(rt);
}

/* A wa_subtask dropped while pending cancels its subtask: no registration
 * (sources 0) and no subtask handle are left. */
static void test_dropped_subtask_cancels(void)
{
    long live = wa_wasip3_live_subtasks();
    wa_rt *rt = p3_rt();
    REQUIRE(rt);
    wa_subtask sub;
    caller c;
    wa_join j;
    caller_init(&c, &sub, test_wait_for(WA_SEC(1)), 0, NULL);
    REQUIRE_OR(check_spawn_of(rt, &c, &j) == 0, wa_rt_free(rt));
    wa_rt_tick(rt, NULL); /* registered, joined, waiting */
    wa_rt_stats rs;
    wa_rt_stats_get(rt, &rs);
    CHECK_EQ(rs.sources, 1);
    CHECK_EQ(wa_wasip3_live_subtasks(), live + 1);
    CHECK_EQ(wa_join_abort(&j), 0);
    wa_rt_tick(rt, NULL);
    CHECK(wa_join_done(&j));
    CHECK_EQ(wa_join_status(&j), WA_ECANCELED);
    wa_join_drop(&j);
    CHECK_EQ(sub.subtask, 0);
    CHECK_EQ(sub.state, WA__WASIP3_SUBTASK_CANCELLED_BEFORE_RETURNED);
    CHECK_EQ(wa_wasip3_live_subtasks(), live);
    wa_wasip3_stats st;
    wa_wasip3_stats_get(rt, &st);
    CHECK_EQ(st.cancels, 1);
    CHECK_EQ(st.drops, 1);
    CHECK_EQ(st.joins, 2); /* into the set, and out before the cancel */
    wa_rt_stats_get(rt, &rs);
    CHECK_EQ(rs.sources, 0);
    /* ...and one still pending when the runtime is freed */
    caller_init(&c, &sub, test_wait_for(WA_SEC(1)), 0, NULL);
    REQUIRE_OR(check_spawn_of(rt, &c, NULL) == 0, wa_rt_free(rt));
    wa_rt_tick(rt, NULL);
    CHECK_EQ(wa_wasip3_live_subtasks(), live + 1);
    wa_rt_free(rt);
    CHECK_EQ(sub.state, WA__WASIP3_SUBTASK_CANCELLED_BEFORE_RETURNED);
    CHECK_EQ(wa_wasip3_live_subtasks(), live);
}

/* The late hook of the test's areas: the host's write is its first byte. */
static int late_seen;
static int late_first_byte(void *area)
{
    unsigned char *b = area;
    if (b[0] == WA_SUBTASK_UNWRITTEN)
        return 0;
    late_seen = b[0];
    return 1;
}

/* A call's area given to its wa_subtask is the caller's again once the
 * call returned. Dropped unreturned, the subtask keeps it from the host
 * (which may still write its results: jco 1.35 does) until its late hook
 * sees the write whole, then frees it. The test plays the late host. */
static void test_area_kept_from_host(void)
{
    long held = wa_wasip3_held_areas();
    wa_rt *rt = p3_rt();
    REQUIRE(rt);
    wa_subtask s;
    unsigned char *a = wa_subtask_area_new(16, late_first_byte);
    REQUIRE_OR(a, wa_rt_free(rt));
    CHECK(a[0] == WA_SUBTASK_UNWRITTEN && a[15] == WA_SUBTASK_UNWRITTEN);
    CHECK_EQ((uintptr_t)a % 8, 0);
    CHECK_EQ(wa_block_on(rt, wa_subtask_init_area(&s, test_wait_for(WA_MS(5)), a)), 0);
    CHECK(s.area == a); /* returned: the caller's */
    wa_subtask_area_free(s.area);
    CHECK_EQ(wa_wasip3_held_areas(), held);
    /* dropped pending: cancelled, and the area held */
    a = wa_subtask_area_new(16, late_first_byte);
    REQUIRE_OR(a, wa_rt_free(rt));
    wa_subtask_init_area(&s, test_wait_for(WA_SEC(1)), a);
    wa_drop(&s.fut);
    CHECK_EQ(s.state, WA__WASIP3_SUBTASK_CANCELLED_BEFORE_RETURNED);
    CHECK(s.area == NULL);
    CHECK_EQ(wa_wasip3_held_areas(), held + 1); /* nothing written yet */
    a[0] = 7;                                   /* the host's late write */
    CHECK_EQ(wa_wasip3_held_areas(), held);
    CHECK_EQ(late_seen, 7);
    /* ...also freed when the next call's area is made */
    late_seen = 0;
    a = wa_subtask_area_new(16, late_first_byte);
    REQUIRE_OR(a, wa_rt_free(rt));
    wa_subtask_init_area(&s, test_wait_for(WA_SEC(1)), a);
    wa_drop(&s.fut);
    a[0] = 9;
    unsigned char *b = wa_subtask_area_new(16, NULL);
    CHECK_EQ(late_seen, 9);
    wa_subtask_area_free(b);
    CHECK_EQ(wa_wasip3_held_areas(), held);
    CHECK_RT_EMPTY_FREE(rt);
}

/* The late hook of test_typed_call's areas: counts the releases. */
static int releases;
static int late_release(void *area)
{
    if (!wa_subtask_written(area, 8))
        return 0;
    releases++;
    return 1;
}

/* wa_wasip3_call, the future of generated bindings' imports: a failure
 * before the call completes with it; a returned call's result is copied
 * out of its area, which is freed; a call dropped pending keeps its area
 * from the host until written; one dropped returned but unpolled has its
 * result released. wait-for stands for a call whose host writes a result
 * of 8 bytes at the area's offset 8. */
static void test_typed_call(void)
{
    long held = wa_wasip3_held_areas();
    wa_rt *rt = p3_rt();
    REQUIRE(rt);
    wa_wasip3_call c;
    uint64_t result = 0;
    CHECK_EQ(wa_block_on(rt, wa_wasip3_call_fail(&c, WA_ENOMEM)), WA_ENOMEM);
    wa_drop(wa_wasip3_call_fail(&c, WA_ENOMEM)); /* (nothing to release) */

    unsigned char *a = wa_subtask_area_new(16, late_release);
    REQUIRE_OR(a, wa_rt_free(rt));
    memset(a + 8, 0x42, 8); /* the host's result */
    CHECK_EQ(wa_block_on(rt, wa_wasip3_call_init(&c, test_wait_for(WA_MS(5)), a, late_release, &result, 8, 8)), 0);
    CHECK_EQ(result, 0x4242424242424242ull);
    CHECK(c.st.area == NULL);
    CHECK_EQ(wa_wasip3_held_areas(), held);

    releases = 0;
    a = wa_subtask_area_new(16, late_release);
    REQUIRE_OR(a, wa_rt_free(rt));
    wa_drop(wa_wasip3_call_init(&c, test_wait_for(WA_SEC(1)), a, late_release, &result, 8, 8));
    CHECK_EQ(wa_wasip3_held_areas(), held + 1); /* cancelled: held */
    a[0] = 1;                                   /* the host's late write */
    CHECK_EQ(wa_wasip3_held_areas(), held);
    CHECK_EQ(releases, 1);

    /* returned at once (no subtask), dropped unpolled: released */
    a = wa_subtask_area_new(16, late_release);
    REQUIRE_OR(a, wa_rt_free(rt));
    a[0] = 1;
    wa_drop(wa_wasip3_call_init(&c, WA__WASIP3_SUBTASK_RETURNED, a, late_release, &result, 8, 8));
    CHECK_EQ(releases, 2);
    CHECK_EQ(wa_wasip3_held_areas(), held);
    CHECK_RT_EMPTY_FREE(rt);
}

int main(void)
{
    RUN(test_sleeps_share_one_wait);
    RUN(test_deadline_moves);
    RUN(test_stale_keys);
    RUN(test_unwaited_registration_deadlocks);
    RUN(test_subtask_completes);
    RUN(test_dropped_subtask_cancels);
    RUN(test_area_kept_from_host);
    RUN(test_typed_call);
    return check_finish();
}
