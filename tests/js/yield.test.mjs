// SPDX-License-Identifier: MIT
// A task that wakes itself: a million times, with no stack growth and no
// starvation of the other tasks or of the JS event loop, and for 300 ms
// beside a setInterval(1) that keeps its pace (both shared with Chromium:
// tests/js/cases.mjs); the bounds on a run of microtask ticks; the
// macrotask hops of hosts without setImmediate (an open MessageChannel
// left behind would keep this file's process from exiting).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { prog, runCase } from './prog.mjs';
import { yieldMillion, spinKeepsTimers } from './cases.mjs';

test(yieldMillion.title, (t) => runCase(yieldMillion, { t }));

test(spinKeepsTimers.title, (t) => runCase(spinKeepsTimers, { t }));

test('a run of microtask ticks is bounded', async () => {
  const rt = await prog({ burst: 16, sliceMs: 1000 });
  const n = await rt.callAsync('yield_n', 1000);
  assert.equal(n, 1000);
  const st = rt.stats();
  // each run of 16 microtask ticks ends with a macrotask tick
  assert.ok(st.macrotaskTicks >= Math.floor(1000 / 17) - 1, JSON.stringify(st));
  rt.close();
});

test('where there is no setImmediate, ticks hop through MessageChannel, else setTimeout', async () => {
  const saved = { setImmediate: globalThis.setImmediate, MessageChannel: globalThis.MessageChannel };
  for (const hide of [['setImmediate'], ['setImmediate', 'MessageChannel']]) {
    for (const name of hide) delete globalThis[name];
    try {
      const rt = await prog({ burst: 16 });
      assert.equal(await rt.callAsync('yield_n', 1000), 1000, hide.join(', '));
      assert.ok(rt.stats().macrotaskTicks >= 50, JSON.stringify(rt.stats()));
      rt.close();
    } finally {
      Object.assign(globalThis, saved);
    }
  }
});
