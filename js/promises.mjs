// SPDX-License-Identifier: MIT
// promises.mjs - promises adopted for C to await.
//
// A promise's handle comes from wasm (wasync_adopt); its outcome goes to
// wasm (wasync_settled) at the next tick after it settles, and stays there
// until released, so C can await it any number of times. Handles for
// adopt() calls made from inside an import (an import returning a promise
// to C is the natural use) come from a small pool made in advance, since
// that is no time to call into wasm.

import { codes, WasyncError } from './errors.mjs';
import { messageBytes, valueToResult } from './bytes.mjs';

/** The adopted promises of one runtime (h: the glue's parts, see wasync.mjs). */
export class Promises {
  constructor(h, poolSize) {
    this.h = h;
    this.poolSize = poolSize;
    this.pool = [];
    this.table = new Map(); // handle -> entry, until its outcome is posted
  }

  /** Makes handles for the pool (outside imports only). */
  refill() {
    const { ex } = this.h.wasm;
    if (this.pool.length >= this.poolSize || typeof ex.wasync_adopt !== 'function') return;
    while (this.pool.length < this.poolSize) {
      const handle = this.h.wasm.enter(ex.wasync_adopt) >>> 0;
      if (!handle) break;
      this.pool.push(handle);
    }
  }

  /** rt.adopt(promise): its handle. */
  adopt(promise) {
    const { wasm } = this.h;
    if (wasm.closed) throw new Error('wasync: runtime closed');
    if (wasm.broken) throw wasm.broken;
    if (typeof wasm.ex.wasync_adopt !== 'function')
      throw new WasyncError(codes.ENOSYS, 'the module does not export wasync_adopt');
    let handle;
    if (wasm.depth > 0) {
      handle = this.pool.pop();
      if (handle === undefined)
        throw new WasyncError(codes.EAGAIN, `more than ${this.poolSize} adopt() calls from inside imports in one tick`);
      this.h.ticks.schedule(); // which refills the pool
    } else {
      handle = wasm.enter(wasm.ex.wasync_adopt) >>> 0;
      if (!handle) throw new WasyncError(codes.ENOMEM, 'wasync_adopt failed');
    }
    const entry = { handle, released: false };
    this.table.set(handle, entry);
    // Handlers are attached now, so a rejection is never "unhandled".
    Promise.resolve(promise).then(
      (v) => this.settle(entry, valueToResult(v)),
      (e) => this.settle(entry, { status: codes.EIO, bytes: messageBytes(e), number: 0 }));
    return handle;
  }

  settle(entry, r) {
    if (entry.released || this.h.wasm.stopped) return;
    this.table.delete(entry.handle);
    this.h.ops.enqueue({ op: null, entry, status: r.status, bytes: r.bytes, number: r.number });
  }

  /** rt.release(handle): forgets it here and in wasm. */
  release(handle) {
    handle >>>= 0;
    this.forget(handle);
    const { wasm } = this.h;
    if (wasm.stopped || typeof wasm.ex.wasync_release !== 'function') return;
    if (wasm.depth > 0) {
      queueMicrotask(() => this.release(handle));
      return;
    }
    wasm.enter(wasm.ex.wasync_release, handle);
    this.h.ticks.schedule(); // awaits pending on it finish (WA_ECANCELED)
  }

  /** Drops handle's outcome, if still to come (the `op_cancel` import on a
   * handle released in C). */
  forget(handle) {
    const entry = this.table.get(handle);
    if (entry) {
      entry.released = true;
      this.table.delete(handle);
    }
  }

  /** Forgets every handle (a close). */
  forgetAll() {
    for (const e of this.table.values()) e.released = true;
    this.table.clear();
  }
}
