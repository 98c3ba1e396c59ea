// SPDX-License-Identifier: MIT
// printf in a JS-host module: stdout's lines to one sink, stderr's to the
// other, whole lines, the last one at close (tests/js/stdio.c).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { instantiate } from '../../js/wasync.mjs';
import { PROG } from './prog.mjs';

const wasm = join(dirname(PROG), 'stdio.wasm');

test('printf and puts print lines', async () => {
  const out = [], err = [];
  const rt = await instantiate(readFile(wasm), { stdout: (l) => out.push(l), stderr: (l) => err.push(l) });
  assert.equal(rt.call('print', 7), 0);
  assert.deepEqual(out, ['out 7', 'a line']);
  assert.deepEqual(err, ['err 7']);
  assert.equal(rt.call('format', 42), `42-${'0.1.0'}`.length);
  rt.close();
  assert.deepEqual(out, ['out 7', 'a line', 'no newline']);
});

test('it imports only the stdio of WASI', async () => {
  const mod = await WebAssembly.compile(await readFile(wasm));
  const wasi = WebAssembly.Module.imports(mod).filter((i) => i.module !== 'wasync').map((i) => `${i.module}.${i.name}`);
  for (const name of wasi) assert.match(name, /^wasi_snapshot_preview1\.fd_(write|close|seek|fdstat_get)$/);
  assert.ok(wasi.includes('wasi_snapshot_preview1.fd_write'));
});
