// SPDX-License-Identifier: MIT
// stdin_sum under `jco run` or wasmtime (runner.mjs), stdin piped from
// here: the byte count and FNV-1a must match exactly, for 1 MiB at once, for nothing at all, and for
// 1 MiB in chunks with pauses between them, where every pause must find the
// component waiting on stdin's pollable (read_waits).
//
// Under jco the component's stdin is a Node Readable in preview2-shim's I/O
// worker over fs.read(0) (the nested `node` that `jco run` spawns inherits
// our pipe): input-stream.read only returns what that Readable has
// buffered, so even the first read finds nothing and waits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { wasmtime, wasmtimeRun } from './runner.mjs';

function fnv1a(buf) {
  let h = 0x811c9dc5;
  for (let i = 0; i < buf.length; i++) h = Math.imul(h ^ buf[i], 16777619) >>> 0;
  return h.toString(16).padStart(8, '0');
}

// Runs the component, feeding it the chunks (with pauses: once it reads,
// and gapMs before each but the first); resolves with its "key value" lines
// as an object.
async function run(chunks, gapMs = 0) {
  const [command, args] = wasmtime ? wasmtimeRun() : [process.execPath, [process.env.JCO, 'run', process.env.WASYNC_COMPONENT]];
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '', err = '', cue;
  const reading = new Promise((resolve) => (cue = resolve));
  child.stdout.on('data', (d) => {
    out += d;
    if (out.includes('reading stdin\n')) cue();
  });
  child.stderr.on('data', (d) => (err += d));
  child.stdin.on('error', () => {}); // an early exit shows in the status
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  // Paused chunks must not pile up in the pipe while jco starts.
  if (gapMs) await Promise.race([reading, exited]);
  for (const [i, c] of chunks.entries()) {
    if (i > 0 && gapMs) await sleep(gapMs);
    if (!child.stdin.write(c)) await new Promise((resolve) => child.stdin.once('drain', resolve));
  }
  child.stdin.end();
  assert.equal(await exited, 0, err);
  await new Promise((resolve) => (child.stdout.readableEnded ? resolve() : child.stdout.on('end', resolve)));
  return Object.fromEntries(out.trim().split('\n').map((l) => l.split(' ')));
}

function check(r, input) {
  assert.equal(Number(r.bytes), input.length);
  assert.equal(r.fnv1a, fnv1a(input));
  assert.equal(r.handles_left, '0', 'no WASI handle left after the close');
  assert.equal(r.sources_left, '0', 'no source left armed in the backend');
  // A wait ends when the pollable says data (or the end) is there, and
  // then a read gets some: more waits than that would be a busy loop.
  assert.ok(Number(r.read_waits) <= Number(r.reads) + 1, `read_waits ${r.read_waits} > reads ${r.reads} + 1`);
}

test('1 MiB of random bytes, all at once', async () => {
  const input = randomBytes(1 << 20);
  const r = await run([input]);
  check(r, input);
  console.log(`1 MiB at once: ${r.reads} reads, ${r.read_waits} read waits`);
});

test('empty stdin ends at once', async () => {
  const r = await run([]);
  check(r, Buffer.alloc(0));
  assert.equal(r.reads, '0');
});

test('1 MiB in chunks with pauses: every pause is a wait on the pollable', async () => {
  const CHUNKS = 8, GAP_MS = 150;
  const input = randomBytes(1 << 20);
  const chunks = Array.from({ length: CHUNKS }, (_, i) => input.subarray(i * input.length / CHUNKS, (i + 1) * input.length / CHUNKS));
  const r = await run(chunks, GAP_MS);
  check(r, input);
  // Each pause finds the component with all data so far consumed: it must
  // have found stdin empty and waited at least once per pause.
  assert.ok(Number(r.read_waits) >= CHUNKS - 1, `read_waits ${r.read_waits} < ${CHUNKS - 1}`);
  console.log(`1 MiB in ${CHUNKS} chunks: ${r.reads} reads, ${r.read_waits} read waits`);
});
