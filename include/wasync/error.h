/* SPDX-License-Identifier: MIT */
/* wasync/error.h - error codes and misuse reporting.
 *
 * Every fallible call returns an int: 0 (or a count) on success, a negative
 * WA_E* code on failure. A future's poll returns WA_PENDING, or its final
 * status: 0 or a negative WA_E* code.
 */
#ifndef WASYNC_ERROR_H
#define WASYNC_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

/* Every error code: X(name, value, message), for tables of them. */
#define WA_ERRNO_MAP(X)                                                     \
    X(WA_ENOMEM, -1, "out of memory")                                       \
    X(WA_EINVAL, -2, "invalid argument")                                    \
    X(WA_ECANCELED, -3, "cancelled")                                        \
    X(WA_ETIMEDOUT, -4, "timed out")                                        \
    X(WA_ECLOSED, -5, "channel closed")                                     \
    X(WA_EAGAIN, -6, "would block")                                         \
    X(WA_EDEADLK, -7, "deadlock: pending with nothing left to wake it")     \
    X(WA_ESTALE, -8, "stale handle")                                        \
    X(WA_EMISUSE, -9, "API misuse")                                         \
    X(WA_EIO, -10, "I/O error")                                             \
    X(WA_EBUSY, -11, "resource busy")                                       \
    X(WA_ENOSYS, -12, "not supported by this backend")                     \
    X(WA_ECONNREFUSED, -13, "connection refused")                           \
    X(WA_EADDRINUSE, -14, "address in use")                                 \
    X(WA_ECONNRESET, -15, "connection reset")                               \
    X(WA_E2BIG, -16, "too large")                                           \
    X(WA_EMFILE, -17, "too many open files")                                \
    X(WA_EPROTO, -18, "protocol error")                                     \
    X(WA_ENOTFOUND, -19, "name not found")                                 \
    X(WA_ELAGGED, -20, "receiver lagged: elements missed")

enum wa_errno {
#define WA__ERRNO_ENUM(name, val, msg) name = val,
    WA_ERRNO_MAP(WA__ERRNO_ENUM)
#undef WA__ERRNO_ENUM
};

/* The longest reason text a failed call keeps, its NUL included (a
 * longer one is cut between UTF-8 characters): the host's words for why,
 * beside its code (wa_tcp_op_reason, wa_dns_reason, wa_udp_op_reason,
 * wa_stream_reason, wa_http_send_reason). */
#define WA_REASON_MAX 128

/* Returns a static string describing err (any int; unknown codes are named). */
const char *wa_strerror(int err);

/* Misuse (double drop, stale handle, polling a finished future, a NULL
 * argument, a nested block_on...) is reported through this hook before the
 * call returns WA_EMISUSE, WA_ESTALE or WA_EINVAL. `what` is the whole
 * report: the call, what was wrong, and the task being polled if any
 * ("wasync: misuse: wa_block_on: called inside a task's poll... [in task 3
 * \"server\"]"). The default hook prints it to stderr (on the JS host, to
 * the console) and the call returns its code, in every build and on every
 * host; a program that wants to stop at the first misuse installs a hook
 * that aborts. Tests install a counting hook. */
typedef void (*wa_misuse_fn)(const char *what);

/* Sets the process-wide misuse hook (NULL restores the default); returns
 * the previous one. */
wa_misuse_fn wa_misuse_set_hook(wa_misuse_fn fn);

/* Reports misuse through the hook and returns err, for `return wa_misuse(...)`. */
int wa_misuse(int err, const char *what);

#ifdef __cplusplus
}
#endif
#endif
