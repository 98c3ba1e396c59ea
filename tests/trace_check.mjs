// SPDX-License-Identifier: MIT
// The check of a trace (include/wasync/trace.h), the same on every host:
// the text parses as Chrome trace-event JSON, every task's slice begins
// once and ends (with the status expected of it), each poll is a slice
// closed inside its task's, every event belongs to a task that began, the
// runtime's host waits are closed one by one, and the tasks have the
// names expected. Used by tests/trace.test.mjs
// (natively), tests/wasip2/trace.test.mjs (WASI 0.1, 0.2 and 0.3 under
// node:wasi, jco and wasmtime) and tests/js/trace.test.mjs (Node) and
// tests/browser/demo.test.mjs (Chromium).
import assert from 'node:assert/strict';

// The instants on a task's track (trace.h).
const INSTANTS = ['wake', 'timer armed', 'timer fired', 'io wait', 'io ready', 'subtask start', 'subtask return',
  'subtask cancel'];

/** Checks text; names: the tasks' names, sorted; status: a task's name ->
 * the status its slice ends with (0 when not given). Returns { events,
 * tasks: Map(id -> { name, begin, end, status, polls }) }. */
export function checkTrace(text, { names, status = {} } = {}) {
  const events = JSON.parse(text).traceEvents;
  assert.ok(Array.isArray(events), 'traceEvents is a list');
  const tasks = new Map();
  let waiting = false; // in a host wait (the runtime's track: B and E)
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
      tasks.set(e.id, { name: e.name, begin: e.ts, end: null, status: null, open: 0, polls: 0 });
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
      t.end = e.ts;
      t.status = e.args.status;
    } else {
      assert.equal(e.ph, 'n');
      assert.ok(INSTANTS.includes(e.name), `an instant of a kind the trace has: ${e.name}`);
    }
  }
  assert.equal(waiting, false, 'the last host wait ends');
  for (const [id, t] of tasks) {
    assert.notEqual(t.end, null, `task ${id} (${t.name}) ends`);
    assert.equal(t.status, status[t.name] ?? 0, `task ${id} (${t.name}) ends with its status`);
    assert.ok(t.begin <= t.end, `task ${id} (${t.name}) ends after it begins`);
  }
  if (names) assert.deepEqual([...tasks.values()].map((t) => t.name).sort(), names);
  return { events, tasks };
}

/** Checks a trace of examples/demo: its tasks, each polled, what they
 * awaited at the ends of their polls, and who woke whom: the nappers their
 * timers, the slow consumer the producer (its channel full), the
 * consumer's end the demo's scope. */
export function checkDemoTrace(text) {
  const { events, tasks } = checkTrace(text, {
    names: ['block_on(demo)', 'consumer', 'napper', 'napper', 'napper', 'producer'],
  });
  for (const [id, t] of tasks) assert.ok(t.polls > 0, `task ${id} (${t.name}) was polled`);
  const awaits = events.filter((e) => e.args?.awaits).map((e) => e.args.awaits);
  assert.ok(awaits.some((a) => /^sleep \(due in 1000 ms\)$/.test(a)), 'a napper awaits its sleep');
  assert.ok(awaits.some((a) => a.startsWith('racer > join (race, 2 of 2 left) > [sleep')), 'the race');
  const named = (name) => [...tasks].filter(([, t]) => t.name === name).map(([id]) => id);
  const [consumer] = named('consumer'), [producer] = named('producer'), [root] = named('block_on(demo)');
  const wakes = events.filter((e) => e.name === 'wake');
  for (const id of named('napper')) {
    const of = (name, check) => events.some((e) => e.id === id && e.name === name && check(e.args));
    assert.ok(of('timer armed', (a) => a.in === '1000 ms'), `napper ${id}'s timer armed`);
    // (a sleep's deadline counts from the clock's next read after its arm:
    // on a slow host a few ms after the arm's instant)
    assert.ok(of('timer fired', (a) => /^10\d\d ms$/.test(a.after_armed)), `napper ${id}'s timer fired`);
    assert.ok(of('wake', (a) => /^timer \(due 10\d\d ms after armed\)$/.test(a.by)), `napper ${id} woken by its timer`);
  }
  assert.ok(wakes.some((e) => e.id === producer && e.args.by === `task ${consumer}`), 'the consumer wakes the producer');
  assert.ok(wakes.some((e) => e.id === root && e.args.by === `task ${consumer} ended`), "the scope's last child ends");
  return { events, tasks };
}
