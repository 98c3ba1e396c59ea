// SPDX-License-Identifier: MIT
// The docs name only what exists: every repository path in backticks in
// README.md, js/README.md and docs/*.md is a file or folder of the repo,
// and every wa_/WA_ name is defined or used somewhere in the code (a name
// ending in * is a prefix, and a path with a * a pattern). Placeholders in
// capitals (fuzz_NAME.c) match anything.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync, readdirSync, statSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const read = (p) => readFileSync(join(root, p), 'utf8');

/* The files under dir: sources only, or (any) every file. */
function files(dir, out = [], any = false) {
  for (const f of readdirSync(join(root, dir))) {
    const p = `${dir}/${f}`;
    if (statSync(join(root, p)).isDirectory()) files(p, out, any);
    else if (any || /\.(c|h|mjs|cmake|sh|txt)$/.test(f)) out.push(p);
  }
  return out;
}

const docs = ['README.md', 'js/README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
const code = ['include', 'src', 'tests', 'js', 'examples', 'bench', 'scripts', 'cmake']
  .flatMap((d) => files(d)).concat(['CMakeLists.txt', 'Makefile']).map(read).join('\n');
const roots = /^((?:src|include|tests|examples|bench|docs|js|scripts|cmake|wit)\/[\w./*-]*)/;
const all = ['include', 'src', 'tests', 'js', 'examples', 'bench', 'scripts', 'cmake', 'docs', 'wit'].flatMap((d) => files(d, [], true));
/* A path with a * is a pattern: some file matches it. */
const exists = (p) => p.includes('*')
  ? all.some((f) => new RegExp(`^${p.replace(/[.]/g, '\\.').replace(/\*/g, '[^/]*')}`).test(f))
  : existsSync(join(root, p));

test('the docs name only files and symbols that exist', () => {
  const missing = [];
  for (const doc of docs) {
    for (const [, quoted] of read(doc).matchAll(/`([^`\n]+)`/g)) {
      const path = quoted.match(roots)?.[1].replace(/[.,:]$/, '');
      if (path && !/[A-Z]{3,}/.test(path) && !exists(path))
        missing.push(`${doc}: ${path}`);
      for (const [, name, star] of quoted.matchAll(/\b((?:wa|WA)_\w+)(\*?)/g)) {
        const re = new RegExp(star ? `\\b${name}` : `\\b${name}\\b`);
        if (!re.test(code)) missing.push(`${doc}: ${name}${star}`);
      }
    }
  }
  assert.deepEqual(missing, []);
});

// The tutorial's code is the examples' code: each C block of
// docs/tutorial.md is a piece of a file under examples/, unchanged.
test('the tutorial shows the examples as they are', () => {
  const examples = files('examples').filter((p) => p.endsWith('.c')).map(read);
  const blocks = [...read('docs/tutorial.md').matchAll(/^```c\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
  assert.ok(blocks.length > 0);
  assert.deepEqual(blocks.filter((b) => !examples.some((text) => text.includes(b))), []);
});

// Nothing in the repository points at material its users do not have: the
// design notes and documents the project started from stay outside it.
test('no file refers to documents outside the repository', () => {
  const outside = (line) => /\.\.\/shared|TOOLCHAIN\.md|DESIGN\.md/.test(line) || /\b(seed|source) documents?\b/i.test(line);
  const texts = ['README.md', 'Makefile', 'CMakeLists.txt']
    .concat(['include', 'src', 'tests', 'js', 'examples', 'bench', 'scripts', 'cmake', 'docs'].flatMap((d) => files(d, [], true)))
    .filter((p) => !p.includes('/corpus/') && !/\.(png|wasm)$/.test(p));
  const found = texts.flatMap((p) => read(p).split('\n').map((line, i) => [p, i + 1, line]))
    .filter(([p, , line]) => p !== 'tests/docs.test.mjs' && outside(line))
    .map(([p, n, line]) => `${p}:${n}: ${line.trim()}`);
  assert.deepEqual(found, []);
});

test("docs/wasip3.md lists the npm packages and versions of the repository's package.json", () => {
  const block = read('docs/wasip3.md').match(/## The npm packages of a project[\s\S]*?```json\n([\s\S]*?)```/);
  assert.ok(block, 'docs/wasip3.md has the package.json block');
  const listed = JSON.parse(block[1]);
  const ours = JSON.parse(read('package.json'));
  const pick = (deps) => Object.fromEntries(Object.entries(deps ?? {}).filter(([n]) => n !== 'playwright-core'));
  assert.deepEqual({ ...pick(listed.devDependencies), ...pick(listed.optionalDependencies) },
    { ...pick(ours.devDependencies), ...pick(ours.optionalDependencies) });
  assert.deepEqual(listed.overrides, ours.overrides);
});

// Steps 1 to 4 are shown whole, each followed by its output: the files
// examples/tutorial/NAME.c and NAME.out, as they are.
test('the tutorial shows steps 1 to 4 whole, with what they print', () => {
  const tutorial = read('docs/tutorial.md');
  for (const name of ['1_coroutine', '2_tasks', '3_timeout', '4_channel']) {
    const shown = tutorial.match(new RegExp(`The whole program, \`examples/tutorial/${name}\\.c\`:\\n\\n\`\`\`c\\n([\\s\\S]*?)^\`\`\`\\n\\nIt prints[^\\n]*:\\n\\n\`\`\`text\\n([\\s\\S]*?)^\`\`\`$`, 'm'));
    assert.ok(shown, `${name}: shown whole with its output`);
    assert.equal(shown[1], read(`examples/tutorial/${name}.c`), `${name}.c`);
    assert.equal(shown[2], read(`examples/tutorial/${name}.out`), `${name}.out`);
  }
});
