/* SPDX-License-Identifier: MIT */
/* Broadcast and watch channels: one ring of elements numbered from 0 as
 * they are sent (tail: the number of the next), read by every receiver at
 * its own position, which lives in the receiver's struct. The ring keeps
 * the last cap elements; a receiver behind them has lagged.
 *
 * A watch is the same ring of one element whose receive takes the newest
 * and skips the others (latest): its position is the version seen, and
 * its first value is element 0, seen by the first receiver.
 *
 * A send wakes every waiting receive, and nothing is handed to a waiter:
 * a woken receive reads the ring when it runs. So a receive dropped
 * before it completed (woken or not) has taken nothing and has nothing to
 * pass on. The channel is one allocation, freed with the last of its ends
 * and unfinished receives (refs); one made for threads (the _shared
 * variants) holds its lock around every look at its state, as chan.c's
 * does.
 *
 * An end's ch is a key of the handle table (core/handles.h), one per end,
 * so that a copy of a dropped end is found out. Each call names itself in
 * its misuse reports (call), as its kind of end (kind) tells them apart. */
#include <stdlib.h>
#include <string.h>

#include "../core/copy.h"
#include "../core/handles.h"
#include "waitq.h"
#include "wasync/channel.h"

struct wa_broadcast {
    size_t cap, elem_size;
    uint64_t tail;     /* elements sent; the newest is tail - 1 */
    size_t senders;    /* live sender ends */
    size_t receivers;  /* live receiver ends */
    size_t refs;       /* ends plus unfinished receives */
    int latest;        /* a watch: a receive takes the newest */
    unsigned lock;     /* lock.h: WA__LOCK_NONE unless made for threads */
    wa__waitq q;       /* receives waiting for an element */
    _Alignas(16) unsigned char buf[];
};

/* The handle kinds of a broadcast's ends and of a watch's. */
enum { WA__BC_TX = WA__HANDLE_BROADCAST_TX, WA__BC_RX = WA__HANDLE_BROADCAST_RX };
enum { WA__WATCH_TX = WA__HANDLE_WATCH_TX, WA__WATCH_RX = WA__HANDLE_WATCH_RX };

/* Where element n is (or was) kept. */
static inline unsigned char *wa__bc_slot(wa_broadcast *b, uint64_t n)
{
    return b->buf + (size_t)(n % b->cap) * b->elem_size;
}

/* The channel of end h of kind, or NULL reported as misuse of call (NULL,
 * or dropped through this copy or another). */
static wa_broadcast *wa__bc_at(wa_broadcast *const *h, unsigned kind, const char *call)
{
    wa_broadcast *b = h ? wa__handle_get((uintptr_t)*h, kind) : NULL;
    if (!b)
        wa__misuse_in(WA_ESTALE, call, "the end was dropped (through this copy or another), or is NULL");
    return b;
}

/* Drops a reference of locked b, then unlocks it, freeing it if that was
 * the last. */
static void wa__bc_unref_unlock(wa_broadcast *b, bool sh)
{
    bool last = --b->refs == 0;
    wa__sync_unlock(&b->lock, sh);
    if (last)
        free(b);
}

/* A new end of kind (tx: a sender) to b in *h: 0 or WA_ENOMEM. *at_tail
 * (if not NULL) receives the tail: a receiver there gets what is sent
 * from now on. */
static int wa__bc_end(wa_broadcast *b, unsigned kind, bool tx, wa_broadcast **h, uint64_t *at_tail)
{
    uintptr_t k;
    *h = NULL;
    if (wa__handle_new(b, kind, &k) < 0)
        return WA_ENOMEM;
    *h = (wa_broadcast *)k;
    wa__sync_take(&b->lock);
    if (at_tail)
        *at_tail = b->tail;
    if (tx)
        b->senders++;
    else
        b->receivers++;
    b->refs++;
    wa__sync_give(&b->lock);
    return 0;
}

/* Makes a channel and its first ends, the receiver's at *next; init (a
 * watch's) is element 0. The receivers' kind follows the senders'. */
