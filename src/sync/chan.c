/* SPDX-License-Identifier: MIT */
/* Bounded mpsc channel (and oneshot): a ring buffer of fixed-size elements.
 *
 * Elements always go through the buffer, never straight into a waiting
 * receiver, so a receive future dropped after being woken has taken
 * nothing and loses nothing. A slot freed while senders wait is reserved
 * for the first of them, so senders get in in the order they waited; one
 * that is dropped before using its reservation passes it on.
 *
 * A shared channel (wa_mpsc_new_shared) holds its lock around every look at
 * its state, and frees itself and wakes its waiters after releasing it.
 *
 * An end's ch is a key of the handle table (core/handles.h), not the
 * channel's address: the receiver's one for all its copies, one per sender
 * (each clone its own). A drop releases it, so that a copy of a dropped end
 * is found out, whether or not the channel is still there.
 */
#include <stdlib.h>
#include <string.h>

#include "../core/copy.h"
#include "../core/handles.h"
#include "waitq.h"
#include "wasync/channel.h"

struct wa_chan {
    size_t cap, elem_size, head, len;
    size_t reserved;  /* free slots held for woken senders */
    size_t senders;   /* live wa_tx */
    size_t refs;      /* ends plus unfinished futures */
    int rx_alive;
    unsigned lock;    /* lock.h: WA__LOCK_NONE unless shared */
    wa__waitq sendq, recvq;
    _Alignas(16) unsigned char buf[];
};

/* Releases ch's lock, then wakes *wake (if any) and returns rc. */
static inline int wa__chan_unlock(wa_chan *ch, bool sh, wa_waker *wake, int rc)
{
    wa__sync_unlock(&ch->lock, sh);
    wa_waker_wake(wake);
    return rc;
}

/* Drops a reference of locked ch, then unlocks it (wakes *wake), freeing
 * it if that was the last; returns rc. */
static inline int wa__chan_unref_unlock(wa_chan *ch, bool sh, wa_waker *wake, int rc)
{
    bool last = --ch->refs == 0;
    wa__chan_unlock(ch, sh, wake, rc);
    if (last)
        free(ch);
    return rc;
}

/* The channel of end handle h of kind (WA__HANDLE_TX or _RX), or NULL:
 * NULL, or dropped through this copy or another. */
static inline wa_chan *wa__chan_at(const wa_chan *h, unsigned kind) { return wa__handle_get((uintptr_t)h, kind); }

/* A new end handle of kind to ch in *h: 0 or WA_ENOMEM. */
static int wa__chan_end(wa_chan *ch, unsigned kind, wa_chan **h)
{
    uintptr_t k;
    if (wa__handle_new(ch, kind, &k) < 0)
        return WA_ENOMEM;
    *h = (wa_chan *)k;
    return 0;
}

static int wa__mpsc_make(size_t cap, size_t elem_size, wa_tx *tx, wa_rx *rx, unsigned lock)
{
    if (!tx || !rx)
        return wa_misuse(WA_EINVAL, "wa_mpsc_new: NULL end");
    tx->ch = rx->ch = NULL;
    if (cap == 0 || elem_size == 0 || cap > SIZE_MAX / 2 / elem_size)
        return WA_EINVAL;
    wa_chan *ch = calloc(1, sizeof *ch + cap * elem_size);
    if (!ch)
        return WA_ENOMEM;
    ch->cap = cap;
    ch->elem_size = elem_size;
    ch->senders = 1;
    ch->rx_alive = 1;
    ch->refs = 2;
    ch->lock = lock;
    if (wa__chan_end(ch, WA__HANDLE_TX, &tx->ch) < 0 || wa__chan_end(ch, WA__HANDLE_RX, &rx->ch) < 0) {
        if (tx->ch)
            wa__handle_release((uintptr_t)tx->ch);
        tx->ch = NULL;
        free(ch);
        return WA_ENOMEM;
    }
    return 0;
}

int wa_mpsc_new(size_t cap, size_t elem_size, wa_tx *tx, wa_rx *rx)
{
    return wa__mpsc_make(cap, elem_size, tx, rx, WA__LOCK_NONE);
}

