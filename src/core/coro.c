/* The out-of-line half of the coroutine macros (coro.h): kept out of line
 * so that each await costs a call, not a copy of this logic. */
#include "rt.h"

enum { WA_CO_UNWINDING = 1 };
enum { WA_CO_LINE_DONE = -2 };

void wa_coro_release_(wa_coro *co)
{
    wa_future *c = co->child;
    co->child = NULL;
    wa_drop(c);
}

void wa_coro_drop(wa_future *f) { wa_coro_release_((wa_coro *)f); }

static int wa_coro_unwind(wa_coro *co, wa_cx *cx)
{
    wa_coro_release_(co);
    co->flags |= WA_CO_UNWINDING;
    co->line = WA_CO_LINE_CANCEL;
    wa_cancel_claim(cx);
    return 2;
}

int wa_coro_step_(wa_coro *co, wa_cx *cx)
{
    int shield = (int)(co->flags & WA_CO_UNWINDING);
    cx->shield += shield; /* cleanup awaits are not cancelled again */
    int rc = co->child->vt->poll(co->child, cx);
    cx->shield -= shield;
    co->rc = rc;
    if (rc == WA_PENDING) {
        if (shield) {
            wa_cancel_claim(cx);
            return 1;
        }
        return wa_cancel_requested(cx) ? wa_coro_unwind(co, cx) : 1;
    }
    /* A child that finished unwinding unwinds its parent, whatever claims
     * were made below in this poll. */
    if (rc == WA_ECANCELED && !shield && wa_cx_cancelling_(cx))
        return wa_coro_unwind(co, cx);
    return 0;
}

int wa_coro_yield_(wa_coro *co, wa_cx *cx)
{
    wa_coro_release_(co);
    if (co->flags & WA_CO_UNWINDING)
        wa_cancel_claim(cx);
    else if (wa_cancel_requested(cx))
        return wa_coro_unwind(co, cx);
    wa_waker_wake_by_ref(&cx->waker);
    return 0;
}

int wa_coro_end_(wa_coro *co, int rc)
{
    if (co->line == WA_CO_LINE_DONE)
        return wa_misuse(WA_EMISUSE, "poll of a finished coroutine");
    wa_coro_release_(co);
    if ((co->flags & WA_CO_UNWINDING) && rc == 0)
        rc = WA_ECANCELED;
    co->line = WA_CO_LINE_DONE;
    return rc;
}
