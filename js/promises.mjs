// SPDX-License-Identifier: MIT
// promises.mjs - promises adopted for C to await.
//
// A promise's handle comes from wasm (wasync_adopt_n); its outcome goes to
// wasm at the next tick after it settles, and stays there until released,
// so C can await it any number of times. Outcomes wait here in columns
// (no object per promise) and reach wasm in batches: the glue writes up to
// OUTCOMES_MAX of them into the module's settlement table (wasync_outcomes)
// and hands them over with one call (wasync_settled_n). Handles come the
// same way: wasm makes them in batches (wasync_adopt_n), queued here in the
// order they were made, a batch twice the last one's size while a burst
// of adopts lasts (up to ADOPT_MAX), so that a burst calls into wasm
// about once per ADOPT_MAX adopts, not once per adopt. Adopts from inside
// an import (an import returning a promise to C is the natural use), no
// time to call into wasm, take from a reserve of poolSize handles made
// in advance at every tick, which adopts from outside leave alone.

import { codes, WasyncError } from './errors.mjs';
import { messageBytes, valueToResult } from './bytes.mjs';

// A handle is generation << 20 | slot + 1 (src/host/js/reactor.c): its low
// bits index `live`, and a slot reused for a newer handle no longer matches.
const SLOT_MASK = (1 << 20) - 1;
// The settlement table's size and layout (src/host/js/promises.c: wa__js_outcome,
// WA__JS_OUTCOMES_MAX): f64 number, u32 handle, i32 status, u32 ptr, u32 len.
const OUTCOMES_MAX = 1024;
const OUTCOME_WORDS = 6;
// The most handles one wasync_adopt_n call makes, and the first batch.
const ADOPT_MAX = 1024, ADOPT_FIRST = 16;

/** Outcomes waiting for the next tick, in order, in typed columns (no
 * object per outcome; bytes, rarer, in a map by index). */
class Outcomes {
  constructor(cap) {
    this.n = 0;
    this.handle = new Uint32Array(cap);
    this.status = new Int32Array(cap);
    this.number = new Float64Array(cap);
    this.bytes = null; // index -> bytes, once there are any
  }

  push(handle, status, bytes, number) {
    if (this.n === this.handle.length) this.grow();
    const i = this.n++;
    this.handle[i] = handle;
    this.status[i] = status;
    this.number[i] = number;
    if (bytes && bytes.byteLength) (this.bytes ??= new Map()).set(i, bytes);
  }

  grow() {
    for (const name of ['handle', 'status', 'number']) {
      const a = new this[name].constructor(this.n * 2);
      a.set(this[name]);
      this[name] = a;
    }
  }

  /** Empties the queue, keeping its columns. */
  clear() {
    this.n = 0;
    this.bytes = null;
  }

  /** Outcome i's bytes, or undefined. */
  bytesOf(i) {
    return this.bytes?.get(i);
  }
}

/** The adopted promises of one runtime (h: the glue's parts, see wasync.mjs). */
export class Promises {
  constructor(h, poolSize) {
    this.h = h;
    this.poolSize = poolSize;
    // handles made and not adopted yet: pool[poolHead..poolEnd), in the
    // order wasm made them
    this.pool = new Uint32Array(64);
    this.poolHead = 0;
    this.poolEnd = 0;
    this.batch = ADOPT_FIRST; // the next batch made for adopts from outside
    this.handlesAt = 0; // where wasm writes a batch (from wasync_alloc), 0 before the first
    // slot -> the handle whose outcome is still to reach wasm, 0 none. (The
    // slot tables and the queues start at a batch's size, about 40 KiB in
    // all: a first burst of a thousand adopts grows none of them.)
    this.live = new Uint32Array(OUTCOMES_MAX);
    this.count = 0;          // the nonzero entries of live
    this.out = new Outcomes(OUTCOMES_MAX); // queued for the next tick
    this.spare = new Outcomes(OUTCOMES_MAX); // the one handed over last (its columns reused)
    this.ptrs = new Uint32Array(OUTCOMES_MAX); // a batch's bytes in wasm
    this.picks = new Int32Array(OUTCOMES_MAX); // a batch's indices in out
    // The promise handlers. A slot used before keeps a pair bound to it
    // (`this`) for the promises adopted in it, one at a time: a burst of
    // adopts in such slots allocates no function (functions are most of
    // what a pending adopt costs V8, in memory and so in garbage
    // collection). A slot's first use binds a pair to the handle (as an
    // int32) and keeps none: a kept pair outlives the burst and is copied
    // by the collector on its way to the old generation, which a program
    // that adopts once would pay for nothing. The same pair-per-handle
    // serves a slot reused while its pair still waits on a released
    // promise. used: slot -> 1 once a handle was in it; watched: slot ->
    // the handle its kept pair waits on, 0 when free.
    this.used = new Uint8Array(OUTCOMES_MAX);
    this.watched = new Uint32Array(OUTCOMES_MAX);
    this.valueAt = [];
    this.reasonAt = [];
    const self = this;
    this.onSlotValue = function (v) { self.fulfilled(self.unwatch(this), v); };
    this.onSlotReason = function (e) { self.rejected(self.unwatch(this), e); };
    this.onValue = function (v) { self.fulfilled(this >>> 0, v); };
    this.onReason = function (e) { self.rejected(this >>> 0, e); };
  }