int wa_mpsc_new_shared(size_t cap, size_t elem_size, wa_tx *tx, wa_rx *rx)
{
    return wa__mpsc_make(cap, elem_size, tx, rx, WA__LOCK_FREE);
}

static size_t wa__chan_len(wa_chan *ch)
{
    if (!ch)
        return 0;
    bool sh = wa__sync_shared(&ch->lock);
    wa__sync_lock(&ch->lock, sh);
    size_t n = ch->len;
    wa__sync_unlock(&ch->lock, sh);
    return n;
}

size_t wa_tx_len(const wa_tx *tx) { return wa__chan_len(tx ? wa__chan_at(tx->ch, WA__HANDLE_TX) : NULL); }
size_t wa_rx_len(const wa_rx *rx) { return wa__chan_len(rx ? wa__chan_at(rx->ch, WA__HANDLE_RX) : NULL); }

wa_tx wa_tx_clone(const wa_tx *tx)
{
    wa_chan *ch = tx ? wa__chan_at(tx->ch, WA__HANDLE_TX) : NULL;
    wa_tx clone = {NULL};
    if (!ch) {
        wa_misuse(WA_ESTALE, "wa_tx_clone: the sender was dropped");
        return clone;
    }
    if (wa__chan_end(ch, WA__HANDLE_TX, &clone.ch) < 0)
        return clone;
    wa__sync_take(&ch->lock);
    ch->senders++;
    ch->refs++;
    wa__sync_give(&ch->lock);
    return clone;
}

/* Wakes every waiter of q (none when q is NULL), one at a time, each after
 * unlocking, then drops the caller's reference. Called with ch locked;
 * returns with it unlocked (and perhaps freed). */
static void wa__chan_leave(wa_chan *ch, bool sh, wa__waitq *q)
{
    if (q) /* they will see the close (no one queues after it) */
        wa__waitq_grant_all(q, &ch->lock, sh);
    wa__chan_unref_unlock(ch, sh, &(wa_waker){NULL, NULL}, 0);
}

int wa_tx_drop(wa_tx *tx)
{
    wa_chan *ch = tx ? wa__chan_at(tx->ch, WA__HANDLE_TX) : NULL;
    if (!ch)
        return wa_misuse(WA_EMISUSE, "wa_tx_drop: the sender was dropped already (through this copy or another)");
    wa__handle_release((uintptr_t)tx->ch);
    tx->ch = NULL;
    bool sh = wa__sync_shared(&ch->lock);
    wa__sync_lock(&ch->lock, sh);
    wa__chan_leave(ch, sh, --ch->senders == 0 ? &ch->recvq : NULL);
    return 0;
}

int wa_rx_drop(wa_rx *rx)
{
    wa_chan *ch = rx ? wa__chan_at(rx->ch, WA__HANDLE_RX) : NULL;
    if (!ch)
        return wa_misuse(WA_EMISUSE, "wa_rx_drop: the receiver was dropped already (through this copy or another)");
    wa__handle_release((uintptr_t)rx->ch);
    rx->ch = NULL;
    bool sh = wa__sync_shared(&ch->lock);
    wa__sync_lock(&ch->lock, sh);
    ch->rx_alive = 0;
    ch->len = 0;
    wa__chan_leave(ch, sh, &ch->sendq);
    return 0;
}

/* The three below grant a waiter as wa__waitq_grant_head does: shared
 * (sh), its waker goes into *wake. */

/* Appends elem; grants the first waiting receiver. */
static inline void wa__chan_push(wa_chan *ch, bool sh, const void *elem, wa_waker *wake)
{
    size_t tail = ch->head + ch->len;
    if (tail >= ch->cap)
        tail -= ch->cap;
    wa__memcpy(ch->buf + tail * ch->elem_size, elem, ch->elem_size);
    ch->len++;
    if (!wa__list_empty(&ch->recvq))
        wa__waitq_grant_head(&ch->recvq, sh, wake);
}

