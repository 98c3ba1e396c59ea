/* SPDX-License-Identifier: MIT */
/* Scopes: completion, error propagation (fail-fast or not), cooperative
 * cancellation down the tree with async cleanup, hard drop. */
#include <stdlib.h>

#include "futures.h"


/* A child that sleeps ms then returns rc; on cancellation it marks 'c',
 * awaits a 2 ms cleanup and marks 'C'. Its drop marks 'x'. */
typedef struct child {
    WA_CORO;
    wa_sleep s;
    uint64_t ms;
    int rc;
    char name;
} child;

static int child_poll(wa_future *f, wa_cx *cx)
{
    child *t = (child *)f;
    WA_BEGIN(t, cx);
    WA_AWAIT(wa_sleep_init(&t->s, WA_MS(t->ms)));
    mark(t->name);
    WA_RETURN(t->rc);
    WA_ON_CANCEL();
    mark('c');
    WA_AWAIT(wa_sleep_init(&t->s, WA_MS(2)));
    mark('C');
    WA_END();
}
static void child_drop(wa_future *f)
{
    mark('x');
    wa_coro_drop(f);
}
static const wa_future_vt child_vt = {child_poll, child_drop, "child"};

static int spawn_child(wa_scope *s, uint64_t ms, int rc, char name)
{
    child c;
    wa_coro_init(&c.wa, &child_vt);
    c.ms = ms;
    c.rc = rc;
    c.name = name;
    return check_scope_spawn_of(s, &c, NULL);
}

/* A parent that runs three children in a scope. */
typedef struct parent {
    WA_CORO;
    wa_scope scope;
    unsigned flags;
    uint64_t ms[3];
    int rc[3];
    int status;
} parent;

static int parent_poll(wa_future *f, wa_cx *cx)
{
    parent *t = (parent *)f;
    WA_BEGIN(t, cx);
    wa_scope_init(&t->scope, cx->rt, t->flags);
    for (int i = 0; i < 3; i++)
        if (spawn_child(&t->scope, t->ms[i], t->rc[i], (char)('a' + i)) < 0)
            wa_scope_cancel(&t->scope); /* still awaited below */
    WA_AWAIT(wa_scope_wait(&t->scope));
    t->status = WA_STATUS;
    mark('P');
    WA_RETURN(WA_STATUS);
    WA_END();
}
static const wa_future_vt parent_vt = {parent_poll, wa_coro_drop, "parent"};

static int run_parent(unsigned flags, int rc1, uint64_t *end)
{
    *end = 0;
    wa_rt *rt = check_sim_rt(0);
    if (!rt)
        return WA_ENOMEM;
    trail[0] = 0;
    parent p = {.flags = flags, .ms = {10, 3, 20}, .rc = {0, rc1, 0}};
    wa_coro_init(&p.wa, &parent_vt);
    int rc = wa_block_on(rt, &p.wa.fut);
    *end = wa_now(rt);
    CHECK_RT_EMPTY_FREE(rt);
    return rc;
}

static void test_scope_waits_for_all(void)
{
    uint64_t end;
    CHECK_EQ(run_parent(WA_SCOPE_FAIL_FAST, 0, &end), 0);
    CHECK_EQ(end, WA_MS(20));
    CHECK(strcmp(trail, "bxaxcxP") == 0);
}

static void test_error_cancels_siblings(void)
{
    uint64_t end;
    CHECK_EQ(run_parent(WA_SCOPE_FAIL_FAST, WA_EIO, &end), WA_EIO);
    /* b fails at 3 ms; a and c are cancelled, clean up for 2 ms */
    CHECK_EQ(end, WA_MS(5));
    CHECK(strcmp(trail, "bxccCxCxP") == 0);
}

static void test_error_without_fail_fast(void)
{
    uint64_t end;
    CHECK_EQ(run_parent(0, WA_EIO, &end), WA_EIO);
    CHECK_EQ(end, WA_MS(20));
    CHECK(strcmp(trail, "bxaxcxP") == 0);
}

