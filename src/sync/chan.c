/* SPDX-License-Identifier: MIT */
/* Bounded mpsc channel (and oneshot): a ring buffer of fixed-size elements.
 *
 * Elements always go through the buffer, never straight into a waiting
 * receiver, so a receive future dropped after being woken has taken
 * nothing and loses nothing. A slot freed while senders wait is reserved
 * for the first of them, so senders get in in the order they waited; one
 * that is dropped before using its reservation passes it on.
 */
#include <stdlib.h>
#include <string.h>

#include "../core/copy.h"
#include "waitq.h"
#include "wasync/channel.h"

struct wa_chan {
    size_t cap, elem_size, head, len;
    size_t reserved;  /* free slots held for woken senders */
    size_t senders;   /* live wa_tx */
    size_t refs;      /* ends plus unfinished futures */
    int rx_alive;
    wa_waitq sendq, recvq;
    _Alignas(16) unsigned char buf[];
};

static void wa_chan_unref(wa_chan *ch)
{
    if (--ch->refs == 0)
        free(ch);
}

int wa_mpsc_new(size_t cap, size_t elem_size, wa_tx *tx, wa_rx *rx)
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
    tx->ch = rx->ch = ch;
    return 0;
}

size_t wa_tx_len(const wa_tx *tx) { return tx && tx->ch ? tx->ch->len : 0; }
size_t wa_rx_len(const wa_rx *rx) { return rx && rx->ch ? rx->ch->len : 0; }

wa_tx wa_tx_clone(const wa_tx *tx)
{
    if (!tx || !tx->ch) {
        wa_misuse(WA_ESTALE, "wa_tx_clone: the sender was dropped");
        return (wa_tx){NULL};
    }
    tx->ch->senders++;
    tx->ch->refs++;
    return *tx;
}

int wa_tx_drop(wa_tx *tx)
{
    wa_chan *ch = tx ? tx->ch : NULL;
    if (!ch)
        return wa_misuse(WA_EMISUSE, "wa_tx_drop: the sender was dropped already");
    tx->ch = NULL;
    if (--ch->senders == 0)
        wa_waitq_grant_all(&ch->recvq); /* they will see the close */
    wa_chan_unref(ch);
    return 0;
}

int wa_rx_drop(wa_rx *rx)
{
    wa_chan *ch = rx ? rx->ch : NULL;
    if (!ch)
        return wa_misuse(WA_EMISUSE, "wa_rx_drop: the receiver was dropped already");
    rx->ch = NULL;
    ch->rx_alive = 0;
    ch->len = 0;
    wa_waitq_grant_all(&ch->sendq);
    wa_chan_unref(ch);
    return 0;
}

static void wa_chan_push(wa_chan *ch, const void *elem)
{
    size_t tail = ch->head + ch->len;
    if (tail >= ch->cap)
        tail -= ch->cap;
    wa_memcpy_(ch->buf + tail * ch->elem_size, elem, ch->elem_size);
    ch->len++;
    if (ch->recvq.head)
        wa_waitq_grant_head(&ch->recvq);
}

/* Hands a free, unreserved slot to the first waiting sender. */
static void wa_chan_grant_sender(wa_chan *ch)
{
    if (ch->sendq.head && ch->len + ch->reserved < ch->cap) {
        ch->reserved++;
        wa_waitq_grant_head(&ch->sendq);
    }
}

static void wa_chan_pop(wa_chan *ch, void *out)
{
    wa_memcpy_(out, ch->buf + ch->head * ch->elem_size, ch->elem_size);
    ch->head = ch->head + 1 == ch->cap ? 0 : ch->head + 1;
    ch->len--;
    wa_chan_grant_sender(ch);
}

int wa_tx_try_send(wa_tx *tx, const void *elem)
{
    wa_chan *ch = tx ? tx->ch : NULL;
    if (!ch)
        return wa_misuse(WA_ESTALE, "wa_tx_try_send: the sender was dropped");
    if (!elem)
        return wa_misuse(WA_EINVAL, "wa_tx_try_send: NULL element");
    if (!ch->rx_alive)
        return WA_ECLOSED;
    if (ch->len + ch->reserved >= ch->cap)
        return WA_EAGAIN;
    wa_chan_push(ch, elem);
    return 0;
}

int wa_rx_try_recv(wa_rx *rx, void *out)
{
    wa_chan *ch = rx ? rx->ch : NULL;
    if (!ch)
        return wa_misuse(WA_ESTALE, "wa_rx_try_recv: the receiver was dropped");
    if (!out)
        return wa_misuse(WA_EINVAL, "wa_rx_try_recv: NULL out");
    if (ch->len) {
        wa_chan_pop(ch, out);
        return 0;
    }
    return ch->senders ? WA_EAGAIN : WA_ECLOSED;
}

