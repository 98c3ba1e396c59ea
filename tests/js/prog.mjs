// SPDX-License-Identifier: MIT
// Loads the test program (env WASYNC_PROG, default the js preset's build).
import { readFileSync } from 'node:fs';
import { instantiate } from '../../js/wasync.mjs';

export const PROG = process.env.WASYNC_PROG ?? new URL('../../build/js/tests/js/prog.wasm', import.meta.url).pathname;

let compiled;
/** The program compiled once per process. */
export function progModule() {
  compiled ??= WebAssembly.compile(readFileSync(PROG));
  return compiled;
}

/** A fresh instance of the program with its runtime started. */
export async function prog(options = {}) {
  return instantiate(await progModule(), options);
}

/** Milliseconds since t0. */
export const since = (t0) => performance.now() - t0;

/** Resolves after ms (a plain JS timer). */
export const delay = (ms) => new Promise((r) => setTimeout(r, ms));

/** Tracks a promise's state: { settled, value, error }. */
export function track(p) {
  const s = { settled: false, value: undefined, error: undefined };
  p.then((v) => { s.settled = true; s.value = v; }, (e) => { s.settled = true; s.error = e; });
  return s;
}

export const utf8 = (s) => new TextEncoder().encode(s);

/** Runs a case of cases.mjs on a fresh instance (closed afterwards): base
 * is the test server's URL, t (optional) the node:test context that gets
 * the case's report as a diagnostic. */
export async function runCase(fn, { base, t, options } = {}) {
  const rt = await prog(options);
  try {
    const detail = await fn({ rt, base });
    if (detail) t?.diagnostic(detail);
    return detail;
  } finally {
    rt.close();
  }
}
