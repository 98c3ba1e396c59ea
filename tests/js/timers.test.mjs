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
  const took = await rt.callAsync('sleep_ms', 120);
  const at = since(t0);
  assert.ok(took >= 120 && took < 170, `C: ${took} ms`);
  assert.ok(at >= 120 && at < 170, `JS: ${at.toFixed(1)} ms`);
  rt.close();
});