static void test_cancel_propagates_down(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    trail[0] = 0;
    parent p = {.flags = WA_SCOPE_FAIL_FAST, .ms = {10, 30, 20}};
    wa_coro_init(&p.wa, &parent_vt);
    wa_join j;
    REQUIRE_OR(check_spawn_of(rt, &p, &j) == 0, wa_rt_free(rt));
    wa_sim_advance(wa_rt_backend(rt), 0);
    wa_rt_tick(rt, NULL); /* the parent starts its scope */
    wa_rt_tick(rt, NULL); /* the children start sleeping */
    wa_join_cancel(&j);
    CHECK_EQ(wa_rt_run(rt), 0);
    /* every child cleaned up (2 ms) before the scope, then the parent,
     * finished */
    CHECK(strcmp(trail, "cccCxCxCx") == 0);
    CHECK_EQ(wa_now(rt), WA_MS(2));
    CHECK_EQ(wa_join_status(&j), WA_ECANCELED);
    parent *out = (parent *)wa_join_output(&j);
    CHECK_EQ(out->status, 0); /* never reached: the parent unwound */
    wa_join_drop(&j);
    CHECK_RT_EMPTY_FREE(rt);
}

/* A scope's children are on its list in the order they were spawned:
 * the dump shows them so (and cancelling them asks them in that order). */
static void test_children_in_spawn_order(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    trail[0] = 0;
    parent p = {.ms = {10, 30, 20}};
    wa_coro_init(&p.wa, &parent_vt);
    wa_join j;
    REQUIRE_OR(check_spawn_of(rt, &p, &j) == 0, wa_rt_free(rt));
    wa_sim_advance(wa_rt_backend(rt), 0);
    wa_rt_tick(rt, NULL); /* the parent starts its scope */
    wa_rt_tick(rt, NULL); /* the children start sleeping */
    char dump[512];
    wa_rt_dump(rt, dump, sizeof dump);
    const char *all = strstr(dump, "(3 live):\n"); /* (not so if a spawn failed) */
    unsigned id[3] = {0, 0, 0};
    const char *at = all;
    for (int i = 0; i < 3 && at && (at = strstr(at, "task ")); i++, at += 5)
        id[i] = (unsigned)strtoul(at + 5, NULL, 10);
    if (all)
        CHECK(id[0] && id[0] < id[1] && id[1] < id[2]);
    CHECK_EQ(wa_rt_run(rt), 0);
    if (all)
        CHECK_EQ(wa_join_status(&j), 0);
    wa_join_drop(&j);
    CHECK_RT_EMPTY_FREE(rt);
}

/* A grandparent whose child runs its own scope. */
typedef struct grand {
    WA_CORO;
    wa_scope scope;
} grand;

static int grand_poll(wa_future *f, wa_cx *cx)
{
    grand *t = (grand *)f;
    WA_BEGIN(t, cx);
    wa_scope_init(&t->scope, cx->rt, WA_SCOPE_FAIL_FAST);
    parent p = {.flags = WA_SCOPE_FAIL_FAST, .ms = {10, 30, 20}};
    wa_coro_init(&p.wa, &parent_vt);
    /* e fails first: that cancels the tree */
    if (check_scope_spawn_of(&t->scope, &p, NULL) < 0 || spawn_child(&t->scope, 5, WA_EIO, 'e') < 0)
        wa_scope_cancel(&t->scope);
    WA_AWAIT(wa_scope_wait(&t->scope));
    WA_RETURN(WA_STATUS);
    WA_END();
}
static const wa_future_vt grand_vt = {grand_poll, wa_coro_drop, "grand"};

static void test_nested_scopes(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    trail[0] = 0;
    grand g;
    wa_coro_init(&g.wa, &grand_vt);
    CHECK_EQ(wa_block_on(rt, &g.wa.fut), WA_EIO);
    /* e fails at 5 ms; the grandchildren clean up for 2 ms; the middle
     * parent's scope ends cancelled */
    CHECK_EQ(wa_now(rt), WA_MS(7));
    CHECK(strcmp(trail, "excccCxCxCx") == 0);
    CHECK_RT_EMPTY_FREE(rt);
}

static void test_drop_hard_drops_children(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    trail[0] = 0;
    parent p = {.flags = WA_SCOPE_FAIL_FAST, .ms = {10, 30, 20}};
    wa_coro_init(&p.wa, &parent_vt);
    wa_join j;
    REQUIRE_OR(check_spawn_of(rt, &p, &j) == 0, wa_rt_free(rt));
    wa_rt_tick(rt, NULL);
    wa_rt_tick(rt, NULL);
    wa_join_abort(&j); /* no cleanup: children dropped at once */
    CHECK(strcmp(trail, "xxx") == 0);
    wa_rt_stats st;
    wa_rt_stats_get(rt, &st);
    CHECK_EQ(st.tasks, 0);
    CHECK_EQ(st.timers, 0);
    wa_join_drop(&j);
    CHECK_RT_EMPTY_FREE(rt);
}

