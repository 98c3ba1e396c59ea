// SPDX-License-Identifier: MIT
// http.h's client on the JS host (src/host/js/http.c over js/fetch.mjs):
// bodies, statuses, headers, errors, streaming one chunk per read, abort on
// drop (that one shared with Chromium: tests/js/cases.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { PROG, prog, runCase, utf8 } from './prog.mjs';
import { serve, pattern } from './server.mjs';
import { droppedFetch } from './cases.mjs';
import { codes, instantiate } from '../../js/wasync.mjs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

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

test('a small body: the head, one chunk, the end', async () => {
  const rt = await prog();
  const body = await rt.callAsync('fetch_body', server.url('/delay?ms=0&body=h%C3%A9llo'));
  assert.deepEqual(body, utf8('héllo'));
  const st = rt.stats();
  assert.equal(st.chunks, 1);
  assert.equal(st.deliveries, 3);
  rt.close();
});

test('a PUT with a header and a body, in memory or from a stream; the response header', async () => {
  const rt = await prog();
  for (const stream of [0, 1]) {
    const got = await rt.callAsync('post_echo', server.url('/echo'), 'the body', stream);
    assert.equal(new TextDecoder().decode(got), 'yes PUT wasync the body');
  }
  assert.equal(rt.stats().hostOps, 0);
  assert.equal(rt.exports.live_tasks(), 0);
  rt.close();
});

test('a request fetch refuses is WA_EINVAL, in its words', async () => {
  const rt = await prog();
  // (checked by the glue's new Request, not by http_url.c, which this
  // host does not carry: its words are the reason)
  for (const url of ['http://user@127.0.0.1:1/', 'http://[::1/', 'not a url'])
    await assert.rejects(rt.callAsync('fetch_body', url), { code: codes.EINVAL, detail: /^TypeError: / }, url);
  await assert.rejects(rt.callAsync('fetch_body', 'ftp://127.0.0.1/x'), { code: codes.EIO }); // (fetch's)
  assert.equal(rt.stats().hostOps, 0);
  rt.close();
});

