// The HTTP client (examples/wasi/fetch_many.c) under `jco run` against a
// Node server: 20 concurrent GETs all answered; 20 GETs of a route that
// never answers all time out, and every handle they held is released.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

async function withServer(fn) {
  const server = createServer((req, res) => {
    if (req.url === '/hello') res.end('hello'); // anything else: never answered
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    return await fn(`http://127.0.0.1:${server.address().port}`);
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

const fetchMany = (base, n, ms, path) =>
  run(process.execPath, [process.env.JCO, 'run', process.env.WASYNC_COMPONENT, base + path, String(n), String(ms)],
    { timeout: 60000 });

test('20 concurrent GETs', () => withServer(async (base) => {
  const { stdout } = await fetchMany(base, 20, 5000, '/hello');
  const lines = stdout.trim().split('\n');
  assert.equal(lines.filter((l) => / 200 5$/.test(l)).length, 20, stdout);
  assert.equal(lines.at(-1), 'handles 0');
}));

test('timed-out GETs release their handles', () => withServer(async (base) => {
  const t0 = performance.now();
  const { stdout } = await fetchMany(base, 20, 300, '/hang');
  const lines = stdout.trim().split('\n');
  assert.equal(lines.filter((l) => / timed out$/.test(l)).length, 20, stdout);
  assert.equal(lines.at(-1), 'handles 0');
  assert.ok(performance.now() - t0 < 30000);
}));
