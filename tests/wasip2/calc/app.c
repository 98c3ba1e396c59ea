/* SPDX-License-Identifier: MIT */
/* The user of calc.wit on WASI 0.2: every function of the library through
 * wit-bindgen's imports, composed into one component; the resource's
 * handles end where they began. */
#include "../../check.h"
#include "app_wasync.h"

static void test_calls(void)
{
    int32_t xs[] = {1, -2, 30, 400};
    CHECK_EQ(test_calc_calc_sum(&(app_list_s32_t){xs, 4}), 429);

    app_string_t name, out;
    app_string_set(&name, "wasync");
    test_calc_calc_greet(&name, &out);
    CHECK(out.len == 13 && !memcmp(out.ptr, "hello, wasync", 13));
    app_string_free(&out);
}

static void test_resource(void)
{
    uint32_t live = test_calc_calc_live();
    test_calc_calc_own_acc_t a = test_calc_calc_constructor_acc(10);
    CHECK_EQ(test_calc_calc_live(), live + 1);
    test_calc_calc_pair_t p = {3, 4};
    CHECK_EQ(test_calc_calc_method_acc_add(test_calc_calc_borrow_acc(a), &p), 22);
    p.b = -1;
    CHECK_EQ(test_calc_calc_method_acc_add(test_calc_calc_borrow_acc(a), &p), 19);
    test_calc_calc_acc_drop_own(a);
    CHECK_EQ(test_calc_calc_live(), live);
}

int main(void)
{
    RUN(test_calls);
    RUN(test_resource);
    return check_finish();
}