static int wa__bc_make(size_t cap, size_t elem_size, const void *init, unsigned lock, unsigned kind,
                       wa_broadcast **tx, wa_broadcast **rx, uint64_t *next, const char *call)
{
    if (!tx || !rx || (kind == WA__WATCH_TX && !init))
        return wa__misuse_in(WA_EINVAL, call, !tx || !rx ? "NULL end" : "NULL initial value");
    *tx = *rx = NULL;
    if (cap == 0 || elem_size == 0 || cap > SIZE_MAX / 2 / elem_size)
        return WA_EINVAL;
    wa_broadcast *b = calloc(1, sizeof *b + cap * elem_size);
    if (!b)
        return WA_ENOMEM;
    b->cap = cap;
    b->elem_size = elem_size;
    b->lock = lock;
    if (init) {
        b->latest = 1;
        wa__memcpy(b->buf, init, elem_size);
        b->tail = 1;
    }
    int rc = wa__bc_end(b, kind, true, tx, NULL);
    if (rc == 0)
        rc = wa__bc_end(b, kind + 1, false, rx, next);
    if (rc < 0) {
        if (*tx)
            wa__handle_release((uintptr_t)*tx);
        *tx = NULL;
        free(b);
    }
    return rc;
}

/* A broadcast's and a watch's make, of lock (WA__LOCK_NONE or _FREE) for
 * call. */
static int wa__broadcast_make(size_t cap, size_t elem_size, wa_broadcast_tx *tx, wa_broadcast_rx *rx,
                              unsigned lock, const char *call)
{
    if (rx)
        rx->missed = 0;
    return wa__bc_make(cap, elem_size, NULL, lock, WA__BC_TX, tx ? &tx->ch : NULL, rx ? &rx->ch : NULL,
                       rx ? &rx->next : NULL, call);
}

static int wa__watch_make(size_t elem_size, const void *init, wa_watch_tx *tx, wa_watch_rx *rx, unsigned lock,
                          const char *call)
{
    return wa__bc_make(1, elem_size, init, lock, WA__WATCH_TX, tx ? &tx->ch : NULL, rx ? &rx->ch : NULL,
                       rx ? &rx->seen : NULL, call);
}

int wa_broadcast_new(size_t cap, size_t elem_size, wa_broadcast_tx *tx, wa_broadcast_rx *rx)
{
    return wa__broadcast_make(cap, elem_size, tx, rx, WA__LOCK_NONE, "wa_broadcast_new");
}

int wa_broadcast_new_shared(size_t cap, size_t elem_size, wa_broadcast_tx *tx, wa_broadcast_rx *rx)
{
    return wa__broadcast_make(cap, elem_size, tx, rx, WA__LOCK_FREE, "wa_broadcast_new_shared");
}

int wa_watch_new(size_t elem_size, const void *init, wa_watch_tx *tx, wa_watch_rx *rx)
{
    return wa__watch_make(elem_size, init, tx, rx, WA__LOCK_NONE, "wa_watch_new");
}

int wa_watch_new_shared(size_t elem_size, const void *init, wa_watch_tx *tx, wa_watch_rx *rx)
{
    return wa__watch_make(elem_size, init, tx, rx, WA__LOCK_FREE, "wa_watch_new_shared");
}

/* A new end of kind (tx: a sender) of the channel of end h of
 * from_kind; a receiver at *from_next, or at the tail when from_next is
 * NULL, its position in *next. */
static wa_broadcast *wa__bc_new_end(wa_broadcast *const *h, unsigned from_kind, unsigned kind, bool tx,
                                    uint64_t *next, const uint64_t *from_next, const char *call)
{
    wa_broadcast *b = wa__bc_at(h, from_kind, call), *end = NULL;
    if (b && wa__bc_end(b, kind, tx, &end, tx || from_next ? NULL : next) == 0 && from_next)
        *next = *from_next;
    return end;
}

wa_broadcast_tx wa_broadcast_tx_clone(const wa_broadcast_tx *tx)
{
    wa_broadcast_tx c = {wa__bc_new_end(tx ? &tx->ch : NULL, WA__BC_TX, WA__BC_TX, true, NULL, NULL,
                                        "wa_broadcast_tx_clone")};
    return c;
}

wa_broadcast_rx wa_broadcast_tx_subscribe(const wa_broadcast_tx *tx)
{
    wa_broadcast_rx r = {NULL, 0, 0};
    r.ch = wa__bc_new_end(tx ? &tx->ch : NULL, WA__BC_TX, WA__BC_RX, false, &r.next, NULL, "wa_broadcast_tx_subscribe");
    return r;
}