static void test_spawn_into_cancelled_scope(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_scope s;
    wa_scope_init(&s, rt, 0);
    REQUIRE_OR(spawn_child(&s, 1, 0, 'a') == 0, (wa_drop(&s.fut), wa_rt_free(rt)));
    CHECK_EQ(wa_scope_live(&s), 1);
    wa_scope_cancel(&s);
    CHECK_EQ(spawn_child(&s, 1, 0, 'b'), WA_ECANCELED);
    wa_drop(&s.fut);
    CHECK_EQ(wa_scope_live(&s), 0);
    check_catch_misuse();
    CHECK_EQ(spawn_child(&s, 1, 0, 'c'), WA_ESTALE);
    wa_misuse_set_hook(NULL);
    CHECK_RT_EMPTY_FREE(rt);
}

/* A task that returns early, leaving its scope live: misuse, and the scope
 * and its children go with the task (no dangling scope, no leak). */
typedef struct quitter {
    WA_CORO;
    wa_scope scope;
} quitter;

static int quitter_poll(wa_future *f, wa_cx *cx)
{
    quitter *t = (quitter *)f;
    WA_BEGIN(t, cx);
    wa_scope_init(&t->scope, cx->rt, 0);
    if (spawn_child(&t->scope, 10, 0, 'a') < 0) {
        wa_drop(&t->scope.fut);
        WA_RETURN(WA_ENOMEM);
    }
    WA_RETURN(WA_EIO); /* forgot to await or drop the scope */
    WA_END();
}
static const wa_future_vt quitter_vt = {quitter_poll, wa_coro_drop, "quitter"};

static void test_task_ending_with_live_scope(void)
{
    check_catch_misuse();
    int before = check_misuses;
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    trail[0] = 0;
    quitter q;
    wa_coro_init(&q.wa, &quitter_vt);
    CHECK_EQ(wa_block_on(rt, &q.wa.fut), WA_EIO);
    CHECK_EQ(check_misuses, before + 1);
    CHECK(strcmp(trail, "x") == 0);
    char dump[256];
    wa_rt_dump(rt, dump, sizeof dump);
    CHECK_EQ(strlen(dump), 0);
    CHECK_RT_EMPTY_FREE(rt);
    wa_misuse_set_hook(NULL);
}

/* A task hard-dropped while its scope is live (it awaited something else):
 * the scope goes with it, silently: that is what a hard drop means. */
typedef struct elsewhere {
    WA_CORO;
    wa_scope scope;
    wa_sleep s;
} elsewhere;

static int elsewhere_poll(wa_future *f, wa_cx *cx)
{
    elsewhere *t = (elsewhere *)f;
    WA_BEGIN(t, cx);
    wa_scope_init(&t->scope, cx->rt, 0);
    if (spawn_child(&t->scope, 10, 0, 'a') < 0) {
        wa_drop(&t->scope.fut);
        WA_RETURN(WA_ENOMEM);
    }
    WA_AWAIT(wa_sleep_init(&t->s, WA_SEC(5)));
    WA_AWAIT(wa_scope_wait(&t->scope));
    WA_END();
}
static const wa_future_vt elsewhere_vt = {elsewhere_poll, wa_coro_drop, "elsewhere"};

static void test_abort_drops_live_scope_silently(void)
{
    check_catch_misuse();
    int before = check_misuses;
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    trail[0] = 0;
    elsewhere e;
    wa_coro_init(&e.wa, &elsewhere_vt);
    wa_join j;
    REQUIRE_OR(check_spawn_of(rt, &e, &j) == 0, wa_rt_free(rt));
    wa_rt_tick(rt, NULL);
    wa_rt_tick(rt, NULL);
    wa_join_abort(&j);
    CHECK_EQ(check_misuses, before);
    CHECK(strcmp(trail, "x") == 0);
    wa_join_drop(&j);
    CHECK_RT_EMPTY_FREE(rt);
    wa_misuse_set_hook(NULL);
}

