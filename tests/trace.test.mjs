// SPDX-License-Identifier: MIT
// WASYNC_TRACE=FILE examples/demo writes a trace that parses as Chrome
// trace-event JSON, closes every task's slice and each poll's inside it,
// and names the demo's tasks. Given by CMake: WASYNC_DEMO, the demo.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

test('the demo traced: parsed, every slice closed, its tasks named', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wasync-trace-'));
  try {
    const file = join(dir, 't.json');
    execFileSync(process.env.WASYNC_DEMO, [], { env: { ...process.env, WASYNC_TRACE: file }, stdio: 'ignore' });
    const events = JSON.parse(readFileSync(file, 'utf8')).traceEvents;
    const tasks = new Map(); // id -> { name, begin, end, polls open, polls }
    let waiting = false; // in a host wait (the runtime's thread's slices)
    for (const e of events) {
      if (e.ph === 'M') continue;
      assert.equal(e.cat, 'task');
      if (e.ph === 'B' || e.ph === 'E') {
        assert.equal(e.name, 'host wait');
        assert.equal(waiting, e.ph === 'E', `a host wait's ${e.ph} at ${e.ts}`);
        waiting = e.ph === 'B';
        continue;
      }
      if (e.ph === 'b' && e.name !== 'poll') {
        assert.ok(!tasks.has(e.id), `task ${e.id} begins once`);
        tasks.set(e.id, { name: e.name, begin: e.ts, end: null, open: 0, polls: 0 });
        continue;
      }
      const t = tasks.get(e.id);
      assert.ok(t, `event ${JSON.stringify(e)} of a task that began`);
      assert.equal(t.end, null, `event ${JSON.stringify(e)} after its task's end`);
      if (e.ph === 'b') {
        assert.equal(t.open, 0, `task ${e.id}: a poll inside a poll`);
        t.open = 1;
        t.polls++;
      } else if (e.ph === 'e' && e.name === 'poll') {
        assert.equal(t.open, 1, `task ${e.id}: a poll's end without its begin`);
        t.open = 0;
      } else if (e.ph === 'e') {
        assert.equal(t.open, 0, `task ${e.id}: ends inside a poll`);
        assert.equal(e.args.status, 0, `task ${e.id} ends with 0`);
        t.end = e.ts;
      } else {
        assert.equal(e.ph, 'n');
        assert.ok(['wake', 'timer armed', 'timer fired', 'io wait', 'io ready'].includes(e.name), e.name);
      }
    }
    assert.equal(waiting, false, 'the last host wait ends');
    for (const [id, t] of tasks) {
      assert.notEqual(t.end, null, `task ${id} (${t.name}) ends`);
      assert.ok(t.polls > 0 && t.begin <= t.end, `task ${id} was polled in its slice`);
    }
    const names = [...tasks.values()].map((t) => t.name).sort();
    assert.deepEqual(names, ['block_on(demo)', 'consumer', 'napper', 'napper', 'napper', 'producer']);
    // what the tasks awaited, at the ends of their polls
    const awaits = events.filter((e) => e.args?.awaits).map((e) => e.args.awaits);
    assert.ok(awaits.some((a) => /^sleep \(due in 1000 ms\)$/.test(a)), 'a napper awaits its sleep');
    assert.ok(awaits.some((a) => a.startsWith('racer > join (race, 2 of 2 left) > [sleep')), 'the race');
    // who woke whom: the nappers their timers, the slow consumer the producer
    // (its channel full), and the consumer's end the demo's scope
    const napper = [...tasks].filter(([, t]) => t.name === 'napper').map(([id]) => id);
    const consumer = [...tasks].find(([, t]) => t.name === 'consumer')[0];
    const producer = [...tasks].find(([, t]) => t.name === 'producer')[0];
    const wakes = events.filter((e) => e.name === 'wake');
    for (const id of napper) {
      assert.ok(events.some((e) => e.id === id && e.name === 'timer armed' && e.args.in === '1000 ms'), `napper ${id}'s timer armed`);
      assert.ok(events.some((e) => e.id === id && e.name === 'timer fired' && e.args.after_armed === '1000 ms'), `napper ${id}'s timer fired`);
      assert.ok(wakes.some((e) => e.id === id && e.args.by === 'timer (due 1000 ms after armed)'), `napper ${id} woken by its timer`);
    }
    assert.ok(wakes.some((e) => e.id === producer && e.args.by === `task ${consumer}`), 'the consumer wakes the producer');
    const root = [...tasks].find(([, t]) => t.name === 'block_on(demo)')[0];
    assert.ok(wakes.some((e) => e.id === root && e.args.by === `task ${consumer} ended`), 'the scope\'s last child ends');
    assert.ok(events.some((e) => e.name === 'host wait' && e.ph === 'B' && e.args.timeout === '999 ms'), 'the host waits for the nappers');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
