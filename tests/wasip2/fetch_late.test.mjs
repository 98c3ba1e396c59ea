// SPDX-License-Identifier: MIT
// tests/wasip2/fetch_late.c under `jco run`, or as a 0.3 command under
// run-p3.mjs ($WASYNC_RUN_P3), either under wasmtime (runner.mjs), against
// this Node server, which answers the
// even requests of /late at once and the odd ones after LATE ms, past the
// client's timeout: three rounds of 100 GETs, half of them cancelled while
// the host still works on them (on 0.3 jco writes their responses late).
// No trap, every round counted, and nothing held after: no event source,
// no WASI handle, and on 0.3 no call area kept from the host.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { wasmtime, wasmtimeRun } from './runner.mjs';

const run = promisify(execFile);
const LATE = 1500;

test('late responses of cancelled sends', async () => {
  const server = createServer((req, res) => {
    const i = Number(req.url.split('?')[1]);
    const answer = () => res.writeHead(200).end('late');
    if (i % 2) setTimeout(answer, LATE);
    else answer();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${server.address().port}/late`;
    const args = [url, '3', '100', '1000'];
    const { WASYNC_RUN_P3: p3, WASYNC_COMPONENT: component } = process.env;
    const [command, argv] = wasmtime ? wasmtimeRun(args)
      : [process.execPath, p3 ? [p3, component, process.env.WASYNC_OUT, '--', ...args] : [process.env.JCO, 'run', component, ...args]];
    const { stdout, stderr } = await run(command, argv, { timeout: 90000 }).catch((e) => e);
    const lines = stdout.trim().split('\n');
    // (a loaded machine may time out an even one too; the odd ones always)
    const rounds = lines.filter((l) => /^round \d: \d+ answered, \d+ timed out$/.test(l));
    assert.equal(rounds.length, 3, stdout + stderr);
    for (const l of rounds) {
      const [, answered, late] = l.match(/(\d+) answered, (\d+) timed out/).map(Number);
      assert.equal(answered + late, 100, l);
      assert.ok(late >= 50, l);
    }
    if (p3 && wasmtime) {
      // wasmtime (49.0.3) follows the Canonical ABI: a call cancelled
      // before it returned writes nothing, ever, so the areas held from
      // it stay held (docs/wasip3.md says what that costs): at most one a
      // timed-out request.
      const cancelled = rounds.reduce((n, l) => n + Number(l.match(/(\d+) timed out/)[1]), 0);
      assert.deepEqual(lines.slice(-3, -1), ['sources 0', 'handles 0'], stdout + stderr);
      const areas = Number(lines.at(-1).match(/^areas (\d+)$/)?.[1]);
      assert.ok(areas > 0 && areas <= cancelled, `${lines.at(-1)}, ${cancelled} cancelled`);
    } else {
      const tail = p3 ? ['sources 0', 'handles 0', 'areas 0'] : ['sources 0', 'handles 0'];
      assert.deepEqual(lines.slice(-tail.length), tail, stdout + stderr);
    }
  } finally {
    server.closeAllConnections();
    server.close();
  }
});
