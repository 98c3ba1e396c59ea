// SPDX-License-Identifier: MIT
// The trace on the JS host (trace.c): the glue's option trace collects it
// (rt.trace()) and hands each event to onTraceEvent as it comes; in Node,
// WASYNC_TRACE=FILE writes FILE; either passes the check of every host
// (tests/trace_check.mjs). wa_trace_start's refusals; a module without the
// trace says so.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { instantiate, codes } from '../../js/wasync.mjs';
import { checkTrace } from '../trace_check.mjs';

// (the js preset's build folder unless CTest says where)
const dir = dirname(process.env.WASYNC_PROG ?? fileURLToPath(new URL('../../build/js/tests/js/prog.wasm', import.meta.url)));
const module = (name) => readFile(join(dir, `${name}.wasm`));
const expected = { names: ['dawdler', 'joiner', 'sleeper'], status: { dawdler: codes.ECANCELED } };

test('traced by the option: collected, each event live, every slice closed, its tasks named', async () => {
  const live = [];
  const rt = await instantiate(module('trace'), { trace: true, onTraceEvent: (e) => live.push(e) });
  try {
    await rt.callAsync('traced');
    const text = rt.trace();
    const { events, tasks } = checkTrace(text, expected);
    for (const t of tasks.values()) assert.ok(t.polls > 0, `${t.name} was polled`);
    assert.ok(events.some((e) => e.args?.awaits === 'sleep (due in 100 s)'), 'the dawdler awaits its sleep');
    assert.ok(events.some((e) => e.name === 'wake' && /^timer \(due \d+ ms after armed\)$/.test(e.args.by)),
      'the sleeper woken by its timer');
    assert.deepEqual(live, events.filter((e) => e.ph !== 'M'), 'each event, live, in order');
    // the refusals: the module's runtime is traced already; a runtime of
    // its own stops nothing, cannot write to a missing folder (WA_EIO), ...
    assert.equal(rt.call('errors', '/no such dir/t.json'), 0);
  } finally {
    rt.close();
  }
  assert.doesNotThrow(() => JSON.parse(rt.trace()), 'whole after the close');
});

test('WASYNC_TRACE=FILE in Node writes FILE, and the second runtime FILE.2', async () => {
  const tmp = mkdtempSync(join(tmpdir(), 'wasync-trace-'));
  const file = join(tmp, 't.json');
  process.env.WASYNC_TRACE = file;
  try {
    for (const name of [file, `${file}.2`]) {
      const rt = await instantiate(module('trace'));
      await rt.callAsync('traced');
      rt.close(); // (ends the file: the trace's tail)
      checkTrace(readFileSync(name, 'utf8'), expected);
    }
  } finally {
    delete process.env.WASYNC_TRACE;
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('a module without the trace says so, and runs', async () => {
  const said = [];
  const rt = await instantiate(module('minimal'), { trace: true, log: (l) => said.push(l) });
  rt.close();
  assert.equal(rt.trace(), null);
  assert.match(said.join('\n'), /no trace: the module has none/);
});
