// SPDX-License-Identifier: MIT
// The web demo in Chromium: every task reaches the end of the timeline, at
// the times the plan says, drawn from the runtime's trace, which passes the
// check of every host (tests/trace_check.mjs); a screenshot of the finished
// page is saved.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serve } from '../js/server.mjs';
import { launch } from './chromium.mjs';
import { checkTrace } from '../trace_check.mjs';

test('the timeline demo finishes in Chromium', async () => {
  const server = await serve();
  const browser = await launch();
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 420 } });
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(server.url('/examples/web/index.html'));
    await page.waitForSelector('body[data-done="1"]', { timeout: 15000 });
    const status = await page.textContent('#status');
    assert.match(status, /^all tasks finished at \+\d+ ms$/);
    const total = Number(status.match(/\+(\d+)/)[1]);
    assert.ok(total >= 1500 && total < 2500, `finished at ${total} ms`); // the longest task: 1.5 s
    assert.equal(await page.locator('.done').count(), 8); // the steps and their parent
    assert.equal(await page.locator('.fail').count(), 0);
    // the three 1 s sleeps end together, 1000 ms in or later (how much
    // later is the machine's: a stall delays the three alike)
    const ends = await page.$$eval('.row', (rows) => rows.filter((r) => r.textContent.startsWith('sleep 1 s'))
      .map((r) => parseFloat(r.querySelector('.done').style.left) / 0.5));
    assert.equal(ends.length, 3);
    for (const at of ends) assert.ok(at >= 990 && at < total, `sleep ended at ${at} ms, the last task at ${total} ms`);
    assert.ok(Math.max(...ends) - Math.min(...ends) < 30, `sleeps ended at ${ends.join(', ')} ms`);
    // the trace it was drawn from, whole (its download)
    checkTrace(await page.evaluate(() => window.traceText), {
      names: ['fetch 300 ms', 'fetch 800 ms', 'sleep 1 s', 'sleep 1 s', 'sleep 1 s', 'sleep 1.5 s', 'sleep, fetch', 'timeline'],
    });
    assert.ok(await page.getAttribute('#download', 'href'), 'the trace to download');
    await page.screenshot({ path: process.env.WASYNC_SCREENSHOT ?? 'timeline.png' });
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    await server.close();
  }
});
