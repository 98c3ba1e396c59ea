// SPDX-License-Identifier: MIT
// WASYNC_TRACE=FILE examples/demo writes a trace that parses as Chrome
// trace-event JSON, closes every task's slice and each poll's inside it,
// and names the demo's tasks (tests/trace_check.mjs, every host's check);
// WASYNC_TRACE=- writes it to stderr. Given by CMake: WASYNC_DEMO, the demo.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkDemoTrace } from './trace_check.mjs';

// The demo's run with WASYNC_TRACE=trace: its stderr.
function demo(trace) {
  const r = spawnSync(process.env.WASYNC_DEMO, [], { env: { ...process.env, WASYNC_TRACE: trace }, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stderr;
}

test('the demo traced: parsed, every slice closed, its tasks named', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wasync-trace-'));
  try {
    const file = join(dir, 't.json');
    demo(file);
    const { events } = checkDemoTrace(readFileSync(file, 'utf8'));
    const waits = events.filter((e) => e.name === 'host wait' && e.ph === 'B');
    assert.ok(waits.some((e) => /^99\d ms$/.test(e.args.timeout)), 'the runtime waits for the nappers');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the demo traced to stderr (WASYNC_TRACE=-)', () => {
  checkDemoTrace(demo('-'));
});
