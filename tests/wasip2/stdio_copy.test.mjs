// SPDX-License-Identifier: MIT
// examples/stdio_copy.c natively ($WASYNC_NATIVE), as a WASI 0.1 module
// under node:wasi ($WASYNC_WASI1, run by $WASI1_RUN), as a WASI 0.3
// component ($WASYNC_P3, run by $WASYNC_RUN_P3 into $WASYNC_OUT), as a
// 0.2 component under `jco run`, or any of these under wasmtime
// (runner.mjs): stdin to stdout byte for byte through pipes (fed in
// chunks with pauses, so the reads wait), from a file to a file (no
// waiting possible: regular files), and for empty input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, openSync, readFileSync, writeFileSync, closeSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { wasmtime, wasmtimeRun } from './runner.mjs';

const native = process.env.WASYNC_NATIVE, wasi1 = process.env.WASYNC_WASI1, p3 = process.env.WASYNC_P3;
// jco's stdout drops what a pipe holds at exit if the reader lags: keep a
// component's output small (the other hosts stream any size).
const SIZE = native || wasi1 || p3 || wasmtime ? 1 << 20 : 48 * 1024;

function start(stdio) {
  if (wasmtime) return spawn(...wasmtimeRun(), { stdio });
  if (native) return spawn(native, [], { stdio });
  if (wasi1) return spawn(process.execPath, ['--no-warnings', process.env.WASI1_RUN, wasi1], { stdio });
  if (p3) return spawn(process.execPath, [process.env.WASYNC_RUN_P3, p3, process.env.WASYNC_OUT], { stdio });
  return spawn(process.execPath, [process.env.JCO, 'run', process.env.WASYNC_COMPONENT], { stdio });
}

const finished = (child) => new Promise((resolve) => child.on('close', (code) => resolve(code)));

async function viaPipes(chunks, gapMs) {
  const child = start(['pipe', 'pipe', 'pipe']);
  const out = [], err = [];
  child.stdout.on('data', (d) => out.push(d));
  child.stderr.on('data', (d) => err.push(d));
  child.stdin.on('error', () => {}); // an early exit shows in the status
  const done = finished(child);
  for (const [i, c] of chunks.entries()) {
    if (i > 0) await sleep(gapMs);
    if (!child.stdin.write(c)) await new Promise((resolve) => child.stdin.once('drain', resolve));
  }
  child.stdin.end();
  const code = await done;
  return { code, out: Buffer.concat(out), err: Buffer.concat(err).toString() };
}

test('stdin to stdout through pipes, in chunks with pauses', async () => {
  const input = randomBytes(SIZE);
  const chunks = Array.from({ length: 4 }, (_, i) => input.subarray(i * SIZE / 4, (i + 1) * SIZE / 4));
  const r = await viaPipes(chunks, 100);
  assert.equal(r.code, 0, r.err);
  assert.ok(r.out.equals(input), 'every byte, in order');
  assert.match(r.err, new RegExp(`copied ${SIZE} bytes`));
});

test('empty stdin', async () => {
  const r = await viaPipes([], 0);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out.length, 0);
});

test('from a file to a file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wasync-stdio-'));
  try {
    const input = randomBytes(SIZE);
    writeFileSync(join(dir, 'in'), input);
    const fin = openSync(join(dir, 'in'), 'r'), fout = openSync(join(dir, 'out'), 'w');
    const child = start([fin, fout, 'pipe']);
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const code = await finished(child);
    closeSync(fin);
    closeSync(fout);
    assert.equal(code, 0, err);
    assert.ok(readFileSync(join(dir, 'out')).equals(input), 'every byte, in order');
  } finally {
    rmSync(dir, { recursive: true });
  }
});
