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

// The outcomes of adopted promises reach wasm in batches (js/promises.mjs:
// up to 1024 per call into wasm); these would catch a batch that loses,
// reorders or leaks one.
test('a burst of distinct promises settled in one tick: values, strings, rejections', async () => {
  const rt = await prog();
  const n = 2500; // more than two batches
  const before = rt.stats().deliveries;
  const handles = [];
  for (let i = 0; i < n; i++) {
    const p = i % 3 === 0 ? Promise.resolve(i) : i % 3 === 1 ? Promise.resolve(`s${i}`) : Promise.reject(new Error(`e${i}`));
    handles.push(rt.adopt(p));
  }
  const dropped = new Set(); // released before their outcome reached wasm
  for (let i = 5; i < n; i += 50) {
    rt.release(handles[i]);
    dropped.add(i);
  }
  const got = await Promise.all(handles.map((h) => rt.callAsync('await_promise', h).then((v) => v, (e) => e)));
  for (let i = 0; i < n; i++) {
    const g = got[i];
    if (dropped.has(i)) assert.equal(g.code, -8, `${i}: released, stale`);
    else if (i % 3 === 0) assert.equal(g, i);
    else if (i % 3 === 1) assert.deepEqual(g, utf8(`s${i}`));
    else assert.ok(g.code === -10 && g.message.includes(`e${i}`), `${i}: ${g}`);
  }
  assert.equal(rt.stats().deliveries - before, n - dropped.size, 'one delivery per outcome, none for a released handle');
  assert.equal(rt.stats().promises, 0, 'nothing left in JS');
  for (let i = 0; i < n; i++) if (!dropped.has(i)) rt.release(handles[i]);
  assert.equal(rt.exports.live_tasks(), 0);
  rt.close();
});

// A fresh runtime's first burst: slots used for the first time get a pair
// of handlers bound to the handle, slots used again keep a pair of their
// own (js/promises.mjs); both must route every outcome to its handle.
test('the first burst of a fresh runtime, then the same slots again: every outcome, every handle released', async () => {
  const rt = await prog();
  const n = 10000;
  for (const round of [0, 1]) {
    const handles = [];
    const later = []; // settlers of the pending ones
    for (let i = 0; i < n; i++) {
      const ok = i % 2 === 0;
      let p;
      if (i % 4 < 2) p = ok ? Promise.resolve(i) : Promise.reject(new Error(`e${i}`));
      else p = new Promise((r, j) => later.push(() => (ok ? r(i) : j(new Error(`e${i}`)))));
      handles.push(rt.adopt(p));
    }
    const got = Promise.all(handles.map((h) => rt.callAsync('await_promise', h).then((v) => v, (e) => e)));
    await delay(1); // the settled ones reach wasm first; the rest settle in reverse order
    for (let k = later.length - 1; k >= 0; k--) later[k]();
    const out = await got;
    for (let i = 0; i < n; i++) {
      if (i % 2 === 0) assert.equal(out[i], i, `round ${round}, ${i}`);
      else assert.ok(out[i].code === -10 && out[i].message.includes(`e${i}`), `round ${round}, ${i}: ${out[i]}`);
    }
    for (const h of handles) rt.release(h);
    assert.equal(rt.stats().promises, 0, 'nothing left in JS');
    assert.equal(rt.exports.live_sources(), rt.stats().pooled, 'every handle released in wasm (the glue\'s pool left)');
    await assert.rejects(rt.callAsync('await_promise', handles[n - 1]), { code: -8 }, 'released: stale');
  }
  assert.equal(rt.exports.live_tasks(), 0);
  rt.close();
});

test('awaits wake in the order their promises settled', async () => {
  const rt = await prog();
  const n = 300;
  const resolvers = [];
  const order = [];
  const calls = [];
  for (let i = 0; i < n; i++) {
    const h = rt.adopt(new Promise((r) => { resolvers[i] = r; }));
    calls.push(rt.callAsync('await_promise', h).then((v) => order.push(v)));
  }
  await delay(5); // every await is waiting
  const settled = Array.from({ length: n }, (_, i) => (i * 7919) % n); // a permutation
  for (const i of settled) resolvers[i](i); // all in one tick
  await Promise.all(calls);
  assert.deepEqual(order, settled);
  rt.close();
});

test('an await dropped before its promise settles releases the handle; the late outcome goes nowhere', async () => {
  const rt = await prog();
  const resolvers = [];
  const calls = [];
  for (let i = 0; i < 20; i++) {
    const h = rt.adopt(new Promise((r, j) => { resolvers[i] = i % 2 ? r : j; }));
    calls.push(rt.callAsync('await_within', h, 2));
  }
  for (const c of calls) await assert.rejects(c, { code: -4 }, 'the sleep won');
  assert.equal(rt.stats().promises, 0, 'released in C: forgotten in JS');
  const before = rt.stats().deliveries;
  for (const r of resolvers) r(new Error('late'));
  await delay(5);
  assert.equal(rt.stats().deliveries, before, 'no outcome for a released handle');
  assert.equal(rt.stats().promises, 0);
  assert.equal(rt.exports.live_tasks(), 0);
  // and one that settles in time still wins
  assert.equal(await rt.callAsync('await_within', rt.adopt(Promise.resolve(9)), 1000), 9);
  rt.close();
});

test('a slot reused while its released promise is pending: each outcome reaches its own handle', async () => {
  const rt = await prog();
  let settleOld, settleNew;
  const old = rt.adopt(new Promise((r) => { settleOld = r; }));
  rt.release(old);
  // (the handles made before the release come first: adopt until wasm
  // makes new ones, the first in the freed slot)
  const others = [];
  let h = rt.adopt(new Promise((r) => { settleNew = r; }));
  while ((h & 0xfffff) !== (old & 0xfffff) && others.length < 4096) {
    others.push(h);
    h = rt.adopt(new Promise((r) => { settleNew = r; }));
  }
  for (const o of others) rt.release(o);
  assert.equal(h & 0xfffff, old & 0xfffff, 'the same slot, a newer handle');
  const got = rt.callAsync('await_within', h, 1000);
  settleOld(1);
  await delay(5);
  settleNew(2);
  assert.equal(await got, 2, 'the new handle\'s outcome');
  const next = rt.adopt(Promise.reject(new Error('third')));
  await assert.rejects(rt.callAsync('await_within', next, 1000), { code: -10 });
  assert.equal(rt.stats().promises, 0);
  assert.equal(rt.exports.live_tasks(), 0);
  rt.close();
});