/* Hands a free, unreserved slot to the first waiting sender. */
static inline void wa__chan_grant_sender(wa_chan *ch, bool sh, wa_waker *wake)
{
    if (!wa__list_empty(&ch->sendq) && ch->len + ch->reserved < ch->cap) {
        ch->reserved++;
        wa__waitq_grant_head(&ch->sendq, sh, wake);
    }
}

/* Takes the oldest element into out; grants its slot to a waiting sender. */
static inline void wa__chan_pop(wa_chan *ch, bool sh, void *out, wa_waker *wake)
{
    wa__memcpy(out, ch->buf + ch->head * ch->elem_size, ch->elem_size);
    ch->head = ch->head + 1 == ch->cap ? 0 : ch->head + 1;
    ch->len--;
    wa__chan_grant_sender(ch, sh, wake);
}

int wa_tx_try_send(wa_tx *tx, const void *elem)
{
    wa_chan *ch = tx ? wa__chan_at(tx->ch, WA__HANDLE_TX) : NULL;
    if (!ch)
        return wa_misuse(WA_ESTALE, "wa_tx_try_send: the sender was dropped");
    if (!elem)
        return wa_misuse(WA_EINVAL, "wa_tx_try_send: NULL element");
    bool sh = wa__sync_shared(&ch->lock);
    wa_waker wake = {NULL, NULL};
    wa__sync_lock(&ch->lock, sh);
    if (!ch->rx_alive)
        return wa__chan_unlock(ch, sh, &wake, WA_ECLOSED);
    if (ch->len + ch->reserved >= ch->cap)
        return wa__chan_unlock(ch, sh, &wake, WA_EAGAIN);
    wa__chan_push(ch, sh, elem, &wake);
    return wa__chan_unlock(ch, sh, &wake, 0);
}

int wa_rx_try_recv(wa_rx *rx, void *out)
{
    wa_chan *ch = rx ? wa__chan_at(rx->ch, WA__HANDLE_RX) : NULL;
    if (!ch)
        return wa_misuse(WA_ESTALE, "wa_rx_try_recv: the receiver was dropped");
    if (!out)
        return wa_misuse(WA_EINVAL, "wa_rx_try_recv: NULL out");
    bool sh = wa__sync_shared(&ch->lock);
    wa_waker wake = {NULL, NULL};
    wa__sync_lock(&ch->lock, sh);
    if (ch->len) {
        wa__chan_pop(ch, sh, out, &wake);
        return wa__chan_unlock(ch, sh, &wake, 0);
    }
    return wa__chan_unlock(ch, sh, &wake, ch->senders ? WA_EAGAIN : WA_ECLOSED);
}

/* Ends a send or receive future, which no longer holds the locked channel:
 * unlocks it (wakes *wake) and returns rc. */
static inline int wa__chan_finish(wa_chan *ch, bool sh, wa__waiter *w, wa_waker *wake, int rc)
{
    w->state = WA__W_DONE;
    wa_waker_drop(&w->waker);
    return wa__chan_unref_unlock(ch, sh, wake, rc);
}

/* The start of a send or receive poll (what: its words, "send", for the
 * misuse of a finished one): NULL (status in *rc) if the future is
 * finished or has no channel, else its channel, locked. */
static inline wa_chan *wa__chan_enter(wa_chan *ch, bool sh, wa__waiter *w, const char *what, int *rc)
{
    if (wa__waiter_state(w) == WA__W_DONE) { /* its channel may be freed */
        *rc = wa__misuse_done(NULL, what);
        return NULL;
    }
    if (!ch) {
        w->state = WA__W_DONE;
        *rc = WA_ESTALE;
        return NULL;
    }
    wa__sync_lock(&ch->lock, sh);
    return ch;
}

/* sh: a constant in each of the two polls below, so that an unshared
 * channel's has no trace of the lock. */
