// SPDX-License-Identifier: MIT
// No circle of calls among the library's source files, as built for this
// host: a file that calls a function or names a variable (a vtable, a
// thread-local) that only another file defines is an edge from it to that
// file (read off the objects' symbols with nm: a call the compiler made,
// not a guess from the text), and the edges must have no
// cycle, so that data flows one way (docs/design.md, "The library's
// files call one way"). Given by
// CMake: WASYNC_NM, and WASYNC_OBJECTS, a file listing the library's
// objects (CMakeFiles/wasync.dir/SOURCE.o).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

// The source file of an object: src/core/task.c for .../wasync.dir/src/core/task.c.o.
const source = (o) => o.replace(/^.*\/wasync\.dir\/(\.\/)?/, '').replace(/\.o(bj)?$/, '');

// { defines: Map(symbol -> file), calls: Map(file -> Set(symbol)) }: the
// symbols a file defines are its functions (T), data (D, R) and zeroed
// data (B), thread-locals included.
function symbols(nm, objects) {
  const defines = new Map(), calls = new Map();
  for (const o of objects) {
    const file = source(o);
    const undefined_ = new Set();
    for (const line of execFileSync(nm, [o], { encoding: 'utf8' }).split('\n')) {
      const m = /^\s*(?:[0-9a-f]+\s+|-+\s+)?([A-Za-z])\s+(\S+)$/.exec(line);
      if (!m) continue;
      if (m[1] === 'U') undefined_.add(m[2]);
      else if ('TDRB'.includes(m[1])) defines.set(m[2], file);
    }
    calls.set(file, undefined_);
  }
  return { defines, calls };
}

// The edges (file -> Map(file -> [symbols])).
function edges({ defines, calls }) {
  const out = new Map();
  for (const [file, syms] of calls) {
    const to = new Map();
    for (const s of syms) {
      const d = defines.get(s);
      if (d && d !== file) to.set(d, [...(to.get(d) ?? []), s]);
    }
    out.set(file, to);
  }
  return out;
}

// The strongly connected components of more than one file (Tarjan's).
function circles(graph) {
  let index = 0;
  const idx = new Map(), low = new Map(), stack = [], on = new Set(), found = [];
  const visit = (v) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v)?.keys() ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) {
        low.set(v, Math.min(low.get(v), idx.get(w)));
      }
    }
    if (low.get(v) === idx.get(v)) {
      const c = [];
      for (let w; w !== v;) {
        w = stack.pop();
        on.delete(w);
        c.push(w);
      }
      if (c.length > 1) found.push(c.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return found;
}

test('the objects are there, and their calls are seen', () => {
  const objects = readFileSync(process.env.WASYNC_OBJECTS, 'utf8').split('\n').filter(Boolean);
  assert.ok(objects.length > 10, `${objects.length} objects listed`);
  const graph = edges(symbols(process.env.WASYNC_NM, objects));
  // (a check of the check: the executor calls the clock)
  assert.ok(graph.get('src/core/executor.c')?.has('src/core/clock.c'), 'executor.c -> clock.c seen');
  // (and a file that names another's data: a spawn sets its handle's vtable)
  assert.ok(graph.get('src/core/spawn.c')?.has('src/core/join.c'), 'spawn.c -> join.c seen');
});

test('no circle of calls among the library\'s files', () => {
  const objects = readFileSync(process.env.WASYNC_OBJECTS, 'utf8').split('\n').filter(Boolean);
  const graph = edges(symbols(process.env.WASYNC_NM, objects));
  const report = circles(graph).map((c) => `a circle of ${c.length} files:\n` + c.flatMap((a) =>
    [...graph.get(a)].filter(([b]) => c.includes(b)).map(([b, s]) => `  ${a} -> ${b}: ${s.sort().join(' ')}`)).join('\n'));
  assert.deepEqual(report, []);
});
