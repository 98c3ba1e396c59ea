// A task that wakes itself a million times: no stack growth, no starvation
// of the other tasks or of the JS event loop (shared with Chromium:
// tests/js/cases.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { prog, runCase } from './prog.mjs';
import { yieldMillion } from './cases.mjs';

test(yieldMillion.title, (t) => runCase(yieldMillion, { t }));

test('a run of microtask ticks is bounded', async () => {
  const rt = await prog({ burst: 16, sliceMs: 1000 });
  const n = await rt.callAsync('yield_n', 1000);
  assert.equal(n, 1000);
  const st = rt.stats();
  // each run of 16 microtask ticks ends with a macrotask tick
  assert.ok(st.macrotaskTicks >= Math.floor(1000 / 17) - 1, JSON.stringify(st));
  rt.close();
});
