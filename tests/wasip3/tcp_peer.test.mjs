// SPDX-License-Identifier: MIT
// tcp_peer.c as a WASI 0.3 command ($WASYNC_COMPONENT, run by
// $WASYNC_RUN_P3 into $WASYNC_OUT) against a Node peer: one that sends 5
// bytes and then ends the connection cleanly reads as the end of the
// stream; one that resets it, as WA_ECONNRESET (receive's result future:
// preview3-shim does not end the stream), and a write to it fails the same
// way (send's); with few file descriptors, a connect fails with WA_EMFILE.
// Nothing is left held in any case. Under wasmtime too
// (../wasip2/runner.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { wasmtime, wasmtimeRun } from '../wasip2/runner.mjs';

// Runs the component in mode against a server whose connections get
// onConnection; fds: its limit of open files. Resolves to its exit status
// and output.
async function against(onConnection, mode, fds) {
  const conns = [];
  const server = createServer((s) => {
    conns.push(s);
    onConnection(s);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const [command, args] = wasmtime ? wasmtimeRun([String(server.address().port), mode])
    : [process.execPath, [process.env.WASYNC_RUN_P3, process.env.WASYNC_COMPONENT, process.env.WASYNC_OUT, '--',
      String(server.address().port), mode]];
  // (its own process group: a hung run is killed with the Node it started)
  const child = fds
    ? spawn('/bin/sh', ['-c', `ulimit -n ${fds} && exec "$0" "$@"`, command, ...args], { detached: true })
    : spawn(command, args, { detached: true });
  let out = '', err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  // (a read that never ends is a failure, not a hang)
  const timer = setTimeout(() => process.kill(-child.pid, 'SIGKILL'), 30000);
  const status = await new Promise((resolve) => child.on('exit', resolve));
  clearTimeout(timer);
  for (const s of conns) s.destroy();
  server.close();
  return { status, out, err };
}

const reset = (s) => s.write('hello', () => setTimeout(() => s.resetAndDestroy(), 100));

test('a clean end reads as the end of the stream', async () => {
  const r = await against((s) => s.end('hello'), 'read');
  assert.equal(r.status, 0, r.err);
  assert.equal(r.out, 'read 5 bytes, then channel closed\nheld 0\n');
});

test('a reset reads as connection reset', async () => {
  const r = await against(reset, 'read');
  assert.equal(r.status, 0, r.err);
  assert.match(r.out, /^read \d+ bytes, then connection reset\nheld 0\n$/);
});

test('a write to a reset peer fails', async () => {
  const r = await against(reset, 'write');
  assert.equal(r.status, 0, r.err);
  assert.match(r.out, /^read \d+ bytes, then connection reset\nwrite: connection reset\nheld 0\n$/);
});

// wasi:sockets@0.3.0's error-code has no case for it: preview3-shim says
// other("EMFILE"), read as WA_EMFILE (src/host/wasip3/sockets.c); wasmtime 49
// says other(none), which can only be WA_EIO.
test(`out of file descriptors, a connect fails with ${wasmtime ? 'WA_EIO' : 'WA_EMFILE'}`, async () => {
  const r = await against(() => {}, 'many', 200);
  assert.equal(r.status, 0, r.err);
  assert.equal(r.out, `connect: ${wasmtime ? 'I/O error' : 'too many open files'}\nheld 0\n`);
});
