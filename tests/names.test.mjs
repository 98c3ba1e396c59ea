// SPDX-License-Identifier: MIT
// The library's names keep docs/design.md's rule: a name is public (the
// public headers, include/wasync/*.h, declare it) or it starts with wa__ or
// WA__. Checked on the symbols the built library defines (read off its
// objects with nm, as tests/call_graph.test.mjs does) and on every wa_ word
// of src/, comments too (a comment naming a function should name it as it
// is). Given by CMake: WASYNC_NM and WASYNC_OBJECTS.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const WORD = /\b(?:wa|WA)_\w*/g;
const internal = (n) => /^(wa|WA)__/.test(n);

// The names the public headers declare (their comments aside).
export function publicNames(texts) {
  const names = new Set();
  for (const t of texts)
    for (const w of t.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*/g, '').match(WORD) ?? [])
      if (!internal(w)) names.add(w);
  return names;
}

// The words of text that break the rule (a word before a * names a family:
// it must begin some public name).
export function strays(text, pub) {
  const out = new Set();
  for (const m of text.matchAll(WORD)) {
    const w = m[0];
    if (internal(w) || pub.has(w)) continue;
    if (text[m.index + w.length] === '*' && [...pub].some((p) => p.startsWith(w))) continue;
    out.add(w);
  }
  return [...out];
}

const headerDir = join(root, 'include/wasync');
const pub = publicNames(readdirSync(headerDir).filter((f) => f.endsWith('.h'))
  .map((f) => readFileSync(join(headerDir, f), 'utf8')));

function sources(dir, out = []) {
  for (const f of readdirSync(join(root, dir))) {
    const p = `${dir}/${f}`;
    if (statSync(join(root, p)).isDirectory()) sources(p, out);
    else if (/\.[ch]$/.test(f)) out.push(p);
  }
  return out;
}

test('every wa_ word of src/ is public or wa__', () => {
  const bad = [];
  for (const f of sources('src'))
    for (const w of strays(readFileSync(join(root, f), 'utf8'), pub)) bad.push(`${f}: ${w}`);
  assert.deepEqual(bad, []);
});

// Names the library defines under another's rule: the JS host's export
// ABI (src/host/js/exports.h), its C allocator (wasm_heap.c) and strlen, the
// Component Model's (cabi_realloc, the task hook, a reactor's _start), and
// what compilers and sanitizers add.
const ABI = /^(wasync_\w+|malloc|calloc|realloc|free|aligned_alloc|strlen|cabi_realloc|wasip3_task_set|_start|__\w+|\.\w+)$/;

test('every symbol the library defines is public or wa__', () => {
  const nm = process.env.WASYNC_NM, list = process.env.WASYNC_OBJECTS;
  assert.ok(nm && list, 'WASYNC_NM and WASYNC_OBJECTS are set');
  const objects = readFileSync(list, 'utf8').split('\n').filter(Boolean);
  assert.ok(objects.length > 10, `the objects are listed (${objects.length})`);
  const bad = [];
  let seen = 0;
  for (const o of objects)
    for (const line of execFileSync(nm, ['-g', '--defined-only', o], { encoding: 'utf8' }).split('\n')) {
      const m = /^\s*(?:[0-9a-f]+\s+|-+\s+)?([A-Za-z])\s+(\S+)$/.exec(line);
      if (!m) continue;
      seen++;
      const s = m[2];
      if (!pub.has(s) && !internal(s) && !ABI.test(s)) bad.push(`${o.replace(/^.*\/wasync\.dir\//, '')}: ${s}`);
    }
  assert.ok(seen > 100, `symbols are seen (${seen})`);
  assert.deepEqual(bad, []);
});

test('the check finds what breaks the rule', () => {
  const p = publicNames(['/* wa_hidden */ int wa_open(void); #define WA_OK 0']);
  assert.deepEqual([...p].sort(), ['WA_OK', 'wa_open']);
  assert.deepEqual(strays('wa_open(); wa__mine(); wa_stray_(); WA_O* WA_X* WA_OK', p), ['wa_stray_', 'WA_X']);
});
