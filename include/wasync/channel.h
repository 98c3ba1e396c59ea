/* SPDX-License-Identifier: MIT */
/* wasync/channel.h - oneshot and bounded mpsc channels.
 *
 * Channels carry fixed-size elements by copy. A channel is one allocation
 * shared by its ends; it is freed when the last end is dropped. Closing is
 * seen from the other side: when every sender is gone the receiver gets
 * WA_ECLOSED after draining, and when the receiver is gone senders get
 * WA_ECLOSED at once.
 *
 * Cancellation-safe: a send or receive future dropped before it completed
 * had no effect (no element lost or duplicated), and a waiter that was
 * woken but dropped passes its turn on.
 *
 * A channel made by wa_mpsc_new (or wa_oneshot_new) is for the tasks of one
 * local runtime; one made by a _shared variant may be used from any thread
 * and awaited by tasks of a many-threads runtime (wasync/sync.h).
 */
#ifndef WASYNC_CHANNEL_H
#define WASYNC_CHANNEL_H

#include "future.h"
#include "sync.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wa_chan wa_chan;

/* The two ends. Senders may be cloned (each clone is dropped once). There
 * is one receiver, but the wa_rx struct may be copied to several tasks: each element then goes to exactly one receive, in the order
 * the receives waited, and the channel closes for the senders when any copy
 * is dropped (drop it once). ch is a handle, not the channel's address
 * (NULL once dropped through this struct): a struct copy of an end used
 * after the end was dropped through another copy is reported by the call
 * (WA_ESTALE from a send or receive, WA_EMISUSE from a drop) and never
 * touches the channel, which may be gone. */
typedef struct wa_tx { wa_chan *ch; } wa_tx;
typedef struct wa_rx { wa_chan *ch; } wa_rx;

/* Creates a bounded channel of cap (>= 1) elements of elem_size bytes.
 * Returns 0, WA_EINVAL or WA_ENOMEM. */
int wa_mpsc_new(size_t cap, size_t elem_size, wa_tx *tx, wa_rx *rx);
/* The same, shared by threads. */
int wa_mpsc_new_shared(size_t cap, size_t elem_size, wa_tx *tx, wa_rx *rx);

/* A oneshot is a channel of capacity one used once. */
static inline int wa_oneshot_new(size_t elem_size, wa_tx *tx, wa_rx *rx)
{
    return wa_mpsc_new(1, elem_size, tx, rx);
}
/* The same, shared by threads. */
static inline int wa_oneshot_new_shared(size_t elem_size, wa_tx *tx, wa_rx *rx)
{
    return wa_mpsc_new_shared(1, elem_size, tx, rx);
}

/* Returns a new sender for tx's channel (tx borrowed); {NULL} for a
 * dropped tx (reported) or without memory. */
wa_tx wa_tx_clone(const wa_tx *tx);

/* Drops the sender tx (the receiver gets WA_ECLOSED, after draining, once
 * every sender is gone). Returns 0, or WA_EMISUSE on a double drop. */
int wa_tx_drop(wa_tx *tx);
/* Drops the receiver rx (senders then get WA_ECLOSED). Returns 0, or
 * WA_EMISUSE on a double drop. */
int wa_rx_drop(wa_rx *rx);

/* Sends a copy of elem (borrowed) now if there is room: 0, WA_EAGAIN
 * (full) or WA_ECLOSED (the receiver is gone). */
int wa_tx_try_send(wa_tx *tx, const void *elem);
/* Takes the oldest element into out (borrowed) if there is one: 0,
 * WA_EAGAIN (empty) or WA_ECLOSED (empty and every sender gone). */
int wa_rx_try_recv(wa_rx *rx, void *out);

/* Number of elements queued in tx's channel. */
size_t wa_tx_len(const wa_tx *tx);
/* Number of elements queued in rx's channel. */
size_t wa_rx_len(const wa_rx *rx);

/* Send: waits while the channel is full. elem is borrowed until the
 * future completes or is dropped. Status 0 or WA_ECLOSED. */
typedef struct wa_send {
    wa_future fut;
    wa__waiter w;
    wa_chan *ch;
    const void *elem;
} wa_send;
/* Initialises s to send a copy of elem (borrowed) on tx (borrowed);
 * returns the future. */
wa_future *wa_send_init(wa_send *s, wa_tx *tx, const void *elem);

/* Receive into out (borrowed): status 0, or WA_ECLOSED once the channel is
 * empty and every sender is gone. */
typedef struct wa_recv {
    wa_future fut;
    wa__waiter w;
    wa_chan *ch;
    void *out;
} wa_recv;
/* Initialises r to receive from rx (borrowed) into out; returns the future. */
wa_future *wa_recv_init(wa_recv *r, wa_rx *rx, void *out);

#ifdef __cplusplus
}
#endif
#endif
