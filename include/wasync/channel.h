/* SPDX-License-Identifier: MIT */
/* wasync/channel.h - oneshot, bounded mpsc, broadcast and watch channels.
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

/* Broadcast (tokio's broadcast): any number of senders and receivers over
 * one ring of cap elements; every receiver gets, in order, every element
 * sent after it subscribed. A send never waits: it overwrites the oldest
 * element, and a receiver that fell more than cap elements behind is told
 * WA_ELAGGED once, with the count it missed (wa_broadcast_rx_missed), then
 * goes on from the oldest element kept. Once every sender is gone,
 * receivers drain what they have not received, then get WA_ECLOSED.
 *
 * ch is a handle, as a wa_tx's is; a receiver's position is its own struct
 * (next, missed: read them through the calls below). A copy of a receiver
 * struct is a receiver at the same position that shares the handle: drop
 * it once. */
typedef struct wa_broadcast wa_broadcast;
typedef struct wa_broadcast_tx { wa_broadcast *ch; } wa_broadcast_tx;
typedef struct wa_broadcast_rx {
    wa_broadcast *ch;
    uint64_t next;   /* the number of the next element to receive */
    uint64_t missed; /* what the last WA_ELAGGED skipped */
} wa_broadcast_rx;

/* Creates a broadcast channel of cap (>= 1) elements of elem_size bytes,
 * its first sender and receiver. Returns 0, WA_EINVAL or WA_ENOMEM. */
int wa_broadcast_new(size_t cap, size_t elem_size, wa_broadcast_tx *tx, wa_broadcast_rx *rx);
/* The same, for the tasks of many threads. */
int wa_broadcast_new_shared(size_t cap, size_t elem_size, wa_broadcast_tx *tx, wa_broadcast_rx *rx);

/* Returns a new sender for tx's channel (tx borrowed); {NULL} for a dropped
 * tx (reported) or without memory. */
wa_broadcast_tx wa_broadcast_tx_clone(const wa_broadcast_tx *tx);
/* Returns a new receiver of tx's channel (tx borrowed) that gets what is
 * sent from now on; {NULL} for a dropped tx (reported) or without memory. */
wa_broadcast_rx wa_broadcast_tx_subscribe(const wa_broadcast_tx *tx);
/* Returns a new receiver of rx's channel (rx borrowed) that gets what is
 * sent from now on (tokio's resubscribe), as wa_broadcast_tx_subscribe. */
wa_broadcast_rx wa_broadcast_rx_subscribe(const wa_broadcast_rx *rx);

/* Drops the sender tx (receivers get WA_ECLOSED, after draining, once
 * every sender is gone). Returns 0, or WA_EMISUSE on a double drop. */
int wa_broadcast_tx_drop(wa_broadcast_tx *tx);
/* Drops the receiver rx. Returns 0, or WA_EMISUSE on a double drop. */
int wa_broadcast_rx_drop(wa_broadcast_rx *rx);

/* Sends a copy of elem (borrowed) to every receiver, overwriting the
 * oldest element when the ring is full. Returns how many receivers there
 * are (0: no one will get it), or WA_ESTALE / WA_EINVAL (reported). */
int wa_broadcast_tx_send(wa_broadcast_tx *tx, const void *elem);

/* Takes rx's next element into out (borrowed) if there is one: 0,
 * WA_EAGAIN (none yet), WA_ELAGGED (rx missed wa_broadcast_rx_missed(rx)
 * elements, and now stands at the oldest kept) or WA_ECLOSED (none left
 * and every sender gone). */
int wa_broadcast_rx_try_recv(wa_broadcast_rx *rx, void *out);
/* How many elements rx missed at its last WA_ELAGGED (rx borrowed). */
uint64_t wa_broadcast_rx_missed(const wa_broadcast_rx *rx);
/* How many elements were sent that rx has not received (more than the
 * ring's capacity: rx lags, its next receive says WA_ELAGGED). */
uint64_t wa_broadcast_rx_len(const wa_broadcast_rx *rx);