static void test_scope_cancel_status(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    trail[0] = 0;
    wa_scope s;
    wa_scope_init(&s, rt, 0);
    REQUIRE_OR(spawn_child(&s, 10, 0, 'a') == 0, (wa_drop(&s.fut), wa_rt_free(rt)));
    wa_rt_tick(rt, NULL); /* the child starts sleeping */
    wa_scope_cancel(&s);
    CHECK_EQ(wa_block_on(rt, &s.fut), WA_ECANCELED);
    CHECK(strcmp(trail, "cCx") == 0);
    CHECK_RT_EMPTY_FREE(rt);
}

/* A scope left in the runtime is torn down with it. */
static void test_rt_free_drops_scopes(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    trail[0] = 0;
    wa_scope s;
    wa_scope_init(&s, rt, 0);
    REQUIRE_OR(spawn_child(&s, 1, 0, 'a') == 0, wa_rt_free(rt));
    wa_rt_free(rt);
    CHECK(strcmp(trail, "x") == 0);
}

/* A child that drops the scope it runs in (misuse, reported): the parent
 * waiting on the scope is woken and gets an error (WA_ECANCELED: its
 * children were cut short) instead of a deadlock. */
typedef struct scope_dropper {
    wa_future fut;
    wa_scope *s;
} scope_dropper;

static int scope_dropper_poll(wa_future *f, wa_cx *cx)
{
    (void)cx;
    wa_drop(&((scope_dropper *)f)->s->fut);
    return 0;
}
static const wa_future_vt scope_dropper_vt = {scope_dropper_poll, NULL, "scope_dropper"};

typedef struct scope_parent {
    WA_CORO;
    wa_scope scope;
    int drops;
} scope_parent;

static int scope_parent_poll(wa_future *f, wa_cx *cx)
{
    scope_parent *t = (scope_parent *)f;
    WA_BEGIN(t, cx);
    wa_scope_init(&t->scope, cx->rt, 0);
    never n = {{&never_vt}, &t->drops};
    scope_dropper d = {{&scope_dropper_vt}, &t->scope};
    if (wa_scope_spawn_of(&t->scope, &n, NULL) < 0 || wa_scope_spawn_of(&t->scope, &d, NULL) < 0) {
        wa_drop(&t->scope.fut);
        WA_RETURN(WA_ENOMEM);
    }
    WA_AWAIT(wa_scope_wait(&t->scope));
    WA_RETURN(WA_STATUS);
    WA_END();
}
static const wa_future_vt scope_parent_vt = {scope_parent_poll, wa_coro_drop, "scope_parent"};

static void test_scope_dropped_by_child(void)
{
    check_catch_misuse();
    int before = check_misuses;
    wa_rt *rt = check_sim_rt(0);
    if (!rt) {
        CHECK(rt != NULL);
        return;
    }
    scope_parent t = {.drops = 0};
    wa_coro_init(&t.wa, &scope_parent_vt);
    CHECK_EQ(wa_block_on(rt, &t.wa.fut), WA_ECANCELED);
    CHECK_EQ(t.drops, 1);
    CHECK_EQ(check_misuses - before, 1);
    CHECK_RT_EMPTY_FREE(rt);
    wa_misuse_set_hook(NULL);
}

/* How many times m is in the trail. */
static int trail_count(char m)
{
    int n = 0;
    for (const char *c = trail; *c; c++)
        n += *c == m;
    return n;
}

/* wa_rt_shutdown cancels every task, a scope's children too, and runs
 * their cleanups (2 ms each); a timeout shorter than that cuts them short:
 * the tasks are hard-dropped and the call says WA_ETIMEDOUT. */
static void test_shutdown_runs_cleanups(void)
{
    for (int cut = 0; cut < 2; cut++) {
        wa_rt *rt = check_sim_rt(0);
        REQUIRE(rt);
        trail[0] = 0;
        parent p = {.flags = WA_SCOPE_FAIL_FAST, .ms = {100, 100, 100}};
        wa_coro_init(&p.wa, &parent_vt);
        child c = {.ms = 100, .name = 'd'};
        wa_coro_init(&c.wa, &child_vt);
        REQUIRE_OR(wa_spawn_of(rt, &p, NULL) == 0 && wa_spawn_of(rt, &c, NULL) == 0, wa_rt_free(rt));
        wa_rt_tick(rt, NULL); /* the parent spawns its children... */
        wa_rt_tick(rt, NULL); /* ...which start */
        CHECK_EQ(wa_rt_shutdown(rt, cut ? WA_MS(1) : WA_SEC(1)), cut ? WA_ETIMEDOUT : 0);
        CHECK_EQ(trail_count('c'), 4);
        CHECK_EQ(trail_count('C'), cut ? 0 : 4);
        CHECK_EQ(trail_count('x'), 4);
    }
}

