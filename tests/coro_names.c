/* SPDX-License-Identifier: MIT */
/* The coroutine macros' own names are wa_*_ and WA_*, so that a
 * coroutine's type, self and cx may be any other names: c, f, t and cx
 * here, which did not compile when the functions WA_ASYNC defines named
 * their parameters f, c and self (tests/CMakeLists.txt compiles this with
 * -Werror). With -DWA_TEST_NO_BEGIN, -DWA_TEST_TWO_AWAITS or
 * -DWA_TEST_AWAIT_YIELD it makes a mistake the macros refuse, with the
 * rule as the compiler's message. */
#include "wasync.h"

typedef struct c {
    WA_CORO;
    wa_sleep s;
} c;

typedef struct f {
    WA_CORO;
    c inner;
    int *cleanups;
} f;

typedef struct t {
    WA_CORO;
    wa_yield y;
    int n;
} t;

typedef struct cx {
    WA_CORO;
    f inner;
    int status;
} cx;

WA_ASYNC(c, self, ctx)
{
    WA_BEGIN(self, ctx);
    WA_TRY(wa_sleep_init(&self->s, WA_MS(1)));
    WA_END();
}

static void f_cleanup(f *self) { ++*self->cleanups; }

WA_ASYNC(f, f_, c_, f_cleanup)
{
    WA_BEGIN(f_, c_);
    WA_AWAIT(c_init(&f_->inner));
    if (WA_STATUS < 0)
        WA_RETURN(WA_STATUS);
    WA_ON_CANCEL();
    WA_AWAIT(wa_sleep_init(&f_->inner.s, 0));
    WA_END();
}

/* type and self of one name */
WA_ASYNC(t, t, cx)
{
    WA_BEGIN(t, cx);
    for (t->n = 0; t->n < 3; t->n++) {
        WA_YIELD();
        WA_AWAIT(wa_yield_init(&t->y));
    }
#ifdef WA_TEST_TWO_AWAITS
    WA_AWAIT(wa_yield_init(&t->y)); WA_AWAIT(wa_yield_init(&t->y));
#endif
#ifdef WA_TEST_AWAIT_YIELD
    WA_AWAIT(wa_yield_init(&t->y)); WA_YIELD();
#endif
    WA_END();
}

WA_ASYNC(cx, self, cx)
{
#ifndef WA_TEST_NO_BEGIN
    WA_BEGIN(self, cx);
#else
    (void)cx;
#endif
    WA_AWAIT(f_init(&self->inner));
    self->status = WA_STATUS;
    WA_END();
}

int coro_names(wa_rt *rt, int *cleanups);
int coro_names(wa_rt *rt, int *cleanups)
{
    cx x = {.inner = {.cleanups = cleanups}};
    t y = {0};
    int rc = wa_block_on(rt, cx_init(&x));
    return rc < 0 ? rc : wa_block_on(rt, t_init(&y));
}
