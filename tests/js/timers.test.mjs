// SPDX-License-Identifier: MIT
// Timers and exported async calls: 10,000 sleeps on one host timer, errors
// from C as rejections, a sleep armed late in a long tick (those three
// shared with Chromium: tests/js/cases.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { prog, runCase, since } from './prog.mjs';
import { timers10k, exportedCalls, lateSleep } from './cases.mjs';

test(timers10k.title, (t) => runCase(timers10k, { t }));

test(exportedCalls.title, (t) => runCase(exportedCalls, { t }));

test(lateSleep.title, (t) => runCase(lateSleep, { t }));

test('an unknown export rejects at once', async () => {
  const rt = await prog();
  await assert.rejects(rt.callAsync('no_such_function'), TypeError);
  rt.close();
});

test('a sleep measured in C matches the JS clock', async () => {
  const rt = await prog();
  const t0 = performance.now();
  // A JS timer of the same length beside it: how late this machine lets
  // timers be now (the sleep's host timer is one too).
  const ref = new Promise((r) => setTimeout(() => r(since(t0)), 120));
  const took = await rt.callAsync('sleep_ms', 120);
  const at = since(t0);
  const refAt = await ref;
  assert.ok(took >= 120 && at >= 120, `C: ${took} ms, JS: ${at.toFixed(1)} ms`);
  // The clocks agree: C's span lies within the call's, and the call adds
  // little to it; the sleep ends with its JS twin, not later.
  assert.ok(took <= at + 1 && at - took < 50, `C: ${took} ms, JS: ${at.toFixed(1)} ms`);
  assert.ok(at < refAt + 50, `JS: ${at.toFixed(1)} ms, its JS twin at ${refAt.toFixed(1)} ms`);
  rt.close();
});
