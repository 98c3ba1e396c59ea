// SPDX-License-Identifier: MIT
// node bench/wasip2/http_load.mjs P2_COMPONENT [P3_COMPONENT] [RUNS]: serves
// tests/wasip2/http_server.c built as a WASI 0.2 wasi:http/proxy component
// with `jco serve` and, when given, built as a 0.3 service-p3 component with
// preview3-shim's HttpServer (scripts/run-p3.mjs --serve), and sends each
// 1,000 requests, 50 at a time, of two workloads: hello (GET of a short
// text) and echo (a 64 KiB POST to /echo, checked to come back whole). RUNS
// rounds (default 3), interleaved: each round runs every workload on 0.2
// then 0.3, so drift hits both alike. Prints, per workload and host, the
// median requests per second, the median round's p50 and p99 latency, and
// the backend's host calls per request (the component's /calls before and
// after a round: event-loop calls, and on 0.3 the stream<u8> calls), then
// the ratio 0.3/0.2; any error is a failure.
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

const hosts = [{ name: '0.2', server: await serve(p2, '') }];
try {
  if (p3) {
    // (transpiled next to the component: inside the repository, as run-p3 wants)
    const out = join(dirname(p3), `${basename(p3, '.component.wasm')}.bench`);
    hosts.push({ name: '0.3', server: await serve(p3, runP3, out) });
  }
} catch (e) {
  hosts[0].server.stop();
  throw e;
}

let errors = 0;
const request = (base, w) => fetch(base + w.path, w.body ? { method: 'POST', body: w.body } : {});
// The backend's host calls so far: { loop, streams } (streams NaN on 0.2).
const calls = async (base) => {
  const t = await (await fetch(`${base}/calls`)).text();
  return { loop: Number(/loop=(\d+)/.exec(t)?.[1]), streams: Number(/streams=(\d+)/.exec(t)?.[1]) };
};

async function round(base, w) {
  const c0 = await calls(base);
  const r = await load(base, w, N, C);
  const c1 = await calls(base);
  errors += r.errors;
  return { ...r, loop: (c1.loop - c0.loop) / N, streams: (c1.streams - c0.streams) / N };
}

const results = {}; // by workload, then host: the rounds
try {
  for (const w of workloads)
    for (const h of hosts) await (await request(h.server.base, w)).arrayBuffer(); // warm-up
  for (let r = 0; r < RUNS; r++)
    for (const w of workloads)
      for (const h of hosts) ((results[w.name] ??= {})[h.name] ??= []).push(await round(h.server.base, w));
} finally {
  for (const h of hosts) h.server.stop();
}

const num = (v, d) => (Number.isFinite(v) ? v.toFixed(d) : '-');
const row = (...c) => console.log(c.map((v, i) => String(v).padStart(i ? 11 : 14)).join(' '));
console.log(`\nwasi:http under jco: ${N} requests, ${C} at a time, median of ${RUNS} interleaved rounds` +
  ' (calls: the backend\'s host calls per request; streams: stream<u8> calls, counted on 0.3 only)');
row('workload', 'host', 'req/s', 'p50 ms', 'p99 ms', 'loop calls', 'streams');
for (const w of workloads) {
  const m = Object.fromEntries(hosts.map((h) => [h.name, median(results[w.name][h.name])]));
  for (const h of hosts) {
    const x = m[h.name];
    row(w.name, h.name, num(x.rps, 0), num(x.p50, 1), num(x.p99, 1), num(x.loop, 2), num(x.streams, 2));
  }
  if (m['0.3']) {
    const q = (k) => num(m['0.3'][k] / m['0.2'][k], 2);
    row(w.name, '0.3/0.2', q('rps'), q('p50'), q('p99'), q('loop'), '-');
  }
}
if (p3) console.log("(preview3-shim's HttpServer serves one request at a time: its serve loop awaits each handle())");
console.log(`errors ${errors}`);
process.exitCode = errors ? 1 : 0;
