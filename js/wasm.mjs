// SPDX-License-Identifier: MIT
// wasm.mjs - calls into the module and copies through its memory.

/**
 * The module's exports behind one guard. Every call the glue makes into
 * wasm goes through enter(): none may start while another is running (that
 * would be from inside an import), and none once a trap left the module's
 * state unknown.
 */
export class Wasm {
  constructor(stats) {
    this.ex = null;      // the exports
    this.depth = 0;      // > 0 while an export runs (imports run inside it)
    this.closed = false; // rt.close() was called
    this.broken = null;  // the trap that broke the module
    this.stats = stats;
  }

  /** Nothing more runs: closed or broken. */
  get stopped() {
    return this.closed || this.broken !== null;
  }

  /** Calls fn with up to five arguments (the exports' most): a fixed
   * list, so that the call allocates nothing, for it is every crossing. */
  enter(fn, a, b, c, d, e) {
    this.begin();
    try {
      return fn(a, b, c, d, e);
    } finally {
      this.depth--;
    }
  }

  /** Calls fn with the arguments in args (any number: a user's export). */
  apply(fn, args) {
    this.begin();
    try {
      return fn(...args);
    } finally {
      this.depth--;
    }
  }

  // The guard: no call from inside an import, none into a broken module.
  begin() {
    if (this.depth > 0) {
      this.stats.reentries++;
      throw new Error('wasync: call into wasm from inside an import (re-entrance)');
    }
    if (this.broken) throw this.broken;
    this.depth++;
  }

  /** A view of len bytes of memory at ptr (valid until memory grows). */
  bytesAt(ptr, len) {
    return new Uint8Array(this.ex.memory.buffer, ptr >>> 0, len >>> 0);
  }

  /** A copy of len bytes of memory at ptr. */
  copyOut(ptr, len) {
    return this.bytesAt(ptr, len).slice();
  }

  /** Copies bytes into memory from wasync_alloc: the pointer (the module's
   * to free), or 0. */
  copyIn(bytes) {
    if (bytes.byteLength > 0xffffffff) return 0; // (wasync_alloc's size_t would wrap)
    const p = this.enter(this.ex.wasync_alloc, bytes.byteLength) >>> 0;
    if (p) this.bytesAt(p, bytes.byteLength).set(bytes);
    return p;
  }
}