static inline __attribute__((always_inline)) int wa__send_poll_in(wa_future *f, wa_cx *cx, bool sh)
{
    wa_send *s = (wa_send *)f;
    wa_waker wake = {NULL, NULL};
    int rc;
    wa_chan *ch = wa__chan_enter(s->ch, sh, &s->w, "send", &rc);
    if (!ch)
        return rc == WA_ESTALE ? wa_misuse(WA_ESTALE, "wa_send: the sender was dropped") : rc;
    if (!s->elem) {
        wa__chan_finish(ch, sh, &s->w, &wake, 0);
        return wa_misuse(WA_EINVAL, "wa_send: NULL element");
    }
    int st = s->w.state;
    if (!ch->rx_alive) {
        if (st == WA__W_QUEUED)
            wa__list_remove(&ch->sendq, &s->w.node);
        return wa__chan_finish(ch, sh, &s->w, &wake, WA_ECLOSED);
    }
    if (st == WA__W_QUEUED) {
        wa_waker_store(&s->w.waker, cx);
        return wa__chan_unlock(ch, sh, &wake, WA_PENDING);
    }
    if (st == WA__W_GRANTED) { /* our reserved slot */
        ch->reserved--;
        wa__chan_push(ch, sh, s->elem, &wake);
        return wa__chan_finish(ch, sh, &s->w, &wake, 0);
    }
    if (ch->len + ch->reserved < ch->cap) {
        if (!wa_coop_proceed(cx))
            return wa__chan_unlock(ch, sh, &wake, WA_PENDING);
        wa__chan_push(ch, sh, s->elem, &wake);
        return wa__chan_finish(ch, sh, &s->w, &wake, 0);
    }
    if (wa__sync_refused(&ch->lock, cx)) {
        wa__chan_finish(ch, sh, &s->w, &wake, 0);
        return wa__sync_refuse("wa_send");
    }
    wa__waitq_push(&ch->sendq, &s->w, cx);
    return wa__chan_unlock(ch, sh, &wake, WA_PENDING);
}

/* The drop of a send that did not finish (out of line: the drop of one
 * that did, every completed await's, stays a leaf). */
static __attribute__((noinline)) void wa__send_cancel(wa_send *s)
{
    wa_chan *ch = s->ch;
    wa_waker wake = {NULL, NULL};
    bool sh = wa__sync_shared(&ch->lock);
    wa__sync_lock(&ch->lock, sh);
    if (wa__waiter_cancel(&ch->sendq, &s->w) == WA__W_GRANTED && ch->rx_alive) {
        ch->reserved--; /* pass the reservation on */
        wa__chan_grant_sender(ch, sh, &wake);
    }
    wa__chan_unref_unlock(ch, sh, &wake, 0);
}

static void wa__send_drop(wa_future *f)
{
    wa_send *s = (wa_send *)f;
    if (s->ch && wa__waiter_state(&s->w) != WA__W_DONE)
        wa__send_cancel(s);
}

static int wa__send_poll(wa_future *f, wa_cx *cx) { return wa__send_poll_in(f, cx, false); }
static int wa__send_poll_shared(wa_future *f, wa_cx *cx) { return wa__send_poll_in(f, cx, true); }
static const wa_future_vt wa__send_vt = {wa__send_poll, wa__send_drop, "send"};
static const wa_future_vt wa__send_shared_vt = {wa__send_poll_shared, wa__send_drop, "send"};

/* A new send or receive future f of shared ch takes vt and a reference of
 * ch, under its lock (out of line, so that the unshared init stays short).
 * Returns f. */
static __attribute__((noinline)) wa_future *wa__chan_ref_shared(wa_chan *ch, wa_future *f, const wa_future_vt *vt)
{
    f->vt = vt;
    wa__sync_lock(&ch->lock, true);
    ch->refs++;
    wa__sync_unlock(&ch->lock, true);
    return f;
}

wa_future *wa_send_init(wa_send *s, wa_tx *tx, const void *elem)
{
    wa_chan *ch = tx ? wa__chan_at(tx->ch, WA__HANDLE_TX) : NULL;
    s->fut.vt = &wa__send_vt;
    s->ch = ch;
    s->elem = elem;
    wa__waiter_init(&s->w, 1);
    if (!ch)
        return &s->fut;
    if (wa__sync_shared(&ch->lock))
        return wa__chan_ref_shared(ch, &s->fut, &wa__send_shared_vt);
    ch->refs++;
    return &s->fut;
}