/* Join sets (wasync/join_set.h). */

static int spawn_set_child(wa_join_set *s, uint64_t ms, int rc, char name)
{
    child c;
    wa_coro_init(&c.wa, &child_vt);
    c.ms = ms;
    c.rc = rc;
    c.name = name;
    int err = wa_join_set_spawn_of(s, &c);
    if (err < 0)
        wa_drop(&c.wa.fut);
    return err;
}

/* A set on a new simulated runtime holding children a, b, c that sleep
 * 30, 20 and 10 ms (spawned in reverse order of their ends); b returns
 * WA_EIO. */
static wa_rt *set_of_three(wa_join_set *s)
{
    wa_rt *rt = check_sim_rt(0);
    if (!rt)
        return NULL;
    trail[0] = 0;
    wa_join_set_init(s, rt);
    if (spawn_set_child(s, 30, 0, 'a') < 0 || spawn_set_child(s, 20, WA_EIO, 'b') < 0 ||
        spawn_set_child(s, 10, 0, 'c') < 0) {
        wa_join_set_drop(s);
        wa_rt_free(rt);
        return NULL;
    }
    return rt;
}

/* The next task of s to finish, awaited from outside a task: its name in
 * *name (its output's), its status in *status. Returns join_next's. */
static int join_next_of(wa_rt *rt, wa_join_set *s, char *name, int *status)
{
    wa_join_next n;
    int rc = wa_block_on(rt, wa_join_next_init(&n, s));
    *name = rc == 0 && n.output ? ((child *)n.output)->name : '?';
    *status = n.status;
    return rc;
}

/* Three sleeps spawned longest first come back shortest first, each with
 * its status and its output; then the empty set says WA_ECLOSED. */
static void test_join_set_completion_order(void)
{
    wa_join_set s;
    wa_rt *rt = set_of_three(&s);
    REQUIRE(rt);
    CHECK_EQ(wa_join_set_len(&s), 3);
    char got[4] = {0};
    int st[3];
    for (int i = 0; i < 3; i++)
        CHECK_EQ(join_next_of(rt, &s, &got[i], &st[i]), 0);
    CHECK(strcmp(got, "cba") == 0);
    CHECK_EQ(st[0], 0);
    CHECK_EQ(st[1], WA_EIO);
    CHECK_EQ(st[2], 0);
    CHECK_EQ(wa_now(rt), WA_MS(30));
    CHECK_EQ(wa_join_set_len(&s), 0);
    char name;
    int status;
    CHECK_EQ(join_next_of(rt, &s, &name, &status), WA_ECLOSED);
    CHECK_EQ(join_next_of(rt, &s, &name, &status), WA_ECLOSED);
    wa_join_set_drop(&s);
    CHECK(strcmp(trail, "cxbxax") == 0);
    CHECK_RT_EMPTY_FREE(rt);
}

/* Tasks that finished before a join_next come out of it in spawn order,
 * and each output stays readable until the next join_next's poll. */
static void test_join_set_finished_before(void)
{
    wa_join_set s;
    wa_rt *rt = set_of_three(&s);
    REQUIRE(rt);
    CHECK_EQ(wa_rt_run(rt), 0); /* every task ends; the set holds them */
    CHECK_EQ(wa_join_set_len(&s), 3);
    wa_join_next n;
    REQUIRE_OR(wa_block_on(rt, wa_join_next_init(&n, &s)) == 0 && n.output, (wa_join_set_drop(&s), wa_rt_free(rt)));
    CHECK_EQ(((child *)n.output)->name, 'a');
    CHECK_EQ(((child *)n.output)->ms, 30);
    char name;
    int status;
    CHECK_EQ(join_next_of(rt, &s, &name, &status), 0);
    CHECK_EQ(name, 'b');
    CHECK_EQ(status, WA_EIO);
    CHECK_EQ(wa_join_set_len(&s), 1);
    wa_join_set_drop(&s); /* c, finished, and b's output released */
    CHECK_RT_EMPTY_FREE(rt);
}

