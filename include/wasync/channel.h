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
 * is one receiver, but the wa_rx struct may be copied to several tasks of
 * the runtime: each element then goes to exactly one receive, in the order
 * the receives waited, and the channel closes for the senders when any copy
 * is dropped (drop it once; the other copies must not be used after). */
typedef struct wa_tx { wa_chan *ch; } wa_tx;
typedef struct wa_rx { wa_chan *ch; } wa_rx;

/* Creates a bounded channel of cap (>= 1) elements of elem_size bytes.
 * Returns 0, WA_EINVAL or WA_ENOMEM. */
int wa_mpsc_new(size_t cap, size_t elem_size, wa_tx *tx, wa_rx *rx);

/* A oneshot is a channel of capacity one used once. */
static inline int wa_oneshot_new(size_t elem_size, wa_tx *tx, wa_rx *rx)
{
    return wa_mpsc_new(1, elem_size, tx, rx);
}

/* Returns a new sender for tx's channel. */
wa_tx wa_tx_clone(const wa_tx *tx);

/* Drop an end (the channel closes for the other side when appropriate).
 * Return 0, or WA_EMISUSE on a double drop. */
int wa_tx_drop(wa_tx *tx);
int wa_rx_drop(wa_rx *rx);

/* Non-blocking: 0, WA_EAGAIN (full / empty) or WA_ECLOSED. */
int wa_tx_try_send(wa_tx *tx, const void *elem);
int wa_rx_try_recv(wa_rx *rx, void *out);

/* Number of elements queued in the end's channel. */
size_t wa_tx_len(const wa_tx *tx);
size_t wa_rx_len(const wa_rx *rx);

/* Send: waits while the channel is full. elem is borrowed until the
 * future completes or is dropped. Status 0 or WA_ECLOSED. */
typedef struct wa_send {
    wa_future fut;
    wa_waiter w;
    wa_chan *ch;
    const void *elem;
} wa_send;
wa_future *wa_send_init(wa_send *s, wa_tx *tx, const void *elem);

/* Receive into out (borrowed): status 0, or WA_ECLOSED once the channel is
 * empty and every sender is gone. */
typedef struct wa_recv {
    wa_future fut;
    wa_waiter w;
    wa_chan *ch;
    void *out;
} wa_recv;
wa_future *wa_recv_init(wa_recv *r, wa_rx *rx, void *out);

#ifdef __cplusplus
}
#endif
#endif
