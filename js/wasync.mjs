// wasync.mjs - the JavaScript host of wasync (browsers, Node >= 20).
//
// A wasync module imports only from "wasync" (see include/wasync/js.h and
// src/backend/js.c). WebAssembly cannot block, so this glue lets the event
// loop drive the runtime:
//
//   - ticks (wasync_tick: one fair round of the runnable tasks) run from
//     queueMicrotask, at most one pending at a time, after every call into
//     wasm and after every tick that left tasks runnable; a run of
//     consecutive microtask ticks lasts at most about 1 ms and then
//     continues from a macrotask, so a task that keeps waking itself holds
//     JS timers, I/O and rendering back by no more than that;
//   - the runtime's timers all live in wasm; the host keeps ONE setTimeout
//     on the earliest deadline (the `timer` import);
//   - host operations (a fetch) complete through wasync_deliver, and
//     promises adopted for C through wasync_settled, both at the start of
//     the next tick;
//   - imports never call into wasm: they only record work (copy bytes out,
//     start a fetch, attach promise handlers, arm the timer). Deliveries,
//     ticks and export calls all happen from the glue's own (micro)tasks.
//
// Only web-standard APIs are used (fetch, AbortController, queueMicrotask,
// setTimeout, MessageChannel, performance.now, TextEncoder/TextDecoder,
// WebAssembly), and setImmediate where there is one, so the same file runs
// unchanged in Node and in browsers.

const ERRORS = new Map([
  [-1, ['ENOMEM', 'out of memory']],
  [-2, ['EINVAL', 'invalid argument']],
  [-3, ['ECANCELED', 'cancelled']],
  [-4, ['ETIMEDOUT', 'timed out']],
  [-5, ['ECLOSED', 'channel closed']],
  [-6, ['EAGAIN', 'would block']],
  [-7, ['EDEADLK', 'deadlock: pending with nothing left to wake it']],
  [-8, ['ESTALE', 'stale handle']],
  [-9, ['EMISUSE', 'API misuse']],
  [-10, ['EIO', 'I/O error']],
  [-11, ['EBUSY', 'resource busy']],
  [-12, ['ENOSYS', 'not supported by this backend']],
  [-13, ['ECONNREFUSED', 'connection refused']],
  [-14, ['EADDRINUSE', 'address in use']],
  [-15, ['ECONNRESET', 'connection reset']],
  [-16, ['E2BIG', 'too large']],
  [-17, ['EMFILE', 'too many open files']],
]);

/** The WA_E* codes by name: codes.EIO === -10. */
export const codes = Object.freeze(Object.fromEntries([...ERRORS].map(([c, [n]]) => [n, c])));

/** Host operation kinds (js.h: WA_JS_FETCH). */
export const FETCH = 1;

const PENDING = 1; // WA_PENDING: a chunk, more to come

/** The name of a WA_E* code ('EIO'), or 'E<code>' for an unknown one. */
export function errorName(code) {
  return ERRORS.get(code)?.[0] ?? `E${code}`;
}

