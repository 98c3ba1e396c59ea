// SPDX-License-Identifier: MIT
// Scenarios run both by the Node suite (tests/js/*.test.mjs) and in headless
// Chromium (tests/browser/cases.html, driven by tests/browser/cases.test.mjs).
//
// Each case is an async function ({ rt, base }) => detail: rt is a fresh
// runtime of tests/js/prog.wasm made by instantiate() (the caller closes
// it), base the URL of tests/js/server.mjs (no trailing slash). It throws
// on failure and returns a short text for the report. Web-standard APIs
// only: no node: imports, no node:assert, nothing of the server's but HTTP.

const since = (t0) => performance.now() - t0;
const ms = (x) => `${x.toFixed(1)} ms`;
const show = (v) => (v instanceof Uint8Array ? `bytes [${v}]` : typeof v === 'string' ? JSON.stringify(v) : String(v));

function check(ok, message) {
  if (!ok) throw new Error(message);
}
function equal(actual, expected, what) {
  check(Object.is(actual, expected), `${what}: ${show(actual)}, expected ${show(expected)}`);
}
function match(text, re, what) {
  check(re.test(text), `${what}: ${JSON.stringify(text)} does not match ${re}`);
}
/** The error p rejects with; throws if it resolves. */
async function rejection(p, what) {
  let value;
  try {
    value = await p;
  } catch (e) {
    return e;
  }
  throw new Error(`${what}: resolved with ${show(value)}, expected a rejection`);
}
const text = (bytes) => new TextDecoder().decode(bytes);

/** A case: fn with its title (the test's name on both hosts). */
const define = (title, fn) => Object.assign(fn, { title });

export const demo = define('three sleep_ms(1000) and a 300 ms fetch run concurrently', async ({ rt, base }) => {
  const t0 = performance.now();
  // Their twins in JavaScript, started with them: how late this machine
  // lets a timer and a fetch be now. Each must end no later than its twin,
  // give or take 100 ms.
  const twinSleep = new Promise((r) => setTimeout(() => r(since(t0)), 1000));
  const twinFetch = fetch(`${base}/delay?ms=300&body=twin`).then((r) => r.text()).then(() => since(t0));
  const sleeps = [0, 1, 2].map(() => rt.callAsync('sleep_ms', 1000).then((took) => ({ took, at: since(t0) })));
  const fetched = rt.callAsync('fetch_body', `${base}/delay?ms=300&body=Example%20Domain`)
    .then((body) => ({ body, at: since(t0) }));

  const f = await fetched;
  check(f.body instanceof Uint8Array, `the body is ${show(f.body)}, not bytes`);
  equal(text(f.body), 'Example Domain', 'the body');
  const fetchTwin = await twinFetch;
  check(f.at >= 295 && f.at < fetchTwin + 100, `fetch resolved at +${ms(f.at)}, its twin at +${ms(fetchTwin)}`);

  const s = await Promise.all(sleeps);
  const sleepTwin = await twinSleep;
  for (const { at, took } of s) {
    check(at >= 990 && at < sleepTwin + 100, `sleep resolved at +${ms(at)}, its twin at +${ms(sleepTwin)}`);
    check(took >= 1000 && took <= at + 1, `C measured ${took} ms, JS ${ms(at)}`);
  }
  const ats = s.map((x) => x.at);
  const spread = Math.max(...ats) - Math.min(...ats);
  check(spread <= 30, `sleeps spread over ${ats.map(ms)}`);
  check(f.at < Math.min(...ats), 'the fetch finished first');
  equal(rt.exports.live_tasks(), 0, 'live tasks');
  equal(rt.stats().hostOps, 0, 'host operations in flight');
  return `fetch at +${ms(f.at)}, sleeps at +${ms(Math.min(...ats))} (spread ${ms(spread)})`;
});

