// SPDX-License-Identifier: MIT
// What the host hands into wasm, randomized with a fixed seed (WASYNC_SEED
// picks another): bytes and strings of every shape (empty, full of NULs,
// lone surrogates, views into bigger buffers, sizes on the allocator's and
// the glue's edges) cross as arguments, promise outcomes, rejection
// messages and fetch bodies in random chunks, and come back unchanged; the
// allocator keeps every block inside memory and apart from the others; the
// raw exports take stale keys, bad statuses and lengths that do not add up
// without a trap.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { codes } from '../../js/wasync.mjs';
import { prog, delay, utf8 } from './prog.mjs';

const SEED = Number(process.env.WASYNC_SEED ?? 20240611);

/** xorshift32: the same sequence on every run for one seed. */
function random(seed) {
  let x = seed >>> 0 || 1;
  const u32 = () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>>= 0);
  };
  const int = (n) => u32() % n;
  return { u32, int, pick: (xs) => xs[int(xs.length)] };
}

// A length: mostly short, often on an edge (the allocator's size classes
// and pages, the glue's chunks), now and then long.
function length(r) {
  switch (r.int(6)) {
    case 0: return r.pick([0, 1, 15, 16, 17, 2047, 2048, 2049, 65519, 65520, 65536, 65537]);
    case 1: return r.int(200000);
    default: return r.int(64);
  }
}

// n random bytes, one in ten a NUL.
function bytes(r, n = length(r)) {
  const words = new Uint32Array((n + 3) >> 2);
  for (let i = 0; i < words.length; i++) words[i] = r.u32() & r.u32();
  return new Uint8Array(words.buffer, 0, n);
}

/** A copy of b, viewed inside a bigger buffer. */
function inside(r, b) {
  const at = r.int(9);
  const host = new Uint8Array(at + b.length + r.int(9));
  host.set(b, at);
  return host.subarray(at, at + b.length);
}

/** A copy of b in one of the shapes JS has for bytes. */
function shaped(r, b) {
  switch (r.int(5)) {
    case 0: return b.slice();
    case 1: return b.slice().buffer;
    case 2: return inside(r, b);
    case 3: {
      const v = inside(r, b);
      return new DataView(v.buffer, v.byteOffset, v.byteLength);
    }
    default: {
      const shared = new Uint8Array(new SharedArrayBuffer(b.length));
      shared.set(b);
      return shared.buffer;
    }
  }
}

const PIECES = ['\0', '\0\0', 'a', 'Z', ' ', '\n', 'é', '€', '中', '😀', '\ud800', '\udfff'];
function string(r) {
  let s = '';
  for (let n = r.int(40); n > 0; n--) s += r.pick(PIECES);
  return s;
}

/** got is want: the same number, or the same bytes. */
function same(got, want, what) {
  if (typeof want === 'number') {
    assert.ok(Object.is(got, want), `${what}: ${got}, expected ${want}`);
    return;
  }
  if (!(got instanceof Uint8Array)) assert.fail(`${what}: got ${typeof got} ${got}, expected ${want.length} bytes`);
  if (Buffer.compare(got, want)) assert.fail(`${what}: ${got.length} bytes, not the ${want.length} expected`);
}

// What C hands back for bytes: no bytes at all is the number (0 here).
const outcome = (b) => (b.length ? b : 0);
// A message as it comes back: through UTF-8 (lone surrogates become U+FFFD).
const through = (s) => new TextDecoder().decode(utf8(s));

test('arguments: bytes and strings reach C whole', async () => {
  const r = random(SEED);
  const rt = await prog();
  for (let i = 0; i < 1000; i++) {
    const batch = [];
    for (let k = r.int(8) + 1; k > 0; k--) {
      const s = r.int(3) ? null : string(r);
      const want = s === null ? bytes(r) : utf8(s);
      batch.push(rt.callAsync('echo', s ?? shaped(r, want)).then((got) => same(got, want, `seed ${SEED}, batch ${i}`)));
    }
    await Promise.all(batch);
  }
  rt.close();
});

