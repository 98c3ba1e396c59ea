// SPDX-License-Identifier: MIT
// wasync.mjs - the JavaScript host of wasync (browsers, Node >= 20).
//
// A wasync module imports from "wasync" (see include/wasync/js.h; the C side
// is src/host/js: reactor.c, ops.c, promises.c and exports.c), and if it
// prints, the few WASI functions of the C library's stdio.
// WebAssembly cannot block, so this glue lets the event loop drive the
// runtime:
//
//   - ticks (wasync_tick: one fair round of the runnable tasks) run from
//     queueMicrotask, at most one pending at a time, after every call into
//     wasm and after every tick that left tasks runnable; a run of
//     consecutive microtask ticks lasts at most about 1 ms and then
//     continues from a macrotask, so a task that keeps waking itself holds
//     JS timers, I/O and rendering back by no more than that;
//   - the runtime's timers all live in wasm; the host keeps ONE setTimeout
//     on the earliest deadline (the `timer` import);
//   - host operations (http.h's fetches) complete through wasync_deliver, and
//     promises adopted for C in batches through the module's settlement
//     table (wasync_outcomes, wasync_settled_n), both at the start of the
//     next tick;
//   - imports never call into wasm: they only record work (copy bytes out,
//     start a fetch, attach promise handlers, arm the timer). Deliveries,
//     ticks and export calls all happen from the glue's own (micro)tasks.
//
// Only web-standard APIs are used (fetch, AbortController, queueMicrotask,
// setTimeout, MessageChannel, performance.now, TextEncoder/TextDecoder,
// WebAssembly), and setImmediate where there is one, so the same files run
// unchanged in Node and in browsers. This file is the entry point; each
// part is a module of its own (js/README.md lists them):
//
//   errors.mjs    the WA_E* codes, WasyncError
//   bytes.mjs     JS values as the bytes and numbers C gets
//   wasm.mjs      the guard on calls into wasm; copies through its memory
//   ticks.mjs     when ticks run; the one host timer
//   ops.mjs       host operations, the queue of results for the next tick
//   fetch.mjs     http.h's client: a request's fetch, its body chunk by chunk
//   promises.mjs  promises adopted for C
//   calls.mjs     calls of exported functions (rt.call, rt.callAsync)
//   stdio.mjs     printf and puts on the console (WASI's fd_write)
//   trace.mjs     the runtime's traces (wa_trace_start): collected, live, files in Node

import { codes, errorName, WasyncError } from './errors.mjs';
import { decoder } from './bytes.mjs';
import { Wasm } from './wasm.mjs';
import { Ticks } from './ticks.mjs';
import { HostOps } from './ops.mjs';
import { Promises } from './promises.mjs';
import { Calls } from './calls.mjs';
import { stdio } from './stdio.mjs';
import { Traces } from './trace.mjs';

export { codes, errorName, WasyncError };

async function compile(source, imports) {
  source = await source;
  if (typeof Response !== 'undefined' && source instanceof Response) {
    if (!source.ok) throw new Error(`wasync: cannot load the module: HTTP ${source.status} for ${source.url}`);
    const type = source.headers.get('content-type') ?? '';
    if (typeof WebAssembly.instantiateStreaming === 'function' && type.startsWith('application/wasm'))
      return WebAssembly.instantiateStreaming(source, imports);
    source = await source.arrayBuffer();
  }
  return WebAssembly.instantiate(source, imports);
}

/**
 * Instantiates a wasync module and starts its runtime.
 *
 * source: bytes (ArrayBuffer, typed array), a WebAssembly.Module, a Response
 * or a promise of one of these (e.g. fetch('prog.wasm')).
 * options:
 *   drive:    'microtask' (default): the glue schedules ticks itself;
 *             'manual': it never does; call rt.tick() (rt.pending(),
 *             rt.nextDeadline() tell when).
 *   fetch:    the fetch of http.h's client (default globalThis.fetch);
 *             called as fetch(url, { method, headers, body, signal }).
 *   imports:  extra import modules ({ demo: { event } }); "wasync" is ours,
 *             and "wasi_snapshot_preview1" too unless given here.
 *   stdout, stderr: where the module's printed lines go, each without its
 *             newline (default console.log, console.error).
 *   ops:      extra host operation kinds: { [kind]: ({ id, handle, bytes,
 *             signal }) => value or promise }, delivered like an adopted promise.
 *   sliceMs, burst: a run of consecutive microtask ticks ends after this
 *             many ms or this many ticks (default 1 ms, 1024), whichever
 *             comes first; the next tick is a macrotask.
 *   adoptPool: handles made in advance for adopt() calls made from inside
 *             an import (default 16 per tick; other adopts take handles
 *             wasm makes in batches).
 *   log:      diagnostics sink (default console.error).
 *   trace:    trace the module's runtime from its start (wasync/trace.h):
 *             true (collected: rt.trace()), or a path (in Node, that file
 *             too); in Node, WASYNC_TRACE=FILE in the environment does the
 *             same. The module must have the trace (it calls
 *             wa_trace_start, or is linked with -Wl,--undefined=wa_trace_start).
 *   onTraceEvent: called with each event of the module's traces as it
 *             comes (an object of Chrome's trace-event format).
 *   onError:  called with a trap raised by a tick or a delivery (default:
 *             reject every pending call with it; console.error if none).
 */