export const yieldMillion = define('yield_n(1e6) finishes without starving timers or the event loop', async ({ rt }) => {
  // How late the two timers beside the yielder are is also how much of the
  // machine this process gets: a stall of the machine shows on one try,
  // the yielder holding them back on every one, so the best of three counts.
  const reports = [];
  for (let i = 0; i < 3; i++) {
    const before = rt.stats();
    const t0 = performance.now();
    let jsTimer = null;
    setTimeout(() => { jsTimer = since(t0); }, 10);
    const slept = rt.callAsync('sleep_ms', 50).then(() => since(t0));
    const yielded = rt.callAsync('yield_n', 1e6).then((n) => ({ n, at: since(t0) }));

    const { n, at } = await yielded;
    equal(n, 1000000, 'yield_n resolved with');
    const sleptAt = await slept;
    check(sleptAt >= 50, `sleep_ms(50) resolved at +${ms(sleptAt)}`);
    check(jsTimer !== null && jsTimer < at, `setTimeout(10) fired at ${jsTimer} ms, yield_n done at ${ms(at)}`);
    check(sleptAt < at, 'the sleeper finished while the yielder ran');

    const st = rt.stats();
    const ticks = st.ticks - before.ticks, micro = st.microtaskTicks - before.microtaskTicks;
    const macro = st.macrotaskTicks - before.macrotaskTicks;
    check(ticks >= 1000000, `${ticks} ticks`);
    check(macro > 0, 'ticks continued from macrotasks');
    check(micro > macro, 'most ticks are microtasks');
    equal(rt.exports.live_tasks(), 0, 'live tasks');
    const report = `done at +${ms(at)}; setTimeout(10) at +${ms(jsTimer)}, sleep_ms(50) at +${ms(sleptAt)}; ` +
      `${micro} microtask + ${macro} macrotask ticks`;
    reports.push(report);
    if (sleptAt < 100 && jsTimer < 60)
      return i ? `${report} (try ${i + 1}; before: ${reports.slice(0, i).join('; ')})` : report;
  }
  throw new Error(`timers held back beside the yielder on every try: ${reports.join('; ')}`);
});

/** setInterval(1) while fn() runs: { fires, maxGap, ms, result }. */
async function intervalDuring(fn) {
  let fires = 0, maxGap = 0, last = performance.now();
  const iv = setInterval(() => {
    const t = performance.now();
    maxGap = Math.max(maxGap, t - last);
    last = t;
    fires++;
  }, 1);
  const t0 = performance.now();
  try {
    const result = await fn();
    const ms = since(t0);
    maxGap = Math.max(maxGap, performance.now() - last);
    return { fires, maxGap, ms, result };
  } finally {
    clearInterval(iv);
  }
}

/** Busy JavaScript for ms, in slices of 1 ms each followed by a hop to a
 * macrotask as the glue's ticks make (js/ticks.mjs): what the timers beside
 * a CPU-bound task can get on this machine now. Resolves with its slices. */
function spinJs(ms) {
  const t0 = performance.now();
  const channel = typeof setImmediate === 'function' ? null : new MessageChannel();
  return new Promise((resolve) => {
    let slices = 0;
    const slice = () => {
      const end = Math.min(performance.now() + 1, t0 + ms);
      while (performance.now() < end);
      slices++;
      if (performance.now() - t0 >= ms) {
        channel?.port1.close();
        resolve(slices);
      } else if (channel) {
        channel.port2.postMessage(0);
      } else {
        setImmediate(slice);
      }
    };
    if (channel) channel.port1.onmessage = slice;
    slice();
  });
}

export const spinKeepsTimers = define('a task that wakes itself for 300 ms leaves JS timers on time', async ({ rt }) => {
  // Beside a CPU-bound task the timers get what the machine leaves this
  // process (an idle wait gets more: the scheduler favours a sleeper), so
  // the task is held to the same busy loop in JavaScript, run just before
  // with the glue's slicing; the glue itself holding timers back (Node once
  // got a quarter of the idle rate) shows on every try, a stall of the
  // machine on one: the best of five tries counts.
  const reports = [];
  for (let i = 0; i < 5; i++) {
    const js = await intervalDuring(() => spinJs(300));
    const busy = await intervalDuring(() => rt.callAsync('spin_ms', 300));
    const report = `setInterval(1): ${js.fires} fires in ${ms(js.ms)} beside a JavaScript loop ` +
      `(longest gap ${ms(js.maxGap)}), ${busy.fires} in ${ms(busy.ms)} beside the task ` +
      `(longest gap ${ms(busy.maxGap)}); the task ran ${busy.result} times`;
    reports.push(report);
    equal(rt.exports.live_tasks(), 0, 'live tasks');
    if (busy.fires / busy.ms >= js.fires / js.ms / 2 && busy.maxGap < 2 * js.maxGap + 10 &&
        busy.ms < js.ms + 100 && // (the task ends on time as the loop does)
        busy.result >= 10 * busy.ms) // a self-wake costs under a microsecond: 10 per ms is far from starved
      return i ? `${report} (try ${i + 1}; before: ${reports.slice(0, i).join('; ')})` : report;
  }
  throw new Error(`JS timers held back, or the task starved, on every try: ${reports.join('; ')}`);
});

