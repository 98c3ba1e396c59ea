// Timers and exported async calls: 10,000 sleeps on one host timer, errors
// from C as rejections.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { prog, since } from './prog.mjs';

test('10,000 concurrent timers', async () => {
  const rt = await prog();
  const n = 10000;
  const t0 = performance.now();
  const ds = Array.from({ length: n }, (_, i) => (i * 37) % 101); // 0..100 ms
  const ats = await Promise.all(ds.map((d) => rt.callAsync('sleep_ms', d).then(() => since(t0))));
  const total = since(t0);
  ats.forEach((at, i) => assert.ok(at >= ds[i] - 1, `sleep_ms(${ds[i]}) resolved at +${at.toFixed(1)} ms`));
  const last = Math.max(...ats);
  assert.ok(last >= 100 && last < 1000, `the last resolved at +${last.toFixed(1)} ms`);
  assert.ok(total < 1000, `${total.toFixed(1)} ms in all`);
  assert.equal(rt.exports.live_tasks(), 0);
  const st = rt.stats();
  assert.equal(st.timerArmed, false);
  assert.ok(st.timerFires <= 150, `${st.timerFires} host timer fires for 101 distinct deadlines`);
  rt.close();
});

test('exported async functions: fail_with rejects with its code, sleep_ms(0) resolves', async () => {
  const rt = await prog();
  await assert.rejects(rt.callAsync('fail_with', -4), (e) => {
    assert.equal(e.code, -4);
    assert.equal(e.codeName, 'ETIMEDOUT');
    assert.match(e.message, /ETIMEDOUT/);
    return true;
  });
  for (const code of [-1, -3, -12]) await assert.rejects(rt.callAsync('fail_with', code), { code });
  const took = await rt.callAsync('sleep_ms', 0);
  assert.equal(typeof took, 'number');
  assert.ok(took >= 0 && took < 50);
  assert.equal(rt.exports.live_tasks(), 0);
  rt.close();
});

test('an unknown export rejects at once', async () => {
  const rt = await prog();
  await assert.rejects(rt.callAsync('no_such_function'), TypeError);
  rt.close();
});

test('a sleep measured in C matches the JS clock', async () => {
  const rt = await prog();
  const t0 = performance.now();
  const took = await rt.callAsync('sleep_ms', 120);
  const at = since(t0);
  assert.ok(took >= 120 && took < 170, `C: ${took} ms`);
  assert.ok(at >= 120 && at < 170, `JS: ${at.toFixed(1)} ms`);
  rt.close();
});