test('failures: their codes, and the host\'s words as the reason', async () => {
  const rt = await prog();
  // not HTTP, a header of 1 MiB, a name under .invalid, TLS to plain HTTP
  // (were WA_EIO, with no reason)
  await assert.rejects(rt.callAsync('fetch_body', server.url('/garbage')),
    { code: codes.EPROTO, detail: /^TypeError: fetch failed \((HPE_|HTTPParserError)/ });
  await assert.rejects(rt.callAsync('fetch_body', server.url('/bigheader')),
    { code: codes.E2BIG, detail: /^TypeError: fetch failed \(UND_ERR_HEADERS_OVERFLOW: / });
  await assert.rejects(rt.callAsync('fetch_body', 'http://no-such-host.invalid/'),
    { code: codes.ENOTFOUND, detail: /ENOTFOUND: getaddrinfo ENOTFOUND no-such-host\.invalid/ });
  await assert.rejects(rt.callAsync('fetch_body', server.url('/').replace('http:', 'https:')),
    { code: codes.EPROTO, detail: /^TypeError: fetch failed \((ERR_SSL_|EPROTO)/ });
  assert.equal(rt.stats().hostOps, 0);
  rt.close();
});

test('an empty POST says its length', async () => {
  const rt = await prog();
  assert.equal(new TextDecoder().decode(await rt.callAsync('post_empty', server.url('/length'))), 'length=0 chunked=0');
  rt.close();
});

test('the body is read one chunk per read, none ahead of the reader', async () => {
  let pulls = 0;
  const rt = await prog({
    fetch: async () => new Response(new ReadableStream({
      pull(c) { if (++pulls > 5) c.close(); else c.enqueue(new Uint8Array(10).fill(pulls)); },
    }, { highWaterMark: 0 })),
  });
  const body = await rt.callAsync('fetch_body', 'http://test/chunks');
  assert.equal(body.byteLength, 50);
  assert.equal(pulls, 6);
  assert.equal(rt.stats().chunks, 5);
  // a body whose second chunk never comes: the fetch times out after one
  // pull for the chunk C read and one for the chunk it asked for
  pulls = 0;
  const stalled = await prog({
    fetch: async () => new Response(new ReadableStream({
      pull(c) { if (++pulls === 1) c.enqueue(new Uint8Array(10)); else return new Promise(() => {}); },
    }, { highWaterMark: 0 })),
  });
  assert.equal(await stalled.callAsync('fetch_timeout', 'http://test/stall', 100), 0);
  assert.equal(pulls, 2);
  assert.equal(stalled.stats().hostOps, 0, 'the response was let go');
  stalled.close();
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
  assert.equal(st.deliveries, st.chunks + 2, 'the head, the chunks, the end');
  assert.equal(st.hostOps, 0);
  rt.close();
});

test('an empty body resolves with the HTTP status', async () => {
  const rt = await prog();
  assert.equal(await rt.callAsync('fetch_body', server.url('/status?code=404')), 404);
  assert.equal(await rt.callAsync('fetch_body', server.url('/status?code=204')), 204);
  rt.close();
});

test('a refused connection is WA_ECONNREFUSED (Node\'s fetch names the cause)', async () => {
  const rt = await prog();
  // a port that was just free: nothing listens there
  const { createServer } = await import('node:net');
  const port = await new Promise((res) => {
    const s = createServer().listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => res(p)); });
  });
  await assert.rejects(rt.callAsync('fetch_body', `http://127.0.0.1:${port}/`),
    { code: codes.ECONNREFUSED, detail: /^TypeError: fetch failed \(ECONNREFUSED: / });
  assert.equal(rt.stats().hostOps, 0);
  rt.close();
});

test('a body cut off midway is WA_EIO, the glue\'s words its read\'s reason', async () => {
  const rt = await prog();
  await assert.rejects(rt.callAsync('fetch_body', server.url('/cut?size=1048576&at=262144')),
    { code: codes.EIO, detail: /^read: \w*Error: / });
  assert.ok(rt.stats().chunks >= 1, 'chunks were delivered before the cut');
  assert.equal(rt.stats().hostOps, 0);
  assert.equal(rt.exports.live_tasks(), 0);
  rt.close();
});

test('a fetch of at most max bytes: a body of max bytes whole, one past it WA_E2BIG', async () => {
  const rt = await prog();
  assert.deepEqual(await rt.callAsync('fetch_max', server.url('/delay?ms=0&body=hello'), 5), utf8('hello'));
  await assert.rejects(rt.callAsync('fetch_max', server.url('/delay?ms=0&body=hello'), 4), { code: codes.E2BIG });
  await assert.rejects(rt.callAsync('fetch_max', server.url('/big?size=1048576'), 65536), { code: codes.E2BIG });
  assert.equal(rt.stats().hostOps, 0);
  assert.equal(rt.exports.live_tasks(), 0);
  rt.close();
});

// (the JS host makes a body's stream only when it is asked for: a fetch
// takes the glue's chunks itself, src/host/js/http.c)
test('a response body read as a stream: whole, or cut off with the glue\'s words', async () => {
  const rt = await prog();
  const size = 1 << 20;
  const body = await rt.callAsync('stream_body', server.url(`/big?size=${size}`));
  assert.equal(body.byteLength, size);
  for (let i = 0; i < size; i++)
    if (body[i] !== pattern(i)) assert.fail(`byte ${i}: ${body[i]} != ${pattern(i)}`);
  await assert.rejects(rt.callAsync('stream_body', server.url('/cut?size=1048576&at=262144')),
    { code: codes.EIO, detail: /^read: \w*Error: / });
  assert.equal(rt.stats().hostOps, 0);
  assert.equal(rt.exports.live_tasks(), 0);
  rt.close();
});

// (http.h's inits link the reads of a request's body stream only where
// the request may have one: late_body.c's has none when its init sees it)
test('a body_stream set after the init, in a module that reads none, is misuse', async () => {
  const logged = [];
  const bytes = await readFile(join(dirname(PROG), 'late_body.wasm'));
  const rt = await instantiate(bytes, { log: (text) => logged.push(text) });
  await assert.rejects(rt.callAsync('late_body'), { code: codes.EINVAL });
  assert.deepEqual(logged, ['wasync: misuse: wa_http_send: a body_stream its init did not see [in task 1 "late"]']);
  rt.close();
});

test('a custom fetch is used, and its failure is WA_EIO', async () => {
  const seen = [];
  const rt = await prog({
    fetch: async (url, init) => {
      seen.push([url, init.method, init.signal instanceof AbortSignal]);
      if (url.endsWith('/bad')) throw new Error('custom failure');
      if (url.endsWith('/long')) throw new Error(`a${'é'.repeat(100)}`);
      return new Response('custom body', { status: 201 });
    },
  });
  assert.deepEqual(await rt.callAsync('fetch_body', 'http://test/ok'), utf8('custom body'));
  await assert.rejects(rt.callAsync('fetch_body', 'http://test/bad'), { code: codes.EIO, detail: 'Error: custom failure' });
  // a reason past WA_REASON_MAX is cut between characters
  await assert.rejects(rt.callAsync('fetch_body', 'http://test/long'), { detail: `Error: a${'é'.repeat(59)}` });
  assert.deepEqual(seen.slice(0, 2), [['http://test/ok', 'GET', true], ['http://test/bad', 'GET', true]]);
  rt.close();
});

test('many concurrent fetches', async () => {
  const rt = await prog();
  // The server answers none until all 50 wait at once: they overlap on any
  // machine (one after another, each would get a 503 after 10 s).
  const bodies = await Promise.all(Array.from({ length: 50 }, (_, i) =>
    rt.callAsync('fetch_body', server.url(`/gather?n=50&body=n${i}`))));
  bodies.forEach((b, i) => assert.deepEqual(b, utf8(`n${i}`)));
  assert.equal(rt.stats().hostOps, 0);
  rt.close();
});
