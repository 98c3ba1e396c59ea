/* wasync/wasi.h - the WASI 0.2 host: a reactor over wasi:io/poll.
 *
 * I/O futures wait on pollables registered with the runtime. The backend
 * keeps the pollables that someone waits on in a dense array, handed to
 * wasi:io/poll.poll as it is (no list rebuilt per wait), and all the
 * runtime's timers share one subscribe-instant pollable for the earliest
 * deadline. Host calls are the real cost on this host, so they are counted.
 */
#ifndef WASYNC_WASI_H
#define WASYNC_WASI_H

#include "runtime.h"
#include "stream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The WASI 0.2 backend (the default one of a wasip2 build). Returns NULL
 * and sets *err (if not NULL) on failure. */
wa_backend *wa_backend_wasip2_new(int *err);

/* A registration: a key with a generation, so stale keys are detected. */
typedef uint64_t wa_pollable_key;

/* Registers the pollable handle p (taken: it is dropped on deregistration)
 * with the wasip2 backend of rt. Returns 0 and the key, or a negative code
 * (WA_ENOSYS on another backend). */
int wa_pollable_register(wa_rt *rt, uint32_t p, wa_pollable_key *key);

/* Deregisters key and drops its pollable; a future waiting on it is woken
 * and finishes with WA_ECLOSED. WA_ESTALE (misuse) for a stale key. */
int wa_pollable_deregister(wa_rt *rt, wa_pollable_key key);

/* A future ready (status 0) when the registered pollable is ready. */
typedef struct wa_pollable_wait {
    wa_future fut;
    wa_pollable_key key;
    wa_rt *rt; /* set once polled */
} wa_pollable_wait;
wa_future *wa_pollable_wait_init(wa_pollable_wait *w, wa_pollable_key key);

/* A wasync stream (stream.h) over wasi:io/streams handles, taken: in, out
 * (WA_NO_HANDLE for a direction that is absent). Each direction's pollable
 * is subscribed once, on its first wait, and kept for the stream's life.
 * Close with wa_stream_close. Returns 0 or WA_ENOMEM. */
#define WA_NO_HANDLE UINT32_MAX
int wa_wasi_stream_open(wa_rt *rt, uint32_t in, uint32_t out, wa_stream **s);

/* stdin (0), stdout (1) or stderr (2) as a wasync stream. */
int wa_wasi_stdio(wa_rt *rt, int fd, wa_stream **s);

/* How many WASI resource handles the bindings hold now (what they were
 * given, less what they dropped or handed back): a leak shows as growth. */
long wa_wasi_live_handles(void);

/* Host calls made by the backend so far. */
typedef struct wa_wasip2_stats {
    uint64_t polls;      /* wasi:io/poll.poll */
    uint64_t subscribes; /* subscribe-instant / subscribe-duration */
    uint64_t drops;      /* pollables dropped */
    uint64_t nows;       /* monotonic-clock.now */
} wa_wasip2_stats;
int wa_wasip2_stats_get(wa_rt *rt, wa_wasip2_stats *st);

#ifdef __cplusplus
}
#endif
#endif
