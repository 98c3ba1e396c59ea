/* SPDX-License-Identifier: MIT */
/* The user of kinds.wit: every kind of WIT type through an async import
 * (the generated layer's futures) into provider.c's async exports and
 * back, composed into one component. Each value comes back changed as the
 * provider says; the resources' handles and the provider's counters end
 * where they began, and nothing is left held on this side. */
#include <math.h>
#include <stdlib.h>

#include "../../check.h"
#include "user_wasync.h"

typedef user_string_t string;

static wa_rt *rt;

static int eq(string s, const char *text) { return s.len == strlen(text) && !memcmp(s.ptr, text, s.len); }

static string str(const char *text) { return (string){(uint8_t *)text, strlen(text)}; }

/* Before a synchronous call into the provider that follows an async one:
 * jco (1.35) lets go of the provider a turn after a call that returned at
 * once, and a synchronous call in that turn fails (docs/bindings.md). */
static void settle(void)
{
    wa_sleep s;
    CHECK_EQ(wa_block_on(rt, wa_sleep_init(&s, WA_MS(1))), 0);
}

static void test_scalars(void)
{
    wa_test_kinds_echo_scalars f;
    test_kinds_echo_scalars_args_t a = {200, -300, 70000, -5000000000LL, 1.5f, 9.0, true, 'A'};
    CHECK_EQ(wa_block_on(rt, wa_test_kinds_echo_scalars_init(&f, &a)), 0);
    CHECK_EQ(f.result.f0, 201);
    CHECK_EQ(f.result.f1, -301);
    CHECK_EQ(f.result.f2, 140000);
    CHECK_EQ(f.result.f3, 5000000000LL);
    CHECK(f.result.f4 == 3.0f);
    CHECK(f.result.f5 == 4.5);
    CHECK_EQ(f.result.f6, false);
    CHECK_EQ(f.result.f7, 'B');
}

static void test_strings_and_lists(void)
{
    string l[] = {str("one"), str("two"), str("")};
    wa_test_kinds_echo_text t;
    CHECK_EQ(wa_block_on(rt, wa_test_kinds_echo_text_init(&t, str("last"), (user_list_string_t){l, 3})), 0);
    CHECK_EQ(t.result.len, 4);
    if (t.result.len == 4) {
        CHECK(eq(t.result.ptr[0], ""));
        CHECK(eq(t.result.ptr[1], "two"));
        CHECK(eq(t.result.ptr[2], "one"));
        CHECK(eq(t.result.ptr[3], "last"));
    }
    user_list_string_free(&t.result);

    uint8_t b[300];
    for (int i = 0; i < 300; i++)
        b[i] = (uint8_t)i;
    wa_test_kinds_echo_bytes f;
    CHECK_EQ(wa_block_on(rt, wa_test_kinds_echo_bytes_init(&f, (user_list_u8_t){b, 300})), 0);
    CHECK_EQ(f.result.len, 300);
    int same = f.result.len == 300;
    for (size_t i = 0; same && i < 300; i++)
        same = f.result.ptr[i] == (uint8_t)(i ^ 0xff);
    CHECK(same);
    user_list_u8_free(&f.result);
}

static void test_record_variant_enum_flags(void)
{
    wa_test_kinds_echo_rec r;
    test_kinds_echo_point_t p = {3, -4, str("p")};
    CHECK_EQ(wa_block_on(rt, wa_test_kinds_echo_rec_init(&r, p)), 0);
    CHECK_EQ(r.result.x, 4);
    CHECK_EQ(r.result.y, -8);
    CHECK(eq(r.result.label, "<p"));
    test_kinds_echo_point_free(&r.result);

    wa_test_kinds_echo_var v;
    test_kinds_echo_shape_t circle = {.tag = TEST_KINDS_TYPES_SHAPE_CIRCLE, .val.circle = 1.25};
    CHECK_EQ(wa_block_on(rt, wa_test_kinds_echo_var_init(&v, &circle)), 0);
    CHECK_EQ(v.result.tag, TEST_KINDS_TYPES_SHAPE_CIRCLE);
    CHECK(v.result.val.circle == 2.5);
    test_kinds_echo_shape_t rect = {.tag = TEST_KINDS_TYPES_SHAPE_RECT, .val.rect = {1, 2, str("r")}};
    CHECK_EQ(wa_block_on(rt, wa_test_kinds_echo_var_init(&v, &rect)), 0);
    CHECK_EQ(v.result.tag, TEST_KINDS_TYPES_SHAPE_RECT);
    CHECK_EQ(v.result.val.rect.x, 2);
    CHECK_EQ(v.result.val.rect.y, 1);
    CHECK(eq(v.result.val.rect.label, "r"));
    test_kinds_echo_shape_free(&v.result);
    test_kinds_echo_shape_t empty = {.tag = TEST_KINDS_TYPES_SHAPE_EMPTY};
    CHECK_EQ(wa_block_on(rt, wa_test_kinds_echo_var_init(&v, &empty)), 0);
    CHECK_EQ(v.result.tag, TEST_KINDS_TYPES_SHAPE_EMPTY);

    wa_test_kinds_echo_en e;
    CHECK_EQ(wa_block_on(rt, wa_test_kinds_echo_en_init(&e, TEST_KINDS_TYPES_COLOR_BLUE,
                                                        TEST_KINDS_TYPES_PERMS_READ | TEST_KINDS_TYPES_PERMS_EXEC)),
             0);
    CHECK_EQ(e.result.f0, TEST_KINDS_TYPES_COLOR_RED);
    CHECK_EQ(e.result.f1, TEST_KINDS_TYPES_PERMS_WRITE);
}

