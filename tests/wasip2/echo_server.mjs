// SPDX-License-Identifier: MIT
// Starts an echo example (examples/tcp_echo.c, udp_echo.c) for its Node
// test: natively ($WASYNC_NATIVE), as a WASI 0.3 command ($WASYNC_P3, run
// by $WASYNC_RUN_P3 into $WASYNC_OUT), or as a component under `jco run`
// ($WASYNC_COMPONENT), each under wasmtime instead when runner.mjs says.
import { spawn } from 'node:child_process';
import { wasmtime, wasmtimeRun } from './runner.mjs';

const native = process.env.WASYNC_NATIVE, p3 = process.env.WASYNC_P3;

/** Starts the server with args (fds: natively, its limit of open files);
 * resolves to { port, exited: the promise of its exit status, err: its
 * stderr } once it printed "listening PORT". */
export function startServer(args, fds) {
  const stdio = { stdio: ['ignore', 'pipe', 'pipe'] };
  const server = wasmtime ? spawn(...wasmtimeRun(args), stdio)
    : p3 ? spawn(process.execPath, [process.env.WASYNC_RUN_P3, p3, process.env.WASYNC_OUT, '--', ...args], stdio)
      : !native ? spawn(process.execPath, [process.env.JCO, 'run', process.env.WASYNC_COMPONENT, ...args], stdio)
        : fds ? spawn('/bin/sh', ['-c', `ulimit -n ${fds} && exec "$0" "$@"`, native, ...args], stdio)
          : spawn(native, args, stdio);
  const s = { err: '' };
  server.stderr.on('data', (d) => (s.err += d));
  s.exited = new Promise((resolve) => server.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    let out = '';
    server.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/listening (\d+)/);
      if (m) resolve({ ...s, port: Number(m[1]), get err() { return s.err; } });
    });
    server.on('exit', () => reject(new Error(`server exited early: ${out} ${s.err}`)));
  });
}