/* A broadcast receive, and a watch's changed (below). Private fields. */
typedef struct wa_broadcast_recv {
    wa_future fut;
    wa__waiter w;
    wa_broadcast *ch;
    uint64_t *next, *missed; /* the receiver's */
    void *out;
} wa_broadcast_recv;
/* Initialises r to receive rx's (borrowed until r completes or is
 * dropped) next element into out (borrowed): status 0, WA_ELAGGED (as
 * wa_broadcast_rx_try_recv; out untouched) or WA_ECLOSED. Returns the
 * future. */
wa_future *wa_broadcast_recv_init(wa_broadcast_recv *r, wa_broadcast_rx *rx, void *out);

/* Watch (tokio's watch): one value of elem_size bytes that a sender sets
 * and receivers read, each awaiting its change. A receiver remembers the
 * version it saw last: reading marks the newest seen, and changed waits
 * for a newer one. Only the newest value is kept: a receiver never lags,
 * it skips. The channel closes when its senders are gone; a receiver
 * still gets the value it has not seen, then WA_ECLOSED. ch is a handle,
 * as a wa_tx's is; a copy of a receiver struct is a receiver that shares
 * the handle: drop it once. */
typedef struct wa_watch_tx { wa_broadcast *ch; } wa_watch_tx;
typedef struct wa_watch_rx {
    wa_broadcast *ch;
    uint64_t seen; /* the version read last */
} wa_watch_rx;

/* Creates a watch of a value of elem_size bytes, first a copy of init
 * (borrowed), seen already by the receiver rx. Returns 0, WA_EINVAL or
 * WA_ENOMEM. */
int wa_watch_new(size_t elem_size, const void *init, wa_watch_tx *tx, wa_watch_rx *rx);
/* The same, for the tasks of many threads. */
int wa_watch_new_shared(size_t elem_size, const void *init, wa_watch_tx *tx, wa_watch_rx *rx);

/* Returns a new sender of tx's channel (tx borrowed); {NULL} for a dropped
 * tx (reported) or without memory. */
wa_watch_tx wa_watch_tx_clone(const wa_watch_tx *tx);
/* Returns a new receiver of tx's value (tx borrowed) that has seen the
 * current one; {NULL} for a dropped tx (reported) or without memory. */
wa_watch_rx wa_watch_tx_subscribe(const wa_watch_tx *tx);
/* Returns a new receiver of rx's value (rx borrowed) that has seen what rx
 * has; {NULL} for a dropped rx (reported) or without memory. */
wa_watch_rx wa_watch_rx_clone(const wa_watch_rx *rx);

/* Drops the sender tx (once all are gone, receivers' changed says
 * WA_ECLOSED). Returns 0, or WA_EMISUSE on a double drop. */
int wa_watch_tx_drop(wa_watch_tx *tx);
/* Drops the receiver rx. Returns 0, or WA_EMISUSE on a double drop. */
int wa_watch_rx_drop(wa_watch_rx *rx);

/* Sets the value to a copy of value (borrowed) and wakes every changed.
 * Returns how many receivers there are (the value is set even with none),
 * or WA_ESTALE / WA_EINVAL (reported). */
int wa_watch_tx_send(wa_watch_tx *tx, const void *value);
/* wa_watch_tx_send that first copies the value it replaces into old
 * (borrowed). */
int wa_watch_tx_replace(wa_watch_tx *tx, const void *value, void *old);

/* Copies the newest value into out (borrowed) and marks it seen by rx:
 * 0, or WA_ESTALE / WA_EINVAL (reported). */
int wa_watch_rx_read(wa_watch_rx *rx, void *out);
/* 1 if the value changed since rx saw it, else 0, or WA_ECLOSED when
 * every sender is gone (rx borrowed; nothing is marked seen). */
int wa_watch_rx_has_changed(const wa_watch_rx *rx);

/* A watch's changed: storage of a broadcast receive. */
typedef wa_broadcast_recv wa_watch_changed;
/* Initialises c to wait until rx's (borrowed until c completes or is
 * dropped) value is newer than the one it saw, then copy the newest into
 * out (borrowed; may be NULL) and mark it seen: status 0, or WA_ECLOSED
 * when every sender is gone and rx saw the last value. Returns the
 * future. */
wa_future *wa_watch_changed_init(wa_watch_changed *c, wa_watch_rx *rx, void *out);

#ifdef __cplusplus
}
#endif
#endif