  /** Tops the reserve for adopts from inside imports up to poolSize
   * handles (at every tick: outside imports only). */
  refill() {
    this.batch = ADOPT_FIRST; // (a burst of adopts ends with its tick)
    const short = this.poolSize - this.pooled();
    if (short > 0 && typeof this.h.wasm.ex.wasync_adopt_n === 'function') this.make(short);
  }

  /** Handles made and not adopted yet. */
  pooled() {
    return this.poolEnd - this.poolHead;
  }

  // Has wasm make up to n more handles (outside imports only): how many.
  make(n) {
    const { wasm } = this.h, { ex } = wasm;
    n = Math.min(n, ADOPT_MAX);
    if (!this.handlesAt && !(this.handlesAt = wasm.enter(ex.wasync_alloc, 4 * ADOPT_MAX) >>> 0)) return 0;
    const got = wasm.enter(ex.wasync_adopt_n, this.handlesAt, n) >>> 0;
    let { pool } = this;
    if (this.poolHead) { // (the queue starts at 0 again)
      pool.copyWithin(0, this.poolHead, this.poolEnd);
      this.poolEnd -= this.poolHead;
      this.poolHead = 0;
    }
    if (this.poolEnd + got > pool.length) {
      this.pool = new Uint32Array(Math.max(pool.length * 2, this.poolEnd + got));
      this.pool.set(pool.subarray(0, this.poolEnd));
      pool = this.pool;
    }
    pool.set(new Uint32Array(ex.memory.buffer, this.handlesAt, got), this.poolEnd);
    this.poolEnd += got;
    return got;
  }

  /** rt.adopt(promise): its handle. */
  adopt(promise) {
    const { wasm } = this.h;
    if (wasm.closed) throw new Error('wasync: runtime closed');
    if (wasm.broken) throw wasm.broken;
    if (typeof wasm.ex.wasync_adopt_n !== 'function')
      throw new WasyncError(codes.ENOSYS, 'the module awaits no promise (it links no wa_js_await_init)');
    if (wasm.depth > 0) {
      if (this.poolHead === this.poolEnd)
        throw new WasyncError(codes.EAGAIN, `more than ${this.poolSize} adopt() calls from inside imports in one tick`);
      this.h.ticks.schedule(); // which refills the pool
    } else if (this.pooled() <= this.poolSize) { // (the reserve stays)
      if (!this.make(this.batch)) throw new WasyncError(codes.ENOMEM, 'wasync_adopt_n failed');
      this.batch = Math.min(this.batch * 2, ADOPT_MAX);
    }
    const handle = this.pool[this.poolHead++];
    const slot = handle & SLOT_MASK;
    if (slot >= this.live.length) this.grow(slot);
    if (this.live[slot] === 0) this.count++;
    this.live[slot] = handle;
    // Handlers are attached now, so a rejection is never "unhandled".
    if (this.used[slot] && this.watched[slot] === 0) {
      this.watched[slot] = handle;
      if (this.valueAt[slot] === undefined) {
        this.valueAt[slot] = this.onSlotValue.bind(slot);
        this.reasonAt[slot] = this.onSlotReason.bind(slot);
      }
      Promise.resolve(promise).then(this.valueAt[slot], this.reasonAt[slot]);
    } else {
      this.used[slot] = 1;
      Promise.resolve(promise).then(this.onValue.bind(handle | 0), this.onReason.bind(handle | 0));
    }
    return handle;
  }

