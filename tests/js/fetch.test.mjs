// FETCH host operations: bodies, statuses, errors, streaming, abort on drop
// (that one shared with Chromium: tests/js/cases.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { prog, runCase, since, utf8 } from './prog.mjs';
import { serve, pattern } from './server.mjs';
import { droppedFetch } from './cases.mjs';

let server;
before(async () => { server = await serve(); });
after(() => server.close());

test(droppedFetch.title, (t) => runCase(droppedFetch, { base: server.base, t }));

test('a fetch that wins its race cancels the timer', async () => {
  const rt = await prog();
  const won = await rt.callAsync('fetch_timeout', server.url('/delay?ms=10'), 5000);
  assert.equal(won, 1);
  const st = rt.stats();
  assert.equal(st.timerArmed, false, 'the 5 s sleep was dropped and its timer disarmed');
  assert.equal(st.nextDeadline, -1);
  assert.equal(rt.exports.live_tasks(), 0);
  rt.close();
});

test('a small body arrives in one delivery', async () => {
  const rt = await prog();
  const body = await rt.callAsync('fetch_body', server.url('/delay?ms=0&body=h%C3%A9llo'));
  assert.deepEqual(body, utf8('héllo'));
  const st = rt.stats();
  assert.equal(st.chunks, 0);
  assert.equal(st.deliveries, 1);
  rt.close();
});

test('a large body is streamed in chunks', async () => {
  const rt = await prog();
  const size = 1 << 20;
  const body = await rt.callAsync('fetch_body', server.url(`/big?size=${size}`));
  assert.ok(body instanceof Uint8Array);
  assert.equal(body.byteLength, size);
  for (let i = 0; i < size; i++)
    if (body[i] !== pattern(i)) assert.fail(`byte ${i}: ${body[i]} != ${pattern(i)}`);
  const st = rt.stats();
  assert.ok(st.chunks > 1, `${st.chunks} chunks`);
  assert.equal(st.deliveries, st.chunks + 1, 'chunks, then one final delivery');
  assert.equal(st.hostOps, 0);
  rt.close();
});

test('an empty body resolves with the HTTP status', async () => {
  const rt = await prog();
  assert.equal(await rt.callAsync('fetch_body', server.url('/status?code=404')), 404);
  assert.equal(await rt.callAsync('fetch_body', server.url('/status?code=204')), 204);
  rt.close();
});

test('a network error is WA_EIO with the message', async () => {
  const rt = await prog();
  // a port that was just free: nothing listens there
  const { createServer } = await import('node:net');
  const port = await new Promise((res) => {
    const s = createServer().listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => res(p)); });
  });
  await assert.rejects(rt.callAsync('fetch_body', `http://127.0.0.1:${port}/`), (e) => {
    assert.equal(e.code, -10);
    assert.match(e.message, /EIO/);
    assert.match(e.message, /fetch failed|ECONNREFUSED/i);
    return true;
  });
  assert.equal(rt.stats().hostOps, 0);
  rt.close();
});

test('a body cut off midway is WA_EIO', async () => {
  const rt = await prog();
  await assert.rejects(rt.callAsync('fetch_body', server.url('/cut?size=1048576&at=262144')), (e) => {
    assert.equal(e.code, -10);
    assert.match(e.message, /terminated|closed|aborted|fetch failed/i);
    return true;
  });
  assert.ok(rt.stats().chunks >= 1, 'chunks were delivered before the cut');
  assert.equal(rt.stats().hostOps, 0);
  assert.equal(rt.exports.live_tasks(), 0);
  rt.close();
});

// js.c's wasync_deliver appends a failure's message to the chunks that came
// before it, so the rejection's message starts with the partial body.
test('a body cut off midway: the message is only the error', async () => {
  const rt = await prog();
  await assert.rejects(rt.callAsync('fetch_body', server.url('/cut?size=1048576&at=262144')), (e) => {
    assert.ok(e.message.length < 1000, `a ${e.message.length}-character message`);
    return true;
  });
  rt.close();
});

test('a custom fetch is used, and its failure is WA_EIO', async () => {
  const seen = [];
  const rt = await prog({
    fetch: async (url, init) => {
      seen.push([url, init.signal instanceof AbortSignal]);
      if (url.endsWith('/bad')) throw new Error('custom failure');
      return new Response('custom body', { status: 201 });
    },
  });
  assert.deepEqual(await rt.callAsync('fetch_body', 'wasync:/ok'), utf8('custom body'));
  await assert.rejects(rt.callAsync('fetch_body', 'wasync:/bad'), { code: -10, message: /custom failure/ });
  assert.deepEqual(seen, [['wasync:/ok', true], ['wasync:/bad', true]]);
  rt.close();
});

test('many concurrent fetches', async () => {
  const rt = await prog();
  const t0 = performance.now();
  const bodies = await Promise.all(Array.from({ length: 50 }, (_, i) =>
    rt.callAsync('fetch_body', server.url(`/delay?ms=50&body=n${i}`))));
  assert.ok(since(t0) < 1000);
  bodies.forEach((b, i) => assert.deepEqual(b, utf8(`n${i}`)));
  assert.equal(rt.stats().hostOps, 0);
  rt.close();
});
