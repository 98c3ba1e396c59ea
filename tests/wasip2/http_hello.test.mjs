// The wasi:http/proxy component under `jco serve`: curl gets the greeting,
// and 1,000 requests, 50 at a time, all succeed with nothing growing in the
// runtime between them (its /stats answer is the same before and after).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFile } from 'node:child_process';
import { promisify } from 'node:util';

const TOTAL = 1000, CONCURRENCY = 50;

async function serve() {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const server = spawn(process.execPath, [process.env.JCO, 'serve', '--port', String(port), process.env.WASYNC_COMPONENT],
    { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  await new Promise((resolve, reject) => {
    const seen = (d) => {
      log += d;
      if (/listening/i.test(log)) resolve();
    };
    server.stdout.on('data', seen);
    server.stderr.on('data', seen);
    server.on('exit', (code) => reject(new Error(`jco serve exited (${code}): ${log}`)));
  });
  return { base: `http://127.0.0.1:${port}`, server, log: () => log };
}

test('http-hello answers curl and a bounded concurrent load', async () => {
  const { base, server, log } = await serve();
  try {
    const { stdout } = await promisify(execFile)('curl', ['-sf', `${base}/`]);
    assert.equal(stdout, 'hello from wasync\n');
    const stats = async () => (await fetch(`${base}/stats`)).text();
    const before = await stats();
    assert.match(before, /^tasks=\d+ sources=\d+ handles=\d+\n$/);
    let next = 0, ok = 0;
    const errors = [];
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (next < TOTAL) {
        next++;
        try {
          const res = await fetch(`${base}/`);
          const body = await res.text();
          if (res.status === 200 && body === 'hello from wasync\n') ok++;
          else errors.push(`${res.status} ${body}`);
        } catch (e) {
          errors.push(e.message);
        }
      }
    }));
    assert.deepEqual(errors.slice(0, 5), []);
    assert.equal(ok, TOTAL);
    assert.equal(await stats(), before, 'no task, source or handle left behind by 1,000 requests');
  } finally {
    server.kill();
    server.stdout.destroy(); // its pipes would keep this process alive
    server.stderr.destroy();
  }
  assert.doesNotMatch(log(), /http-hello:/);
});
