// SPDX-License-Identifier: MIT
// node bench/wasip2/http_load.mjs P2_COMPONENT [P3_COMPONENT] [RUNS]: serves
// tests/wasip2/http_server.c built as a WASI 0.2 wasi:http/proxy component
// and, when given, built as a 0.3 service-p3 component, under jco (`jco
// serve`; preview3-shim's HttpServer through scripts/run-p3.mjs --serve)
// and, when WASYNC_WASMTIME names its CLI, under `wasmtime serve` (the
// flags of tests/wasip2/runner.mjs, WASYNC_WASMTIME_FLAGS), and sends each
// 1,000 requests, 50 at a time, of two workloads: hello (GET of a short
// text) and echo (a 64 KiB POST to /echo, checked to come back whole). RUNS
// rounds (default 3), interleaved: each round runs every workload on every
// server, so drift hits all alike. Prints, per workload and server, the
// median requests per second, the median round's p50 and p99 latency, and
// the backend's host calls per request (the component's /calls before and
// after a round: event-loop calls, and on 0.3 the stream<u8> calls; an
// instance's own count, so under jco only: wasmtime serves a round with
// several instances), then the ratios 0.3/0.2 and wasmtime/jco; any error is a
// failure.
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '../../tests/wasip2/jco_serve.mjs';
import { load, median } from './load.mjs';

const [p2, p3, runsArg] = process.argv.slice(2);
process.env.JCO ??= fileURLToPath(new URL('../../node_modules/@bytecodealliance/jco/dist/jco.js', import.meta.url));
const runP3 = fileURLToPath(new URL('../../scripts/run-p3.mjs', import.meta.url));
const N = 1000, C = 50, RUNS = Number(runsArg ?? 3);
const workloads = [
  { name: 'hello', path: '/hello' },
  { name: 'echo 64 KiB', path: '/echo', body: randomBytes(65536) },
];

// (0.3 under jco: transpiled next to the component, inside the repository
// as run-p3 wants)
const out = p3 && join(dirname(p3), `${basename(p3, '.component.wasm')}.bench`);
const hosts = [];
try {
  for (const on of process.env.WASYNC_WASMTIME ? ['jco', 'wasmtime'] : ['jco']) {
    hosts.push({ name: `0.2 ${on}`, counted: on === 'jco', server: await serve(p2, '', '', [], on) });
    if (p3) hosts.push({ name: `0.3 ${on}`, counted: on === 'jco', server: await serve(p3, runP3, out, [], on) });
  }
} catch (e) {
  for (const h of hosts) h.server.stop();
  throw e;
}

let errors = 0;
const request = (base, w) => fetch(base + w.path, w.body ? { method: 'POST', body: w.body } : {});
// The backend's host calls so far: { loop, streams } (streams NaN on 0.2).
const calls = async (base) => {
  const t = await (await fetch(`${base}/calls`)).text();
  return { loop: Number(/loop=(\d+)/.exec(t)?.[1]), streams: Number(/streams=(\d+)/.exec(t)?.[1]) };
};

async function round(h, w) {
  const c0 = h.counted && await calls(h.server.base);
  const r = await load(h.server.base, w, N, C);
  const c1 = h.counted && await calls(h.server.base);
  errors += r.errors;
  return { ...r, loop: h.counted ? (c1.loop - c0.loop) / N : NaN, streams: h.counted ? (c1.streams - c0.streams) / N : NaN };
}

const results = {}; // by workload, then host: the rounds
try {
  for (const w of workloads)
    for (const h of hosts) await (await request(h.server.base, w)).arrayBuffer(); // warm-up
  for (let r = 0; r < RUNS; r++)
    for (const w of workloads)
      for (const h of hosts) ((results[w.name] ??= {})[h.name] ??= []).push(await round(h, w));
} finally {
  for (const h of hosts) h.server.stop();
}

const num = (v, d) => (Number.isFinite(v) ? v.toFixed(d) : '-');
const row = (...c) => console.log(c.map((v, i) => String(v).padStart(i ? 12 : 16)).join(' '));
console.log(`\nwasi:http: ${N} requests, ${C} at a time, median of ${RUNS} interleaved rounds` +
  ' (calls: the backend\'s host calls per request; streams: stream<u8> calls, on 0.3)');
row('workload', 'server', 'req/s', 'p50 ms', 'p99 ms', 'loop calls', 'streams');
for (const w of workloads) {
  const m = Object.fromEntries(hosts.map((h) => [h.name, median(results[w.name][h.name])]));
  for (const h of hosts) {
    const x = m[h.name];
    row(w.name, h.name, num(x.rps, 0), num(x.p50, 1), num(x.p99, 1), num(x.loop, 2), num(x.streams, 2));
  }
  // a / b of each figure, where both servers ran
  const q = (name, a, b) => m[a] && m[b] && row(w.name, name, ...['rps', 'p50', 'p99'].map((k) => num(m[a][k] / m[b][k], 2)), '-', '-');
  for (const on of ['jco', 'wasmtime']) q(`0.3/0.2 ${on}`, `0.3 ${on}`, `0.2 ${on}`);
  for (const v of ['0.2', '0.3']) q(`${v} wt/jco`, `${v} wasmtime`, `${v} jco`);
}
if (p3) console.log("(preview3-shim's HttpServer serves one request at a time: its serve loop awaits each handle())");
console.log(`errors ${errors}`);
process.exitCode = errors ? 1 : 0;
