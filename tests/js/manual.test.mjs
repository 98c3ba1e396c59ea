// SPDX-License-Identifier: MIT
// drive: 'manual': nothing runs until the embedder calls rt.tick().
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { prog, delay, track, utf8 } from './prog.mjs';
import { serve } from './server.mjs';

let server;
before(async () => { server = await serve(); });
after(() => server.close());

test('manual driving: nothing progresses until tick()', async () => {
  const rt = await prog({ drive: 'manual' });
  const zero = track(rt.callAsync('sleep_ms', 0));
  await delay(30);
  assert.equal(zero.settled, false, 'ran without a tick');
  assert.ok(rt.pending() > 0);
  rt.tick();
  await null;
  assert.equal(zero.settled, true);
  assert.equal(typeof zero.value, 'number');

  const t0 = performance.now();
  const slept = track(rt.callAsync('sleep_ms', 30));
  assert.equal(rt.tick(), 0);
  const deadline = rt.nextDeadline();
  assert.ok(deadline >= t0 + 29 && deadline < t0 + 60, `deadline ${deadline - t0} ms ahead`);
  assert.equal(rt.pending(), 0, 'nothing to do before the deadline');
  await delay(60);
  assert.equal(slept.settled, false, 'a timer fired without a tick');
  assert.ok(rt.pending() > 0, 'the deadline passed');
  rt.tick();
  await null;
  assert.equal(slept.settled, true);
  assert.equal(rt.nextDeadline(), -1);

  const fetched = track(rt.callAsync('fetch_body', server.url('/delay?ms=0&body=manual')));
  rt.tick(); // starts the fetch
  // Each delivery is awaited as it comes (10 s at most), not for a time: the
  // server's answer takes what the machine gives it.
  const delivery = async () => {
    for (let i = 0; i < 1000 && rt.pending() === 0; i++) await delay(10);
  };
  await delivery();
  assert.equal(fetched.settled, false, 'a delivery ran without a tick');
  assert.ok(rt.pending() > 0, 'a delivery waits');
  // the head, the body's chunk, its end: each handed over by a tick
  for (let i = 0; i < 10 && !fetched.settled; i++) {
    rt.tick();
    await null;
    if (!fetched.settled) await delivery();
  }
  assert.deepEqual(fetched.value, utf8('manual'));

  const st = rt.stats();
  assert.equal(st.microtaskTicks, 0);
  assert.equal(st.macrotaskTicks, 0);
  assert.equal(st.ticks, st.manualTicks);
  assert.equal(rt.exports.live_tasks(), 0);
  rt.close();
});

test('manual driving from a frame-like loop', async () => {
  const rt = await prog({ drive: 'manual' });
  let done = false;
  const all = Promise.all([rt.callAsync('sleep_ms', 20), rt.callAsync('yield_n', 100),
    rt.callAsync('await_promise', rt.adopt(delay(10).then(() => 5)))]).then((v) => { done = true; return v; });
  let frames = 0;
  while (!done && frames < 200) { // ~ requestAnimationFrame at 250 Hz
    if (rt.pending()) rt.tick();
    frames++;
    await delay(4);
  }
  const [slept, n, five] = await all;
  assert.ok(slept >= 20);
  assert.equal(n, 100);
  assert.equal(five, 5);
  rt.close();
});
