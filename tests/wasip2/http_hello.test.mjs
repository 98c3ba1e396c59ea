// SPDX-License-Identifier: MIT
// The wasi:http/proxy component under `jco serve` (or wasmtime serve, or
// the example built natively: WASYNC_NATIVE): curl gets the greeting,
// and 1,000 requests, 50 at a time, all succeed with nothing growing in the
// runtime between them: its /stats (tasks, sources, WASI handles, wasm
// memory pages) is the same before and after. A hello costs 11 host calls
// on 0.2 (jco's trace): the floor's 9 (bench/wasip2/floor.c) and the method
// and authority, read before the handler runs; 16 on 0.3 (every call into
// the host), the floor's 13 and those two and an unjoin. Under wasmtime
// serve's defaults a 0.3 instance takes up to 16 of the 50 at once: the
// overlap that wasmtime 49.0.3 trapped ("BUG: delivering non-present
// event") until the export driver had one call wait on the runtime's set.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import http from 'node:http';
import { promisify } from 'node:util';
import { hostCalls, serve } from './jco_serve.mjs';
import { wasmtime } from './runner.mjs';

const TOTAL = 1000, CONCURRENCY = 50;
const p3 = process.env.WASYNC_RUN_P3, native = Boolean(process.env.WASYNC_NATIVE);

// GET url through agent (false: a connection of its own): { status, body }.
function getNative(url, agent) {
  return new Promise((resolve, reject) => {
    http.get(url, { agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode, body }));
    }).on('error', reject);
  });
}

test('http-hello answers curl and a bounded concurrent load', async () => {
  const { base, stop } = await serve(process.env.WASYNC_COMPONENT);
  try {
    const { stdout } = await promisify(execFile)('curl', ['-sf', `${base}/`]);
    assert.equal(stdout, 'hello from wasync\n');
    // (natively the load's keep-alive connections are the server's tasks
    // until they close: the load goes through an agent destroyed after it,
    // and /stats on a connection of its own, polled until those are gone)
    const agent = native ? new http.Agent({ keepAlive: true }) : null;
    const get = (path, via = agent) => (native ? getNative(`${base}${path}`, via) : fetch(`${base}${path}`)
      .then(async (res) => ({ status: res.status, body: await res.text() })));
    const stats = async () => (await get('/stats', false)).body;
    const before = await stats();
    assert.match(before, native ? /^tasks=\d+ sources=\d+ fds=\d+\n$/ : /^tasks=\d+ sources=\d+ handles=\d+ memory=\d+\n$/);
    let next = 0, ok = 0;
    const errors = [];
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (next < TOTAL) {
        next++;
        try {
          const { status, body } = await get('/');
          if (status === 200 && body === 'hello from wasync\n') ok++;
          else errors.push(`${status} ${body}`);
        } catch (e) {
          errors.push(e.message);
        }
      }
    }));
    assert.deepEqual(errors.slice(0, 5), []);
    assert.equal(ok, TOTAL);
    // (under wasmtime a 0.3 service is served with wasmtime serve's defaults,
    // 16 requests at once in an instance: /stats may come from another one)
    agent?.destroy();
    let after = await stats();
    for (let i = 0; native && after !== before && i < 50; i++) {
      await new Promise((r) => setTimeout(r, 100));
      after = await stats();
    }
    if (!(wasmtime && p3)) assert.equal(after, before, 'no task, source, handle or memory left behind by 1,000 requests');
  } finally {
    stop();
  }
});

test(`a hello costs ${p3 ? (wasmtime ? 5 : 17) : 11} host calls`, { skip: native && 'a native server has no host calls' }, async () => {
  if (!p3) {
    // path-with-query, method, authority; fields.from-list, the response,
    // its body, outparam.set, the body's stream; check-write, one
    // blocking-write-and-flush (no set-status-code for 200, no write +
    // flush + check-write); finish.
    assert.equal(await hostCalls(process.env.WASYNC_COMPONENT, '/'), 11);
    return;
  }
  // Every call into the host (run-p3.mjs --trace): method, path-with-query,
  // authority; fields.from-list, stream.new, future.new, response.new, its
  // result future dropped; the body's write (BLOCKED) and its join;
  // task.return; a poll of the set before WAIT (none may be answered with
  // an event pending: docs/wasip3.md); after the write's event (no
  // context.get for the one live call), its unjoin and the end's drop; the trailers
  // written and dropped; the request dropped. No context.set: the call
  // began alone. The floor's 13 (bench/wasip3/floor.c) are these but the
  // method, the authority, the poll and the unjoin (it drops its end joined).
  // wasmtime traces the WIT functions alone: method, path-with-query,
  // authority, fields.from-list and response.new, the rest being built-ins.
  assert.equal(await hostCalls(process.env.WASYNC_COMPONENT, '/', 20, p3, `${process.env.WASYNC_OUT}.trace`), wasmtime ? 5 : 17);
});