/** An error from wasync: `code` is the negative WA_E* number. */
export class WasyncError extends Error {
  constructor(code, detail) {
    const [name, text] = ERRORS.get(code) ?? [`E${code}`, 'unknown error'];
    super(`WA_${name} (${code}): ${detail || text}`);
    this.name = 'WasyncError';
    this.code = code;
    this.codeName = name;
    if (detail) this.detail = detail;
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function messageOf(e) {
  if (e instanceof Error || (e && typeof e.message === 'string')) {
    const cause = e.cause ? `: ${e.cause.message ?? e.cause}` : '';
    return `${e.message}${cause}`;
  }
  return String(e);
}

function isBufferLike(v) {
  return v instanceof ArrayBuffer ||
    (typeof SharedArrayBuffer !== 'undefined' && v instanceof SharedArrayBuffer);
}

// A JS value as a delivery: { status, bytes, number }. Bytes are copied
// now, so C gets what the value held when it settled, whatever is done to
// the buffer before the next tick (a change, a transfer).
function valueToResult(v) {
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
 *   fetch:    the fetch used for FETCH operations (default globalThis.fetch);
 *             called as fetch(url, { signal }).
 *   imports:  extra import modules ({ demo: { event } }); "wasync" is ours.
 *   ops:      extra host operation kinds: { [kind]: ({ id, handle, bytes,
 *             signal }) => value or promise }, delivered like an adopted promise.
 *   chunkSize: a streamed body is delivered in pieces of about this many
 *             bytes (default 64 KiB); a smaller body arrives in one piece.
 *   sliceMs, burst: a run of consecutive microtask ticks ends after this
 *             many ms or this many ticks (default 1 ms, 1024), whichever
 *             comes first; the next tick is a macrotask.
 *   adoptPool: handles made in advance for adopt() calls made from inside
 *             an import (default 16 per tick).
 *   log:      diagnostics sink (default console.error).
 *   onError:  called with a trap raised by a tick or a delivery (default:
 *             reject every pending call with it; console.error if none).
 */
export async function instantiate(source, options = {}) {
  const manual = options.drive === 'manual';
  if (options.drive !== undefined && options.drive !== 'manual' && options.drive !== 'microtask')
    throw new TypeError(`wasync: unknown drive mode ${options.drive}`);
  const fetchImpl = options.fetch ?? globalThis.fetch?.bind(globalThis);
  const chunkSize = options.chunkSize ?? 64 * 1024;
  const sliceMs = options.sliceMs ?? 1;
  const burst = options.burst ?? 1024; // for clocks too coarse for sliceMs
  const log = options.log ?? ((text) => console.error(text));
  const extraOps = options.ops ?? {};

  let ex = null;        // the exports
  let wasmDepth = 0;    // > 0 while an export runs (imports run inside it)
  let closed = false, broken = null;

  const stats = {
    ticks: 0, microtaskTicks: 0, macrotaskTicks: 0, manualTicks: 0,
    deliveries: 0, chunks: 0, reentries: 0, timerFires: 0, timerRearms: 0, timerEarly: 0,
  };

  // --- calls into wasm ----------------------------------------------------

  // Every call the glue makes into wasm goes through here: none may start
  // while another is running (that would be from inside an import).
  function enter(fn, ...args) {
    if (wasmDepth > 0) {
      stats.reentries++;
      throw new Error('wasync: call into wasm from inside an import (re-entrance)');
    }
    if (broken) throw broken;
    wasmDepth++;
    try {
      return fn(...args);
    } finally {
      wasmDepth--;
    }
  }

  const bytesAt = (ptr, len) => new Uint8Array(ex.memory.buffer, ptr >>> 0, len >>> 0);
  const copyOut = (ptr, len) => bytesAt(ptr, len).slice();

  // Copies bytes into memory from wasync_alloc: the pointer, or 0.
  function copyIn(bytes) {
    if (bytes.byteLength > 0xffffffff) return 0; // (wasync_alloc's size_t would wrap)
    const p = enter(ex.wasync_alloc, bytes.byteLength) >>> 0;
    if (p) bytesAt(p, bytes.byteLength).set(bytes);
    return p;
  }

  // A trap in a tick or delivery: the module's state is unknown from now on.
  function fail(err) {
    if (broken) return;
    broken = err instanceof Error ? err : new Error(String(err));
    clearTimer();
    channelInFlight = 0;
    closeChannel();
    for (const op of ops.values()) abortOp(op);
    ops.clear();
    const pending = [...calls.values()];
    calls.clear();
    for (const c of pending) c.reject(broken);
    if (options.onError) options.onError(broken);
    else if (!pending.length) log(`wasync: ${broken.stack ?? broken}`);
  }

  // --- ticks --------------------------------------------------------------

  let tickScheduled = false; // a microtask or macrotask tick is pending
  let burstTicks = 0, burstStart = 0; // the current run of microtask ticks
  let lastRunnable = 0, dirty = false;
  let channel = null, channelInFlight = 0; // the MessageChannel hop

  function scheduleTick() {
    dirty = true;
    if (manual || tickScheduled || closed || broken) return;
    tickScheduled = true;
    const t = performance.now();
    if (burstTicks === 0) burstStart = t;
    if (burstTicks < burst && t - burstStart < sliceMs) queueMicrotask(microTick);
    else hop();
  }

  // Continues from a macrotask, behind what the event loop has waiting.
  // Node: setImmediate, which runs after a turn's timers and I/O (its
  // MessageChannel delivers a run of messages in one go, timers waiting
  // meanwhile). Browsers: a MessageChannel message, one task each, with
  // timers, input and rendering between them (a chain of setTimeout(0) is
  // clamped to 4 ms a link). setTimeout anywhere else.
  function hop() {
    if (typeof setImmediate === 'function') {
      setImmediate(macroTick);
    } else if (typeof MessageChannel === 'function') {
      if (!channel) {
        channel = new MessageChannel();
        channel.port1.onmessage = () => {
          channelInFlight--;
          macroTick();
        };
      }
      channelInFlight++;
      channel.port2.postMessage(0);
    } else {
      setTimeout(macroTick, 0);
    }
  }

  function microTick() {
    tickScheduled = false;
    burstTicks++;
    stats.microtaskTicks++;
    runTick();
  }

  function macroTick() {
    tickScheduled = false;
    burstTicks = 0;
    stats.macrotaskTicks++;
    runTick();
  }

  // An open port can keep a process alive: close it when ticking stops.
  function closeChannel() {
    if (channel && !channelInFlight) {
      channel.port1.close();
      channel = null;
    }
  }

  // One tick: the waiting deliveries, then one round of the runtime. Called
  // by the scheduled (micro/macro)tasks above, or by rt.tick().
  function runTick() {
    if (closed || broken) {
      closeChannel();
      return 0;
    }
    let r;
    try {
      flushDeliveries();
      dirty = false;
      r = enter(ex.wasync_tick);
    } catch (e) {
      fail(e);
      return 0;
    }
    stats.ticks++;
    lastRunnable = r > 0 ? r : 0;
    // The host timer fired but the runtime's earliest deadline did not
    // change (the timer came a hair early): C will not re-arm, so we do.
    if (!manual && timerAt >= 0 && timerHandle === null) {
      stats.timerRearms++;
      armTimer(timerAt);
    }
    if (deliveries.length || r > 0) {
      scheduleTick();
    } else {
      burstTicks = 0;
      closeChannel();
    }
    return r;
  }

  // --- the host timer -----------------------------------------------------

  let timerAt = -1, timerHandle = null;

  function clearTimer() {
    if (timerHandle !== null) clearTimeout(timerHandle);
    timerHandle = null;
  }

  function armTimer(at) {
    clearTimer();
    timerHandle = setTimeout(timerFired, Math.max(0, Math.ceil(at - performance.now())));
  }

  function timerFired() {
    timerHandle = null;
    stats.timerFires++;
    const t = performance.now();
    burstTicks = 0;
    if (t < timerAt) { // too early (Node's timers can be): wait for the rest
      stats.timerEarly++;
      armTimer(timerAt);
    } else {
      scheduleTick();
    }
  }

  // --- host operations ----------------------------------------------------

  const ops = new Map(); // id -> op
  // Results waiting for the next tick, which hands them to wasm first:
  // { op, status, bytes, number } for wasync_deliver (an op's result) or
  // { entry, status, bytes, number } for wasync_settled (a promise's).
  let deliveries = [];

  // Records an op's result; it reaches wasm at the start of the next tick.
  function post(op, status, bytes, number = 0) {
    if (op.cancelled || op.finished) return;
    if (status !== PENDING) op.finished = true;
    deliveries.push({ op, entry: null, status, bytes, number });
    scheduleTick();
  }

  function flushDeliveries() {
    if (pool.length < POOL) refillPool();
    while (deliveries.length) {
      const batch = deliveries;
      deliveries = [];
      for (let i = 0; i < batch.length; i++) {
        const { op, entry, status, bytes, number } = batch[i];
        if (op ? op.cancelled : entry.released) continue;
        let p = 0, n = 0, st = status;
        if (bytes && bytes.byteLength) {
          p = copyIn(bytes);
          if (p) {
            n = bytes.byteLength;
          } else {
            st = codes.ENOMEM;
            if (op) abortOp(op); // the rest of a body would not fit either
          }
        }
        if (op && st !== PENDING) ops.delete(op.id);
        try {
          if (op) enter(ex.wasync_deliver, op.id, st, p, n, number);
          else enter(ex.wasync_settled, entry.handle, st, p, n, number);
        } catch (e) {
          deliveries = batch.slice(i + 1).concat(deliveries);
          throw e;
        }
        stats.deliveries++;
        if (st === PENDING) stats.chunks++;
      }
    }
  }

  function abortOp(op) {
    op.cancelled = true;
    try { op.reader?.cancel().catch(() => {}); } catch {}
    try { op.ctrl?.abort(); } catch {}
  }

  function startOp(id, kind, handle, bytes) {
    const op = { id, kind, cancelled: false, finished: false, ctrl: null, reader: null };
    ops.set(id, op);
    try {
      if (kind === FETCH) startFetch(op, decoder.decode(bytes));
      else if (typeof extraOps[kind] === 'function') {
        op.ctrl = new AbortController();
        const signal = op.ctrl.signal;
        Promise.resolve()
          .then(() => extraOps[kind]({ id, kind, handle, bytes, signal }))
          .then((v) => { const r = valueToResult(v); post(op, r.status, r.bytes, r.number); },
            (e) => post(op, codes.EIO, encoder.encode(messageOf(e))));
      } else {
        post(op, codes.ENOSYS, encoder.encode(`no host operation of kind ${kind}`));
      }
    } catch (e) {
      post(op, codes.EIO, encoder.encode(messageOf(e)));
    }
  }

  function startFetch(op, url) {
    if (!fetchImpl) {
      post(op, codes.ENOSYS, encoder.encode('no fetch in this host'));
      return;
    }
    op.ctrl = new AbortController();
    const { signal } = op.ctrl;
    // fetch is called from a microtask, not from inside the import, so an
    // embedder's fetch can do anything (even call the runtime).
    Promise.resolve().then(async () => {
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
    }).catch((e) => {
      if (!op.cancelled) post(op, codes.EIO, encoder.encode(messageOf(e)));
    });
  }

  // --- adopted promises ---------------------------------------------------
  //
  // A promise's handle comes from wasm (wasync_adopt); its outcome goes to
  // wasm (wasync_settled) at the next tick after it settles, and stays there
  // until released, so C can await it any number of times. Handles for
  // adopt() calls made from inside an import (an import returning a promise
  // to C is the natural use) come from a small pool made in advance, since
  // that is no time to call into wasm.

  const POOL = options.adoptPool ?? 16;
  const pool = [];
  const promises = new Map(); // handle -> entry, until its outcome is posted

  function refillPool() {
    if (typeof ex.wasync_adopt !== 'function') return;
    while (pool.length < POOL) {
      const h = enter(ex.wasync_adopt) >>> 0;
      if (!h) break;
      pool.push(h);
    }
  }

  function adopt(promise) {
    if (closed) throw new Error('wasync: runtime closed');
    if (broken) throw broken;
    if (typeof ex.wasync_adopt !== 'function')
      throw new WasyncError(codes.ENOSYS, 'the module does not export wasync_adopt');
    let handle;
    if (wasmDepth > 0) {
      handle = pool.pop();
      if (handle === undefined)
        throw new WasyncError(codes.EAGAIN, `more than ${POOL} adopt() calls from inside imports in one tick`);
      scheduleTick(); // which refills the pool
    } else {
      handle = enter(ex.wasync_adopt) >>> 0;
      if (!handle) throw new WasyncError(codes.ENOMEM, 'wasync_adopt failed');
    }
    const entry = { handle, released: false };
    promises.set(handle, entry);
    // Handlers are attached now, so a rejection is never "unhandled".
    Promise.resolve(promise).then(
      (v) => settleEntry(entry, valueToResult(v)),
      (e) => settleEntry(entry, { status: codes.EIO, bytes: encoder.encode(messageOf(e)), number: 0 }));
    return handle;
  }

  function settleEntry(entry, r) {
    if (entry.released || closed || broken) return;
    promises.delete(entry.handle);
    deliveries.push({ op: null, entry, status: r.status, bytes: r.bytes, number: r.number });
    scheduleTick();
  }

  function release(handle) {
    handle >>>= 0;
    const entry = promises.get(handle);
    if (entry) {
      entry.released = true;
      promises.delete(handle);
    }
    if (closed || broken || typeof ex.wasync_release !== 'function') return;
    if (wasmDepth > 0) {
      queueMicrotask(() => release(handle));
      return;
    }
    enter(ex.wasync_release, handle);
    scheduleTick(); // awaits pending on it finish (WA_ECANCELED)
  }

  // --- exported async calls -----------------------------------------------

  const calls = new Map(); // call id -> { resolve, reject }
  let nextCall = 1;

  function settleCall(call, status, bytes, number) {
    const c = calls.get(call);
    if (!c) return; // unknown or settled already
    calls.delete(call);
    if (status >= 0) c.resolve(bytes ?? number);
    else c.reject(new WasyncError(status, bytes && bytes.byteLength ? decoder.decode(bytes) : ''));
  }

  // Converts arguments: a string or bytes become (ptr, len) of a copy made
  // with wasync_alloc; temps lists what to free after the call.
  function convertArgs(args, temps) {
    const out = [];
    for (const a of args) {
      if (typeof a === 'string' || isBufferLike(a) || ArrayBuffer.isView(a)) {
        const bytes = typeof a === 'string' ? encoder.encode(a)
          : isBufferLike(a) ? new Uint8Array(a) : new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
        const p = copyIn(bytes);
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

  function invoke(name, args, callId) {
    const fn = ex[name];
    if (typeof fn !== 'function') throw new TypeError(`wasync: no exported function ${name}`);
    const temps = [];
    try {
      const argv = convertArgs(args, temps);
      return callId === undefined ? enter(fn, ...argv) : enter(fn, callId, ...argv);
    } finally {
      for (const p of temps) enter(ex.wasync_free, p);
      scheduleTick();
    }
  }

  function callAsync(name, ...args) {
    if (wasmDepth > 0) // from inside an import: make the call later
      return new Promise((resolve) => queueMicrotask(() => resolve(callAsync(name, ...args))));
    if (closed) return Promise.reject(new Error('wasync: runtime closed'));
    if (broken) return Promise.reject(broken);
    while (calls.has(nextCall) || nextCall === 0) nextCall = (nextCall + 1) >>> 0;
    const id = nextCall;
    nextCall = (nextCall + 1) >>> 0;
    return new Promise((resolve, reject) => {
      calls.set(id, { resolve, reject });
      let rc;
      try {
        rc = invoke(name, args, id);
      } catch (e) {
        calls.delete(id);
        reject(e);
        return;
      }
      if (typeof rc === 'number' && rc < 0 && calls.has(id)) {
        calls.delete(id);
        reject(new WasyncError(rc, `${name} failed to start`));
      }
    });
  }

  // --- the imports --------------------------------------------------------

  const wasyncImports = {
    now: () => performance.now(),
    timer: (at) => {
      timerAt = at < 0 ? -1 : at;
      if (manual || closed || broken) return;
      if (timerAt < 0) clearTimer();
      else armTimer(timerAt);
    },
    op_start: (id, kind, handle, ptr, len) => {
      startOp(id >>> 0, kind, handle >>> 0, len ? copyOut(ptr, len) : new Uint8Array(0));
    },
    op_cancel: (id) => { // a host op dropped in C, or a promise handle released
      const op = ops.get(id >>> 0);
      if (!op) {
        const entry = promises.get(id >>> 0);
        if (entry) {
          entry.released = true;
          promises.delete(id >>> 0);
        }
        return;
      }
      ops.delete(op.id);
      abortOp(op);
    },
    settle: (call, status, ptr, len, number) => {
      settleCall(call >>> 0, status, ptr ? copyOut(ptr, len) : null, number);
    },
    log: (ptr, len) => log(decoder.decode(bytesAt(ptr, len))),
  };

  const imports = { ...options.imports, wasync: wasyncImports };

  const result = await compile(source, imports);
  const instance = result.instance ?? result;
  ex = instance.exports;
  for (const name of ['memory', 'wasync_init', 'wasync_tick', 'wasync_alloc', 'wasync_free', 'wasync_deliver'])
    if (!ex[name]) throw new Error(`wasync: the module does not export ${name}`);
  if (typeof ex._initialize === 'function') enter(ex._initialize);
  const rc = enter(ex.wasync_init);
  if (rc < 0) throw new WasyncError(rc, 'wasync_init failed');
  refillPool();

  // --- the runtime object -------------------------------------------------

  return {
    exports: ex,
    module: result.module,
    instance,
    /** Calls an exported async function; its promise is settled by C. */
    callAsync,
    /** Calls an exported synchronous function (strings/bytes as ptr, len). */
    call(name, ...args) {
      if (closed) throw new Error('wasync: runtime closed');
      return invoke(name, args, undefined);
    },
    /** Registers a promise (or value) for C to await with wa_js_await_init;
     * returns its handle. The outcome stays in wasm until release(). */
    adopt,
    /** Forgets a handle: its outcome in wasm, the glue's reference. Awaits
     * still pending on it finish with WA_ECANCELED. */
    release,
    /** Runs one tick now (manual driving); returns the runnable count. */
    tick() {
      if (wasmDepth > 0) {
        stats.reentries++;
        throw new Error('wasync: tick from inside an import (re-entrance)');
      }
      if (broken) throw broken;
      stats.manualTicks++;
      const r = runTick();
      if (broken) throw broken;
      return r;
    },
    /** > 0 when a tick has work: runnable tasks, deliveries, a due timer. */
    pending() {
      const due = timerAt >= 0 && timerAt <= performance.now() ? 1 : 0;
      return lastRunnable + deliveries.length + (dirty ? 1 : 0) + due;
    },
    /** The runtime's earliest deadline (performance.now() ms), or -1. */
    nextDeadline() {
      return timerAt;
    },
    stats() {
      return {
        ...stats,
        hostOps: ops.size,
        calls: calls.size,
        promises: promises.size,
        timerArmed: timerHandle !== null,
        nextDeadline: timerAt,
      };
    },
    /** Stops the runtime: aborts host operations, rejects pending calls. */
    close() {
      if (closed) return;
      closed = true;
      clearTimer();
      channelInFlight = 0;
      closeChannel();
      for (const op of ops.values()) abortOp(op);
      ops.clear();
      deliveries = [];
      for (const e of promises.values()) e.released = true;
      promises.clear();
      const pending = [...calls.values()];
      calls.clear();
      for (const c of pending) c.reject(new WasyncError(codes.ECANCELED, 'runtime closed'));
    },
  };
}
