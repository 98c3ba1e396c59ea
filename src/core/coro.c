/* SPDX-License-Identifier: MIT */
/* The out-of-line half of the coroutine macros (coro.h): kept out of line
 * so that each await costs a call, not a copy of this logic. */
#include "task.h"
#include "wasync/coro.h"

enum { WA__CO_UNWINDING = 1, WA__CO_FAILED = 2 };
enum { WA__CO_LINE_DONE = -2, WA__CO_LINE_FAILED = -3 };

/* wa__coro_poll (coro.h) tells WA_PENDING and WA_ECANCELED from every
 * other status in one test, which holds while they are a power of two
 * apart. */
_Static_assert(((WA_PENDING - WA_ECANCELED) & (WA_PENDING - WA_ECANCELED - 1)) == 0,
               "WA_PENDING - WA_ECANCELED is a power of two");

void wa_coro_drop(wa_future *f) { wa__coro_release((wa_coro *)f); }

const wa_future *wa__coro_awaits(const wa_future *f, unsigned i) { return i ? NULL : ((const wa_coro *)f)->child; }

static int wa__coro_unwind(wa_coro *co, wa_cx *cx)
{
    wa__coro_release(co);
    co->flags |= WA__CO_UNWINDING;
    co->line = WA_CO_LINE_CANCEL;
    wa_cancel_claim(cx);
    return 2;
}

/* co's child, left pending, lies in the frames of the poll running (the
 * caller's and those above it, up to the executor's poll_top). The first
 * test, against this frame, below the poll's, turns away a child in a
 * task or other heap memory without a call. (Not under ASan, whose fake
 * frames are off the stack.) Its callers are kept out of line, link-time
 * inlining included, so that this frame is one below the poll's. */
static inline bool wa__coro_child_local(const wa_coro *co)
{
    return (WA__ASAN || (const char *)co->child >= (const char *)__builtin_frame_address(0)) &&
           wa__poll_local(co->child);
}

/* An await left pending on a future stored in the poll's own frames (a
 * local of the poll function, the classic mistake): at the next poll it
 * would be garbage, its registrations (a timer, a waker) dangling. Drops
 * it while its storage lives and ends the coroutine with WA_EMISUSE. Only
 * a wait is checked: a future that completes at once never outlives the
 * frame, and the check costs nothing on the ready path. Returns 2: the
 * jump to WA__CO_LINE_FAILED, which no case names, lands on WA_END's
 * default, whose end (wa__coro_end) says WA_EMISUSE. */
static int wa__coro_misplaced(wa_coro *co)
{
    wa__misuse_local("WA_AWAIT", co->child);
    wa__coro_release(co);
    co->flags |= WA__CO_FAILED;
    co->line = WA__CO_LINE_FAILED;
    return 2;
}

/* An await in the cleanup section: shielded from the cancellation, and
 * claiming it so that nobody drops us meanwhile. */
static int wa__coro_step_unwinding(wa_coro *co, wa_cx *cx)
{
    cx->shield++;
    int rc = co->child->vt->poll(co->child, cx);
    cx->shield--;
    co->rc = rc;
    if (rc != WA_PENDING) {
        wa__coro_release(co);
        return 0;
    }
    if (wa__coro_child_local(co))
        return wa__coro_misplaced(co);
    wa_cancel_claim(cx);
    return 1;
}

__attribute__((noinline)) int wa__coro_step(wa_coro *co, wa_cx *cx)
{
    if (co->flags & WA__CO_UNWINDING)
        return wa__coro_step_unwinding(co, cx);
    co->rc = co->child->vt->poll(co->child, cx);
    return wa__coro_settle(co, cx);
}

__attribute__((noinline)) int wa__coro_settle(wa_coro *co, wa_cx *cx)
{
    int rc = co->rc;
    if (rc == WA_PENDING) {
        if (wa__coro_child_local(co))
            return wa__coro_misplaced(co);
        return wa__cx_cancel_requested(cx) ? wa__coro_unwind(co, cx) : 1;
    }
    /* A child that finished unwinding unwinds its parent, whatever claims
     * were made below in this poll. */
    if (rc == WA_ECANCELED && wa__cx_cancelling(cx))
        return wa__coro_unwind(co, cx);
    wa__coro_release(co);
    return 0;
}

int wa__coro_yield(wa_coro *co, wa_cx *cx)
{
    if (co->flags & WA__CO_UNWINDING)
        wa_cancel_claim(cx);
    else if (wa__cx_cancel_requested(cx))
        return wa__coro_unwind(co, cx);
    wa_waker_wake_by_ref(&cx->waker);
    return 0;
}

int wa__coro_end(wa_coro *co, int rc)
{
    if (co->line == WA__CO_LINE_DONE)
        return wa__misuse_done(NULL, "coroutine");
    if (co->flags & WA__CO_FAILED)
        rc = WA_EMISUSE;
    else if ((co->flags & WA__CO_UNWINDING) && rc == 0)
        rc = WA_ECANCELED;
    co->line = WA__CO_LINE_DONE;
    return rc;
}
