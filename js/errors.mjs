// SPDX-License-Identifier: MIT
// errors.mjs - wasync's status codes in JavaScript.
//
// The table is include/wasync/error.h's WA_ERRNO_MAP, copied: the browser
// loads this file as it is, so nothing generates it, and
// tests/js/errors.test.mjs fails when the two differ.

const ERRORS = new Map([
  [-1, ['ENOMEM', 'out of memory']],
  [-2, ['EINVAL', 'invalid argument']],
  [-3, ['ECANCELED', 'cancelled']],
  [-4, ['ETIMEDOUT', 'timed out']],
  [-5, ['ECLOSED', 'channel closed']],
  [-6, ['EAGAIN', 'would block']],
  [-7, ['EDEADLK', 'deadlock: pending with nothing left to wake it']],
  [-8, ['ESTALE', 'stale handle']],
  [-9, ['EMISUSE', 'API misuse']],
  [-10, ['EIO', 'I/O error']],
  [-11, ['EBUSY', 'resource busy']],
  [-12, ['ENOSYS', 'not supported by this backend']],
  [-13, ['ECONNREFUSED', 'connection refused']],
  [-14, ['EADDRINUSE', 'address in use']],
  [-15, ['ECONNRESET', 'connection reset']],
  [-16, ['E2BIG', 'too large']],
  [-17, ['EMFILE', 'too many open files']],
  [-18, ['EPROTO', 'protocol error']],
  [-19, ['ENOTFOUND', 'name not found']],
  [-20, ['ELAGGED', 'receiver lagged: elements missed']],
]);

/** The WA_E* codes by name: codes.EIO === -10. */
export const codes = Object.freeze(Object.fromEntries([...ERRORS].map(([c, [n]]) => [n, c])));

/** WA_PENDING as a delivery status: a chunk, more to come. */
export const PENDING = 1;

/** The name of a WA_E* code ('EIO'), or 'E<code>' for an unknown one. */
export function errorName(code) {
  return ERRORS.get(code)?.[0] ?? `E${code}`;
}

/** An error from wasync: `code` is the negative WA_E* number. */
export class WasyncError extends Error {
  constructor(code, detail) {
    const [name, text] = ERRORS.get(code) ?? [`E${code}`, 'unknown error'];
    super(`WA_${name} (${code}): ${detail || text}`);
    this.name = 'WasyncError';
    this.code = code;
    this.codeName = name;
    if (detail) this.detail = detail;
  }
}

/** The text C gets for a JS exception or rejection: its message and cause. */
export function messageOf(e) {
  if (e instanceof Error || (e && typeof e.message === 'string')) {
    const cause = e.cause ? `: ${e.cause.message ?? e.cause}` : '';
    return `${e.message}${cause}`;
  }
  return String(e);
}