test('promise outcomes: C gets what a promise settled to, as it was then', async () => {
  const r = random(SEED + 1);
  const rt = await prog();
  const NUMBERS = [0, -0, 1.5, -1, NaN, Infinity, -Infinity, 2 ** 53, Number.MIN_VALUE];
  for (let i = 0; i < 100; i++) {
    const cases = [];
    for (let k = r.int(24) + 1; k > 0; k--) {
      // want: a number, bytes, or { code, detail } for a rejection
      let settle, want, mutate = null;
      switch (r.int(8)) {
        case 0: {
          const n = r.int(2) ? r.pick(NUMBERS) : r.u32();
          settle = (ok) => ok(n);
          want = n;
          break;
        }
        case 1: {
          const v = r.pick([true, false, null, undefined, 7n]);
          settle = (ok) => ok(v);
          want = v === true ? 1 : v === 7n ? 7 : 0;
          break;
        }
        case 2: {
          const s = string(r);
          settle = (ok) => ok(s);
          want = outcome(utf8(s));
          break;
        }
        case 3: {
          const m = string(r), e = r.int(2) ? new Error(m) : m;
          settle = (ok, fail) => fail(e);
          want = { code: codes.EIO, detail: through(m) || undefined };
          break;
        }
        case 4: {
          settle = (ok) => ok({});
          want = { code: codes.EINVAL };
          break;
        }
        default: {
          const b = bytes(r), v = shaped(r, b);
          settle = (ok) => ok(v);
          want = outcome(b);
          // changed or taken away after it settled: C still gets b
          if (b.length && r.int(2)) {
            const buffer = v instanceof ArrayBuffer ? v : v.buffer;
            mutate = r.int(2) || !(buffer instanceof ArrayBuffer)
              ? () => new Uint8Array(buffer).fill(0xaa)
              : () => structuredClone(buffer, { transfer: [buffer] });
          }
        }
      }
      // settled before the await, or while C waits
      let ok, fail;
      const p = new Promise((a, b) => { ok = a; fail = b; });
      const handle = rt.adopt(p);
      if (mutate) p.then(mutate, () => {});
      const when = r.int(3);
      if (when === 0) settle(ok, fail);
      else setTimeout(() => settle(ok, fail), when - 1);
      if (when === 0 && r.int(2)) await delay(0);
      cases.push({ handle, want, times: r.int(3) + 1 });
    }
    await Promise.all(cases.map(async ({ handle, want, times }, k) => {
      const what = `seed ${SEED + 1}, round ${i}, promise ${k}`;
      for (let t = 0; t < times; t++) { // its outcome stays in wasm: each await gets it whole
        const got = rt.callAsync('await_promise', handle);
        if (want.code !== undefined) {
          await assert.rejects(got, (e) => e.code === want.code && (!('detail' in want) || e.detail === want.detail), what);
        } else {
          same(await got, want, what);
        }
      }
      rt.release(handle);
    }));
  }
  assert.equal(rt.stats().promises, 0, 'promises still tracked');
  assert.equal(rt.exports.live_tasks(), 0, 'live tasks');
  rt.close();
});

