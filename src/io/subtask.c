/* SPDX-License-Identifier: MIT */
/* The future of an async-lowered call (wasync/component.h): it waits on
 * the call's subtask through a waitable registration until the subtask
 * returns, then drops it; dropped before that, it cancels it. */
#include <stdbool.h>

#include "../backend/wasip3.h"
#include "../wasi/p3.h"
#include "wasync/component.h"

_Static_assert(WA_SUBTASK_RETURNED == WA_P3_SUBTASK_RETURNED && WA_SUBTASK_STARTED == WA_P3_SUBTASK_STARTED,
               "the public states are the Canonical ABI's");

/* RETURNED, or cancelled: the subtask says nothing more. */
static bool wa_subtask_resolved(uint32_t state) { return state >= WA_P3_SUBTASK_RETURNED; }

/* Ends s's hold on its subtask: deregisters it if it still is (no wait is
 * queued, so it is out of the set), cancels it unless it resolved, and
 * drops it. Counted when s was polled on this backend. */
static void wa_subtask_release(wa_subtask *s, bool registered)
{
    static wa_wasip3_stats nowhere;
    wa_wasip3_stats *st = s->rt ? wa_wasip3_stats_of_(s->rt) : NULL;
    if (!st)
        st = &nowhere;
    if (registered)
        wa_waitable_deregister(s->rt, s->wait.key);
    if (!wa_subtask_resolved(s->state)) {
        st->cancels++;
        s->state = wa_p3_subtask_cancel(s->subtask);
    }
    st->drops++;
    wa_p3_subtask_drop(s->subtask);
    s->subtask = 0;
}

static int wa_subtask_status(const wa_subtask *s) { return s->state == WA_P3_SUBTASK_RETURNED ? 0 : WA_ECANCELED; }

static int wa_subtask_poll(wa_future *f, wa_cx *cx)
{
    wa_subtask *s = (wa_subtask *)f;
    if (!s->rt) {
        s->rt = cx->rt;
        if (!s->subtask) {
            if (s->state == WA_P3_SUBTASK_RETURNED)
                return WA_READY; /* (at once: nothing to wait on) */
            return wa_misuse(WA_EINVAL, "wa_subtask: a call result with no subtask that did not return");
        }
        int rc = wa_waitable_register(cx->rt, s->subtask, &s->wait.key);
        if (rc < 0)
            return rc; /* (its drop cancels the subtask) */
        wa_waitable_wait_init(&s->wait, s->wait.key);
    } else if (!s->subtask) {
        return wa_misuse(WA_EMISUSE, "poll of a finished subtask");
    }
    for (;;) {
        int rc = wa_poll(&s->wait.fut, cx);
        if (rc == WA_PENDING)
            return rc;
        if (rc == 0)
            wa_waitable_payload(s->rt, s->wait.key, &s->state);
        if (rc < 0 || wa_subtask_resolved(s->state)) {
            wa_subtask_release(s, rc == 0); /* (< 0: its key went stale) */
            return rc < 0 ? rc : wa_subtask_status(s);
        }
        wa_waitable_wait_init(&s->wait, s->wait.key); /* STARTED: wait on */
    }
}

static void wa_subtask_drop(wa_future *f)
{
    wa_subtask *s = (wa_subtask *)f;
    if (!s->subtask)
        return;
    if (s->wait.key) { /* registered; else never joined */
        wa_drop(&s->wait.fut); /* (out of the set before the cancel) */
        /* an event that resolved it may have come after the last poll */
        uint32_t state;
        wa_waitable_payload(s->rt, s->wait.key, &state);
        if (wa_subtask_resolved(state))
            s->state = state;
    }
    wa_subtask_release(s, s->wait.key != 0);
}

static const wa_future_vt wa_subtask_vt = {wa_subtask_poll, wa_subtask_drop, "subtask"};

wa_future *wa_subtask_init(wa_subtask *s, uint32_t packed)
{
    s->fut.vt = &wa_subtask_vt;
    s->subtask = wa_p3_subtask(packed);
    s->state = wa_p3_state(packed);
    s->rt = NULL;
    s->wait.key = 0; /* (keys are never 0) */
    if (s->subtask)
        wa_p3_live++; /* taken */
    return &s->fut;
}
