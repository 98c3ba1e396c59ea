/* SPDX-License-Identifier: MIT */
/* Barrier: waits queue until the n-th of a generation arrives; that one,
 * the leader, completes at once and grants the others. Each queued wait
 * carries its generation (in its waiter's n), so that a grant that wakes
 * one at a time (one made for threads unlocks around each wake) stops at the
 * waits of the next generation that arrive meanwhile. */
#include "waitq.h"

void wa_barrier_init(wa_barrier *b, size_t n)
{
    wa__list_init(&b->q);
    b->n = n ? n : 1;
    b->arrived = 0;
    b->generation = 0;
    b->lock = WA__LOCK_NONE;
}

void wa_barrier_init_shared(wa_barrier *b, size_t n)
{
    wa_barrier_init(b, n);
    b->lock = WA__LOCK_FREE;
}

/* Grants the queued waits of the generations before b's, in order, waking
 * each after unlocking. Called with b locked; returns with it unlocked. */
static void wa__barrier_grant_unlock(wa_barrier *b)
{
    wa__waiter *w;
    while ((w = wa__waitq_head(&b->q)) && w->n != b->generation) {
        wa_waker wake = {NULL, NULL};
        wa__waitq_grant_head(&b->q, wa__sync_shared(&b->lock), &wake);
        wa__sync_give(&b->lock);
        wa_waker_wake(&wake);
        wa__sync_take(&b->lock);
    }
    wa__sync_give(&b->lock);
}

static int wa__barrier_wait_poll(wa_future *f, wa_cx *cx)
{
    wa_barrier_wait *bw = (wa_barrier_wait *)f;
    wa_barrier *b = bw->b;
    int rc = WA_PENDING;
    if (!b) {
        bw->w.state = WA__W_DONE;
        return wa__misuse_in(WA_EINVAL, "wa_barrier_wait", "its barrier is NULL");
    }
    wa__sync_take(&b->lock);
    switch (bw->w.state) {
    case WA__W_IDLE:
        if (b->arrived + 1 == b->n) {
            if (!wa_coop_proceed(cx))
                break;
            b->arrived = 0;
            b->generation++;
            bw->leader = true;
            bw->w.state = WA__W_DONE;
            wa__barrier_grant_unlock(b);
            return WA_READY;
        }
        if (wa__sync_refused(&b->lock, cx)) {
            bw->w.state = WA__W_DONE;
            rc = WA_EMISUSE;
            break;
        }
        bw->w.n = b->generation;
        b->arrived++;
        wa__waitq_push(&b->q, &bw->w, cx);
        break;
    case WA__W_QUEUED:
        wa_waker_store(&bw->w.waker, cx);
        break;
    case WA__W_GRANTED:
        bw->w.state = WA__W_DONE;
        rc = WA_READY;
        break;
    default:
        wa__sync_give(&b->lock);
        return wa__misuse_in(WA_EMISUSE, "wa_barrier_wait", "polled after it finished, or freed");
    }
    wa__sync_give(&b->lock);
    return rc == WA_EMISUSE ? wa__sync_refuse("wa_barrier_wait") : rc;
}

static void wa__barrier_wait_drop(wa_future *f)
{
    wa_barrier_wait *bw = (wa_barrier_wait *)f;
    wa_barrier *b = bw->b;
    int st = wa__waiter_state(&bw->w);
    if (st != WA__W_QUEUED && st != WA__W_GRANTED)
        return; /* unpolled or finished: not counted */
    wa__sync_take(&b->lock);
    /* a wait of a generation that tripped stays counted in it */
    if (wa__waiter_cancel(&b->q, &bw->w) == WA__W_QUEUED && bw->w.n == b->generation)
        b->arrived--;
    wa__sync_give(&b->lock);
}

static const wa_future_vt wa__barrier_wait_vt = {wa__barrier_wait_poll, wa__barrier_wait_drop, "barrier_wait"};

wa_future *wa_barrier_wait_init(wa_barrier_wait *w, wa_barrier *b)
{
    w->fut.vt = &wa__barrier_wait_vt;
    w->b = b;
    w->leader = false;
    wa__waiter_init(&w->w, 0);
    return &w->fut;
}

bool wa_barrier_wait_is_leader(const wa_barrier_wait *w)
{
    if (!w)
        return wa_misuse(WA_EINVAL, "wa_barrier_wait_is_leader: w is NULL"), false;
    return w->leader;
}
