// SPDX-License-Identifier: MIT
// The JS host's benchmarks, against plain JavaScript in the same process:
//   await      n awaits of one already-resolved promise (C: wa_js_await_init on
//              an adopted handle; JS: `await p` in a loop)
//   await_each n awaits of n distinct resolved promises (each outcome
//              crosses from JS into wasm once), in a runtime that has
//              done so three times before (its handle slots reused, each
//              with the handler pair it keeps from its second use)
//   first_burst the same in a fresh runtime (a new instance per run, the
//              module compiled once), for n = 1,000, 10,000 and 100,000:
//              what a program that starts and adopts in a burst pays.
//              Timed in the process's CPU time where there is one (Node):
//              these runs last 0.1 to 100 ms, and on a loaded machine one
//              preemption costs the longer side more than its share
//   timers     n concurrent 1 ms sleeps (C: n tasks, one host timer;
//              JS: n setTimeout promises)
//   yield      a task that wakes itself n times (C: one tick each, with the
//              glue's hops to the event loop; JS: `await null` in a loop,
//              which never lets the event loop run)
// Prints one line per measurement (median of RUNS runs) and the ratio.
// Usage: node bench/js/run.mjs BENCH_WASM [RUNS]
import { readFile } from 'node:fs/promises';
import { instantiate } from '../../js/wasync.mjs';

const wasm = await WebAssembly.compile(await readFile(process.argv[2]));
const runs = Number(process.argv[3] ?? 7);
const rt = await instantiate(wasm);

const median = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1];
async function measure(fn, warmUps = 1) {
  for (let i = 0; i < warmUps; i++) await fn();
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  return median(times);
}

function report(name, n, cMs, jsMs) {
  const c = (cMs * 1e6) / n, js = (jsMs * 1e6) / n;
  console.log(`js-bench ${name} n=${n} wasync_ns=${c.toFixed(1)} js_ns=${js.toFixed(1)} ratio=${(c / js).toFixed(2)}`);
}

// one resolved promise, awaited n times
{
  const n = 1_000_000, p = Promise.resolve(1), h = rt.adopt(p);
  await rt.callAsync('await_n', h, 1); // its outcome is now in wasm
  const cMs = await measure(() => rt.callAsync('await_n', h, n));
  const jsMs = await measure(async () => {
    let s = 0;
    for (let i = 0; i < n; i++) s += await p;
    return s;
  });
  report('await', n, cMs, jsMs);
}

// n distinct resolved promises adopted by r, then awaited one by one in C;
// and the same in plain JS
async function awaitEach(r, n) {
  const handles = new Uint32Array(n);
  for (let i = 0; i < n; i++) handles[i] = r.adopt(Promise.resolve(1));
  const ptr = r.exports.wasync_alloc(4 * n); // (after the adopts: they may grow memory)
  new Uint32Array(r.exports.memory.buffer, ptr, n).set(handles);
  return r.callAsync('await_list', ptr, n); // takes the list
}
async function awaitEachJs(n) {
  const ps = [];
  for (let i = 0; i < n; i++) ps.push(Promise.resolve(1));
  let s = 0;
  for (const p of ps) s += await p;
  return s;
}
{
  const n = 100_000;
  // (three warm-ups: a slot keeps its handler pair from its second use,
  // and the collector moves the kept pairs to its old generation during
  // the third)
  const cMs = await measure(() => awaitEach(rt, n), 3);
  const jsMs = await measure(() => awaitEachJs(n));
  report('await_each', n, cMs, jsMs);
}

// the first burst of a fresh runtime, beside plain JS, interleaved; the
// instance's start is not timed
const cpuMs = globalThis.process?.cpuUsage
  ? () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; }
  : () => performance.now();
async function timed(fn) {
  const t0 = cpuMs();
  await fn();
  return cpuMs() - t0;
}
for (const n of [1_000, 10_000, 100_000]) {
  const c = [], js = [];
  await awaitEachJs(n); // warm-up of the code, not of a runtime
  for (let i = 0; i < Math.max(runs, 11); i++) {
    const fresh = await instantiate(wasm);
    c.push(await timed(() => awaitEach(fresh, n)));
    fresh.close();
    js.push(await timed(() => awaitEachJs(n)));
  }
  report('first_burst', n, median(c), median(js));
}

// n concurrent 1 ms timers
{
  const n = 10_000;
  const cMs = await measure(() => rt.callAsync('sleep_many', n, 1));
  const jsMs = await measure(() => Promise.all(Array.from({ length: n }, () => new Promise((r) => setTimeout(r, 1)))));
  report('timers', n, cMs, jsMs);
}
// a task that wakes itself n times
{
  const n = 1_000_000;
  const cMs = await measure(() => rt.callAsync('yield_n', n));
  const jsMs = await measure(async () => {
    for (let i = 0; i < n; i++) await null;
  });
  report('yield', n, cMs, jsMs);
}
rt.close();