export async function instantiate(source, options = {}) {
  const manual = options.drive === 'manual';
  if (options.drive !== undefined && options.drive !== 'manual' && options.drive !== 'microtask')
    throw new TypeError(`wasync: unknown drive mode ${options.drive}`);
  const log = options.log ?? ((text) => console.error(text));
  const stats = {
    ticks: 0, microtaskTicks: 0, macrotaskTicks: 0, manualTicks: 0,
    deliveries: 0, chunks: 0, reentries: 0, timerFires: 0, timerRearms: 0, timerEarly: 0,
  };

  // The glue's parts, each reaching the others through h.
  const wasm = new Wasm(stats);
  const h = { wasm, stats };
  const ticks = h.ticks = new Ticks(h, {
    manual, sliceMs: options.sliceMs ?? 1, burst: options.burst ?? 1024,
  });
  const ops = h.ops = new HostOps(h, {
    fetch: options.fetch ?? globalThis.fetch?.bind(globalThis),
    ops: options.ops ?? {},
  });
  const promises = h.promises = new Promises(h, options.adoptPool ?? 16);
  const calls = h.calls = new Calls(h);
  // (Node: a trace's file; loaded, not imported, so that browsers load the glue as it is)
  const node = typeof globalThis.process?.versions?.node === 'string';
  const traces = new Traces(h, {
    trace: options.trace, onTraceEvent: options.onTraceEvent, log,
    fs: node ? await import('node:fs') : null, env: node ? globalThis.process.env : null,
  });

  // A trap in a tick or delivery: the module's state is unknown from now on.
  h.fail = (err) => {
    if (wasm.broken) return;
    wasm.broken = err instanceof Error ? err : new Error(String(err));
    ticks.stop();
    ops.abortAll();
    const pending = calls.rejectAll(wasm.broken);
    if (options.onError) options.onError(wasm.broken);
    else if (!pending) log(`wasync: ${wasm.broken.stack ?? wasm.broken}`);
  };

  // Imports only record work; none calls into wasm.
  const wasyncImports = {
    now: () => performance.now(),
    timer: (at) => ticks.setTimer(at),
    op_start: (id, kind, handle, ptr, len) => ops.start(id >>> 0, kind, handle >>> 0, ptr >>> 0, len >>> 0),
    op_cancel: (id) => { // a host op dropped in C, or a promise handle released
      if (!ops.cancel(id >>> 0)) promises.forget(id >>> 0);
    },
    settle: (call, status, ptr, len, number) => {
      calls.settle(call >>> 0, status, ptr ? wasm.copyOut(ptr, len) : null, number);
    },
    log: (ptr, len) => log(decoder.decode(wasm.bytesAt(ptr, len))),
    ...traces.imports(),
  };

  const io = stdio(wasm, {
    stdout: options.stdout ?? ((line) => console.log(line)),
    stderr: options.stderr ?? ((line) => console.error(line)),
  });
  const imports = { wasi_snapshot_preview1: io.imports, ...options.imports, wasync: wasyncImports };

  const result = await compile(source, imports);
  const instance = result.instance ?? result;
  const ex = wasm.ex = instance.exports;
  for (const name of ['memory', 'wasync_init', 'wasync_tick', 'wasync_alloc', 'wasync_free', 'wasync_deliver'])
    if (!ex[name]) throw new Error(`wasync: the module does not export ${name}`);
  if (typeof ex._initialize === 'function') wasm.enter(ex._initialize);
  const rc = wasm.enter(ex.wasync_init);
  if (rc < 0) throw new WasyncError(rc, 'wasync_init failed');
  traces.start();
  promises.refill();

  return {
    exports: ex,
    module: result.module,
    instance,
    /** Calls an exported async function; its promise is settled by C. */
    callAsync: (name, ...args) => calls.callAsync(name, args),
    /** Calls an exported synchronous function (strings/bytes as ptr, len). */
    call(name, ...args) {
      if (wasm.closed) throw new Error('wasync: runtime closed');
      return calls.invoke(name, args, undefined);
    },
    /** Registers a promise (or value) for C to await with wa_js_await_init;
     * returns its handle. The outcome stays in wasm until release(). */
    adopt: (promise) => promises.adopt(promise),
    /** Forgets a handle: its outcome in wasm, the glue's reference. Awaits
     * still pending on it finish with WA_ECANCELED. */
    release: (handle) => promises.release(handle),
    /** Runs one tick now (manual driving); returns the runnable count. */
    tick() {
      if (wasm.depth > 0) {
        stats.reentries++;
        throw new Error('wasync: tick from inside an import (re-entrance)');
      }
      if (wasm.broken) throw wasm.broken;
      stats.manualTicks++;
      const r = ticks.run();
      if (wasm.broken) throw wasm.broken;
      return r;
    },
    /** > 0 when a tick has work: runnable tasks, deliveries, a due timer. */
    pending: () => ticks.pending(),
    /** The runtime's earliest deadline (performance.now() ms), or -1. */
    nextDeadline: () => ticks.timerAt,
    stats() {
      return {
        ...stats,
        hostOps: ops.table.size,
        calls: calls.table.size,
        promises: promises.count,
        pooled: promises.pooled(),
        timerArmed: ticks.timerHandle !== null,
        nextDeadline: ticks.timerAt,
      };
    },
    /** The JSON text of the module's runtime's trace (the option trace's,
     * else the latest wa_trace_start's), whole even while it runs; null:
     * none was started. */
    trace: () => traces.text(),
    /** Stops the runtime: aborts host operations, rejects pending calls,
     * prints what is left of a last line, ends the traces. */
    close() {
      if (wasm.closed) return;
      wasm.closed = true;
      io.flush();
      traces.endAll();
      ticks.stop();
      ops.abortAll();
      ops.deliveries = [];
      promises.forgetAll(); // and the outcomes queued
      calls.rejectAll(new WasyncError(codes.ECANCELED, 'runtime closed'));
    },
  };
}
