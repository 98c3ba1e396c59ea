/* SPDX-License-Identifier: MIT */
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

#include "backend.h"
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

/* Registers the pollable handle p (taken: it is dropped on deregistration,
 * or at once on failure) with the wasip2 backend of rt. Returns 0 and the
 * key, or a negative code (WA_ENOSYS on another backend). */
int wa_pollable_register(wa_rt *rt, uint32_t p, wa_pollable_key *key);

/* Deregisters key and drops its pollable; a future waiting on it is woken
 * and finishes with WA_ECLOSED. WA_ESTALE (misuse) for a stale key. */
int wa_pollable_deregister(wa_rt *rt, wa_pollable_key key);

/* A future ready (status 0) when the registered pollable is ready. Any
 * number may wait on one pollable: readiness wakes them all. */
typedef wa_reg_wait wa_pollable_wait;
/* Initialises w to wait on the pollable of key; returns the future. */
wa_future *wa_pollable_wait_init(wa_pollable_wait *w, wa_pollable_key key);

/* A wasync stream (stream.h) over wasi:io/streams handles, taken: in, out
 * (WA_NO_HANDLE for a direction that is absent). Each direction's pollable
 * is subscribed once, on its first wait, and kept for the stream's life.
 * Close with wa_stream_close. Returns 0 or WA_ENOMEM. */
#define WA_NO_HANDLE UINT32_MAX
/* Opens the new stream *s over in and out (see above). */
int wa_wasi_stream_open(wa_rt *rt, uint32_t in, uint32_t out, wa_stream **s);

/* How many WASI resource handles the bindings hold now (what they were
 * given, less what they dropped or handed back): a leak shows as growth. */
long wa_wasi_live_handles(void);

/* Host calls made by the backend so far, and the times a wasi:io stream
 * (wa_wasi_stream_open, wa_stdio_open, TCP connections) of this runtime
 * had to wait on its pollable: a read that got no bytes, a write that
 * check-write gave no room (backpressure). Those two exist so that tests
 * can prove the waiting paths ran on a real host, not just the fast ones. */
typedef struct wa_wasip2_stats {
    uint64_t polls;       /* wasi:io/poll.poll */
    uint64_t subscribes;  /* subscribe-instant / subscribe-duration */
    uint64_t drops;       /* pollables dropped */
    uint64_t nows;        /* monotonic-clock.now */
    uint64_t read_waits;  /* input-stream.read returned no bytes */
    uint64_t write_waits; /* check-write returned 0 to a write */
} wa_wasip2_stats;
/* Copies rt's counters into st (borrowed): 0, or WA_ENOSYS on another
 * backend. */
int wa_wasip2_stats_get(wa_rt *rt, wa_wasip2_stats *st);

/* Direct bindings of the other wasi:cli/imports packages, bypassing the
 * preview1 adapter: synchronous host calls, no runtime needed. */

/* Fills buf with len bytes from wasi:random/random (cryptographically
 * secure; the host's copy is freed here). Returns 0, or WA_EIO if the host
 * gave a different length. */
int wa_wasi_random(void *buf, size_t len);
/* A u64 from the same source. */
uint64_t wa_wasi_random_u64(void);

/* The environment (wasi:cli/environment) as "NAME=value" strings: sets
 * *env to a new NULL-terminated array that holds its strings in the same
 * block, so the caller frees it all with one free(*env). Returns the count,
 * or WA_ENOMEM; WA_EINVAL if a name or value holds a NUL byte (no C string
 * can: cut short, it would pass for another), WA_E2BIG if the host's
 * lengths add up past a 32-bit memory. */
int wa_wasi_environ(char ***env);

/* The arguments, argv[0] the program's name (under jco run: the
 * component's), as wa_wasi_environ: one block, one free(*argv). Returns
 * argc, or the errors of wa_wasi_environ. */
int wa_wasi_args(char ***argv);

/* The value of the environment variable name (borrowed): a new string the
 * caller frees, or NULL if it is unset (or memory ran out, or the value
 * holds a NUL byte, as wa_wasi_environ refuses). Each call fetches the
 * whole environment from the host. */
char *wa_wasi_getenv(const char *name);

/* Ends the component through wasi:cli/exit after flushing stdio (atexit
 * handlers do not run). The host sees success or failure only: status 0
 * is ok, any other is err (jco exits with 1). The attribute, not
 * _Noreturn, so that C++ can include this header. */
__attribute__((noreturn)) void wa_wasi_exit(int status);

/* wasi:clocks/wall-clock: time since the Unix epoch, as the host's clock
 * says (it can jump; wa_now is the monotonic clock). */
typedef struct wa_wasi_datetime {
    uint64_t sec;
    uint32_t nsec; /* < 1,000,000,000 */
} wa_wasi_datetime;
/* The time now. */
wa_wasi_datetime wa_wasi_wall_clock(void);
/* The clock's resolution. */
wa_wasi_datetime wa_wasi_wall_clock_resolution(void);

#ifdef __cplusplus
}
#endif
#endif