static inline __attribute__((always_inline)) int wa__recv_poll_in(wa_future *f, wa_cx *cx, bool sh)
{
    wa_recv *r = (wa_recv *)f;
    wa_waker wake = {NULL, NULL};
    int rc;
    wa_chan *ch = wa__chan_enter(r->ch, sh, &r->w, "receive", &rc);
    if (!ch)
        return rc == WA_ESTALE ? wa_misuse(WA_ESTALE, "wa_recv: the receiver was dropped") : rc;
    if (!r->out) {
        wa__chan_finish(ch, sh, &r->w, &wake, 0);
        return wa_misuse(WA_EINVAL, "wa_recv: NULL out");
    }
    int st = r->w.state;
    if (ch->len) {
        if (st == WA__W_IDLE && !wa_coop_proceed(cx))
            return wa__chan_unlock(ch, sh, &wake, WA_PENDING);
        if (st == WA__W_QUEUED)
            wa__list_remove(&ch->recvq, &r->w.node);
        wa__chan_pop(ch, sh, r->out, &wake);
        return wa__chan_finish(ch, sh, &r->w, &wake, 0);
    }
    if (!ch->senders) {
        if (st == WA__W_QUEUED)
            wa__list_remove(&ch->recvq, &r->w.node);
        return wa__chan_finish(ch, sh, &r->w, &wake, WA_ECLOSED);
    }
    if (st == WA__W_QUEUED) {
        wa_waker_store(&r->w.waker, cx);
    } else if (wa__sync_refused(&ch->lock, cx)) {
        wa__chan_finish(ch, sh, &r->w, &wake, 0);
        return wa__sync_refuse("wa_recv");
    } else {
        wa__waitq_push(&ch->recvq, &r->w, cx);
    }
    return wa__chan_unlock(ch, sh, &wake, WA_PENDING);
}

/* The drop of a receive that did not finish (out of line, as
 * wa__send_cancel). */
static __attribute__((noinline)) void wa__recv_cancel(wa_recv *r)
{
    wa_chan *ch = r->ch;
    wa_waker wake = {NULL, NULL};
    bool sh = wa__sync_shared(&ch->lock);
    wa__sync_lock(&ch->lock, sh);
    if (wa__waiter_cancel(&ch->recvq, &r->w) == WA__W_GRANTED && ch->len && !wa__list_empty(&ch->recvq))
        wa__waitq_grant_head(&ch->recvq, sh, &wake); /* the turn we did not use */
    wa__chan_unref_unlock(ch, sh, &wake, 0);
}

static void wa__recv_drop(wa_future *f)
{
    wa_recv *r = (wa_recv *)f;
    if (r->ch && wa__waiter_state(&r->w) != WA__W_DONE)
        wa__recv_cancel(r);
}

static int wa__recv_poll(wa_future *f, wa_cx *cx) { return wa__recv_poll_in(f, cx, false); }
static int wa__recv_poll_shared(wa_future *f, wa_cx *cx) { return wa__recv_poll_in(f, cx, true); }
static const wa_future_vt wa__recv_vt = {wa__recv_poll, wa__recv_drop, "recv"};
static const wa_future_vt wa__recv_shared_vt = {wa__recv_poll_shared, wa__recv_drop, "recv"};

wa_future *wa_recv_init(wa_recv *r, wa_rx *rx, void *out)
{
    wa_chan *ch = rx ? wa__chan_at(rx->ch, WA__HANDLE_RX) : NULL;
    r->fut.vt = &wa__recv_vt;
    r->ch = ch;
    r->out = out;
    wa__waiter_init(&r->w, 1);
    if (!ch)
        return &r->fut;
    if (wa__sync_shared(&ch->lock))
        return wa__chan_ref_shared(ch, &r->fut, &wa__recv_shared_vt);
    ch->refs++;
    return &r->fut;
}
