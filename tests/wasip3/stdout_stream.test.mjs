// SPDX-License-Identifier: MIT
// stdout_stream.c: stdout as a wasync stream over stream<u8>. Read fast,
// then slowly (the pipe paused 100 ms per 64 KiB): every byte arrives, and
// a slow reader makes the writes wait (backpressure, measured: the times
// the component reports). Also shows how printf (the preview1 adapter's
// 0.2 stdout) and the 0.3 stream interleave. Under run-p3.mjs or wasmtime
// (../wasip2/runner.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { wasmtime, wasmtimeRun } from '../wasip2/runner.mjs';

const SIZE = 1 << 20;

const PAUSE = 100; // ms per 64 KiB read, in the slow run

async function run(pauseMs) {
  const child = wasmtime ? spawn(...wasmtimeRun())
    : spawn(process.execPath, [process.env.WASYNC_RUN_P3, process.env.WASYNC_COMPONENT, process.env.WASYNC_OUT]);
  const out = [];
  let err = '', got = 0;
  child.stderr.on('data', (d) => (err += d));
  const done = new Promise((resolve) => child.on('close', resolve));
  for await (const d of child.stdout) {
    out.push(d);
    const before = got;
    got += d.length;
    if (pauseMs && Math.floor(got / 65536) > Math.floor(before / 65536)) await sleep(pauseMs);
  }
  const code = await done;
  return { code, out: Buffer.concat(out), err };
}

function check(r) {
  assert.equal(r.code, 0, r.err);
  assert.match(r.err, /\nok\n/);
  assert.match(r.err, /live ends 0/);
  const text = r.out.subarray(0, 27).toString();
  const data = r.out.subarray(27);
  assert.equal(data.length, SIZE);
  for (let i = 0; i < SIZE; i++)
    if (data[i] !== ((i * 7 + (i >>> 12)) & 0xff)) assert.fail(`byte ${i}: ${data[i]}`);
  console.log(`order: ${JSON.stringify(text)}`);
  // printf and the stream each keep their order; each line is whole.
  assert.deepEqual(text.split('\n').slice(0, 3).sort(), ['printf 1', 'printf 2', 'stream 1']);
  assert.ok(text.indexOf('printf 1') < text.indexOf('printf 2'));
  return Number(/waited ([0-9.]+) ms/.exec(r.err)[1]);
}

test('stdout as a stream: fast reader, then a slow one', async () => {
  const fast = await run(0);
  const waitedFast = check(fast);
  console.log(`fast reader: ${fast.err.trim()}`);
  const slow = await run(PAUSE);
  const waitedSlow = check(slow);
  console.log(`slow reader: ${slow.err.trim()}`);
  // 16 pauses: the writer waits through a good part of them (the pipe and
  // the hosts buffer the rest; about 44 % was seen here). The bound is on
  // the slow run alone, since load only makes waits longer, and a loaded
  // fast run must not make it fail.
  const paused = 16 * PAUSE;
  assert.ok(waitedSlow >= 0.25 * paused, `waited ${waitedSlow} ms of ${paused} ms paused (fast: ${waitedFast} ms)`);
});
