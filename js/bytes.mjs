// SPDX-License-Identifier: MIT
// bytes.mjs - JS values as the bytes and numbers C gets.

import { codes, messageOf } from './errors.mjs';

export const encoder = new TextEncoder();
export const decoder = new TextDecoder();

export function isBufferLike(v) {
  return v instanceof ArrayBuffer ||
    (typeof SharedArrayBuffer !== 'undefined' && v instanceof SharedArrayBuffer);
}

/** A string, buffer or view as bytes (a view of v's, not a copy), or null. */
export function bytesOf(v) {
  if (typeof v === 'string') return encoder.encode(v);
  if (isBufferLike(v)) return new Uint8Array(v);
  if (ArrayBuffer.isView(v)) return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  return null;
}

/** An exception's (or a string's) text as UTF-8, for C. */
export function messageBytes(e) {
  return encoder.encode(messageOf(e));
}

// A JS value as a delivery: { status, bytes, number }. Bytes are copied
// now, so C gets what the value held when it settled, whatever is done to
// the buffer before the next tick (a change, a transfer).
export function valueToResult(v) {
  if (v === undefined || v === null) return { status: 0, bytes: null, number: 0 };
  switch (typeof v) {
    case 'number': return { status: 0, bytes: null, number: v };
    case 'bigint': return { status: 0, bytes: null, number: Number(v) };
    case 'boolean': return { status: 0, bytes: null, number: v ? 1 : 0 };
    case 'string': return { status: 0, bytes: encoder.encode(v), number: 0 };
  }
  let detail;
  try {
    if (isBufferLike(v)) return { status: 0, bytes: new Uint8Array(v).slice(), number: 0 };
    if (ArrayBuffer.isView(v)) return { status: 0, bytes: new Uint8Array(v.buffer, v.byteOffset, v.byteLength).slice(), number: 0 };
    detail = `cannot hand a ${Object.prototype.toString.call(v)} to C`;
  } catch (e) { // a detached buffer, a proxy that throws
    detail = `cannot hand this value to C: ${messageOf(e)}`;
  }
  return { status: codes.EINVAL, bytes: encoder.encode(detail), number: 0 };
}
