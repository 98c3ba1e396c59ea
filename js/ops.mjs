// SPDX-License-Identifier: MIT
// ops.mjs - host operations (op_start, op_cancel), and the queue of
// results waiting for the next tick, which hands them to wasm first, in
// the order they came: an op's through wasync_deliver, the outcomes of
// adopted promises in batches (promises.mjs).

import { codes, PENDING } from './errors.mjs';
import { messageBytes, valueToResult } from './bytes.mjs';
import { HTTP_READ, HTTP_SEND, fetchError, fetchReason, requestAt, startRead, startSend } from './fetch.mjs';

function abortOp(op) {
  op.cancelled = true;
  try { op.reader?.cancel().catch(() => {}); } catch {}
  try { op.ctrl?.abort(); } catch {}
}

/** The host operations of one runtime (h: the glue's parts, see wasync.mjs). */
export class HostOps {
  constructor(h, { fetch, ops }) {
    this.h = h;
    this.fetch = fetch;
    this.extra = ops;       // kind -> ({ id, kind, handle, bytes, signal }) => value
    // id -> op; and handle -> the exchange of an HTTP response (fetch.mjs),
    // until C frees it (op_cancel aborts it like an op)
    this.table = new Map();
    // { op, status, bytes, number, at } for wasync_deliver; `at` is how many
    // promise outcomes were queued before it (promises.mjs keeps those).
    this.deliveries = [];
    this.post = (op, status, bytes, number = 0) => {
      if (op.cancelled || op.finished) return;
      if (status !== PENDING) op.finished = true;
      this.enqueue({ op, status, bytes, number, at: 0 });
    };
  }

  /** The results waiting for the next tick. */
  queued() {
    return this.deliveries.length + this.h.promises.queued();
  }

  /** Queues an op's result (d: see deliveries); it reaches wasm at the next tick. */
  enqueue(d) {
    d.at = this.h.promises.queued();
    this.deliveries.push(d);
    this.h.ticks.schedule();
  }

  /** Hands the queued results to wasm (a tick's first work). A trap
   * leaves the rest undelivered: the runtime is broken. */
  flush() {
    const { promises } = this.h;
    while (this.queued()) {
      const batch = this.deliveries;
      const outcomes = promises.take();
      this.deliveries = [];
      let done = 0;
      for (const d of batch) {
        promises.hand(outcomes, done, d.at);
        done = d.at;
        this.deliver(d);
      }
      promises.hand(outcomes, done, outcomes.n);
    }
  }

  // Hands one op's result to wasm, unless the op was cancelled meanwhile.
  deliver({ op, status, bytes, number }) {
    const { wasm, stats } = this.h;
    if (op.cancelled) return;
    let p = 0, n = 0, st = status;
    if (bytes && bytes.byteLength) {
      p = wasm.copyIn(bytes);
      if (p) {
        n = bytes.byteLength;
      } else {
        st = codes.ENOMEM;
        abortOp(op); // the rest of a body would not fit either
      }
    }
    if (st !== PENDING) this.table.delete(op.id);
    wasm.enter(wasm.ex.wasync_deliver, op.id, st, p, n, number);
    stats.deliveries++;
    if (op.kind === HTTP_READ && st === 0) stats.chunks++;
  }

  /** The `op_start` import: the request is the len bytes at ptr, read now
   * (HTTP_SEND's: the fields and strings they point to). */
  start(id, kind, handle, ptr, len) {
    const { wasm } = this.h;
    const bytes = kind === HTTP_SEND ? null : len ? wasm.copyOut(ptr, len) : new Uint8Array(0);
    const op = { id, kind, cancelled: false, finished: false, ctrl: null, reader: null };
    this.table.set(id, op);
    const post = this.post;
    try {
      if (kind === HTTP_SEND || kind === HTTP_READ) {
        const fail = (e) => { if (!op.cancelled) post(op, fetchError(e), messageBytes(fetchReason(e))); };
        if (kind === HTTP_READ) {
          startRead(op, this.table.get(handle), post).catch(fail);
        } else if (!this.fetch) {
          post(op, codes.ENOSYS, messageBytes('no fetch in this host'));
        } else {
          const exchange = { id: handle, cancelled: false, ctrl: null, reader: null };
          this.table.set(handle, exchange);
          startSend(op, exchange, requestAt(wasm, ptr), this.fetch, post).catch(fail);
        }
      } else if (typeof this.extra[kind] === 'function') {
        op.ctrl = new AbortController();
        const signal = op.ctrl.signal;
        Promise.resolve()
          .then(() => this.extra[kind]({ id, kind, handle, bytes, signal }))
          .then((v) => { const r = valueToResult(v); post(op, r.status, r.bytes, r.number); },
            (e) => post(op, codes.EIO, messageBytes(e)));
      } else {
        post(op, codes.ENOSYS, messageBytes(`no host operation of kind ${kind}`));
      }
    } catch (e) {
      post(op, codes.EIO, messageBytes(e));
    }
  }

  /** The `op_cancel` import for an op: aborts it. False when id is no op. */
  cancel(id) {
    const op = this.table.get(id);
    if (!op) return false;
    this.table.delete(id);
    abortOp(op);
    return true;
  }

  /** Aborts every op (a close, a trap). */
  abortAll() {
    for (const op of this.table.values()) abortOp(op);
    this.table.clear();
  }
}
