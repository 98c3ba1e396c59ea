// SPDX-License-Identifier: MIT
// trace.mjs - the traces of the module's runtimes (include/wasync/trace.h;
// the C side is src/host/js/trace_sink.c): Chrome trace-event JSON for
// Perfetto and chrome://tracing, collected here as C writes it, one event
// per write. Each event is handed to the onTraceEvent callback as it comes
// (a live timeline); rt.trace() gives the JSON text of the module's
// runtime's trace (whole: closed if it still runs). A path other than "-" is also a file
// in Node (written as the events come, closed at the trace's stop, at
// rt.close() or at the process's exit); in a browser it is a name only.
//
// The module's runtime is traced from its start when the option trace is
// given (true: collected only; a path), or in Node when WASYNC_TRACE=FILE
// is in the environment (as natively, the process's first runtime writes
// FILE, the second FILE.2...; "-": the first only), if the module has the
// trace (it calls wa_trace_start, or is linked with
// -Wl,--undefined=wa_trace_start).

import { decoder, encoder } from './bytes.mjs';
import { codes } from './errors.mjs';

const TAIL = '\n]}\n'; // (what C writes at the stop)

let envRuntimes = 0; // the runtimes WASYNC_TRACE traced in this process

/** One trace: its text so far and, in Node, its file. */
class Trace {
  constructor(fd) {
    this.fd = fd;       // the file's, or null
    this.chunks = [];
    this.ended = false;
  }

  text() {
    return this.chunks.join('') + (this.ended ? '' : TAIL);
  }
}

export class Traces {
  /** h: the glue's parts; options: { trace, onTraceEvent, log, fs (node:fs in Node, else null), env } */
  constructor(h, { trace, onTraceEvent, log, fs, env }) {
    this.h = h;
    this.onEvent = onTraceEvent ?? null;
    this.log = log;
    this.fs = fs;
    // the path the module's runtime is traced to from its start
    this.wanted = trace === true ? '-' : trace || null;
    this.env = !this.wanted && fs ? env?.WASYNC_TRACE || null : null;
    this.open = new Map(); // sink -> Trace
    this.main = null;   // the trace start() started
    this.latest = null;
    this.next = 0;
    this.atExit = false;
  }

  /** The "wasync" imports of the trace's sink. */
  imports() {
    const { wasm } = this.h;
    return {
      trace_env: (ptr, cap) => {
        if (!this.wanted) return 0;
        const bytes = encoder.encode(this.wanted);
        if (bytes.length > cap) return 0; // (too long for C's copy: untraced)
        wasm.bytesAt(ptr, bytes.length).set(bytes);
        return bytes.length;
      },
      trace_open: (ptr, len) => {
        const path = decoder.decode(wasm.bytesAt(ptr, len));
        let fd = null;
        if (this.fs && path !== '-') {
          try {
            fd = this.fs.openSync(path, 'w');
          } catch {
            return codes.EIO;
          }
          if (!this.atExit) { // (a file a running program leaves is closed whole)
            this.atExit = true;
            globalThis.process.once('exit', () => this.endAll());
          }
        }
        const sink = this.next++;
        this.open.set(sink, this.latest = new Trace(fd));
        return sink;
      },
      trace_write: (sink, ptr, len) => {
        const t = this.open.get(sink);
        if (!t) return codes.EIO;
        const text = decoder.decode(wasm.bytesAt(ptr, len));
        t.chunks.push(text);
        if (t.fd !== null) {
          try {
            this.fs.writeSync(t.fd, text);
          } catch {
            return codes.EIO;
          }
        }
        // an event (the others: the head, the tail); a callback's throw
        // must not unwind through wasm
        if (this.onEvent && text.startsWith(',\n{')) {
          try {
            this.onEvent(JSON.parse(text.slice(2)));
          } catch (e) {
            this.log(`wasync: onTraceEvent threw: ${e?.stack ?? e}`);
          }
        }
        return 0;
      },
      trace_close: (sink) => this.end(sink, false),
    };
  }

  /** After wasync_init: starts the module's runtime's trace if one is
   * wanted; a module that has none says so. */
  start() {
    if (!this.wanted && !this.env) return;
    const { wasm } = this.h, start = wasm.ex.wasync_trace_env;
    const none = 'no trace: the module has none (it calls no wa_trace_start; link it with -Wl,--undefined=wa_trace_start)';
    if (!start) return this.log(`wasync: ${none}`);
    if (!this.wanted) { // (numbered as natively; a module without the trace takes no number)
      const n = ++envRuntimes;
      this.wanted = n === 1 ? this.env : this.env === '-' ? null : `${this.env}.${n}`;
      if (!this.wanted) return;
    }
    const first = this.next; // (the sink it opens)
    if (wasm.enter(start) < 0) this.log(`wasync: ${none}`); // (the sink without trace.c)
    else this.main = this.open.get(first) ?? null;
  }

  /** Ends sink's trace: by C (whole), or by the glue (cut: the tail added). */
  end(sink, cut) {
    const t = this.open.get(sink);
    if (!t) return codes.EIO;
    this.open.delete(sink);
    if (cut) t.chunks.push(TAIL);
    t.ended = true;
    if (t.fd === null) return 0;
    try {
      if (cut) this.fs.writeSync(t.fd, TAIL);
      this.fs.closeSync(t.fd);
      return 0;
    } catch {
      return codes.EIO;
    }
  }

  /** Ends the traces still open (rt.close(), the process's exit). */
  endAll() {
    for (const sink of [...this.open.keys()]) this.end(sink, true);
  }

  /** The JSON text of the module's runtime's trace that start() started,
   * else of the latest; null: none. */
  text() {
    return (this.main ?? this.latest)?.text() ?? null;
  }
}
