// SPDX-License-Identifier: MIT
// stream_out: 1 MiB through a stream<u8> to stdout, every byte checked
// against the pattern stream_out.c writes; the component's own report
// (stderr) must say it saw no failure. Under run-p3.mjs or wasmtime
// (../wasip2/runner.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { wasmtime, wasmtimeRun } from '../wasip2/runner.mjs';

test('1 MiB through wasi:cli/stdout@0.3.0 write-via-stream', () => {
  const [command, args] = wasmtime ? wasmtimeRun()
    : [process.execPath, [process.env.WASYNC_RUN_P3, process.env.WASYNC_COMPONENT, process.env.WASYNC_OUT]];
  const r = spawnSync(command, args, { maxBuffer: 1 << 24 });
  const err = r.stderr.toString();
  assert.equal(r.status, 0, err);
  assert.match(err, /1 passed, 0 failed/);
  const out = r.stdout;
  assert.equal(out.length, 1 << 20);
  for (let i = 0; i < out.length; i++)
    if (out[i] !== ((i * 7 + (i >>> 12)) & 0xff)) assert.fail(`byte ${i}: ${out[i]}`);
  console.log(err.trim());
});