wa_broadcast_rx wa_broadcast_rx_subscribe(const wa_broadcast_rx *rx)
{
    wa_broadcast_rx r = {NULL, 0, 0};
    r.ch = wa__bc_new_end(rx ? &rx->ch : NULL, WA__BC_RX, WA__BC_RX, false, &r.next, NULL, "wa_broadcast_rx_subscribe");
    return r;
}

wa_watch_tx wa_watch_tx_clone(const wa_watch_tx *tx)
{
    wa_watch_tx c = {wa__bc_new_end(tx ? &tx->ch : NULL, WA__WATCH_TX, WA__WATCH_TX, true, NULL, NULL,
                                    "wa_watch_tx_clone")};
    return c;
}

wa_watch_rx wa_watch_tx_subscribe(const wa_watch_tx *tx)
{
    wa_watch_rx r = {NULL, 0};
    r.ch = wa__bc_new_end(tx ? &tx->ch : NULL, WA__WATCH_TX, WA__WATCH_RX, false, &r.seen, NULL,
                          "wa_watch_tx_subscribe");
    return r;
}

wa_watch_rx wa_watch_rx_clone(const wa_watch_rx *rx)
{
    wa_watch_rx r = {NULL, 0};
    r.ch = wa__bc_new_end(rx ? &rx->ch : NULL, WA__WATCH_RX, WA__WATCH_RX, false, &r.seen, rx ? &rx->seen : NULL,
                          "wa_watch_rx_clone");
    return r;
}

/* Drops end *h of kind (tx: a sender); the last sender's drop wakes every
 * receive, to see the close. */
static int wa__bc_drop(wa_broadcast **h, unsigned kind, bool tx, const char *call)
{
    wa_broadcast *b = h ? wa__handle_get((uintptr_t)*h, kind) : NULL;
    if (!b)
        return wa__misuse_in(WA_EMISUSE, call, "dropped already (through this copy or another), or NULL");
    wa__handle_release((uintptr_t)*h);
    *h = NULL;
    bool sh = wa__sync_shared(&b->lock);
    wa__sync_lock(&b->lock, sh);
    if (!tx)
        b->receivers--;
    else if (--b->senders == 0)
        wa__waitq_grant_all(&b->q, &b->lock, sh);
    wa__bc_unref_unlock(b, sh);
    return 0;
}

int wa_broadcast_tx_drop(wa_broadcast_tx *tx)
{
    return wa__bc_drop(tx ? &tx->ch : NULL, WA__BC_TX, true, "wa_broadcast_tx_drop");
}

int wa_broadcast_rx_drop(wa_broadcast_rx *rx)
{
    return wa__bc_drop(rx ? &rx->ch : NULL, WA__BC_RX, false, "wa_broadcast_rx_drop");
}

int wa_watch_tx_drop(wa_watch_tx *tx)
{
    return wa__bc_drop(tx ? &tx->ch : NULL, WA__WATCH_TX, true, "wa_watch_tx_drop");
}

int wa_watch_rx_drop(wa_watch_rx *rx)
{
    return wa__bc_drop(rx ? &rx->ch : NULL, WA__WATCH_RX, false, "wa_watch_rx_drop");
}

/* Appends a copy of elem (a watch: replaces the value, copied first into
 * old if not NULL) and wakes every receive. Returns the receivers. */
static int wa__bc_send(wa_broadcast *const *h, unsigned kind, const void *elem, void *old, const char *call)
{
    wa_broadcast *b = wa__bc_at(h, kind, call);
    if (!b)
        return WA_ESTALE;
    if (!elem)
        return wa__misuse_in(WA_EINVAL, call, "NULL element");
    bool sh = wa__sync_shared(&b->lock);
    wa__sync_lock(&b->lock, sh);
    if (old)
        wa__memcpy(old, wa__bc_slot(b, b->tail - 1), b->elem_size);
    wa__memcpy(wa__bc_slot(b, b->tail), elem, b->elem_size);
    b->tail++;
    int n = b->receivers > INT32_MAX ? INT32_MAX : (int)b->receivers;
    wa__waitq_grant_all(&b->q, &b->lock, sh);
    wa__sync_unlock(&b->lock, sh);
    return n;
}

int wa_broadcast_tx_send(wa_broadcast_tx *tx, const void *elem)
{
    return wa__bc_send(tx ? &tx->ch : NULL, WA__BC_TX, elem, NULL, "wa_broadcast_tx_send");
}

