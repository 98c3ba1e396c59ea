// SPDX-License-Identifier: MIT
// backpressure under `jco run` or wasmtime (runner.mjs): the component
// connects to a Node server here that does not read for PAUSE_MS, and
// writes BYTES, more than the
// kernel's buffers and Node's (16 KiB high-water mark) can hold, so
// check-write must return 0 and the writer wait on the pollable
// (write_waits > 0). Then the server reads: every byte must arrive, in
// order, and the component must end with no WASI handle nor source left.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { wasmtime, wasmtimeRun } from './runner.mjs';

const BYTES = 16 << 20, PAUSE_MS = 1000;

// Byte i of the stream, as in backpressure.c (JS shifts are 32-bit: fine
// below 4 GiB).
const pattern = (i) => (i ^ (i >>> 8) ^ (i >>> 16) ^ (i >>> 24)) & 0xff;

test('a paused reader makes check-write say 0; every byte still arrives', async () => {
  let received = 0, firstBad = -1, resolveEnd, rejectEnd;
  const ended = new Promise((resolve, reject) => ((resolveEnd = resolve), (rejectEnd = reject)));
  const server = createServer((sock) => {
    server.close(); // one connection
    sock.pause();
    setTimeout(() => sock.resume(), PAUSE_MS);
    sock.on('data', (d) => {
      for (let k = 0; k < d.length && firstBad < 0; k++)
        if (d[k] !== pattern(received + k)) firstBad = received + k;
      received += d.length;
    });
    sock.on('end', resolveEnd);
    sock.on('error', rejectEnd);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const args = [String(server.address().port), String(BYTES)];
  const child = wasmtime ? spawn(...wasmtimeRun(args), { stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(process.execPath, [process.env.JCO, 'run', process.env.WASYNC_COMPONENT, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '', err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  // The component exits after its close: by then every byte it sent is
  // with the kernel, and the server sees the end once it has read them.
  assert.equal(await new Promise((resolve) => child.on('close', resolve)), 0, err);
  await ended;
  const r = Object.fromEntries(out.trim().split('\n').map((l) => l.split(' ')));
  assert.equal(firstBad, -1, `byte ${firstBad} differs from the pattern`);
  assert.equal(received, BYTES, 'every byte arrived');
  assert.equal(Number(r.sent), BYTES);
  assert.ok(Number(r.write_waits) > 0, `write_waits ${r.write_waits}: check-write never said 0`);
  // Each wait ends with a drain (Node's buffer empty, 16 KiB of room): at
  // most one wait per 16 KiB, or the wait would be a busy loop.
  assert.ok(Number(r.write_waits) <= BYTES / 16384, `write_waits ${r.write_waits}: a busy loop?`);
  assert.equal(r.handles_left, '0', 'no WASI handle left after the close');
  assert.equal(r.sources_left, '0', 'no source left armed in the backend');
  console.log(`${BYTES} bytes: ${r.write_waits} write waits`);
});