/* Ends a send or receive future: it no longer holds the channel. */
static int wa_chan_finish(wa_chan *ch, wa_waiter *w, int rc)
{
    w->state = WA_W_DONE;
    wa_waker_drop(&w->waker);
    wa_chan_unref(ch);
    return rc;
}

static int wa_send_poll(wa_future *f, wa_cx *cx)
{
    wa_send *s = (wa_send *)f;
    wa_chan *ch = s->ch;
    int st = s->w.state;
    if (st == WA_W_DONE)
        return wa_misuse(WA_EMISUSE, "poll of a finished or freed send");
    if (!ch || !s->elem) {
        s->w.state = WA_W_DONE;
        if (ch)
            wa_chan_unref(ch);
        return ch ? wa_misuse(WA_EINVAL, "wa_send: NULL element") : wa_misuse(WA_ESTALE, "wa_send: the sender was dropped");
    }
    if (!ch->rx_alive) {
        if (st == WA_W_QUEUED)
            wa_waitq_remove(&ch->sendq, &s->w);
        return wa_chan_finish(ch, &s->w, WA_ECLOSED);
    }
    if (st == WA_W_QUEUED) {
        wa_waker_store(&s->w.waker, cx);
        return WA_PENDING;
    }
    if (st == WA_W_GRANTED) { /* our reserved slot */
        ch->reserved--;
        wa_chan_push(ch, s->elem);
        return wa_chan_finish(ch, &s->w, 0);
    }
    if (ch->len + ch->reserved < ch->cap) {
        if (!wa_coop_proceed(cx))
            return WA_PENDING;
        wa_chan_push(ch, s->elem);
        return wa_chan_finish(ch, &s->w, 0);
    }
    wa_waitq_push(&ch->sendq, &s->w, cx);
    return WA_PENDING;
}

static void wa_send_drop(wa_future *f)
{
    wa_send *s = (wa_send *)f;
    wa_chan *ch = s->ch;
    if (!ch || s->w.state == WA_W_DONE)
        return;
    if (wa_waiter_cancel(&ch->sendq, &s->w) == WA_W_GRANTED && ch->rx_alive) {
        ch->reserved--; /* pass the reservation on */
        wa_chan_grant_sender(ch);
    }
    wa_chan_unref(ch);
}

static const wa_future_vt wa_send_vt = {wa_send_poll, wa_send_drop, "send"};

wa_future *wa_send_init(wa_send *s, wa_tx *tx, const void *elem)
{
    s->fut.vt = &wa_send_vt;
    s->ch = tx ? tx->ch : NULL;
    s->elem = elem;
    wa_waiter_init(&s->w, 1);
    if (s->ch)
        s->ch->refs++;
    return &s->fut;
}

static int wa_recv_poll(wa_future *f, wa_cx *cx)
{
    wa_recv *r = (wa_recv *)f;
    wa_chan *ch = r->ch;
    if (r->w.state == WA_W_DONE)
        return wa_misuse(WA_EMISUSE, "poll of a finished or freed receive");
    if (!ch || !r->out) {
        r->w.state = WA_W_DONE;
        if (ch)
            wa_chan_unref(ch);
        return ch ? wa_misuse(WA_EINVAL, "wa_recv: NULL out") : wa_misuse(WA_ESTALE, "wa_recv: the receiver was dropped");
    }
    if (ch->len) {
        if (r->w.state == WA_W_IDLE && !wa_coop_proceed(cx))
            return WA_PENDING;
        if (r->w.state == WA_W_QUEUED)
            wa_waitq_remove(&ch->recvq, &r->w);
        wa_chan_pop(ch, r->out);
        return wa_chan_finish(ch, &r->w, 0);
    }
    if (!ch->senders) {
        if (r->w.state == WA_W_QUEUED)
            wa_waitq_remove(&ch->recvq, &r->w);
        return wa_chan_finish(ch, &r->w, WA_ECLOSED);
    }
    if (r->w.state == WA_W_QUEUED)
        wa_waker_store(&r->w.waker, cx);
    else
        wa_waitq_push(&ch->recvq, &r->w, cx);
    return WA_PENDING;
}

static void wa_recv_drop(wa_future *f)
{
    wa_recv *r = (wa_recv *)f;
    wa_chan *ch = r->ch;
    if (!ch || r->w.state == WA_W_DONE)
        return;
    if (wa_waiter_cancel(&ch->recvq, &r->w) == WA_W_GRANTED && ch->len && ch->recvq.head)
        wa_waitq_grant_head(&ch->recvq);
    wa_chan_unref(ch);
}

static const wa_future_vt wa_recv_vt = {wa_recv_poll, wa_recv_drop, "recv"};

wa_future *wa_recv_init(wa_recv *r, wa_rx *rx, void *out)
{
    r->fut.vt = &wa_recv_vt;
    r->ch = rx ? rx->ch : NULL;
    r->out = out;
    wa_waiter_init(&r->w, 1);
    if (r->ch)
        r->ch->refs++;
    return &r->fut;
}
