// fetch.mjs - the FETCH host operation: a body streamed into wasm.

import { PENDING } from './errors.mjs';

function concat(parts, size) {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

/**
 * Fetches url for op (ops.mjs's record: its AbortController and reader are
 * set here) with fetchImpl(url, { signal }), and posts the body through
 * post(op, status, bytes, number): pieces of about chunkSize bytes with
 * status PENDING, then status 0 with the rest and the HTTP status. A
 * failure is left to the caller's catch: the returned promise rejects.
 */
export function startFetch(op, url, fetchImpl, chunkSize, post) {
  op.ctrl = new AbortController();
  const { signal } = op.ctrl;
  // fetch is called from a microtask, not from inside the import, so an
  // embedder's fetch can do anything (even call the runtime).
  return Promise.resolve().then(async () => {
    if (op.cancelled) return;
    const res = await fetchImpl(url, { signal });
    if (op.cancelled) return;
    let parts = [], size = 0;
    if (res.body) {
      const reader = res.body.getReader();
      op.reader = reader;
      for (;;) {
        const { done, value } = await reader.read();
        if (op.cancelled) return;
        if (done) break;
        const chunk = value instanceof Uint8Array ? value : new Uint8Array(value);
        if (!chunk.byteLength) continue;
        parts.push(chunk);
        size += chunk.byteLength;
        if (size >= chunkSize) {
          post(op, PENDING, concat(parts, size));
          parts = [];
          size = 0;
        }
      }
      op.reader = null;
    }
    post(op, 0, size ? concat(parts, size) : null, res.status);
  });
}
