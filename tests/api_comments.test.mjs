// SPDX-License-Identifier: MIT
// Every public function has its comment: in include/wasync.h and
// include/wasync/*.h, each declaration or inline definition of a wa_
// function, and each function-like macro named wa_ or WA_ (a trailing
// underscore marks the library's own names: skipped), has a comment ending
// on the line right above it (the API reference, `make docs`, is made from
// those comments). Needs no doxygen.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const headers = ['include/wasync.h', ...readdirSync(join(root, 'include/wasync'))
  .filter((f) => f.endsWith('.h')).map((f) => `include/wasync/${f}`)];

/* The public functions of the header text: [name, line index]. A function
 * starts at column 0 (bodies, fields and macro bodies are indented). */
export function publicFunctions(text) {
  const found = [];
  text.split('\n').forEach((line, i) => {
    const m = line.match(/^#\s*define\s+((?:wa|WA)_\w+)\(/) ??
      (/^(typedef|struct|enum|extern|return|#|\/|\*| )/.test(line) ? null : line.match(/^[\w ]*?[\w*]\s*\**\b(wa_\w+)\s*\(/));
    if (m && !m[1].endsWith('_')) found.push([m[1], i]);
  });
  return found;
}

/* The line above i ends a comment. */
const commented = (lines, i) => i > 0 && /\*\/\s*$|^\s*\/\//.test(lines[i - 1]);

test('every public function has a comment right above it', () => {
  const missing = [];
  for (const h of headers) {
    const text = readFileSync(join(root, h), 'utf8');
    const lines = text.split('\n');
    for (const [name, i] of publicFunctions(text))
      if (!commented(lines, i)) missing.push(`${h}:${i + 1}: ${name}`);
  }
  assert.deepEqual(missing, []);
});

test('the check finds functions, inline ones and macros', () => {
  const sample = [
    '/* Documented. */', 'int wa_a(void);', '', 'int wa_b(int x);',
    'static inline wa_future *wa_c(wa_sleep *s) { return 0; }',
    '#define WA_D(x) (x)', '#define WA_E_(x) (x)', 'void wa__f(void);', '    wa_g(1);',
  ].join('\n');
  assert.deepEqual(publicFunctions(sample).map(([n]) => n), ['wa_a', 'wa_b', 'wa_c', 'WA_D']);
});