  // Makes room in the slot-indexed tables for slot.
  grow(slot) {
    const n = Math.max(slot + 1, this.live.length * 2);
    for (const name of ['live', 'used', 'watched']) {
      const a = new this[name].constructor(n);
      a.set(this[name]);
      this[name] = a;
    }
  }

  // The handle slot's pair waited on; the pair is free again.
  unwatch(slot) {
    const handle = this.watched[slot];
    this.watched[slot] = 0;
    return handle;
  }

  fulfilled(handle, v) {
    if (typeof v === 'number') {
      this.queue(handle, 0, null, v);
    } else {
      const r = valueToResult(v);
      this.queue(handle, r.status, r.bytes, r.number);
    }
  }

  rejected(handle, e) {
    this.queue(handle, codes.EIO, messageBytes(e), 0);
  }

  // Queues an outcome for the next tick, unless its handle was released.
  queue(handle, status, bytes, number) {
    if (this.live[handle & SLOT_MASK] !== handle || this.h.wasm.stopped) return;
    this.out.push(handle, status, bytes, number);
    this.h.ticks.schedule();
  }

  /** The outcomes queued for the next tick. */
  queued() {
    return this.out.n;
  }

  /** The queued outcomes, in order (valid until the next take()); the
   * queue starts anew, in the columns of the previous take. */
  take() {
    const o = this.out;
    this.out = this.spare;
    this.out.clear();
    this.spare = o;
    return o;
  }

  /** Hands outcomes [from, to) of o (from take()) to wasm, in order, in
   * batches of up to OUTCOMES_MAX; those released meanwhile are skipped. */
  hand(o, from, to) {
    const { wasm, stats } = this.h;
    const { live, ptrs, picks } = this;
    while (from < to) {
      // Bytes first: wasync_alloc may grow memory under the table's views.
      let n = 0;
      for (; from < to && n < OUTCOMES_MAX; from++) {
        const handle = o.handle[from], bytes = o.bytesOf(from);
        if (live[handle & SLOT_MASK] !== handle) continue;
        live[handle & SLOT_MASK] = 0;
        this.count--;
        let p = 0;
        if (bytes) {
          p = wasm.copyIn(bytes);
          if (!p) o.status[from] = codes.ENOMEM;
        }
        picks[n] = from;
        ptrs[n++] = p;
      }
      if (!n) continue;
      const at = wasm.ex.wasync_outcomes ? wasm.enter(wasm.ex.wasync_outcomes, n) >>> 0 : 0;
      if (at) {
        this.write(o, at, n);
        wasm.enter(wasm.ex.wasync_settled_n, n);
      } else { // no table (no room, an older module): one call each
        for (let i = 0; i < n; i++) {
          const k = picks[i];
          wasm.enter(wasm.ex.wasync_settled, o.handle[k], o.status[k], ptrs[i], this.len(o, k, ptrs[i]), o.number[k]);
        }
      }
      stats.deliveries += n;
    }
  }

  // The bytes at p hold outcome k's bytes: their length, or 0 (none).
  len(o, k, p) {
    return p ? o.bytesOf(k).byteLength : 0;
  }

  // Writes the n picked outcomes of o into the table at `at`.
  write(o, at, n) {
    const { buffer } = this.h.wasm.ex.memory;
    const f64 = new Float64Array(buffer, at, n * OUTCOME_WORDS / 2);
    const u32 = new Uint32Array(buffer, at, n * OUTCOME_WORDS);
    for (let i = 0; i < n; i++) {
      const k = this.picks[i], p = this.ptrs[i], w = i * OUTCOME_WORDS;
      f64[w >> 1] = o.number[k];
      u32[w + 2] = o.handle[k];
      u32[w + 3] = o.status[k];
      u32[w + 4] = p;
      u32[w + 5] = this.len(o, k, p);
    }
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
    const slot = handle & SLOT_MASK;
    if (handle !== 0 && this.live[slot] === handle) {
      this.live[slot] = 0;
      this.count--;
    }
  }

  /** Forgets every handle (a close). */
  forgetAll() {
    this.live.fill(0);
    this.count = 0;
    this.out.clear();
  }
}
