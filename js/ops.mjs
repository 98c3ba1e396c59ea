// SPDX-License-Identifier: MIT
// ops.mjs - host operations (op_start, op_cancel), and the queue of
// results waiting for the next tick, which hands them to wasm first:
// an op's through wasync_deliver, an adopted promise's (promises.mjs)
// through wasync_settled.

import { codes, PENDING } from './errors.mjs';
import { messageBytes, valueToResult } from './bytes.mjs';
import { HTTP_READ, HTTP_SEND, fetchError, startRead, startSend } from './fetch.mjs';

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
    // { op, status, bytes, number } for wasync_deliver, or
    // { entry, status, bytes, number } for wasync_settled.
    this.deliveries = [];
    this.post = (op, status, bytes, number = 0) => {
      if (op.cancelled || op.finished) return;
      if (status !== PENDING) op.finished = true;
      this.enqueue({ op, entry: null, status, bytes, number });
    };
  }

  /** The results waiting for the next tick. */
  queued() {
    return this.deliveries.length;
  }

  /** Queues a result (d: see deliveries); it reaches wasm at the next tick. */
  enqueue(d) {
    this.deliveries.push(d);
    this.h.ticks.schedule();
  }

  /** Hands the queued results to wasm (a tick's first work). */
  flush() {
    const { wasm, stats } = this.h;
    while (this.deliveries.length) {
      const batch = this.deliveries;
      this.deliveries = [];
      for (let i = 0; i < batch.length; i++) {
        const { op, entry, status, bytes, number } = batch[i];
        if (op ? op.cancelled : entry.released) continue;
        let p = 0, n = 0, st = status;
        if (bytes && bytes.byteLength) {
          p = wasm.copyIn(bytes);
          if (p) {
            n = bytes.byteLength;
          } else {
            st = codes.ENOMEM;
            if (op) abortOp(op); // the rest of a body would not fit either
          }
        }
        if (op && st !== PENDING) this.table.delete(op.id);
        try {
          if (op) wasm.enter(wasm.ex.wasync_deliver, op.id, st, p, n, number);
          else wasm.enter(wasm.ex.wasync_settled, entry.handle, st, p, n, number);
        } catch (e) {
          this.deliveries = batch.slice(i + 1).concat(this.deliveries);
          throw e;
        }
        stats.deliveries++;
        if (op?.kind === HTTP_READ && st === 0) stats.chunks++;
      }
    }
  }

  /** The `op_start` import: bytes are the request (a copy). */
  start(id, kind, handle, bytes) {
    const op = { id, kind, cancelled: false, finished: false, ctrl: null, reader: null };
    this.table.set(id, op);
    const post = this.post;
    try {
      if (kind === HTTP_SEND || kind === HTTP_READ) {
        const fail = (e) => { if (!op.cancelled) post(op, fetchError(e), messageBytes(e)); };
        if (kind === HTTP_READ) {
          startRead(op, this.table.get(handle), post).catch(fail);
        } else if (!this.fetch) {
          post(op, codes.ENOSYS, messageBytes('no fetch in this host'));
        } else {
          const exchange = { id: handle, cancelled: false, ctrl: null, reader: null };
          this.table.set(handle, exchange);
          startSend(op, exchange, bytes, this.fetch, post).catch(fail);
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
