// SPDX-License-Identifier: MIT
// The modules built for JS hosts import nothing but "wasync" (no WASI), and
// the minimal program stays small.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

const dir = dirname(process.env.WASYNC_PROG ?? '/work/main/build/js/tests/js/prog.wasm');

for (const name of ['prog', 'minimal', 'timeline', 'bench_js']) {
  test(`${name}.wasm imports only from "wasync"`, async () => {
    const mod = await WebAssembly.compile(await readFile(join(dir, `${name}.wasm`)));
    const foreign = WebAssembly.Module.imports(mod).filter((i) => i.module !== 'wasync' && i.module !== 'demo');
    assert.deepEqual(foreign, []);
  });
}

// 16 KiB until its fetch became http.h's (wa_http_fetch): about 8 KiB more,
// all of it code the fetch runs (the request checks of http_url.c, the
// body as a stream read whole, the send; measured 24,700 bytes), so the
// bound is the next KiB up. 26 KiB since an await checks that what it
// waits on is not in the poll's own stack frame, in every build (600
// bytes: 25,531 before, 26,132 after), and failures have reasons (the
// reason's copy, the request head's size, the empty body's length, two
// more codes: 293 bytes).
test('minimal.wasm is under 26 KiB', async () => {
  const bytes = await readFile(join(dir, 'minimal.wasm'));
  assert.ok(bytes.length < 26 * 1024, `${bytes.length} bytes`);
});