static void test_option_result_nothing(void)
{
    wa_test_kinds_echo_opt o;
    CHECK_EQ(wa_block_on(rt, wa_test_kinds_echo_opt_init(&o, (user_option_string_t){true, str("ab")})), 0);
    CHECK(o.result.is_some && eq(o.result.val, "abab"));
    user_option_string_free(&o.result);
    CHECK_EQ(wa_block_on(rt, wa_test_kinds_echo_opt_init(&o, (user_option_string_t){false})), 0);
    CHECK(!o.result.is_some);

    wa_test_kinds_echo_res r;
    test_kinds_echo_result_u32_string_t ok = {.is_err = false, .val.ok = 41};
    CHECK_EQ(wa_block_on(rt, wa_test_kinds_echo_res_init(&r, ok)), 0);
    CHECK(!r.result.is_err && r.result.val.ok == 42);
    test_kinds_echo_result_u32_string_t err = {.is_err = true, .val.err = str("bad")};
    CHECK_EQ(wa_block_on(rt, wa_test_kinds_echo_res_init(&r, err)), 0);
    CHECK(r.result.is_err && eq(r.result.val.err, "E:bad"));
    test_kinds_echo_result_u32_string_free(&r.result);

    settle();
    uint32_t before = test_kinds_echo_nothings();
    wa_test_kinds_echo_nothing n;
    CHECK_EQ(wa_block_on(rt, wa_test_kinds_echo_nothing_init(&n)), 0);
    settle();
    CHECK_EQ(test_kinds_echo_nothings(), before + 1);
}

static void test_resources(void)
{
    settle();
    uint32_t live = test_kinds_echo_live_counters();
    test_kinds_types_own_counter_t c = test_kinds_types_constructor_counter(5);
    CHECK_EQ(test_kinds_echo_live_counters(), live + 1);
    CHECK_EQ(test_kinds_types_method_counter_add(test_kinds_types_borrow_counter(c), 2), 7);
    wa_test_kinds_types_method_counter_total t;
    CHECK_EQ(wa_block_on(rt, wa_test_kinds_types_method_counter_total_init(&t, test_kinds_types_borrow_counter(c))), 0);
    CHECK_EQ(t.result, 7);

    wa_test_kinds_echo_borrow_counter b;
    CHECK_EQ(wa_block_on(rt, wa_test_kinds_echo_borrow_counter_init(&b, test_kinds_types_borrow_counter(c))), 0);
    CHECK_EQ(b.result, 7);

    wa_test_kinds_echo_own_counter o; /* c goes to the provider and comes back */
    CHECK_EQ(wa_block_on(rt, wa_test_kinds_echo_own_counter_init(&o, c)), 0);
    CHECK_EQ(wa_block_on(rt, wa_test_kinds_echo_borrow_counter_init(&b, test_kinds_types_borrow_counter(o.result))), 0);
    CHECK_EQ(b.result, 17);
    settle();
    CHECK_EQ(test_kinds_echo_live_counters(), live + 1);
    test_kinds_types_counter_drop_own(o.result);
    CHECK_EQ(test_kinds_echo_live_counters(), live);
}

/* count: 100,000 bytes through a stream<u8>, then the future's count. */
typedef struct counter_run {
    WA_CORO;
    wa_test_kinds_echo_count call;
    wa_stream *out;
    wa_write w;
    wa_wasip3_future_read r;
    uint32_t n, i;
    unsigned char buf[10000];
} counter_run;

WA_ASYNC(counter_run, t, cx)
{
    WA_BEGIN(t, cx);
    {
        test_kinds_echo_stream_u8_writer_t w;
        test_kinds_echo_stream_u8_t r = test_kinds_echo_stream_u8_new(&w);
        int rc = wa_wasip3_stream_open(cx->rt, &wa_test_kinds_echo_stream_u8, 0, w, &t->out);
        if (rc < 0) {
            test_kinds_echo_stream_u8_drop_readable(r);
            WA_RETURN(rc);
        }
        WA_AWAIT(wa_test_kinds_echo_count_init(&t->call, r)); /* (returns the future at once) */
    }
    if (WA_STATUS < 0) {
        wa_stream_close(&t->out);
        WA_RETURN(WA_STATUS);
    }
    for (t->i = 0; t->i < 10; t->i++) {
        WA_AWAIT(wa_write_init(&t->w, t->out, t->buf, sizeof t->buf));
        if (WA_STATUS < 0)
            break;
    }
    wa_stream_close(&t->out);
    WA_AWAIT(wa_wasip3_future_read_init(&t->r, &wa_test_kinds_echo_future_u32, t->call.result, &t->n));
    WA_RETURN(WA_STATUS);
    WA_END();
}