test('fetch bodies: random chunks of every size arrive whole, failures as WA_EIO', async () => {
  const r = random(SEED + 2);
  const answers = new Map(); // url -> { status, chunks, fail }
  const rt = await prog({
    fetch: async (url) => {
      const { status, chunks, fail } = answers.get(url);
      if (fail !== undefined && !chunks.length) throw new Error(fail);
      let i = 0;
      return new Response(new ReadableStream({
        pull(c) {
          if (i < chunks.length) c.enqueue(chunks[i++]);
          else if (fail !== undefined) c.error(new Error(fail));
          else c.close();
        },
      }), { status });
    },
  });
  for (let i = 0; i < 60; i++) {
    const calls = [];
    for (let k = r.int(10) + 1; k > 0; k--) {
      const url = `http://test/${i}/${k}`;
      const chunks = [];
      for (let n = r.int(12); n > 0; n--) {
        const c = bytes(r, r.int(4) ? r.int(3000) : length(r));
        chunks.push(r.int(2) ? c : inside(r, c));
      }
      const fail = r.int(6) ? undefined : string(r);
      const status = r.pick([200, 206, 404, 500, 599]);
      answers.set(url, { status, chunks, fail });
      const body = new Uint8Array(chunks.reduce((sum, c) => sum + c.length, 0));
      let at = 0;
      for (const c of chunks) {
        body.set(c, at);
        at += c.length;
      }
      const what = `seed ${SEED + 2}, ${url}`;
      const got = rt.callAsync('fetch_body', url);
      calls.push(fail === undefined
        ? got.then((b) => same(b, body.length ? body : status, what))
        : assert.rejects(got, (e) => e.code === codes.EIO, what));
    }
    await Promise.all(calls);
  }
  assert.equal(rt.stats().hostOps, 0, 'host operations in flight');
  assert.equal(rt.exports.live_tasks(), 0, 'live tasks');
  rt.close();
});

test('wasync_alloc: every block inside memory and apart from the others; none for a size that cannot fit', async () => {
  const r = random(SEED + 3);
  const rt = await prog();
  const ex = rt.exports;
  const HUGE = [0xffffffff, 0xfffffff0, 0xffff0000, 0xfffeffff, 0xfffeffef, 2 ** 32 - 2 ** 20];
  const live = []; // { p, n, tag }
  const check = (b, what) => {
    const mem = new Uint8Array(ex.memory.buffer, b.p, b.n);
    assert.ok(mem.every((x) => x === b.tag), `${what}: block ${b.p}+${b.n} was overwritten`);
  };
  for (let i = 0; i < 3000; i++) {
    const what = `seed ${SEED + 3}, step ${i}`;
    if (live.length && r.int(3) === 0) {
      const [b] = live.splice(r.int(live.length), 1);
      check(b, what);
      ex.wasync_free(b.p);
      continue;
    }
    const n = r.int(50) ? length(r) : r.pick(HUGE);
    const p = ex.wasync_alloc(n) >>> 0;
    if (n >= 2 ** 31) {
      assert.equal(p, 0, `${what}: wasync_alloc(${n}) = ${p}, in a memory of ${ex.memory.buffer.byteLength}`);
      continue;
    }
    assert.ok(p !== 0 && p + n <= ex.memory.buffer.byteLength, `${what}: wasync_alloc(${n}) = ${p}`);
    const b = { p, n, tag: r.int(255) + 1 };
    new Uint8Array(ex.memory.buffer, p, n).fill(b.tag);
    live.push(b);
  }
  live.sort((a, b) => a.p - b.p);
  live.forEach((b, i) => {
    check(b, 'at the end');
    if (i) assert.ok(live[i - 1].p + live[i - 1].n <= b.p, `blocks ${live[i - 1].p}+${live[i - 1].n} and ${b.p} overlap`);
  });
  rt.close();
});

