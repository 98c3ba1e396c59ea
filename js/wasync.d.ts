// SPDX-License-Identifier: MIT
// The public API of wasync.mjs, the JavaScript host of wasync.

/** The WA_E* codes by name: codes.EIO === -10. */
export declare const codes: Readonly<Record<
  'ENOMEM' | 'EINVAL' | 'ECANCELED' | 'ETIMEDOUT' | 'ECLOSED' | 'EAGAIN' | 'EDEADLK' | 'ESTALE' | 'EMISUSE'
  | 'EIO' | 'EBUSY' | 'ENOSYS' | 'ECONNREFUSED' | 'EADDRINUSE' | 'ECONNRESET' | 'E2BIG' | 'EMFILE'
  | 'EPROTO' | 'ENOTFOUND' | 'ELAGGED', number>>;

/** The name of a WA_E* code ('EIO'), or 'E<code>' for an unknown one. */
export declare function errorName(code: number): string;

/** An error from wasync: `code` is the negative WA_E* number. */
export declare class WasyncError extends Error {
  constructor(code: number, detail?: string);
  readonly code: number;
  readonly codeName: string;
  readonly detail?: string;
}

/** What a module can be made from. */
export type Source = BufferSource | WebAssembly.Module | Response
  | PromiseLike<BufferSource | WebAssembly.Module | Response>;

/** An argument of rt.call and rt.callAsync: a string or bytes is passed as
 * (ptr, len) of a copy in wasm memory. */
export type Argument = number | bigint | string | BufferSource;

export interface HostOp {
  id: number;
  handle: number;
  bytes: Uint8Array;
  signal: AbortSignal;
}

export interface Options {
  /** 'microtask' (default): the glue ticks; 'manual': call rt.tick(). */
  drive?: 'microtask' | 'manual';
  /** The fetch of http.h's client, called as fetch(url, { method,
   * headers, body, signal }). */
  fetch?: (url: string, init: RequestInit & { signal: AbortSignal }) => Promise<Response>;
  /** Extra import modules; "wasync" is the glue's, and
   * "wasi_snapshot_preview1" too unless given here. */
  imports?: WebAssembly.Imports;
  /** Extra host operation kinds. */
  ops?: Record<number, (op: HostOp) => unknown>;
  /** A run of microtask ticks ends after this many ms or ticks. */
  sliceMs?: number;
  burst?: number;
  /** Handles made in advance for adopt() from inside an import, per tick. */
  adoptPool?: number;
  /** The module's diagnostics (default console.error). */
  log?: (text: string) => void;
  /** The module's printed lines, without their newline (default
   * console.log and console.error). */
  stdout?: (line: string) => void;
  stderr?: (line: string) => void;
  /** A trap in a tick or a delivery (default: reject the pending calls). */
  onError?: (error: Error) => void;
  /** Traces the module's runtime from its start (wasync/trace.h): true
   * (collected: rt.trace()) or a path (in Node, that file too). In Node,
   * WASYNC_TRACE=FILE in the environment does the same. The module must
   * have the trace: it calls wa_trace_start, or is linked with
   * -Wl,--undefined=wa_trace_start (else one line to log says so). */
  trace?: boolean | string;
  /** Each event of the module's traces, as it comes. */
  onTraceEvent?: (event: TraceEvent) => void;
}

/** An event of a trace, in Chrome's trace-event format: a task's slice
 * ("b" and "e", named by the task; the end's args.status), a poll's inside
 * it ("b" and "e" named "poll"; the end's args.awaits when the task stays
 * pending), a wake ("n", args.by: "task N", "itself" or "host"). */
export interface TraceEvent {
  ph: 'b' | 'e' | 'n';
  cat: 'task';
  name: string;
  /** The task's id. */
  id: number;
  pid: number;
  tid: number;
  /** Microseconds from the trace's start. */
  ts: number;
  args?: { future?: string; spawned_by?: number; status?: number; awaits?: string; by?: string };
}

export interface Stats {
  ticks: number;
  microtaskTicks: number;
  macrotaskTicks: number;
  manualTicks: number;
  deliveries: number;
  chunks: number;
  reentries: number;
  timerFires: number;
  timerRearms: number;
  timerEarly: number;
  hostOps: number;
  calls: number;
  promises: number;
  /** Handles made by wasm and not adopted yet: the reserve for adopts
   * from inside imports, and what is left of the last burst's batch. */
  pooled: number;
  timerArmed: boolean;
  nextDeadline: number;
}

/** A module with its runtime started. */
export interface Runtime {
  readonly exports: WebAssembly.Exports;
  readonly module: WebAssembly.Module | undefined;
  readonly instance: WebAssembly.Instance;
  /** Calls an exported async function; C settles the promise: bytes, or a
   * number when there are none; a negative status rejects (WasyncError). */
  callAsync(name: string, ...args: Argument[]): Promise<Uint8Array | number>;
  /** Calls an exported synchronous function. */
  call(name: string, ...args: Argument[]): unknown;
  /** Registers a promise (or value) for C to await; returns its handle. */
  adopt(promise: unknown): number;
  /** Forgets a handle; awaits still pending on it end with WA_ECANCELED. */
  release(handle: number): void;
  /** Runs one tick now (manual driving); returns the runnable count. */
  tick(): number;
  /** > 0 when a tick has work. */
  pending(): number;
  /** The runtime's earliest deadline (performance.now() ms), or -1. */
  nextDeadline(): number;
  stats(): Stats;
  /** The JSON text of the module's runtime's trace (the option trace's;
   * else the latest wa_trace_start's), whole even while it runs; null if
   * none was started. */
  trace(): string | null;
  /** Stops the runtime: aborts host operations, rejects pending calls,
   * ends the traces (a file's written whole). */
  close(): void;
}

/** Instantiates a wasync module and starts its runtime. */
export declare function instantiate(source: Source, options?: Options): Promise<Runtime>;
