// SPDX-License-Identifier: MIT
// node bench/wasip2/http_floor.mjs [--p3] FLOOR HELLO [RUNS]: http_hello
// (examples/http_hello.c) against the host floor (the same answer
// with no runtime: bench/wasip2/floor.c, or with --p3 bench/wasip3/floor.c),
// both under `jco serve` (0.2) or preview3-shim's HttpServer
// (scripts/run-p3.mjs --serve, 0.3), or with WASYNC_RUNNER=wasmtime both
// under `wasmtime serve` (tests/wasip2/runner.mjs). Each round sends each
// component 1,000 GETs of "/", 50 at a time, interleaved (floor, then
// hello) so drift hits both alike; RUNS rounds (default 15). Prints, per
// component, the median req/s, the median round's p50 and p99 latency, and
// the host calls per request (hostCalls, counted on a server of their own:
// on 0.2 the import calls jco's trace logs, on 0.3 every call into the
// host, run-p3.mjs --trace; under wasmtime the WIT import calls its trace
// logs), then hello/floor; any error is a failure.
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hostCalls, serve } from '../../tests/wasip2/jco_serve.mjs';
import { load, median } from './load.mjs';
import { wasmtime } from '../../tests/wasip2/runner.mjs';

const args = process.argv.slice(2);
const p3 = args[0] === '--p3' && Boolean(args.shift());
const [floor, hello, runsArg] = args;
process.env.JCO ??= fileURLToPath(new URL('../../node_modules/@bytecodealliance/jco/dist/jco.js', import.meta.url));
const runP3 = p3 ? fileURLToPath(new URL('../../scripts/run-p3.mjs', import.meta.url)) : '';
// (0.3: transpiled next to the component, inside the repository as run-p3 wants)
const out = (wasm, what) => (p3 ? join(dirname(wasm), `${basename(wasm, '.component.wasm')}.${what}`) : '');
const N = 1000, C = 50, RUNS = Number(runsArg ?? 15);
const w = { path: '/' };

const comps = [{ name: 'floor', wasm: floor }, { name: 'http_hello', wasm: hello }];
for (const c of comps) {
  c.calls = await hostCalls(c.wasm, w.path, 20, runP3, out(c.wasm, 'trace'));
  c.rounds = [];
}
let errors = 0;
for (const c of comps) c.server = await serve(c.wasm, runP3, out(c.wasm, 'bench'));
try {
  for (const c of comps) await load(c.server.base, w, C, C); // warm-up
  for (let r = 0; r < RUNS; r++)
    for (const c of comps) {
      const x = await load(c.server.base, w, N, C);
      errors += x.errors;
      c.rounds.push(x);
    }
} finally {
  for (const c of comps) c.server.stop();
}

const row = (...v) => console.log(v.map((s, i) => String(s).padStart(i ? 11 : 16)).join(' '));
const server = wasmtime ? `wasmtime serve (${p3 ? '0.3' : '0.2'})`
  : p3 ? "preview3-shim's HttpServer (0.3)" : 'jco serve (0.2)';
const counted = wasmtime ? 'its WIT import calls, WASMTIME_LOG' : p3 ? 'run-p3.mjs --trace' : 'jco --jco-trace';
console.log(`\nhttp_hello against the host floor under ${server}: ${N} requests, ${C} at a time,` +
  ` median of ${RUNS} interleaved rounds (calls: host calls per request, ${counted})`);
row('component', 'req/s', 'p50 ms', 'p99 ms', 'calls');
const m = comps.map((c) => ({ ...median(c.rounds), calls: c.calls }));
comps.forEach((c, i) => row(c.name, m[i].rps.toFixed(0), m[i].p50.toFixed(1), m[i].p99.toFixed(1), m[i].calls.toFixed(1)));
const q = (k) => (m[1][k] / m[0][k]).toFixed(2);
row('hello/floor', q('rps'), q('p50'), q('p99'), q('calls'));
console.log(`errors ${errors}`);
process.exitCode = errors ? 1 : 0;
