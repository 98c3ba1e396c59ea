/* SPDX-License-Identifier: MIT */
/* The library's own, behind the coroutine macros of wasync/coro.h: their
 * steps, their compile-time checks and WA_ASYNC's expansion. Not for users
 * to call; a header must show it because the macros expand to it.
 * Included by wasync/coro.h once struct wa_coro is complete. */
#ifndef WASYNC_DETAIL_CORO_H
#define WASYNC_DETAIL_CORO_H

#ifdef __cplusplus
extern "C" {
#endif

static inline void wa__coro_release(wa_coro *co)
{
    wa_future *c = co->child;
    co->child = NULL;
    wa_drop(c);
}
int wa__coro_step(wa_coro *co, wa_cx *cx);   /* 0 go on, 1 pending, 2 unwind */
int wa__coro_settle(wa_coro *co, wa_cx *cx); /* after a poll that was not plainly ready */

/* The await's poll, inline for the common case of a child that is ready
 * (or pending) with no cancellation in play. */
static inline int wa__coro_poll(wa_coro *co, wa_cx *cx)
{
    if (co->flags)
        return wa__coro_step(co, cx);
    wa_future *c = co->child; /* (its poll cannot change co) */
    int rc = c->vt->poll(c, cx);
    co->rc = rc;
    /* rc is WA_PENDING or WA_ECANCELED, in one test: they are 4 apart */
    if (!(((unsigned)rc - (unsigned)WA_ECANCELED) & ~(unsigned)(WA_PENDING - WA_ECANCELED)))
        return wa__coro_settle(co, cx);
    co->child = NULL;
    if (c->vt->drop) /* (read after the poll, which may change it) */
        c->vt->drop(c);
    return 0;
}
int wa__coro_yield(wa_coro *co, wa_cx *cx); /* 0 pending, 2 unwind */
const wa_future *wa__coro_awaits(const wa_future *f, unsigned i); /* the vtable's awaits: the child */
int wa__coro_end(wa_coro *co, int rc);

#if defined(__GNUC__) || defined(__clang__)
#define WA__CO_LABEL_ATTR __attribute__((unused))
#else
#define WA__CO_LABEL_ATTR
#endif

/* The mistakes the macros can see fail to compile with the rule as the
 * message. Outside a body opened by WA_BEGIN the struct below is this one;
 * WA_BEGIN declares a larger one in the function, and each macro using
 * its hidden locals asserts that it sees that one. (A struct tag: an
 * inner declaration of it is no -Wshadow warning.) */
struct wa__co_begun {
    char no_;
};
#define WA__CO_BEGUN(macro_)                                                \
    ((void)sizeof(struct {                                                   \
        _Static_assert(sizeof(struct wa__co_begun) == 2,                     \
                       macro_ " needs WA_BEGIN(self, cx) first, at the top of the coroutine body"); \
        int wa__x;                                                           \
    }))
/* A resume point's label, one per source line: a second WA_AWAIT or
 * WA_YIELD on the line redefines it, an error that names the rule (beside
 * the switch's duplicate case value, which does not). */
#define WA__CO_CAT2(a_, b_) a_##b_
#define WA__CO_CAT(a_, b_) WA__CO_CAT2(a_, b_)
#define WA__CO_ONE_PER_LINE                                                 \
    WA__CO_CAT(wa__at_most_one_WA_AWAIT_or_WA_YIELD_per_line_, __LINE__) : WA__CO_LABEL_ATTR

#define WA__ASYNC_PICK(a_, b_, c_, d_, which_, ...) which_
#define WA__ASYNC3(type_, self_, cx_) WA__ASYNC(type_, self_, cx_, wa_coro_drop)
#define WA__ASYNC4(type_, self_, cx_, cleanup_)                             \
    static void cleanup_(type_ *);                                           \
    static void type_##_drop_(wa_future *wa__f)                              \
    {                                                                        \
        wa_coro_drop(wa__f);                                                 \
        cleanup_((type_ *)wa__f);                                            \
    }                                                                        \
    WA__ASYNC(type_, self_, cx_, type_##_drop_)
#define WA__ASYNC(type_, self_, cx_, drop_)                                 \
    static int type_##_poll_(type_ *self_, wa_cx *cx_);                      \
    static int type_##_poll_vt_(wa_future *wa__f, wa_cx *wa__c)              \
    {                                                                        \
        return type_##_poll_((type_ *)wa__f, wa__c);                         \
    }                                                                        \
    static const wa_future_vt type_##_vt_ = {type_##_poll_vt_, drop_, #type_, wa__coro_awaits, NULL}; \
    static inline wa_future *type_##_init(type_ *wa__co_self)                   \
    {                                                                        \
        _Static_assert(offsetof(type_, wa) == 0, #type_ ": WA_CORO must come first"); \
        return wa_coro_init(&wa__co_self->wa, &type_##_vt_);                    \
    }                                                                        \
    static int type_##_poll_(type_ *self_, wa_cx *cx_)

#ifdef __cplusplus
}
#endif
#endif