/* join-labels: three points through typed writes of a stream<point>
 * while the call waits for the stream's end. */
typedef struct labels_run {
    WA_CORO;
    uint32_t writer;
    wa_wasip3_copy w;
    uint32_t sent;
    test_kinds_echo_point_t points[3];
} labels_run;

WA_ASYNC(labels_run, t, cx)
{
    WA_BEGIN(t, cx);
    while (t->sent < 3) {
        WA_AWAIT(wa_wasip3_stream_write_init(&t->w, &wa_test_kinds_echo_stream_point, t->writer, t->points + t->sent,
                                             3 - t->sent));
        if (WA_STATUS < 0)
            break;
        t->sent += t->w.count;
    }
    test_kinds_echo_stream_point_drop_writable(t->writer);
    WA_END();
}

static void test_stream_and_future(void)
{
    test_kinds_echo_stream_point_writer_t pw;
    test_kinds_echo_stream_point_t pr = test_kinds_echo_stream_point_new(&pw);
    labels_run run = {.writer = pw, .points = {{1, 1, str("a")}, {2, 2, str("bc")}, {3, 3, str("")}}};
    wa_test_kinds_echo_join_labels jl;
    WA_COMBO(2) both;
    CHECK_EQ(wa_block_on(rt, wa_all_init(&both, wa_test_kinds_echo_join_labels_init(&jl, pr), labels_run_init(&run))), 0);
    CHECK_EQ(run.sent, 3);
    CHECK(eq(jl.result, "a,bc,"));
    user_string_free(&jl.result);

    counter_run *c = calloc(1, sizeof *c);
    REQUIRE(c);
    CHECK_EQ(wa_block_on(rt, counter_run_init(c)), 0);
    CHECK_EQ(c->n, 100000);
    free(c);

    /* later: the call waits for the string this side writes after it */
    test_kinds_echo_future_string_writer_t w;
    test_kinds_echo_future_string_t r = test_kinds_echo_future_string_new(&w);
    wa_test_kinds_echo_later l;
    string value = str("late");
    wa_wasip3_future_write fw;
    CHECK_EQ(wa_block_on(rt, wa_all_init(&both, wa_test_kinds_echo_later_init(&l, r),
                                         wa_wasip3_future_write_init(&fw, &wa_test_kinds_echo_future_string, w, &value))),
             0);
    CHECK(eq(l.result, "got late"));
    user_string_free(&l.result);
}

/* The provider's count of slow's cleanups. */
static uint32_t cleanups(void)
{
    wa_test_kinds_echo_cleanups c;
    return wa_block_on(rt, wa_test_kinds_echo_cleanups_init(&c)) == 0 ? c.result : 0xffffffffu;
}

/* A call dropped by a timeout cancels the provider's task: its cleanup
 * (300 ms) runs. The drop does not wait for it: the cancel is async
 * (wa_wasip3_set_async_cancel), and the subtask is let go when the
 * provider's task ended. Its call area stays held (a host may write a
 * cancelled call's result late: component.h). Awaited, slow returns its
 * value. */
static void test_cancel_across(void)
{
    uint32_t before = cleanups();
    long held = wa_wasip3_held_areas();
    wa_test_kinds_echo_slow s;
    CHECK_EQ(wa_block_on(rt, wa_test_kinds_echo_slow_init(&s, 5)), 0);
    CHECK_EQ(s.result, 5);
    wa_timeout to;
    uint64_t t0 = wa_now(rt);
    CHECK_EQ(wa_block_on(rt, wa_timeout_init(&to, wa_test_kinds_echo_slow_init(&s, 10000), WA_MS(20))), WA_ETIMEDOUT);
    settle(); /* (wa_now is the runtime's last look at the clock) */
    uint64_t took = wa_now(rt) - t0;
    CHECK(took < WA_MS(20) + WA_MS(200)); /* (not the 300 ms cleanup's wait) */
    uint32_t after = before;
    for (int i = 0; i < 300 && after == before; i++) {
        wa_sleep sl;
        CHECK_EQ(wa_block_on(rt, wa_sleep_init(&sl, WA_MS(10))), 0);
        after = cleanups();
    }
    CHECK_EQ(after, before + 1);
    CHECK_EQ(wa_wasip3_live_subtasks(), 0);
    CHECK_EQ(wa_wasip3_held_areas(), held + 1);
}

int main(void)
{
    wa_wasip3_set_async_cancel(true);
    if (wa_rt_new(&rt) < 0) {
        CHECK(!"a runtime");
        return check_finish();
    }
    RUN(test_scalars);
    RUN(test_strings_and_lists);
    RUN(test_record_variant_enum_flags);
    RUN(test_option_result_nothing);
    RUN(test_resources);
    RUN(test_stream_and_future);
    RUN(test_cancel_across);
    CHECK_EQ(wa_wasi_live_handles(), 0);
    wa_rt_free(rt);
    return check_finish();
}
