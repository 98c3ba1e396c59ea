// SPDX-License-Identifier: MIT
// WASI 0.2 and 0.3 components from core modules, with jco's wasm-tools (no
// native wasm-tools here). WORLD is a world of wit/*.wit (one package), or
// with --package, of the first package given.
//
//   node scripts/component.mjs [OPTIONS] IN.wasm OUT.wasm WORLD command|reactor
//       embed WORLD in IN and wrap it, with that preview1 adapter, as OUT
//   node scripts/component.mjs [OPTIONS] --dummy WORLD OUT.wasm
//       write wit-component's dummy core module for WORLD: its imports and
//       exports are the exact names and flat signatures the world expects
//   node scripts/component.mjs [OPTIONS] --check IN.wasm WORLD [command|reactor]
//       compare every import of IN with what WORLD (plus, for module
//       wasi_snapshot_preview1, the adapter) provides; exit 1 on a mismatch
//
// OPTIONS:
//   --node-modules DIR  the npm folder with @bytecodealliance/jco and
//                       preview2-shim (default: scripts/node_modules.mjs's)
//   --wit DIR           (default build/wit) caches the WIT folder: our
//                       wit/*.wit plus copies of jco's wasi:* packages in
//                       deps/ (wit-parser does not follow symlinks there): the
//                       0.2 ones as deps/wasi-NAME, the 0.3 ones as
//                       deps/wasi-NAME@0.3.0 (jco names both folders alike;
//                       any folder name will do)
//   --package PKG       a folder of a WIT package (its .wit files, and its
//                       deps/ if any); the first one given is the main package,
//                       in DIR itself, and ours and the others go to deps/
//   --adapter FILE      the preview1 adapter to wrap with or check against,
//                       instead of jco's of the kind (a reactor module
//                       wrapped with wasmtime's proxy adapter: a
//                       wasi:http/proxy service that imports nothing else)
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importFrom, nodeModules as findNodeModules } from './node_modules.mjs';

const WASI = ['0.2.12', '0.3.0'];
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
let jco; // jco's lib/ folder, set by main()
let adapterFile; // --adapter
// What main() loads from --node-modules.
let _setPreopens, componentEmbed, componentNew;
const adapter = kind => {
    if (kind !== 'command' && kind !== 'reactor') throw new Error(`adapter must be command or reactor, not ${kind}`);
    return readFileSync(adapterFile ?? join(jco, `wasi_snapshot_preview1.${kind}.wasm`));
};

// Copies a file unless the copy is already identical; the rename keeps
// parallel builds sharing DIR from seeing half-written files.
function sync(src, dst) {
    const data = readFileSync(src);
    if (existsSync(dst) && readFileSync(dst).equals(data)) return;
    mkdirSync(dirname(dst), { recursive: true });
    writeFileSync(`${dst}.${process.pid}`, data);
    renameSync(`${dst}.${process.pid}`, dst);
}

// Copies the .wit files of folder src into folder dst.
function syncWit(src, dst) {
    for (const f of readdirSync(src).filter(f => f.endsWith('.wit'))) sync(join(src, f), join(dst, f));
}

function witDir(dir, packages) {
    const [main, ...more] = packages;
    if (main) {
        syncWit(main, dir);
        syncWit(join(root, 'wit'), join(dir, 'deps', 'wasync-host'));
    } else {
        syncWit(join(root, 'wit'), dir);
    }
    for (const pkg of more) syncWit(pkg, join(dir, 'deps', basename(pkg)));
    for (const pkg of packages) {
        const deps = join(pkg, 'deps');
        if (!existsSync(deps)) continue;
        for (const d of readdirSync(deps).filter(d => statSync(join(deps, d)).isDirectory()))
            syncWit(join(deps, d), join(dir, 'deps', d));
    }
    for (const [i, version] of WASI.entries()) {
        const wasi = join(jco, 'wit/builtin', version);
        for (const pkg of readdirSync(wasi)) {
            const to = join(dir, 'deps', i ? `${pkg}@${version}` : pkg);
            for (const f of readdirSync(join(wasi, pkg))) sync(join(wasi, pkg, f), join(to, f));
        }
    }
    return dir;
}

