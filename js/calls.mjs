// SPDX-License-Identifier: MIT
// calls.mjs - calls of the module's exported functions: synchronous ones
// (rt.call) and async ones (rt.callAsync), whose promise C settles through
// the `settle` import.

import { codes, WasyncError } from './errors.mjs';
import { bytesOf, decoder } from './bytes.mjs';

/** The calls of one runtime (h: the glue's parts, see wasync.mjs). */
export class Calls {
  constructor(h) {
    this.h = h;
    this.table = new Map(); // call id -> { resolve, reject }
    this.next = 1;
  }

  /** The `settle` import: bytes (a copy) or null. */
  settle(call, status, bytes, number) {
    const c = this.table.get(call);
    if (!c) return; // unknown or settled already
    this.table.delete(call);
    if (status >= 0) c.resolve(bytes ?? number);
    else c.reject(new WasyncError(status, bytes && bytes.byteLength ? decoder.decode(bytes) : ''));
  }

  // Converts arguments: a string or bytes become (ptr, len) of a copy made
  // with wasync_alloc; temps lists what to free after the call.
  convertArgs(args, temps) {
    const out = [];
    for (const a of args) {
      const bytes = bytesOf(a);
      if (bytes) {
        const p = this.h.wasm.copyIn(bytes);
        if (!p) throw new WasyncError(codes.ENOMEM, 'wasync_alloc failed for an argument');
        temps.push(p);
        out.push(p, bytes.byteLength);
      } else if (typeof a === 'boolean') {
        out.push(a ? 1 : 0);
      } else {
        out.push(a);
      }
    }
    return out;
  }

  /** Calls export name with args, and callId first unless undefined. */
  invoke(name, args, callId) {
    const { wasm } = this.h;
    const fn = wasm.ex[name];
    if (typeof fn !== 'function') throw new TypeError(`wasync: no exported function ${name}`);
    const temps = [];
    try {
      const argv = this.convertArgs(args, temps);
      return wasm.apply(fn, callId === undefined ? argv : [callId, ...argv]);
    } finally {
      for (const p of temps) wasm.enter(wasm.ex.wasync_free, p);
      this.h.ticks.schedule();
    }
  }

  /** rt.callAsync(name, ...args): a promise C settles. */
  callAsync(name, args) {
    const { wasm } = this.h;
    if (wasm.depth > 0) // from inside an import: make the call later
      return new Promise((resolve) => queueMicrotask(() => resolve(this.callAsync(name, args))));
    if (wasm.closed) return Promise.reject(new Error('wasync: runtime closed'));
    if (wasm.broken) return Promise.reject(wasm.broken);
    while (this.table.has(this.next) || this.next === 0) this.next = (this.next + 1) >>> 0;
    const id = this.next;
    this.next = (this.next + 1) >>> 0;
    return new Promise((resolve, reject) => {
      this.table.set(id, { resolve, reject });
      let rc;
      try {
        rc = this.invoke(name, args, id);
      } catch (e) {
        this.table.delete(id);
        reject(e);
        return;
      }
      if (typeof rc === 'number' && rc < 0 && this.table.has(id)) {
        this.table.delete(id);
        reject(new WasyncError(rc, `${name} failed to start`));
      }
    });
  }

  /** Rejects every pending call with err: how many there were. */
  rejectAll(err) {
    const pending = [...this.table.values()];
    this.table.clear();
    for (const c of pending) c.reject(err);
    return pending.length;
  }
}