test('raw exports: stale keys, bad statuses and lengths that do not add up fail cleanly', async () => {
  const r = random(SEED + 4);
  // The keys of the HTTP sends started, seen through the op_start import
  // (an instantiate that wraps it), so that the test can deliver to them.
  const sends = [];
  const instantiate = WebAssembly.instantiate;
  WebAssembly.instantiate = (m, imports) => {
    const start = imports.wasync.op_start;
    imports.wasync.op_start = (id, kind, ...rest) => {
      if (kind === 2) sends.push(id >>> 0); // (js/fetch.mjs: HTTP_SEND)
      return start(id, kind, ...rest);
    };
    return instantiate(m, imports);
  };
  const rt = await prog({ fetch: () => new Promise(() => {}) }).finally(() => { WebAssembly.instantiate = instantiate; });
  const ex = rt.exports;
  const alloc = (n) => {
    const p = ex.wasync_alloc(n) >>> 0;
    assert.ok(p);
    return p;
  };
  const failsWith = async (p, code, what) => {
    let timer;
    const hang = new Promise((resolve) => { timer = setTimeout(resolve, 2000, 'still pending'); });
    const got = await Promise.race([p.then((v) => `resolved with ${v}`, (e) => e), hang]);
    clearTimeout(timer);
    assert.equal(got?.code, code, `${what}: ${got}`);
  };
  const finished = []; // the keys of the fetches below, stale once they failed
  const started = async (url) => {
    const call = rt.callAsync('fetch_body', url);
    await delay(0); // its first tick starts the fetch
    const id = sends.pop();
    assert.ok(id, 'the fetch started');
    finished.push(id);
    return { call, id };
  };

  // A second chunk whose length would wrap the body's 32-bit size.
  {
    const { call, id } = await started('http://test/wrap');
    ex.wasync_deliver(id, 1, alloc(100), 100, 0);
    ex.wasync_deliver(id, 1, alloc(16), 2 ** 32 - 50, 0);
    rt.tick();
    await failsWith(call, codes.E2BIG, 'a length that wraps');
  }
  // A length with no bytes.
  {
    const { call, id } = await started('http://test/null');
    ex.wasync_deliver(id, 0, 0, 10, 200);
    rt.tick();
    await failsWith(call, codes.EINVAL, 'a NULL chunk of 10 bytes');
  }
  {
    const h = rt.adopt(new Promise(() => {}));
    ex.wasync_settled(h, 0, 0, 10, 0);
    await failsWith(rt.callAsync('await_promise', h), codes.EINVAL, 'a NULL outcome of 10 bytes');
    rt.release(h);
  }
  // A promise cannot settle to "more to come": that would be an await
  // that never wakes.
  {
    const h = rt.adopt(new Promise(() => {}));
    ex.wasync_settled(h, 1, 0, 0, 0);
    await failsWith(rt.callAsync('await_promise', h), codes.EINVAL, 'a promise settled with WA_PENDING');
    rt.release(h);
  }

  // Keys that are stale (released, finished), never made, or anything
  // (which may hit a live handle of the glue's adopt pool).
  const stale = [0, 0xffffffff, 0xfffff, 1 << 20, ...finished];
  for (let i = 0; i < 8; i++) {
    const h = rt.adopt(i);
    rt.release(h);
    stale.push(h);
  }
  const STATUSES = [0, 1, -1, -10, -16, 2, 0x7fffffff, -0x80000000];
  for (let i = 0; i < 2000; i++) {
    const key = r.int(3) ? r.pick(stale) : (r.int(4) << 20) | r.int(64);
    const n = r.int(4) ? r.int(100) : 0;
    const p = n || r.int(2) ? alloc(n) : 0;
    switch (r.int(4)) {
      case 0: ex.wasync_deliver(key, r.pick(STATUSES), p, n, r.u32()); break;
      case 1: ex.wasync_settled(key, r.pick(STATUSES), p, n, r.u32()); break;
      case 2: { // the same through the settlement table, with another after it
        const t = ex.wasync_outcomes(2) >>> 0;
        assert.ok(t);
        const f64 = new Float64Array(ex.memory.buffer, t, 6), u32 = new Uint32Array(ex.memory.buffer, t, 12);
        f64[0] = r.u32();
        u32.set([key, r.pick(STATUSES), p, n], 2);
        f64[3] = 0;
        u32.set([r.pick(stale), -10, 0, 0], 8);
        ex.wasync_settled_n(2);
        break;
      }
      default: ex.wasync_free(p); ex.wasync_release(key);
    }
  }
  // The table holds at most 1024; a larger count is refused, not read.
  assert.equal(ex.wasync_outcomes(1025), 0);
  ex.wasync_settled_n(1 << 30);
  rt.tick();
  // the runtime still works
  same(await rt.callAsync('echo', 'still here'), utf8('still here'), 'echo');
  assert.equal(typeof await rt.callAsync('sleep_ms', 1), 'number');
  rt.close();
});
