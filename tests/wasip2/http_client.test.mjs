// SPDX-License-Identifier: MIT
// The HTTP client suite (tests/wasip2/http_client.c) under `jco run`, or
// as a 0.3 command under run-p3.mjs ($WASYNC_RUN_P3), either under
// wasmtime (runner.mjs), against this Node server: it echoes bodies,
// reports what it was sent, serves 1 MiB, never answers /hang, sends 90
// empty headers on /empty (http_client.c says why not more), garbage on
// /garbage, a header of 1 MiB on /bigheader, says the length headers it
// got on /length, and counts what it saw.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { wasmtime, wasmtimeRun } from './runner.mjs';

const p3 = process.env.WASYNC_RUN_P3;

test('the HTTP client suite', async () => {
  const seen = { echo: 0, headers: 0, big: 0, hang: 0 };
  const server = createServer((req, res) => {
    const path = req.url.split('?')[0].slice(1);
    if (path in seen) seen[path]++;
    if (path === 'headers') {
      res.setHeader('x-reply', 'yes');
      res.end(`${req.method} ${req.url} x-wasync=${req.headers['x-wasync']} type=${req.headers['content-type']}`);
    } else if (path === 'echo') {
      req.pipe(res);
    } else if (path === 'empty') {
      for (let i = 0; i < 90; i++) res.setHeader(`x-empty-${i}`, '');
      res.end();
    } else if (path === 'garbage') {
      req.socket.end('garbage\r\n\r\n');
    } else if (path === 'bigheader') {
      req.socket.end(`HTTP/1.1 200 OK\r\nx-big: ${'a'.repeat(1 << 20)}\r\ncontent-length: 0\r\n\r\n`);
    } else if (path === 'length') {
      const te = req.headers['transfer-encoding'];
      res.end(`length=${req.headers['content-length'] ?? -1} chunked=${te === undefined ? 0 : 1}`);
    } else if (path === 'big') {
      res.end(Buffer.alloc(1 << 20, 'x'));
    } else if (path === 'count') { // (and starts counting anew)
      res.end(Object.entries(seen).map(([k, v]) => `${k}=${v}`).join(' '));
      for (const k in seen) seen[k] = 0;
    } // hang: never answered
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const base = `http://127.0.0.1:${server.address().port}`;
    const [command, args] = wasmtime ? wasmtimeRun([base, 'wasmtime'])
      : [process.execPath, p3 ? [p3, process.env.WASYNC_COMPONENT, process.env.WASYNC_OUT, '--', base]
        : [process.env.JCO, 'run', process.env.WASYNC_COMPONENT, base]];
    const { stdout, stderr, killed } = await promisify(execFile)(command, args, { timeout: 60000 })
      .catch((e) => e);
    assert.match(stdout, /^\d+ passed, 0 failed$/m, stderr);
    assert.ok(!killed, 'it ended by itself');
  } finally {
    server.closeAllConnections();
    server.close();
  }
});
