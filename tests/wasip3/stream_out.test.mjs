// SPDX-License-Identifier: MIT
// stream_out: 1 MiB through a stream<u8> to stdout, every byte checked
// against the pattern stream_out.c writes; the component's own report
// (stderr) must say it saw no failure.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

test('1 MiB through wasi:cli/stdout@0.3.0 write-via-stream', () => {
  const r = spawnSync(process.execPath, [process.env.WASYNC_RUN_P3, process.env.WASYNC_COMPONENT, process.env.WASYNC_OUT],
    { maxBuffer: 1 << 24 });
  const err = r.stderr.toString();
  assert.equal(r.status, 0, err);
  assert.match(err, /1 passed, 0 failed/);
  const out = r.stdout;
  assert.equal(out.length, 1 << 20);
  for (let i = 0; i < out.length; i++)
    if (out[i] !== ((i * 7 + (i >>> 12)) & 0xff)) assert.fail(`byte ${i}: ${out[i]}`);
  console.log(err.trim());
});