export const droppedFetch = define('a dropped fetch is aborted: the server sees the connection close', async ({ rt, base }) => {
  const id = `drop-${Math.random().toString(36).slice(2)}`;
  const t0 = performance.now();
  const twin = new Promise((r) => setTimeout(() => r(since(t0)), 100)); // (how late timers are now)
  const won = await rt.callAsync('fetch_timeout', `${base}/hang?id=${id}`, 100);
  const resolvedAt = since(t0), twinAt = await twin;
  equal(won, 0, 'fetch_timeout (0: the timeout won)');
  check(resolvedAt >= 100 && resolvedAt < twinAt + 200, `resolved at +${ms(resolvedAt)}, a JS timer of 100 ms at +${ms(twinAt)}`);
  equal(rt.stats().hostOps, 0, 'host operations in flight');
  equal(rt.exports.live_tasks(), 0, 'live tasks');
  const seen = await (await fetch(`${base}/closed?id=${id}&ms=1000`)).json();
  check(seen.closed, 'the server never saw the connection close');
  return `timeout won at +${ms(resolvedAt)}; server saw the close by +${ms(since(t0))}`;
});

export const rejectedPromise = define('a rejected promise is WA_EIO in C, with its message', async ({ rt }) => {
  const e = await rejection(rt.callAsync('await_promise', rt.adopt(Promise.reject(new Error('boom')))), 'await_promise');
  equal(e.code, -10, 'the code');
  equal(e.codeName, 'EIO', 'the code name');
  match(e.message, /boom/, 'the message');
  match(e.message, /EIO/, 'the message');
  // a rejection with a non-Error
  const p = await rejection(rt.callAsync('await_promise', rt.adopt(Promise.reject('plain'))), 'await_promise');
  equal(p.code, -10, 'the code');
  match(p.message, /plain/, 'the message');
  equal(rt.exports.live_tasks(), 0, 'live tasks');
  return e.message;
});

export const timers10k = define('10,000 concurrent timers', async ({ rt }) => {
  const n = 10000;
  const t0 = performance.now();
  const ds = Array.from({ length: n }, (_, i) => (i * 37) % 101); // 0..100 ms
  // Their twins in JavaScript, 10,000 setTimeouts beside them: how late
  // this machine lets such timers be now.
  const twins = Promise.all(ds.map((d) => new Promise((r) => setTimeout(() => r(since(t0)), d))));
  const ats = await Promise.all(ds.map((d) => rt.callAsync('sleep_ms', d).then(() => since(t0))));
  const total = since(t0);
  ats.forEach((at, i) => check(at >= ds[i] - 1, `sleep_ms(${ds[i]}) resolved at +${ms(at)}`));
  const last = Math.max(...ats), twinLast = Math.max(...(await twins));
  check(last >= 100 && last < twinLast + 200, `the last resolved at +${ms(last)}, the last twin at +${ms(twinLast)}`);
  check(total < twinLast + 500, `${ms(total)} in all, the last twin at +${ms(twinLast)}`);
  equal(rt.exports.live_tasks(), 0, 'live tasks');
  const st = rt.stats();
  equal(st.timerArmed, false, 'the host timer is armed');
  check(st.timerFires <= 150, `${st.timerFires} host timer fires for 101 distinct deadlines`);
  return `all resolved by +${ms(last)}; ${st.timerFires} host timer fires`;
});

export const exportedCalls = define('exported async functions: fail_with rejects with its code, sleep_ms(0) resolves', async ({ rt }) => {
  const e = await rejection(rt.callAsync('fail_with', -4), 'fail_with(-4)');
  equal(e.code, -4, 'the code');
  equal(e.codeName, 'ETIMEDOUT', 'the code name');
  match(e.message, /ETIMEDOUT/, 'the message');
  for (const code of [-1, -3, -12])
    equal((await rejection(rt.callAsync('fail_with', code), `fail_with(${code})`)).code, code, `fail_with(${code})'s code`);
  const took = await rt.callAsync('sleep_ms', 0);
  equal(typeof took, 'number', 'sleep_ms(0) resolved with a');
  check(took >= 0 && took < 50, `sleep_ms(0) took ${took} ms`);
  equal(rt.exports.live_tasks(), 0, 'live tasks');
  return `fail_with(-4): ${e.message}; sleep_ms(0) took ${took.toFixed(3)} ms`;
});

export const lateSleep = define('a sleep armed after a 30 ms busy poll lasts its 50 ms from its arm', async ({ rt }) => {
  const took = await rt.callAsync('late_sleep_ms', 30, 50);
  check(took >= 50 && took < 1000, `late_sleep_ms(30, 50) slept ${took} ms`);
  equal(rt.exports.live_tasks(), 0, 'live tasks');
  return `slept ${took.toFixed(1)} ms`;
});

/** Every case, by name, in the order they run. */
export const cases = { demo, yieldMillion, spinKeepsTimers, droppedFetch, rejectedPromise, timers10k, exportedCalls, lateSleep };
