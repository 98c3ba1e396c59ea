// SPDX-License-Identifier: MIT
// examples/udp_echo.c, as a component under `jco run`, natively
// ($WASYNC_NATIVE) or as a WASI 0.3 command ($WASYNC_P3, run by
// $WASYNC_RUN_P3 into $WASYNC_OUT), either under wasmtime (runner.mjs),
// with a Node client: datagrams of 1 byte to 8 KiB, one at a time, each
// echoed whole from the server's port; then the server ends after its N
// datagrams. Over IPv4 and over IPv6.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { once } from 'node:events';
import { startServer } from './echo_server.mjs';

const SIZES = [1, 100, 1400, 8192, 0, 3];

async function echoes(host) {
  const args = ['0', String(SIZES.length)];
  if (host !== '127.0.0.1') args.push(host);
  const server = await startServer(args);
  const client = createSocket(host.includes(':') ? 'udp6' : 'udp4');
  try {
    for (const [i, size] of SIZES.entries()) {
      const data = Buffer.alloc(size);
      for (let k = 0; k < size; k++) data[k] = (k * 31 + i) & 0xff;
      const back = once(client, 'message');
      client.send(data, server.port, host);
      const [msg, rinfo] = await back;
      assert.ok(msg.equals(data), `datagram ${i} (${size} bytes) echoed whole`);
      assert.equal(rinfo.port, server.port);
    }
  } finally {
    client.close();
  }
  assert.equal(await server.exited, 0, server.err);
}

test('udp-echo echoes datagrams and ends', () => echoes('127.0.0.1'));

test('udp-echo over IPv6 (::1)', () => echoes('::1'));
