// The source document's demo: three 1 s sleeps and a fetch run concurrently
// on one thread; the sleeps end together at +1000 ms, the fetch at +300 ms.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { prog, since, utf8 } from './prog.mjs';
import { serve } from './server.mjs';

let server;
before(async () => { server = await serve(); });
after(() => server.close());

test('three sleep_ms(1000) and a 300 ms fetch run concurrently', async () => {
  const rt = await prog();
  const t0 = performance.now();
  const sleeps = [0, 1, 2].map(() => rt.callAsync('sleep_ms', 1000).then((took) => ({ took, at: since(t0) })));
  const fetched = rt.callAsync('fetch_body', server.url('/delay?ms=300&body=Example%20Domain'))
    .then((body) => ({ body, at: since(t0) }));

  const f = await fetched;
  assert.ok(f.body instanceof Uint8Array);
  assert.deepEqual(f.body, utf8('Example Domain'));
  assert.ok(f.at >= 295 && f.at < 500, `fetch resolved at +${f.at.toFixed(1)} ms`);

  const s = await Promise.all(sleeps);
  for (const { at, took } of s) {
    assert.ok(at >= 990 && at <= 1100, `sleep resolved at +${at.toFixed(1)} ms`);
    assert.ok(took >= 1000 && took < 1100, `C measured ${took} ms`);
  }
  const ats = s.map((x) => x.at);
  assert.ok(Math.max(...ats) - Math.min(...ats) <= 30, `sleeps spread over ${ats.map((a) => a.toFixed(1))}`);
  assert.ok(f.at < Math.min(...ats), 'the fetch finished first');
  assert.equal(rt.exports.live_tasks(), 0);
  assert.equal(rt.stats().hostOps, 0);
  rt.close();
});