/* wa_join_set_cancel: the rest run their cleanups (2 ms) and come out
 * cancelled; wa_join_set_abort: they are dropped at once. */
static void test_join_set_cancel_rest(void)
{
    for (int abort = 0; abort < 2; abort++) {
        wa_join_set s;
        wa_rt *rt = set_of_three(&s);
        REQUIRE(rt);
        char name;
        int status;
        CHECK_EQ(join_next_of(rt, &s, &name, &status), 0);
        CHECK_EQ(name, 'c');
        if (abort)
            wa_join_set_abort(&s);
        else
            wa_join_set_cancel(&s);
        char got[3] = {0};
        for (int i = 0; i < 2; i++) {
            CHECK_EQ(join_next_of(rt, &s, &got[i], &status), 0);
            CHECK_EQ(status, WA_ECANCELED);
        }
        CHECK(strcmp(got, "ab") == 0);
        CHECK_EQ(wa_now(rt), WA_MS(abort ? 10 : 12));
        CHECK(strcmp(trail, abort ? "cxxx" : "cxccCxCx") == 0);
        wa_join_set_drop(&s);
        CHECK_RT_EMPTY_FREE(rt);
    }
}

/* Dropping a set hard-drops the tasks it still holds, running or
 * finished and not joined. */
static void test_join_set_drop_aborts(void)
{
    wa_join_set s;
    wa_rt *rt = set_of_three(&s);
    REQUIRE(rt);
    wa_sim_advance(wa_rt_backend(rt), 0);
    wa_rt_tick(rt, NULL); /* the children start sleeping */
    wa_join_set_drop(&s);
    CHECK(strcmp(trail, "xxx") == 0);
    CHECK_EQ(wa_join_set_len(&s), 0);
    CHECK_EQ(wa_rt_run(rt), 0);
    CHECK_EQ(wa_now(rt), 0);
    CHECK_RT_EMPTY_FREE(rt);
}

/* A join_next dropped while pending (its timeout ran out) loses nothing:
 * the task it waited for comes with the next one. */
static void test_join_next_dropped_pending(void)
{
    wa_join_set s;
    wa_rt *rt = set_of_three(&s);
    REQUIRE(rt);
    wa_join_next n;
    wa_timeout t;
    CHECK_EQ(wa_block_on(rt, wa_timeout_init(&t, wa_join_next_init(&n, &s), WA_MS(5))), WA_ETIMEDOUT);
    CHECK_EQ(wa_join_set_len(&s), 3);
    REQUIRE_OR(wa_block_on(rt, wa_timeout_init(&t, wa_join_next_init(&n, &s), WA_MS(15))) == 0 && n.output,
               (wa_join_set_drop(&s), wa_rt_free(rt)));
    CHECK_EQ(((child *)n.output)->name, 'c');
    CHECK_EQ(wa_now(rt), WA_MS(10));
    CHECK_EQ(wa_join_set_len(&s), 2);
    wa_join_set_drop(&s);
    CHECK_RT_EMPTY_FREE(rt);
}

/* A task that awaits join_next in a loop, the set in its own state: the
 * set's owner, woken by each child's end. */
typedef struct gatherer {
    WA_CORO;
    wa_join_set set;
    wa_join_next next;
    char got[4];
    int n;
} gatherer;

static int gatherer_poll(wa_future *f, wa_cx *cx)
{
    gatherer *t = (gatherer *)f;
    WA_BEGIN(t, cx);
    wa_join_set_init(&t->set, cx->rt);
    for (t->n = 0; t->n < 3; t->n++)
        if (spawn_set_child(&t->set, (uint64_t)(3 - t->n) * 5, 0, (char)('a' + t->n)) < 0)
            WA_RETURN(WA_ENOMEM); /* (the drop drops the set) */
    for (t->n = 0;; t->n++) {
        WA_AWAIT(wa_join_next_init(&t->next, &t->set));
        if (WA_STATUS != 0)
            break;
        t->got[t->n] = ((child *)t->next.output)->name;
    }
    WA_RETURN(WA_STATUS == WA_ECLOSED ? 0 : WA_STATUS);
    WA_END();
}
static void gatherer_drop(wa_future *f)
{
    gatherer *t = (gatherer *)f;
    if (t->set.rt)
        wa_join_set_drop(&t->set);
    wa_coro_drop(f);
}
static const wa_future_vt gatherer_vt = {gatherer_poll, gatherer_drop, "gatherer"};