int wa_watch_tx_send(wa_watch_tx *tx, const void *value)
{
    return wa__bc_send(tx ? &tx->ch : NULL, WA__WATCH_TX, value, NULL, "wa_watch_tx_send");
}

int wa_watch_tx_replace(wa_watch_tx *tx, const void *value, void *old)
{
    if (!old)
        return wa_misuse(WA_EINVAL, "wa_watch_tx_replace: NULL old");
    return wa__bc_send(tx ? &tx->ch : NULL, WA__WATCH_TX, value, old, "wa_watch_tx_replace");
}

/* With b locked and an element past *next: takes the next (a watch: the
 * newest) into out (NULL: none), or says WA_ELAGGED with what was missed
 * in *missed and moves *next to the oldest kept. */
static int wa__bc_take(wa_broadcast *b, uint64_t *next, uint64_t *missed, void *out)
{
    uint64_t n = b->latest ? b->tail - 1 : *next;
    if (b->tail - n > b->cap) {
        *missed = b->tail - b->cap - n;
        *next = b->tail - b->cap;
        return WA_ELAGGED;
    }
    if (out)
        wa__memcpy(out, wa__bc_slot(b, n), b->elem_size);
    *next = n + 1;
    return 0;
}

int wa_broadcast_rx_try_recv(wa_broadcast_rx *rx, void *out)
{
    wa_broadcast *b = wa__bc_at(rx ? &rx->ch : NULL, WA__BC_RX, "wa_broadcast_rx_try_recv");
    if (!b)
        return WA_ESTALE;
    if (!out)
        return wa_misuse(WA_EINVAL, "wa_broadcast_rx_try_recv: NULL out");
    wa__sync_take(&b->lock);
    int rc = rx->next != b->tail ? wa__bc_take(b, &rx->next, &rx->missed, out) : b->senders ? WA_EAGAIN : WA_ECLOSED;
    wa__sync_give(&b->lock);
    return rc;
}

uint64_t wa_broadcast_rx_missed(const wa_broadcast_rx *rx) { return rx ? rx->missed : 0; }

/* How many elements were sent past *next of end h of kind into *n, and
 * whether every sender is gone into *closed: 0, or WA_ESTALE (reported). */
static int wa__bc_unseen(wa_broadcast *const *h, unsigned kind, const uint64_t *next, uint64_t *n, int *closed,
                         const char *call)
{
    wa_broadcast *b = wa__bc_at(h, kind, call);
    *n = 0;
    if (!b)
        return WA_ESTALE;
    wa__sync_take(&b->lock);
    *n = b->tail - *next;
    *closed = !b->senders;
    wa__sync_give(&b->lock);
    return 0;
}

uint64_t wa_broadcast_rx_len(const wa_broadcast_rx *rx)
{
    uint64_t n;
    int closed;
    wa__bc_unseen(rx ? &rx->ch : NULL, WA__BC_RX, rx ? &rx->next : NULL, &n, &closed, "wa_broadcast_rx_len");
    return n;
}

int wa_watch_rx_has_changed(const wa_watch_rx *rx)
{
    uint64_t n;
    int closed, rc = wa__bc_unseen(rx ? &rx->ch : NULL, WA__WATCH_RX, rx ? &rx->seen : NULL, &n, &closed,
                                   "wa_watch_rx_has_changed");
    return rc < 0 ? rc : n ? 1 : closed ? WA_ECLOSED : 0;
}

int wa_watch_rx_read(wa_watch_rx *rx, void *out)
{
    wa_broadcast *b = wa__bc_at(rx ? &rx->ch : NULL, WA__WATCH_RX, "wa_watch_rx_read");
    if (!b)
        return WA_ESTALE;
    if (!out)
        return wa_misuse(WA_EINVAL, "wa_watch_rx_read: NULL out");
    uint64_t none;
    wa__sync_take(&b->lock);
    wa__bc_take(b, &rx->seen, &none, out); /* (the newest is always kept) */
    wa__sync_give(&b->lock);
    return 0;
}

/* The receive future (a broadcast's recv, a watch's changed): its call's
 * name, for reports. */
static const char *wa__bc_call(const wa_future *f);

/* Ends receive r with b locked: unlocks b (perhaps freeing it) and
 * returns rc. */
