// SPDX-License-Identifier: MIT
// node bench/wasip2/bindings.mjs [--p3] FLOOR FLOOR_GEN HELLO: the hand
// bindings against wit-bindgen's (docs/wasip3.md, "Hand bindings and
// generated ones"). FLOOR is the host floor on the hand bindings
// (bench/wasip2/floor.c, or with --p3 bench/wasip3/floor.c), FLOOR_GEN the
// same answer on wit-bindgen's (floor_gen.c beside it), HELLO
// examples/http_hello.c; their components, each core module NAME.wasm
// beside NAME.component.wasm. Prints, per component, the host calls per
// request (hostCalls, as tests/wasip2/http_hello.test.mjs counts them: under
// jco or preview3-shim, or with WASYNC_RUNNER=wasmtime under wasmtime
// serve), and its core module after `wasm-opt -Oz`: the bytes of code and
// data and the functions it imports. Any wrong answer is a failure.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hostCalls, serve } from '../../tests/wasip2/jco_serve.mjs';
import { wasmtime } from '../../tests/wasip2/runner.mjs';

const args = process.argv.slice(2);
const p3 = args[0] === '--p3' && Boolean(args.shift());
if (args.length !== 3) {
  console.error('usage: node bench/wasip2/bindings.mjs [--p3] FLOOR FLOOR_GEN HELLO (components)');
  process.exit(2);
}
process.env.JCO ??= fileURLToPath(new URL('../../node_modules/@bytecodealliance/jco/dist/jco.js', import.meta.url));
const runP3 = p3 ? fileURLToPath(new URL('../../scripts/run-p3.mjs', import.meta.url)) : '';
// (0.3: transpiled next to the component, inside the repository as run-p3 wants)
const out = (wasm) => (p3 ? join(dirname(wasm), `${basename(wasm, '.component.wasm')}.trace`) : '');

// The sizes of a core module's sections by id, and its function imports.
function sections(bytes) {
  let p = 8;
  const u32 = () => {
    let r = 0, s = 0, b;
    do { b = bytes[p++]; r += (b & 0x7f) * 2 ** s; s += 7; } while (b & 0x80);
    return r;
  };
  const size = {};
  let imports = 0;
  while (p < bytes.length) {
    const id = bytes[p++], n = u32(), end = p + n;
    size[id] = (size[id] ?? 0) + n;
    if (id === 2) {
      for (let k = u32(); k--;) {
        for (let s = 0; s < 2; s++) { // module, name
          const n = u32();
          p += n;
        }
        const kind = bytes[p++];
        if (kind !== 0) break; // (functions come first in clang's modules)
        imports++;
        u32();
      }
    }
    p = end;
  }
  return { code: size[10] ?? 0, data: size[11] ?? 0, imports };
}

const tmp = mkdtempSync(join(tmpdir(), 'bindings-'));
const rows = [];
try {
  for (const [name, wasm] of [['floor (hand)', args[0]], ['floor (generated)', args[1]], ['http_hello', args[2]]]) {
    const server = await serve(wasm, runP3, out(wasm));
    try {
      const res = await fetch(`${server.base}/`);
      const body = await res.text();
      if (res.status !== 200 || body !== 'hello from wasync\n') throw new Error(`${name}: ${res.status} ${body}`);
    } finally {
      server.stop();
    }
    const calls = await hostCalls(wasm, '/', 20, runP3, out(wasm));
    const oz = join(tmp, 'oz.wasm');
    execFileSync('wasm-opt', ['-Oz', '--strip-debug', wasm.replace(/\.component\.wasm$/, '.wasm'), '-o', oz]);
    rows.push({ name, calls, ...sections(readFileSync(oz)) });
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

const host = wasmtime ? `wasmtime serve (${p3 ? '0.3' : '0.2'})` : p3 ? "preview3-shim's HttpServer (0.3)" : 'jco serve (0.2)';
console.log(`\nHand bindings against wit-bindgen's under ${host}: host calls per request` +
  ' (the test\'s count), the core module after wasm-opt -Oz (code and data bytes, function imports)');
const row = (...v) => console.log(v.map((s, i) => String(s).padStart(i ? 9 : 18)).join(' '));
row('component', 'calls', 'code', 'data', 'imports');
for (const r of rows) row(r.name, r.calls.toFixed(1), r.code, r.data, r.imports);