// Imports (with flat signatures) and function exports of a core module.
function parse(bytes) {
    let p = 8;
    const u32 = () => { let r = 0, s = 0, b; do { b = bytes[p++]; r += (b & 0x7f) * 2 ** s; s += 7; } while (b & 0x80); return r; };
    const str = () => { const n = u32(); p += n; return Buffer.from(bytes.subarray(p - n, p)).toString(); };
    const VAL = { 0x7f: 'i32', 0x7e: 'i64', 0x7d: 'f32', 0x7c: 'f64', 0x7b: 'v128', 0x70: 'funcref', 0x6f: 'externref' };
    const vec = () => Array.from({ length: u32() }, () => VAL[bytes[p++]] ?? fail('value type'));
    const limits = () => { const flags = bytes[p++]; u32(); if (flags & 1) u32(); };
    const fail = what => { throw new Error(`unsupported ${what} at byte ${p - 1}`); };
    const types = [], imports = [], funcs = [], exports = new Map();
    while (p < bytes.length) {
        const id = bytes[p++], size = u32(), end = p + size;
        if (id === 1) for (let n = u32(); n--;) {
            if (bytes[p++] !== 0x60) fail('type form');
            const params = vec(), results = vec();
            types.push(`[${params.join(' ')}] -> [${results.join(' ')}]`);
        } else if (id === 2) for (let n = u32(); n--;) {
            const imp = { module: str(), name: str(), kind: bytes[p++] };
            if (imp.kind === 0) { imp.type = types[u32()]; funcs.push(imp.type); }
            else if (imp.kind === 1) { p++; limits(); imp.type = 'table'; }
            else if (imp.kind === 2) { limits(); imp.type = 'memory'; }
            else if (imp.kind === 3) { p += 2; imp.type = 'global'; }
            else fail('import kind');
            imports.push(imp);
        } else if (id === 3) for (let n = u32(); n--;) funcs.push(types[u32()]);
        else if (id === 7) for (let n = u32(); n--;) {
            const name = str(), kind = bytes[p++], index = u32();
            if (kind === 0) exports.set(name, funcs[index]);
        }
        p = end;
    }
    return { imports, exports };
}

// Our C bindings may use wit-component's legacy names
// ("wasi:io/poll@0.2.12" "[resource-drop]pollable"); the dummy module uses the
// standard ones ("cm32p2|wasi:io/poll@0.2" "pollable_drop"). Compare in the latter.
function standard(module, name) {
    if (module.startsWith('cm32p2')) return `${module} ${name}`;
    const res = /^\[resource-(drop|new|rep)\](.*)$/.exec(name);
    if (res) name = `${res[2]}_${res[1]}`;
    const ex = module.startsWith('[export]') ? '_ex_' : '';
    if (ex) module = module.slice(8);
    if (module === '$root') return `cm32p2 ${name}`;
    module = module.replace(/@(\d+)\.(\d+)\.(\d+)(-[^+]*)?(\+.*)?$/, (_, x, y, z, pre) =>
        `@${pre ? `${x}.${y}.${z}${pre}` : x !== '0' ? x : y !== '0' ? `0.${y}` : `0.0.${z}`}`);
    return `cm32p2|${ex}${module} ${name}`;
}

async function dummy(wit, world) {
    return componentEmbed({ dummy: true, witPath: wit, world });
}

// The async built-ins (WASI 0.3), which the dummy module leaves out: their
// core names in module $root and flat signatures.
const BUILTINS = new Map(Object.entries({
    '[waitable-set-new]': '[] -> [i32]', '[waitable-set-wait]': '[i32 i32] -> [i32]',
    '[waitable-set-poll]': '[i32 i32] -> [i32]', '[waitable-set-drop]': '[i32] -> []',
    '[waitable-join]': '[i32 i32] -> []', '[subtask-cancel]': '[i32] -> [i32]', '[subtask-drop]': '[i32] -> []',
    '[context-get-0]': '[] -> [i32]', '[context-set-0]': '[i32] -> []',
    '[backpressure-inc]': '[] -> []', '[backpressure-dec]': '[] -> []', '[thread-yield]': '[] -> [i32]',
    '[task-cancel]': '[] -> []', // (module [export]$root: the current task's)
}));

// What a 0.3 import that the dummy module shows only in its synchronous
// form must look like, or undefined if the world lacks it:
// "[async-lower]F" takes F's flat parameters (four at most here, else we
// cannot tell them from a return pointer and accept the import as it is)
// plus a pointer for a result, and returns the packed subtask state;
// "[task-return]F" of module "[export]I" needs I#F among the exports (its
// parameters, F's flat results, are not compared).
const ENDS = { new: '[] -> [i64]', 'cancel-read': '[i32] -> [i32]', 'cancel-write': '[i32] -> [i32]',
    'drop-readable': '[i32] -> []', 'drop-writable': '[i32] -> []' };
