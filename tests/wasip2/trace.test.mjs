// SPDX-License-Identifier: MIT
// examples/demo traced on WASI (tests/trace_check.mjs, every host's check):
// WASYNC_TRACE=- in the environment writes its trace to stderr, as a WASI
// 0.1 module under node:wasi ($WASYNC_WASI1, run by $WASI1_RUN), a 0.3
// component ($WASYNC_P3, run by $WASYNC_RUN_P3 into $WASYNC_OUT), a 0.2
// component under `jco run` ($WASYNC_COMPONENT, $JCO), or any of these
// under wasmtime (runner.mjs), where WASYNC_TRACE=FILE also writes the file
// in a directory given with --dir (jco and node:wasi preopen none here).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { wasmtime, wasmtimeRun } from './runner.mjs';
import { checkDemoTrace } from '../trace_check.mjs';

const wasi1 = process.env.WASYNC_WASI1, p3 = process.env.WASYNC_P3;

// The demo's run with WASYNC_TRACE=trace (options: wasmtime's): its stderr.
function demo(trace, options = []) {
  const [command, args] = wasmtime ? wasmtimeRun([], undefined, options)
    : wasi1 ? [process.execPath, ['--no-warnings', process.env.WASI1_RUN, wasi1]]
    : p3 ? [process.execPath, [process.env.WASYNC_RUN_P3, p3, process.env.WASYNC_OUT]]
    : [process.execPath, [process.env.JCO, 'run', process.env.WASYNC_COMPONENT]];
  const r = spawnSync(command, args, { env: { ...process.env, WASYNC_TRACE: trace }, encoding: 'utf8', timeout: 60000 });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /awake/);
  return r.stderr;
}

test('the demo traced to stderr: parsed, every slice closed, its tasks named', () => {
  checkDemoTrace(demo('-'));
});

test('the demo traced to a file (wasmtime --dir)', { skip: !wasmtime && 'no directory preopened here' }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'wasync-trace-'));
  try {
    const file = join(dir, 't.json');
    assert.equal(demo(file, ['--dir', dir]), '');
    checkDemoTrace(readFileSync(file, 'utf8'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a file that cannot be made: one line on stderr, the demo runs untraced', () => {
  assert.equal(demo('/no such dir/t.json'), 'wasync: WASYNC_TRACE: cannot write the trace to /no such dir/t.json\n');
});
