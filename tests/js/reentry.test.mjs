// SPDX-License-Identifier: MIT
// The glue never calls into wasm from inside an import. Checked from the
// outside: WebAssembly.instantiate is wrapped so that every import marks
// "inside an import" and every export records a call made while marked.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { prog, delay } from './prog.mjs';
import { serve } from './server.mjs';

let server;
before(async () => { server = await serve(); });
after(() => server.close());

function instrument() {
  const probe = { inImport: 0, imports: {}, exports: {}, violations: [], onImport: null };
  const original = WebAssembly.instantiate;
  WebAssembly.instantiate = async (source, importObject) => {
    const wrapped = {};
    for (const [mod, fns] of Object.entries(importObject)) {
      wrapped[mod] = {};
      for (const [name, fn] of Object.entries(fns)) {
        wrapped[mod][name] = typeof fn !== 'function' ? fn : (...args) => {
          probe.imports[name] = (probe.imports[name] ?? 0) + 1;
          probe.inImport++;
          try {
            const r = fn(...args);
            probe.onImport?.(name);
            return r;
          } finally {
            probe.inImport--;
          }
        };
      }
    }
    const result = await original.call(WebAssembly, source, wrapped);
    const instance = result.instance ?? result;
    const exports = {};
    for (const [name, v] of Object.entries(instance.exports)) {
      exports[name] = typeof v !== 'function' ? v : (...args) => {
        probe.exports[name] = (probe.exports[name] ?? 0) + 1;
        if (probe.inImport > 0) probe.violations.push(name);
        return v(...args);
      };
    }
    return result instanceof WebAssembly.Instance ? { exports } : { module: result.module, instance: { exports } };
  };
  probe.restore = () => { WebAssembly.instantiate = original; };
  return probe;
}

// A new program (options as prog's) instrumented while it is
// instantiated: { probe, rt }.
async function instrumented(options) {
  const probe = instrument();
  try {
    return { probe, rt: await prog(options) };
  } finally {
    probe.restore();
  }
}

test('no export is called from inside an import', async () => {
  const { probe, rt } = await instrumented();
  const work = [
    ...[0, 5, 30, 30].map((d) => rt.callAsync('sleep_ms', d)),
    rt.callAsync('yield_n', 5000),
    rt.callAsync('fetch_body', server.url('/delay?ms=20&body=x')),
    rt.callAsync('fetch_body', server.url('/big?size=300000')),
    rt.callAsync('fetch_timeout', server.url('/hang?id=r'), 30),
    rt.callAsync('fetch_timeout', server.url('/delay?ms=0'), 10000), // (generous: a loaded machine)
    rt.callAsync('await_promise', rt.adopt(delay(10).then(() => 'later'))),
    rt.callAsync('await_promise', rt.adopt(Promise.resolve(3))),
    rt.callAsync('await_promise', rt.adopt(Promise.reject(new Error('no')))).catch((e) => e.code),
    rt.callAsync('fail_with', -6).catch((e) => e.code),
  ];
  const results = await Promise.all(work);
  assert.equal(results[4], 5000);
  assert.equal(results[7], 0);
  assert.equal(results[8], 1);
  assert.equal(results[11], -10);
  assert.equal(results[12], -6);
  await server.closed('r', 1000);

  assert.deepEqual(probe.violations, []);
  for (const name of ['now', 'timer', 'op_start', 'op_cancel', 'settle'])
    assert.ok(probe.imports[name] > 0, `import ${name} was exercised`);
  for (const name of ['wasync_tick', 'wasync_deliver', 'wasync_alloc', 'wasync_free'])
    assert.ok(probe.exports[name] > 0, `export ${name} was exercised`);
  assert.equal(rt.stats().reentries, 0);
  rt.close();
});

test('the glue refuses to tick from inside an import, and defers calls made there', async () => {
  const { probe, rt } = await instrumented();
  let refused = null, deferred = null;
  probe.onImport = (name) => {
    if (name !== 'settle' || deferred) return;
    try {
      rt.tick();
    } catch (e) {
      refused = e;
    }
    deferred = rt.callAsync('sleep_ms', 1); // made later, from a microtask
  };
  await rt.callAsync('sleep_ms', 0);
  assert.match(refused?.message ?? '', /inside an import/);
  assert.equal(typeof await deferred, 'number');
  assert.deepEqual(probe.violations, []);
  assert.equal(rt.stats().reentries, 1, 'the refused tick');
  rt.close();
});

test('adopt() inside an import uses handles made in advance', async () => {
  const { probe, rt } = await instrumented({ adoptPool: 4 });
  const rounds = [];
  probe.onImport = (name) => {
    if (name !== 'settle' || rounds.length === 2) return;
    const round = { handles: [], error: null };
    try {
      for (let i = 0; i < 5; i++) round.handles.push(rt.adopt(Promise.resolve(rounds.length * 10 + i)));
    } catch (e) {
      round.error = e;
    }
    rounds.push(round);
  };
  await rt.callAsync('sleep_ms', 0);
  await rt.callAsync('sleep_ms', 0); // after a tick, which refilled the pool
  assert.equal(rounds.length, 2);
  for (const [r, { handles, error }] of rounds.entries()) {
    assert.equal(handles.length, 4, 'a pool of 4');
    assert.equal(error?.code, -6, 'the fifth: WA_EAGAIN');
    assert.deepEqual(await Promise.all(handles.map((h) => rt.callAsync('await_promise', h))), [0, 1, 2, 3].map((i) => r * 10 + i));
  }
  assert.deepEqual(probe.violations, []);
  rt.close();
});

// (js/promises.mjs: wasm makes handles in batches, twice the last one's
// size while a burst lasts; a call into wasm per adopt was most of what
// an adopt cost a fresh runtime)
test('a burst of adopts calls into wasm once per batch of handles, not once per adopt', async () => {
  const { probe, rt } = await instrumented();
  const count = () => Object.values(probe.exports).reduce((a, b) => a + b, 0);
  const n = 10000, handles = [];
  const before = count();
  for (let i = 0; i < n; i++) handles.push(rt.adopt(Promise.resolve(i)));
  const calls = count() - before;
  // batches of 16, 32, ... 1024, then 1024 each, and the batches' buffer
  assert.ok(calls <= 20, `${calls} calls into wasm for ${n} adopts`);
  assert.equal(new Set(handles).size, n, 'each its own handle');
  for (let i = 0; i < n; i += 999) assert.equal(await rt.callAsync('await_promise', handles[i]), i);
  for (const h of handles) rt.release(h);
  assert.equal(rt.stats().promises, 0);
  rt.close();
});
