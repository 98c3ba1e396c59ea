/* SPDX-License-Identifier: MIT */
/* The library of calc.wit, exported through wit-bindgen's bindings alone
 * (a world with no async function: wasync's layer adds nothing). */
#include <stdlib.h>
#include <string.h>

#include "lib_wasync.h"

struct exports_test_calc_calc_acc_t {
    int64_t total;
};
static uint32_t live;

exports_test_calc_calc_own_acc_t exports_test_calc_calc_constructor_acc(int64_t start)
{
    exports_test_calc_calc_acc_t *a = malloc(sizeof *a);
    if (!a)
        abort();
    a->total = start;
    live++;
    return exports_test_calc_calc_acc_new(a);
}

void exports_test_calc_calc_acc_destructor(exports_test_calc_calc_acc_t *a)
{
    live--;
    free(a);
}

int64_t exports_test_calc_calc_method_acc_add(exports_test_calc_calc_borrow_acc_t self, exports_test_calc_calc_pair_t *p)
{
    return self->total += p->a * (int64_t)p->b;
}

int64_t exports_test_calc_calc_sum(lib_list_s32_t *l)
{
    int64_t s = 0;
    for (size_t i = 0; i < l->len; i++)
        s += l->ptr[i];
    lib_list_s32_free(l);
    return s;
}

void exports_test_calc_calc_greet(lib_string_t *name, lib_string_t *ret)
{
    static const char hi[] = "hello, ";
    ret->len = sizeof hi - 1 + name->len;
    ret->ptr = malloc(ret->len);
    if (!ret->ptr)
        abort();
    memcpy(ret->ptr, hi, sizeof hi - 1);
    memcpy(ret->ptr + sizeof hi - 1, name->ptr, name->len);
    lib_string_free(name);
}

uint32_t exports_test_calc_calc_live(void) { return live; }
