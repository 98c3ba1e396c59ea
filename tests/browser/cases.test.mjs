// SPDX-License-Identifier: MIT
// The cases of tests/js/cases.mjs in headless Chromium: tests/js/server.mjs
// serves the repository, tests/browser/cases.html runs each case in the page
// (on a fresh runtime of tests/js/prog.wasm, with the server as base), and
// each case is one test here, failing with the page's error.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '../js/server.mjs';
import { PROG } from '../js/prog.mjs';
import { cases } from '../js/cases.mjs';
import { launch } from './chromium.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const prog = relative(root, resolve(PROG));
assert.ok(!prog.startsWith('..'), `${PROG} is outside the repository the server serves`);

let server, browser, page;
const pageErrors = [], consoleErrors = [];

before(async () => {
  server = await serve();
  browser = await launch();
  page = await browser.newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
  await page.goto(server.url(`/tests/browser/cases.html?prog=/${prog.split(sep).map(encodeURIComponent).join('/')}`));
  await page.waitForFunction(() => window.wasyncCases, null, { timeout: 10000 });
  await page.evaluate(() => window.wasyncCases.ready);
  assert.deepEqual(await page.evaluate(() => window.wasyncCases.names), Object.keys(cases), 'the page runs the same cases');
});

after(async () => {
  await browser?.close();
  await server?.close();
});

for (const [name, fn] of Object.entries(cases)) {
  test(`chromium: ${fn.title}`, { timeout: 30000 }, async (t) => {
    const r = await page.evaluate((n) => window.wasyncCases.run(n), name);
    t.diagnostic(`${name}: ${r.ms.toFixed(1)} ms in Chromium${r.ok && r.detail ? `; ${r.detail}` : ''}`);
    if (!r.ok) {
      const e = new Error(`in Chromium: ${r.message}`);
      e.stack = `${e.message}\n--- the page's stack:\n${r.stack}`;
      throw e;
    }
  });
}

test('chromium: no page errors, nothing logged as an error', () => {
  assert.deepEqual(pageErrors, []);
  assert.deepEqual(consoleErrors, []);
});
