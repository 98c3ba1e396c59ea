// node bench/wasip2/http_load.mjs COMPONENT PATH [BODY_BYTES] [RUNS]: serves
// a wasi:http/proxy component with `jco serve` and sends it 1,000 requests,
// 50 at a time (a POST of BODY_BYTES when given, checked to come back
// whole), RUNS times; prints the median requests per second and the median
// run's p50 and p99 latency, and the errors (any is a failure).
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { serve } from '../../tests/wasip2/jco_serve.mjs';

const [component, path, bytes, runsArg] = process.argv.slice(2);
process.env.JCO ??= fileURLToPath(new URL('../../node_modules/@bytecodealliance/jco/dist/jco.js', import.meta.url));
const N = 1000, C = 50, RUNS = Number(runsArg ?? 3);
const body = bytes ? randomBytes(Number(bytes)) : undefined;
const request = (base) => fetch(base + path, body ? { method: 'POST', body } : {});

const server = await serve(component);
let errors = 0;
const results = [];
try {
  await (await request(server.base)).arrayBuffer(); // warm-up
  for (let r = 0; r < RUNS; r++) {
    let next = 0;
    const lat = [];
    const t0 = performance.now();
    await Promise.all(Array.from({ length: C }, async () => {
      while (next++ < N) {
        const t = performance.now();
        try {
          const res = await request(server.base);
          const got = await res.arrayBuffer();
          if (res.status !== 200 || (body && !Buffer.from(got).equals(body))) errors++;
        } catch {
          errors++;
        }
        lat.push(performance.now() - t);
      }
    }));
    lat.sort((a, b) => a - b);
    results.push({ rps: N / ((performance.now() - t0) / 1000), p50: lat[N >> 1], p99: lat[Math.floor(N * 0.99)] });
  }
} finally {
  server.stop();
}
results.sort((a, b) => a.rps - b.rps);
const m = results[results.length >> 1];
console.log(`http ${path}${body ? ` POST ${body.length} B` : ''}: ${N} requests, ${C} at a time: ` +
  `${m.rps.toFixed(0)} req/s (median of ${RUNS}), p50 ${m.p50.toFixed(1)} ms, p99 ${m.p99.toFixed(1)} ms, errors ${errors}`);
process.exitCode = errors ? 1 : 0;