static int wa__bc_finish(wa_broadcast *b, bool sh, wa_broadcast_recv *r, int rc)
{
    wa__waiter_cancel(&b->q, &r->w);
    wa__bc_unref_unlock(b, sh);
    return rc;
}

static int wa__bc_recv_poll(wa_future *f, wa_cx *cx)
{
    wa_broadcast_recv *r = (wa_broadcast_recv *)f;
    wa_broadcast *b = r->ch;
    if (wa__waiter_state(&r->w) == WA__W_DONE) /* its channel may be freed */
        return wa__misuse_done(wa__bc_call(f), "receive");
    if (!b) {
        r->w.state = WA__W_DONE;
        return wa__misuse_in(WA_ESTALE, wa__bc_call(f), "the receiver was dropped, or is NULL");
    }
    bool sh = wa__sync_shared(&b->lock);
    wa__sync_lock(&b->lock, sh);
    if (!r->out && !b->latest) {
        wa__bc_finish(b, sh, r, 0);
        return wa__misuse_in(WA_EINVAL, wa__bc_call(f), "NULL out");
    }
    if (*r->next != b->tail) {
        if (r->w.state == WA__W_IDLE && !wa_coop_proceed(cx)) {
            wa__sync_unlock(&b->lock, sh);
            return WA_PENDING;
        }
        return wa__bc_finish(b, sh, r, wa__bc_take(b, r->next, r->missed, r->out));
    }
    if (!b->senders)
        return wa__bc_finish(b, sh, r, WA_ECLOSED);
    if (r->w.state == WA__W_QUEUED) {
        wa_waker_store(&r->w.waker, cx);
    } else if (wa__sync_refused(&b->lock, cx)) {
        wa__bc_finish(b, sh, r, 0);
        return wa__sync_refuse(wa__bc_call(f));
    } else { /* idle, or woken with nothing new: wait (again) */
        wa__waitq_push(&b->q, &r->w, cx);
    }
    wa__sync_unlock(&b->lock, sh);
    return WA_PENDING;
}

/* A receive dropped unfinished leaves its queue; it owns no turn. */
static void wa__bc_recv_drop(wa_future *f)
{
    wa_broadcast_recv *r = (wa_broadcast_recv *)f;
    wa_broadcast *b = r->ch;
    if (!b || wa__waiter_state(&r->w) == WA__W_DONE)
        return;
    bool sh = wa__sync_shared(&b->lock);
    wa__sync_lock(&b->lock, sh);
    wa__waiter_cancel(&b->q, &r->w);
    wa__bc_unref_unlock(b, sh);
}

static const wa_future_vt wa__bc_recv_vt = {wa__bc_recv_poll, wa__bc_recv_drop, "broadcast recv"};
static const wa_future_vt wa__watch_changed_vt = {wa__bc_recv_poll, wa__bc_recv_drop, "watch changed"};

static const char *wa__bc_call(const wa_future *f)
{
    return f->vt == &wa__watch_changed_vt ? "wa_watch_changed" : "wa_broadcast_recv";
}

/* Initialises r, of vt, for the receiver end h of kind at *next. */
static wa_future *wa__bc_recv_init(wa_broadcast_recv *r, const wa_future_vt *vt, wa_broadcast *const *h,
                                   unsigned kind, uint64_t *next, uint64_t *missed, void *out)
{
    wa_broadcast *b = h ? wa__handle_get((uintptr_t)*h, kind) : NULL;
    r->fut.vt = vt;
    r->ch = b;
    r->next = next;
    r->missed = missed;
    r->out = out;
    wa__waiter_init(&r->w, 1);
    if (b) {
        wa__sync_take(&b->lock);
        b->refs++;
        wa__sync_give(&b->lock);
    }
    return &r->fut;
}

wa_future *wa_broadcast_recv_init(wa_broadcast_recv *r, wa_broadcast_rx *rx, void *out)
{
    return wa__bc_recv_init(r, &wa__bc_recv_vt, rx ? &rx->ch : NULL, WA__BC_RX, rx ? &rx->next : NULL,
                            rx ? &rx->missed : NULL, out);
}

wa_future *wa_watch_changed_init(wa_watch_changed *c, wa_watch_rx *rx, void *out)
{
    return wa__bc_recv_init(c, &wa__watch_changed_vt, rx ? &rx->ch : NULL, WA__WATCH_RX, rx ? &rx->seen : NULL,
                            NULL, out);
}
