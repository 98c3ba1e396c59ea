// SPDX-License-Identifier: MIT
// AWAIT host operations: a JS promise adopted by the embedder, awaited in C
// (a rejection's case shared with Chromium: tests/js/cases.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { prog, runCase, delay, utf8 } from './prog.mjs';
import { rejectedPromise } from './cases.mjs';

test(rejectedPromise.title, (t) => runCase(rejectedPromise, { t }));

test('a promise resolving with a number, a string, bytes, nothing', async () => {
  const rt = await prog();
  const later = (v, ms = 20) => new Promise((r) => setTimeout(() => r(v), ms));
  assert.equal(await rt.callAsync('await_promise', rt.adopt(later(42.5))), 42.5);
  assert.deepEqual(await rt.callAsync('await_promise', rt.adopt(later('héllo'))), utf8('héllo'));
  const buf = new Uint8Array([1, 2, 3, 250]);
  assert.deepEqual(await rt.callAsync('await_promise', rt.adopt(later(buf.buffer))), buf);
  assert.deepEqual(await rt.callAsync('await_promise', rt.adopt(later(new Uint16Array([0x0201, 0x0403]).subarray(1)))),
    new Uint8Array([3, 4]));
  assert.deepEqual(await rt.callAsync('await_promise', rt.adopt(later(new DataView(buf.buffer, 1, 2)))),
    new Uint8Array([2, 3]));
  assert.equal(await rt.callAsync('await_promise', rt.adopt(later(undefined))), 0);
  assert.equal(await rt.callAsync('await_promise', rt.adopt(later(null))), 0);
  assert.equal(await rt.callAsync('await_promise', rt.adopt(later(''))), 0, 'an empty string: no bytes');
  assert.equal(rt.stats().promises, 0, 'settled promises are no longer tracked in JS');
  rt.close();
});

test('awaiting an already-settled promise', async () => {
  const rt = await prog();
  const ok = Promise.resolve(7);
  const bad = Promise.reject(new Error('early'));
  const h1 = rt.adopt(ok), h2 = rt.adopt(bad);
  await delay(10); // both settled long before C awaits them
  assert.equal(await rt.callAsync('await_promise', h1), 7);
  await assert.rejects(rt.callAsync('await_promise', h2), { code: -10, message: /early/ });
  // a non-promise value is adopted as a settled promise
  assert.deepEqual(await rt.callAsync('await_promise', rt.adopt('plain value')), utf8('plain value'));
  rt.close();
});

test('a handle keeps its outcome until released', async () => {
  const rt = await prog();
  const h = rt.adopt(Promise.resolve(1));
  assert.equal(await rt.callAsync('await_promise', h), 1);
  assert.equal(await rt.callAsync('await_promise', h), 1, 'awaited again: the same outcome');
  const s = rt.adopt(Promise.resolve('twice'));
  const [a, b] = await Promise.all([rt.callAsync('await_promise', s), rt.callAsync('await_promise', s)]);
  assert.deepEqual(a, utf8('twice'));
  assert.deepEqual(b, utf8('twice'));
  assert.notEqual(a, b, 'each await gets its own copy');
  rt.release(h);
  rt.release(s);
  rt.close();
});

test('release while awaited: WA_ECANCELED; unknown handles: WA_ESTALE', async () => {
  const logged = [];
  const rt = await prog({ log: (text) => logged.push(text) });
  const h = rt.adopt(new Promise(() => {})); // never settles
  const waiting = rt.callAsync('await_promise', h);
  await delay(5);
  rt.release(h);
  await assert.rejects(waiting, { code: -3, codeName: 'ECANCELED' });
  await assert.rejects(rt.callAsync('await_promise', h), { code: -8 }, 'a released handle is stale');
  await assert.rejects(rt.callAsync('await_promise', 123456), { code: -8 });
  assert.deepEqual(logged, [], 'a released handle is not misuse (a JS release may race a C await)');
  assert.equal(rt.exports.live_tasks(), 0);
  rt.close();
});

test('an unsupported value is WA_EINVAL', async () => {
  const rt = await prog();
  await assert.rejects(rt.callAsync('await_promise', rt.adopt(Promise.resolve({ an: 'object' }))),
    { code: -2, message: /Object/ });
  rt.close();
});

test('many promises awaited at once, settled in reverse order', async () => {
  const rt = await prog();
  const n = 1000;
  const resolvers = [];
  const calls = Array.from({ length: n }, (_, i) =>
    rt.callAsync('await_promise', rt.adopt(new Promise((r) => { resolvers[i] = r; }))));
  await delay(5);
  for (let i = n - 1; i >= 0; i--) resolvers[i](i);
  assert.deepEqual(await Promise.all(calls), Array.from({ length: n }, (_, i) => i));
  assert.equal(rt.exports.live_tasks(), 0);
  assert.equal(rt.stats().hostOps, 0);
  rt.close();
});
