/* SPDX-License-Identifier: MIT */
/* wasync/coro.h - stackless async/await for C.
 *
 * A coroutine is a future struct that starts with WA_CORO and holds every
 * local that lives across an await, child futures included. Its poll
 * function is written straight through between WA_BEGIN and WA_END; each
 * WA_AWAIT returns WA_PENDING to the executor and resumes on the same line
 * at the next poll (a switch on the saved line, as in protothreads). No
 * stack switching, no allocation per await.
 *
 *     typedef struct { WA_CORO; wa_sleep sleep; int i; } ticker;
 *
 *     WA_ASYNC(ticker, t, cx)
 *     {
 *         WA_BEGIN(t, cx);
 *         for (t->i = 0; t->i < 3; t->i++) {
 *             WA_TRY(wa_sleep_init(&t->sleep, WA_MS(100)));
 *             printf("tick %d\n", t->i);
 *         }
 *         WA_END();
 *     }
 *
 *     ticker t = {0};
 *     wa_block_on(rt, ticker_init(&t));
 *
 * WA_ASYNC(type, self, cx) declares the poll function (whose body follows),
 * the vtable and `wa_future *type_init(type *self)`, which initialises the
 * header and leaves the other fields as the caller set them.
 * WA_ASYNC(type, self, cx, cleanup) adds `void cleanup(type *self)`, called
 * once when the future is dropped: after a normal end, a cancellation or a
 * hard drop alike (a finished future is always dropped), so what the
 * coroutine owns is released by code written once. Keep it synchronous and
 * safe on fields never set (zero them before init); awaitable cleanup goes
 * in WA_ON_CANCEL.
 *
 * Rules:
 * - Stack locals do not survive an await; keep such state in the struct.
 *   An await that waits on a future stored in the poll function's own
 *   frame is reported as misuse naming it, and ends the coroutine with
 *   WA_EMISUSE.
 * - At most one WA_AWAIT or WA_YIELD per source line, and every macro of
 *   the body after WA_BEGIN: either mistake fails to compile, the message
 *   naming the rule.
 * - Names beginning wa_ and WA_ are the library's: the macros' hidden
 *   locals, labels and parameters are wa_*_, so type, self and cx may be
 *   any other names (c, f, t, cx...).
 * - The awaited future is owned by the await: it is dropped as soon as it
 *   completes (or when the coroutine is dropped mid-await). Drop never
 *   clears outputs, so its output fields stay readable after the await.
 *   WA_STATUS is its final status (0 or a negative WA_E* code). WA_TRY
 *   awaits and ends the coroutine with that status if it is negative.
 * - Awaiting a join handle consumes it (like Rust's JoinHandle): have the
 *   task write its results through pointers it was given.
 * - Cancellation: when the task is cancelled, the first await that would
 *   wait drops its child and jumps to WA_ON_CANCEL (or, without one, ends
 *   the coroutine with WA_ECANCELED). The cleanup code may await; those
 *   awaits are shielded from the cancellation. A child that ended with
 *   WA_ECANCELED because of it unwinds its parent the same way.
 */
#ifndef WASYNC_CORO_H
#define WASYNC_CORO_H

#include "future.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wa_coro {
    wa_future fut;
    wa_future *child; /* the future being awaited, owned */
    int line;         /* resume point */
    int rc;           /* WA_STATUS */
    unsigned flags;
} wa_coro;

/* The coroutine header: the first member of a coroutine's struct. */
#define WA_CORO wa_coro wa

/* Initialises a coroutine header with its vtable (whose drop should be
 * wa_coro_drop, or call it); returns the future. */
static inline wa_future *wa_coro_init(wa_coro *co, const wa_future_vt *vt)
{
    co->fut.vt = vt;
    co->child = NULL;
    co->line = 0;
    co->rc = 0;
    co->flags = 0;
    return &co->fut;
}

/* The drop of a coroutine with nothing else to release: drops the child. */
void wa_coro_drop(wa_future *f);

#define WA_CO_LINE_CANCEL (-1)

/* Internal steps of the macros below. */
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

/* Opens the coroutine body of self (the struct) polled with cx. */
#define WA_BEGIN(self_, cx_)                                                \
    struct wa__co_begun {                                                    \
        char yes_[2];                                                        \
    };                                                                       \
    wa_coro *const wa__co = &(self_)->wa;                                    \
    wa_cx *const wa__cx = (cx_);                                             \
    (void)wa__cx;                                                            \
wa__resume:                                                                  \
    WA__CO_LABEL_ATTR;                                                       \
    switch (wa__co->line) {                                                  \
    case 0:

/* Awaits the future returned by init, evaluated once. The resume point is
 * saved only when the await waits: one that is ready at once writes none. */
#define WA_AWAIT(init_)                                                     \
    do {                                                                     \
        WA__CO_BEGUN("WA_AWAIT");                                            \
        wa__co->child = (init_);                                             \
        if (0) {                                                             \
    case __LINE__:                                                           \
    WA__CO_ONE_PER_LINE;                                                     \
        }                                                                    \
        int wa__step = wa__coro_poll(wa__co, wa__cx);                        \
        if (wa__step == 1) {                                                 \
            wa__co->line = __LINE__;                                         \
            return WA_PENDING;                                               \
        }                                                                    \
        if (wa__step == 2)                                                   \
            goto wa__resume;                                                 \
    } while (0)

/* Lets every other ready task run before continuing (a cancellation point). */
#define WA_YIELD()                                                          \
    do {                                                                     \
        WA__CO_BEGUN("WA_YIELD");                                            \
        wa__co->line = __LINE__;                                             \
        if (wa__coro_yield(wa__co, wa__cx) == 2)                             \
            goto wa__resume;                                                 \
        return WA_PENDING;                                                   \
    case __LINE__:                                                           \
    WA__CO_ONE_PER_LINE;                                                     \
    } while (0)

/* The status of the last await. */
#define WA_STATUS (WA__CO_BEGUN("WA_STATUS"), wa__co->rc)

/* Ends the coroutine with status rc (0 or a negative WA_E* code). */
#define WA_RETURN(rc_) return WA__CO_BEGUN("WA_RETURN"), wa__coro_end(wa__co, (rc_))

/* Starts the cleanup section, run on cancellation. Normal flow reaching it
 * ends the coroutine with status 0. */
#define WA_ON_CANCEL()                                                      \
    WA_RETURN(0);                                                            \
    case WA_CO_LINE_CANCEL:                                                  \
        (void)0

/* Awaits like WA_AWAIT, then ends the coroutine with the status if it is
 * an error (Rust's `?`). */
#define WA_TRY(init_)                                                       \
    do {                                                                     \
        WA_AWAIT(init_);                                                     \
        if (WA_STATUS < 0)                                                   \
            WA_RETURN(WA_STATUS);                                            \
    } while (0)

/* Closes the coroutine body: reaching it ends with status 0. */
#define WA_END()                                                            \
    WA_RETURN(0);                                                            \
    default:                                                                 \
        WA_RETURN(WA_ECANCELED);                                             \
        }

/* WA_ASYNC(type, self, cx [, cleanup]): see the top of this file. The
 * functions it defines name their own parameters wa_*_, so that type, self
 * and cx may be any names but those. */
#define WA_ASYNC(...) WA__ASYNC_PICK(__VA_ARGS__, WA__ASYNC4, WA__ASYNC3, )(__VA_ARGS__)
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
    static const wa_future_vt type_##_vt_ = {type_##_poll_vt_, drop_, #type_}; \
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
