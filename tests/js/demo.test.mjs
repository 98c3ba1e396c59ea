// SPDX-License-Identifier: MIT
// The demo: three 1 s sleeps and a fetch run concurrently
// on one thread; the sleeps end together at +1000 ms, the fetch at +300 ms.
// (The scenario is shared with Chromium: tests/js/cases.mjs.)
import { test, before, after } from 'node:test';
import { runCase } from './prog.mjs';
import { serve } from './server.mjs';
import { demo } from './cases.mjs';

let server;
before(async () => { server = await serve(); });
after(() => server.close());

test(demo.title, (t) => runCase(demo, { base: server.base, t }));
