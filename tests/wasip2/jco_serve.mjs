// SPDX-License-Identifier: MIT
// Serves a wasi:http/proxy component with `jco serve` on 127.0.0.1 at a
// random port, for the Node tests: { base, log(), stop() }. With runP3
// (default: WASYNC_RUN_P3) set, the component is a 0.3 service (world
// service-p3), served by preview3-shim's HttpServer through `run-p3.mjs
// --serve` (transpiled into out, default WASYNC_OUT). hostArgs go to jco
// serve (0.2) or run-p3.mjs (0.3). On host 'wasmtime' (by default under
// wasmtime, runner.mjs), `wasmtime serve` serves either (hostArgs are its
// options then, '--trace' aside: that is its log); on host 'native'
// (by default when WASYNC_NATIVE is set), component is a native executable
// serving on WASYNC_LISTEN (examples/http_hello.c built natively).
import { spawn } from 'node:child_process';
import { wasmtime, wasmtimeServe, WASMTIME_TRACE, wasmtimeCalls } from './runner.mjs';

export async function serve(component, runP3 = process.env.WASYNC_RUN_P3, out = process.env.WASYNC_OUT, hostArgs = [],
  host = process.env.WASYNC_NATIVE ? 'native' : wasmtime ? 'wasmtime' : 'jco') {
  // The port is drawn at random and other tests on the machine draw too:
  // one taken already (the server exits with EADDRINUSE) is drawn again.
  for (let tries = 1; ; tries++) {
    try {
      return await serveAt(20000 + Math.floor(Math.random() * 20000), component, runP3, out, hostArgs, host);
    } catch (e) {
      if (tries === 5 || !/EADDRINUSE|address (already )?in use/i.test(e.message)) throw e;
    }
  }
}

async function serveAt(port, component, runP3, out, hostArgs, host) {
  // In its own process group: jco serve runs the component in a child
  // process, which a kill of jco alone would leave running.
  const [command, args] = host === 'native' ? [component, []]
    : host === 'wasmtime' ? wasmtimeServe(port, component, Boolean(runP3), hostArgs.filter((a) => a !== '--trace'))
      : [process.execPath, runP3 ? [runP3, ...hostArgs, '--serve', String(port), component, out]
        : [process.env.JCO, 'serve', '--port', String(port), ...hostArgs, component]];
  const env = host === 'native' ? { ...process.env, WASYNC_LISTEN: `127.0.0.1:${port}` }
    : host === 'wasmtime' && hostArgs.includes('--trace') ? { ...process.env, ...WASMTIME_TRACE } : process.env;
  const server = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true, env });
  let log = '';
  await new Promise((resolve, reject) => {
    const seen = (d) => {
      log += d;
      if (/listening|^Serving HTTP on/im.test(log)) resolve();
    };
    server.stdout.on('data', seen);
    server.stderr.on('data', seen);
    // ('close': after its output, which says why)
    server.on('close', (code) => reject(new Error(`the server exited (${code}): ${log}`)));
  });
  return {
    base: `http://127.0.0.1:${port}`,
    log: () => log,
    stop() {
      try {
        process.kill(-server.pid);
      } catch {} // (already gone)
      server.stdout.destroy(); // its pipes would keep this process alive
      server.stderr.destroy();
    },
  };
}

// The host calls a component makes per request to path, over n requests one
// at a time after one unmeasured; the same count for any component, runtime
// or not. On 0.2 (runP3 empty), the import calls `jco serve --jco-trace`
// logs (every WIT import function called; a resource drop is not a call
// there); on 0.3 (served by runP3 into out), every call into the host,
// the async built-ins and drops included (run-p3.mjs --trace). On host
// 'wasmtime' (as serve), the calls of WIT import functions its bindings
// trace, on 0.2 and 0.3 (built-ins and drops are not among them).
export async function hostCalls(component, path, n = 20, runP3 = '', out = '', host = wasmtime ? 'wasmtime' : 'jco') {
  const onWasmtime = host === 'wasmtime';
  const server = await serve(component, runP3, out, [runP3 || onWasmtime ? '--trace' : '--jco-trace'], host);
  const count = onWasmtime ? () => wasmtimeCalls(server.log()) : runP3
    ? () => (server.log().match(/^\[host-call\] /gm) ?? []).length
    : () => (server.log().match(/^\[iface="wasi:.*\] call /gm) ?? []).length
      - (server.log().match(/^\[iface="wasi:http\/incoming-handler[^\]]*\] call /gm) ?? []).length;
  try {
    const settled = () => new Promise((r) => setTimeout(r, 200)); // (the trace's last lines)
    await (await fetch(server.base + path)).arrayBuffer();
    await settled();
    const c0 = count();
    for (let i = 0; i < n; i++) await (await fetch(server.base + path)).arrayBuffer();
    await settled();
    return (count() - c0) / n;
  } finally {
    server.stop();
  }
}