function async03(module, name, type, want, exports) {
    // A stream or future of F's signature: "[stream-write-0]F" and the like
    // ("[async-lower]" first for reads and writes).
    const end = /^(\[async-lower\])?\[(stream|future)-([a-z-]+)-\d+\](.*)$/.exec(name);
    if (end) {
        const [, , kind, op, fn] = end;
        if (!want.has(standard(module, fn))) return undefined;
        if (op === 'read' || op === 'write') return kind === 'stream' ? '[i32 i32 i32] -> [i32]' : '[i32 i32] -> [i32]';
        return ENDS[op];
    }
    const lower = /^\[async-lower\](.*)$/.exec(name);
    if (lower) {
        const sync = want.get(standard(module, lower[1]));
        const [, params, results] = /^\[(.*)\] -> \[(.*)\]$/.exec(sync ?? '[] -> []');
        const n = params ? params.split(' ').length : 0;
        if (!sync) return undefined;
        if (n > 4 || results.includes(' ')) return type;
        return `[${[params, results && 'i32'].filter(Boolean).join(' ')}] -> [i32]`;
    }
    const ret = /^\[task-return\](.*)$/.exec(name);
    if (ret && module.startsWith('[export]'))
        return exports.has(standard(module.slice(8), ret[1]).replace(' ', '|')) ? type : undefined;
    return undefined;
}

async function check(wit, input, world, kind = 'command') {
    const dummied = parse(await dummy(wit, world));
    const want = new Map(dummied.imports.map(i => [standard(i.module, i.name), i.type]));
    const preview1 = parse(adapter(kind)).exports;
    let bad = 0;
    const { imports } = parse(readFileSync(input));
    for (const { module, name, type } of imports) {
        const [from, expected] = module === 'wasi_snapshot_preview1'
            ? [`the ${adapterFile ? basename(adapterFile) : kind} adapter`, preview1.get(name)]
            : (module === '$root' || module === '[export]$root') && BUILTINS.has(name) ? ['the async built-ins', BUILTINS.get(name)]
            : /^\[(async-lower|task-return|stream-|future-)/.test(name) ? [`world ${world}`, async03(module, name, type, want, dummied.exports)]
            : [`world ${world}`, want.get(standard(module, name))];
        if (expected === type) continue;
        bad++;
        console.log(expected ? `${module} ${name}: ${type}, but ${from} has ${expected}`
                             : `${module} ${name}: not in ${from}`);
    }
    console.log(`${input}: ${imports.length - bad} of ${imports.length} imports match world ${world}`);
    return bad === 0;
}

// Loads jco's wasm-tools and preview2-shim from the npm folder nodeModules
// (a user's, not necessarily next to this script).
async function load(nodeModules) {
    ({ _setPreopens } = await importFrom(nodeModules, '@bytecodealliance/preview2-shim/filesystem'));
    ({ componentEmbed, componentNew } = await importFrom(nodeModules, '@bytecodealliance/jco-transpile/wasm-tools'));
    jco = join(nodeModules, '@bytecodealliance/jco/lib');
}

async function main(args) {
    let wit = join(root, 'build/wit'), nodeModules;
    const packages = [];
    for (;;) {
        if (args[0] === '--wit') [, wit] = args.splice(0, 2);
        else if (args[0] === '--node-modules') [, nodeModules] = args.splice(0, 2);
        else if (args[0] === '--package') packages.push(resolve(args.splice(0, 2)[1]));
        else if (args[0] === '--adapter') [, adapterFile] = args.splice(0, 2);
        else break;
    }
    await load(findNodeModules(nodeModules));
    // The embedded wasm-tools reads files through preview2-shim, which has no
    // preopened folders unless told.
    _setPreopens({ '/': '/' });
    wit = witDir(resolve(wit), packages);
    if (args[0] === '--dummy' && args.length === 3) {
        writeFileSync(args[2], await dummy(wit, args[1]));
    } else if (args[0] === '--check' && (args.length === 3 || args.length === 4)) {
        return check(wit, args[1], args[2], args[3]);
    } else if (args.length === 4 && !args[0].startsWith('--')) {
        const [input, output, world, kind] = args;
        const embedded = await componentEmbed({ binary: readFileSync(input), witPath: wit, world });
        writeFileSync(output, await componentNew(embedded, [['wasi_snapshot_preview1', adapter(kind)]]));
    } else {
        throw new Error('usage: see the top of scripts/component.mjs');
    }
    return true;
}

try {
    process.exitCode = await main(process.argv.slice(2)) ? 0 : 1;
} catch (e) {
    console.error(`component.mjs: ${e?.payload ?? e?.message ?? e}`);
    process.exitCode = 1;
}
