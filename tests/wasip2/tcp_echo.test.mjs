// examples/tcp_echo.c, as a component under `jco run` or natively
// ($WASYNC_NATIVE), with Node clients: several at once, each sending
// 256 KiB and reading it all back (the server's writes meet TCP
// backpressure), then the server ends after its N connections.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { connect } from 'node:net';

const CLIENTS = 3, BYTES = 256 * 1024;

function echoOnce(port, seed) {
  return new Promise((resolve, reject) => {
    const data = Buffer.alloc(BYTES, 0);
    for (let i = 0; i < BYTES; i++) data[i] = (i * 31 + seed) & 0xff;
    const chunks = [];
    let got = 0;
    const s = connect(port, '127.0.0.1', () => s.write(data));
    s.on('data', (d) => {
      chunks.push(d);
      got += d.length;
      if (got >= BYTES) s.end();
    });
    s.on('error', reject);
    s.on('close', () => resolve({ sent: data, back: Buffer.concat(chunks) }));
  });
}

test('tcp-echo echoes concurrent clients and ends', async () => {
  const args = ['0', String(CLIENTS)];
  const server = process.env.WASYNC_NATIVE
    ? spawn(process.env.WASYNC_NATIVE, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(process.execPath, [process.env.JCO, 'run', process.env.WASYNC_COMPONENT, ...args],
      { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  server.stderr.on('data', (d) => (err += d));
  const exited = new Promise((resolve) => server.on('exit', (code) => resolve(code)));
  const port = await new Promise((resolve, reject) => {
    let out = '';
    server.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/listening (\d+)/);
      if (m) resolve(Number(m[1]));
    });
    server.on('exit', () => reject(new Error(`server exited early: ${out} ${err}`)));
  });
  const results = await Promise.all(Array.from({ length: CLIENTS }, (_, i) => echoOnce(port, i)));
  for (const r of results) {
    assert.equal(r.back.length, BYTES);
    assert.ok(r.back.equals(r.sent), 'every byte echoed, in order');
  }
  assert.equal(await exited, 0, err);
});
