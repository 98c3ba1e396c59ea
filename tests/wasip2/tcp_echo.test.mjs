// SPDX-License-Identifier: MIT
// examples/tcp_echo.c, as a component under `jco run`, natively
// ($WASYNC_NATIVE) or as a WASI 0.3 command ($WASYNC_P3, run by
// $WASYNC_RUN_P3 into $WASYNC_OUT), either under wasmtime (runner.mjs),
// with Node clients: several at once, each sending 256 KiB and reading it
// all back (the server's writes meet TCP backpressure), then the server
// ends after its N connections; over IPv4 and over IPv6. Natively also
// with few file descriptors: more clients at once than the server has fds
// for, all served, as the server waits out WA_EMFILE instead of stopping. (Not under jco: Node's own accept loop
// meets the limit first, and closes the connections it cannot take.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { startServer } from './echo_server.mjs';

const native = process.env.WASYNC_NATIVE;
const CLIENTS = 3, BYTES = 256 * 1024;

function echoOnce(host, port, seed, bytes = BYTES) {
  return new Promise((resolve, reject) => {
    const data = Buffer.alloc(bytes, 0);
    for (let i = 0; i < bytes; i++) data[i] = (i * 31 + seed) & 0xff;
    const chunks = [];
    let got = 0;
    const s = connect(port, host, () => s.write(data));
    s.on('data', (d) => {
      chunks.push(d);
      got += d.length;
      if (got >= bytes) s.end();
    });
    s.on('error', reject);
    s.on('close', () => resolve({ sent: data, back: Buffer.concat(chunks) }));
  });
}

async function echoes(host) {
  const args = ['0', String(CLIENTS)];
  if (host !== '127.0.0.1') args.push(host);
  const server = await startServer(args);
  const results = await Promise.all(Array.from({ length: CLIENTS }, (_, i) => echoOnce(host, server.port, i)));
  for (const r of results) {
    assert.equal(r.back.length, BYTES);
    assert.ok(r.back.equals(r.sent), 'every byte echoed, in order');
  }
  assert.equal(await server.exited, 0, server.err);
}

test('tcp-echo echoes concurrent clients and ends', () => echoes('127.0.0.1'));

test('tcp-echo over IPv6 (::1)', () => echoes('::1'));

test('tcp-echo out of file descriptors keeps accepting', { skip: !native && 'natively only' }, async () => {
  // 16 fds: stdio, the runtime's, the listener, and a few connections
  const MANY = 24;
  const server = await startServer(['0', String(MANY)], 16);
  const results = await Promise.all(Array.from({ length: MANY }, (_, i) => echoOnce('127.0.0.1', server.port, i, 4096)));
  for (const r of results) assert.ok(r.back.equals(r.sent), 'every byte echoed, in order');
  assert.equal(await server.exited, 0, server.err);
  assert.match(server.err, /too many open files; accepting again/);
});
