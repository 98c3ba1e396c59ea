// SPDX-License-Identifier: MIT
// ticks.mjs - when wasync_tick runs, and the one host timer.
//
// At most one tick is pending. It runs from queueMicrotask for at most
// sliceMs (or burst ticks) in a row; the next one then continues from a
// macrotask, behind what the event loop has waiting, so a task that keeps
// waking itself holds JS timers, I/O and rendering back by no more than
// that. All the runtime's timers live in wasm: the host keeps one
// setTimeout on the earliest deadline.

/** The tick scheduler of one runtime (h: the glue's parts, see wasync.mjs). */
export class Ticks {
  constructor(h, { manual, sliceMs, burst }) {
    this.h = h;
    this.manual = manual;   // rt.tick() drives: never schedule
    this.sliceMs = sliceMs;
    this.burst = burst;     // for clocks too coarse for sliceMs
    this.scheduled = false; // a microtask or macrotask tick is pending
    this.burstTicks = 0;    // the current run of microtask ticks
    this.burstStart = 0;
    this.lastRunnable = 0;
    this.dirty = false;     // something happened since the last tick
    this.channel = null;    // the MessageChannel hop
    this.channelInFlight = 0;
    this.timerAt = -1;      // the runtime's earliest deadline, -1 none
    this.timerHandle = null;
    this.microTick = () => {
      this.scheduled = false;
      this.burstTicks++;
      h.stats.microtaskTicks++;
      this.run();
    };
    this.macroTick = () => {
      this.scheduled = false;
      this.burstTicks = 0;
      h.stats.macrotaskTicks++;
      this.run();
    };
    this.timerFired = () => {
      this.timerHandle = null;
      h.stats.timerFires++;
      const t = performance.now();
      this.burstTicks = 0;
      if (t < this.timerAt) { // too early (Node's timers can be): wait for the rest
        h.stats.timerEarly++;
        this.armTimer(this.timerAt);
      } else {
        this.schedule();
      }
    };
  }

  /** Asks for a tick (after a call into wasm, a delivery, ...). */
  schedule() {
    this.dirty = true;
    if (this.manual || this.scheduled || this.h.wasm.stopped) return;
    this.scheduled = true;
    const t = performance.now();
    if (this.burstTicks === 0) this.burstStart = t;
    if (this.burstTicks < this.burst && t - this.burstStart < this.sliceMs) queueMicrotask(this.microTick);
    else this.hop();
  }

  // Continues from a macrotask, behind what the event loop has waiting.
  // Node: setImmediate, which runs after a turn's timers and I/O (its
  // MessageChannel delivers a run of messages in one go, timers waiting
  // meanwhile). Browsers: a MessageChannel message, one task each, with
  // timers, input and rendering between them (a chain of setTimeout(0) is
  // clamped to 4 ms a link). setTimeout anywhere else.
  hop() {
    if (typeof setImmediate === 'function') {
      setImmediate(this.macroTick);
    } else if (typeof MessageChannel === 'function') {
      if (!this.channel) {
        this.channel = new MessageChannel();
        this.channel.port1.onmessage = () => {
          this.channelInFlight--;
          this.macroTick();
        };
      }
      this.channelInFlight++;
      this.channel.port2.postMessage(0);
    } else {
      setTimeout(this.macroTick, 0);
    }
  }

  // An open port can keep a process alive: close it when ticking stops.
  closeChannel() {
    if (this.channel && !this.channelInFlight) {
      this.channel.port1.close();
      this.channel = null;
    }
  }

  /** One tick: the waiting deliveries, then one round of the runtime.
   * Called by the scheduled (micro/macro)tasks, or by rt.tick(). */
  run() {
    const h = this.h;
    if (h.wasm.stopped) {
      this.closeChannel();
      return 0;
    }
    let r;
    try {
      h.promises.refill();
      h.ops.flush();
      this.dirty = false;
      r = h.wasm.enter(h.wasm.ex.wasync_tick);
    } catch (e) {
      h.fail(e);
      return 0;
    }
    h.stats.ticks++;
    this.lastRunnable = r > 0 ? r : 0;
    // The host timer fired but the runtime's earliest deadline did not
    // change (the timer came a hair early): C will not re-arm, so we do.
    if (!this.manual && this.timerAt >= 0 && this.timerHandle === null) {
      h.stats.timerRearms++;
      this.armTimer(this.timerAt);
    }
    if (h.ops.queued() || r > 0) {
      this.schedule();
    } else {
      this.burstTicks = 0;
      this.closeChannel();
    }
    return r;
  }

  /** > 0 when a tick has work: runnable tasks, deliveries, a due timer. */
  pending() {
    const due = this.timerAt >= 0 && this.timerAt <= performance.now() ? 1 : 0;
    return this.lastRunnable + this.h.ops.queued() + (this.dirty ? 1 : 0) + due;
  }

  /** The `timer` import: the runtime's earliest deadline is at (-1: none). */
  setTimer(at) {
    this.timerAt = at < 0 ? -1 : at;
    if (this.manual || this.h.wasm.stopped) return;
    if (this.timerAt < 0) this.clearTimer();
    else this.armTimer(this.timerAt);
  }

  clearTimer() {
    if (this.timerHandle !== null) clearTimeout(this.timerHandle);
    this.timerHandle = null;
  }

  armTimer(at) {
    this.clearTimer();
    this.timerHandle = setTimeout(this.timerFired, Math.max(0, Math.ceil(at - performance.now())));
  }

  /** Schedules nothing more: the timer disarmed, the channel closed. */
  stop() {
    this.clearTimer();
    this.channelInFlight = 0;
    this.closeChannel();
  }
}