static void test_join_set_in_task(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    trail[0] = 0;
    gatherer g = {0};
    wa_coro_init(&g.wa, &gatherer_vt);
    REQUIRE_OR(wa_block_on(rt, &g.wa.fut) == 0, wa_rt_free(rt));
    CHECK(strcmp(g.got, "cba") == 0);
    CHECK_EQ(wa_now(rt), WA_MS(15));
    CHECK_RT_EMPTY_FREE(rt);
}

/* wa_rt_free while a task awaits a join_next of its set: the task's drop
 * drops the set, whose tasks the free drops too, each once. */
static void test_join_set_rt_free(void)
{
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    trail[0] = 0;
    gatherer g = {0};
    wa_coro_init(&g.wa, &gatherer_vt);
    REQUIRE_OR(check_spawn_of(rt, &g, NULL) == 0, wa_rt_free(rt));
    wa_sim_advance(wa_rt_backend(rt), 0);
    wa_rt_tick(rt, NULL); /* the gatherer spawns... */
    wa_rt_tick(rt, NULL); /* ...its children sleep */
    wa_rt_free(rt);
    CHECK(strcmp(trail, "xxx") == 0);
}

/* Misuse: a NULL set, a set used after its drop, a join_next polled by
 * another runtime than the set's. */
static void test_join_set_misuse(void)
{
    check_catch_misuse();
    wa_rt *rt = check_sim_rt(0);
    REQUIRE(rt);
    wa_rt *other = check_sim_rt(0);
    REQUIRE_OR(other, wa_rt_free(rt));
    wa_join_set s;
    wa_join_set_init(&s, rt);
    never nv;
    int drops = 0;
    never_init(&nv, &drops);
    CHECK_MISUSE(wa_join_set_spawn(NULL, &nv.fut, sizeof nv), WA_EINVAL, "wa_join_set_spawn");
    CHECK_MISUSE(wa_join_set_spawn(&s, NULL, sizeof nv), WA_EINVAL, "wa_join_set_spawn");
    wa_join_next n;
    CHECK_MISUSE(wa_block_on(other, wa_join_next_init(&n, &s)), WA_EMISUSE, "wa_join_next");
    wa_join_set_drop(&s);
    CHECK_MISUSE(wa_join_set_spawn(&s, &nv.fut, sizeof nv), WA_EMISUSE, "wa_join_set_spawn");
    CHECK_MISUSE(wa_block_on(rt, wa_join_next_init(&n, &s)), WA_EMISUSE, "wa_join_next");
    CHECK_MISUSE((wa_join_set_drop(&s), WA_EMISUSE), WA_EMISUSE, "wa_join_set_drop");
    CHECK_MISUSE((wa_join_set_cancel(&s), WA_EMISUSE), WA_EMISUSE, "wa_join_set_cancel");
    CHECK_EQ(drops, 0); /* refused spawns leave the future to the caller */
    wa_rt_free(other);
    CHECK_RT_EMPTY_FREE(rt);
}

int main(void)
{
    RUN(test_scope_waits_for_all);
    RUN(test_error_cancels_siblings);
    RUN(test_error_without_fail_fast);
    RUN(test_cancel_propagates_down);
    RUN(test_children_in_spawn_order);
    RUN(test_nested_scopes);
    RUN(test_drop_hard_drops_children);
    RUN(test_spawn_into_cancelled_scope);
    RUN(test_rt_free_drops_scopes);
    RUN(test_task_ending_with_live_scope);
    RUN(test_scope_cancel_status);
    RUN(test_abort_drops_live_scope_silently);
    RUN(test_scope_dropped_by_child);
    RUN(test_shutdown_runs_cleanups);
    RUN(test_join_set_completion_order);
    RUN(test_join_set_finished_before);
    RUN(test_join_set_cancel_rest);
    RUN(test_join_set_drop_aborts);
    RUN(test_join_next_dropped_pending);
    RUN(test_join_set_in_task);
    RUN(test_join_set_rt_free);
    RUN(test_join_set_misuse);
    return check_finish();
}
