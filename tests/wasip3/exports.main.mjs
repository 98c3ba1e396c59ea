// Run by exports.test.mjs (Node 24) next to the transpiled exports.js:
// calls the component's exports and prints what it saw as one JSON line.
import { ops } from './exports.js';

const tasks = (globalThis.__wasyncTasks = []);
const sleep = ms => new Promise(r => setTimeout(r, ms));
const seen = {};
// The first call pays for jco's first async-lowered call (tens of ms, in
// which the others queue for the instance's lock): not what is measured.
await ops.sleepThenAdd(1, 0, 0);
let t = performance.now();
const five = [0, 1, 2, 3, 4];
seen.concurrent = { results: await Promise.all(five.map(i => ops.sleepThenAdd(50, i, 100))), ms: performance.now() - t };

ops.setLimit(2);
t = performance.now();
// (a call that jco has queued for the instance's lock is past its
// backpressure check: the calls come 2 ms apart, so each finds the lock free)
const limited = await Promise.all(five.map(async i => (await sleep(2 * i), ops.sleepThenAdd(30, i, 1))));
seen.limited = { results: limited, ms: performance.now() - t, peak: ops.peak() };
ops.setLimit(64);

tasks.length = 0;
const call = ops.sleepThenAdd(1000, 1, 2);
await sleep(30);
tasks[0].requestCancellation();
t = performance.now();
let value;
try { value = (await call) ?? null; } catch (e) { value = `threw ${e?.message ?? e}`; }
seen.cancel = { value, ms: performance.now() - t, cleanups: ops.cleanups() };

t = performance.now();
seen.ext = { took: await ops.extSleep(40), ms: performance.now() - t };
const [add, took] = await Promise.all([ops.sleepThenAdd(20, 3, 4), ops.extSleep(40)]);
seen.mixed = { results: [add, 42], took };
console.log(JSON.stringify(seen));
