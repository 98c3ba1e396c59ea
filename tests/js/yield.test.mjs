// A task that wakes itself a million times: no stack growth, no starvation
// of the other tasks or of the JS event loop.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { prog, since } from './prog.mjs';

test('yield_n(1e6) finishes without starving timers or the event loop', async () => {
  const rt = await prog();
  const t0 = performance.now();
  let jsTimer = null;
  setTimeout(() => { jsTimer = since(t0); }, 10);
  const slept = rt.callAsync('sleep_ms', 50).then(() => since(t0));
  const yielded = rt.callAsync('yield_n', 1e6).then((n) => ({ n, at: since(t0) }));

  const { n, at } = await yielded;
  assert.equal(n, 1000000);
  const sleptAt = await slept;
  assert.ok(sleptAt >= 50 && sleptAt < 100, `sleep_ms(50) resolved at +${sleptAt.toFixed(1)} ms`);
  assert.ok(jsTimer !== null && jsTimer < at, `setTimeout(10) fired at ${jsTimer} ms, yield_n done at ${at.toFixed(1)} ms`);
  assert.ok(jsTimer < 60, `setTimeout(10) fired late: +${jsTimer.toFixed(1)} ms`);
  assert.ok(sleptAt < at, 'the sleeper finished while the yielder ran');

  const st = rt.stats();
  assert.ok(st.ticks >= 1000000, `${st.ticks} ticks`);
  assert.ok(st.macrotaskTicks > 0, 'ticks continued from macrotasks');
  assert.ok(st.microtaskTicks > st.macrotaskTicks, 'most ticks are microtasks');
  assert.equal(rt.exports.live_tasks(), 0);
  rt.close();
});

test('a run of microtask ticks is bounded', async () => {
  const rt = await prog({ burst: 16, sliceMs: 1000 });
  const n = await rt.callAsync('yield_n', 1000);
  assert.equal(n, 1000);
  const st = rt.stats();
  // each run of 16 microtask ticks ends with a macrotask tick
  assert.ok(st.macrotaskTicks >= Math.floor(1000 / 17) - 1, JSON.stringify(st));
  rt.close();
});
