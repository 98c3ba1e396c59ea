// SPDX-License-Identifier: MIT
// Imported before a component jco transpiled (scripts/run-p3.mjs --trace):
// logs every call from its core modules into the host to stderr, one line
// "[host-call] MODULE NAME" each, the 0.3 counterpart of `jco serve
// --jco-trace` (which logs the WIT imports only, not the async built-ins
// where a 0.3 component's event loop and streams are). A host call is a
// call of a JavaScript function a core module imports: directly, through
// WebAssembly.Suspending (JSPI), or through jco's wasm helpers (its shim
// and fixup modules' table, which move a call and count it where it lands,
// and its conditional-suspending instance, counted at its "fast" entry:
// its "slow" one is the same call going on). Calls into the adapter or
// between the component's own modules are not host calls.
const { instantiate, Instance, Suspending } = WebAssembly;
const wasmFns = new WeakMap(); // an instance's exported function -> its export name
const names = new Map(); // export name of jco's shim -> the import it stands for
const cells = new WeakMap(); // a Suspending we made -> its counting cell
const entries = new WeakMap(); // a conditional instance's export -> its "fast" cell

const log = (cell) => console.error(`[host-call] ${cell.label()}`);
// The label of import (module, name): jco's fixup module imports "actual"
// k for the shim's export k, which the component imports by its real name.
const label = (module, name) => () => (module === 'actual' && names.get(name)) || `${module} ${name}`;

function counted(fn, cell) {
  const f = function (...args) {
    if (cell.label) log(cell);
    return fn.apply(this, args);
  };
  return Object.assign(f, fn); // (jco's own marks, e.g. _jcoMaySuspend)
}

WebAssembly.Suspending = function (fn) {
  const cell = {};
  const s = new Suspending(counted(fn, cell));
  cells.set(s, cell);
  return s;
};

// The imports with their JavaScript functions counted; the cell of a
// conditional instance's "fast" entry goes to fast.cell.
function wrap(imports, fast) {
  if (!imports) return imports;
  const out = {};
  for (const [module, fields] of Object.entries(imports)) {
    out[module] = {};
    for (const [name, v] of Object.entries(fields)) {
      let w = v;
      const at = label(module, name);
      if (module === '') { // jco's conditional-suspending helper
        if (name === 'fast') w = counted(v, (fast.cell = {}));
      } else if (cells.has(v)) {
        cells.get(v).label = at;
      } else if (wasmFns.has(v)) {
        if (!names.has(wasmFns.get(v)) && module !== 'actual') names.set(wasmFns.get(v), `${module} ${name}`);
        if (entries.has(v)) entries.get(v).label = at;
      } else if (typeof v === 'function') {
        w = counted(v, { label: at });
      }
      out[module][name] = w;
    }
  }
  return out;
}

// Notes an instance's exported functions (a conditional one's lead to the
// cell of its entry).
function noted(instance, fast) {
  for (const [k, v] of Object.entries(instance.exports))
    if (typeof v === 'function') {
      wasmFns.set(v, k);
      if (fast.cell) entries.set(v, fast.cell);
    }
  return instance;
}

WebAssembly.instantiate = async function (source, imports) {
  const fast = {};
  const r = await instantiate(source, wrap(imports, fast));
  noted(r.instance ?? r, fast);
  return r;
};
WebAssembly.Instance = function (module, imports) {
  const fast = {};
  return noted(new Instance(module, wrap(imports, fast)), fast);
};
WebAssembly.Instance.prototype = Instance.prototype;
