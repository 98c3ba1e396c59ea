// SPDX-License-Identifier: MIT
// The HTTP client (examples/fetch_many.c) against a Node server, as a
// component under `jco run`, as a 0.3 command under run-p3.mjs
// ($WASYNC_RUN_P3), either under wasmtime (runner.mjs), natively
// ($WASYNC_NATIVE), or as a JS host module ($WASYNC_JS_MODULE) run by $WASYNC_JS_RUNNER: a Node binary
// (tests/js/call.mjs calls its export fetch_many), or `chromium` (the same
// call in a page of headless Chromium): 20 concurrent GETs all answered;
// 20 GETs of a route that never answers all time out, and every event
// source (and, under jco, every WASI handle) they held is released.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { wasmtime, wasmtimeRun } from './runner.mjs';

const run = promisify(execFile);

// preview3-shim (0.7.0) does not abort the HTTP request of a cancelled
// client.send, and Node does not exit while it is open: under run-p3 the
// server drops an unanswered connection after a second.
async function withServer(fn) {
  const server = createServer((req, res) => {
    // (a page of another origin may read it: the JS host in Chromium)
    if (req.url === '/hello') res.writeHead(200, { 'access-control-allow-origin': '*' }).end('hello');
    // anything else: never answered
    else if (process.env.WASYNC_RUN_P3) setTimeout(() => req.socket.destroy(), 1000);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    return await fn(`http://127.0.0.1:${server.address().port}`);
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

const { WASYNC_NATIVE: native, WASYNC_JS_MODULE: jsModule, WASYNC_JS_RUNNER: jsRunner, WASYNC_RUN_P3: p3 } = process.env;
const root = fileURLToPath(new URL('../..', import.meta.url));

// fetch_many's export, called in a page of headless Chromium that the
// repository's files are served to (tests/js/server.mjs).
async function inChromium(args) {
  const { serve } = await import('../js/server.mjs');
  const { launch } = await import('../browser/chromium.mjs');
  const files = await serve();
  const browser = await launch();
  try {
    const page = await browser.newPage();
    await page.goto(files.url('/tests/js/call.mjs'));
    const { out, error } = await page.evaluate(async ([module, args]) => {
      const { instantiate } = await import('/js/wasync.mjs');
      const { callExport } = await import('/tests/js/call.mjs');
      const r = await callExport(instantiate, fetch(module), 'fetch_many', args);
      return { out: r.out, error: r.error && String(r.error) };
    }, ['/' + relative(root, jsModule), args]);
    if (error) throw new Error(`${error}\n${out}`);
    return { stdout: out };
  } finally {
    await browser.close();
    await files.close();
  }
}

const fetchMany = (base, n, ms, path) => {
  const args = [base + path, String(n), String(ms)];
  if (wasmtime) return run(...wasmtimeRun(args), { timeout: 60000 });
  if (native) return run(native, args, { timeout: 60000 });
  if (jsModule && jsRunner === 'chromium') return inChromium([base + path, n, ms]);
  if (jsModule)
    return run(jsRunner, [fileURLToPath(new URL('../js/call.mjs', import.meta.url)), jsModule, 'fetch_many', ...args], { timeout: 60000 });
  if (p3) return run(process.execPath, [p3, process.env.WASYNC_COMPONENT, process.env.WASYNC_OUT, '--', ...args], { timeout: 60000 });
  return run(process.execPath, [process.env.JCO, 'run', process.env.WASYNC_COMPONENT, ...args], { timeout: 60000 });
};

// The last lines: no event source still registered, then on WASI no
// handle still held.
function released(lines) {
  const sources = 'event sources still registered: 0 (0 once every request, answered or timed out, has let go)';
  const tail = native || jsModule ? [sources] : [sources, 'WASI handles still held: 0 (0 likewise)'];
  assert.deepEqual(lines.slice(-tail.length), tail);
}

test('20 concurrent GETs', () => withServer(async (base) => {
  const { stdout } = await fetchMany(base, 20, 5000, '/hello');
  const lines = stdout.trim().split('\n');
  assert.equal(lines.filter((l) => / 200 5$/.test(l)).length, 20, stdout);
  released(lines);
}));

test('timed-out GETs release their handles', () => withServer(async (base) => {
  const t0 = performance.now();
  const { stdout } = await fetchMany(base, 20, 300, '/hang');
  const lines = stdout.trim().split('\n');
  assert.equal(lines.filter((l) => / timed out$/.test(l)).length, 20, stdout);
  released(lines);
  assert.ok(performance.now() - t0 < 30000);
}));
