// SPDX-License-Identifier: MIT
// The wasmtime runner of the Node tests: with WASYNC_RUNNER=wasmtime
// (tests/wasmtime.cmake), a test runs its WASI module or component
// ($WASYNC_COMPONENT) with the wasmtime CLI ($WASYNC_WASMTIME) and the
// flags the C tests get ($WASYNC_WASMTIME_FLAGS) instead of its other hosts.
export const wasmtime = process.env.WASYNC_RUNNER === 'wasmtime';

const flags = () => process.env.WASYNC_WASMTIME_FLAGS.split(' ');

// [command, args]: `wasmtime run` of the file with args (options: more of
// run's, e.g. --dir).
export const wasmtimeRun = (args = [], file = process.env.WASYNC_COMPONENT, options = []) =>
  [process.env.WASYNC_WASMTIME, ['run', ...flags(), ...options, file, ...args]];

// [command, args]: `wasmtime serve` of the file (a 0.3 service if p3) on
// 127.0.0.1:port. A 0.2
// component's instances are kept for every request they can take, one at
// a time each (wasmtime's default is an instance per request, and none
// kept idle past a second), so that what a request leaves behind shows in
// the next, as under jco serve's one instance. A 0.3 component (p3) is
// served with wasmtime's defaults, as users deploy it: up to 16 requests
// at once in an instance, 128 in all. wasmtime 49.0.3 traps two tasks of
// one instance that wait on one waitable set ("BUG: delivering non-present
// event", concurrent.rs), which the Component Model allows; the callback
// driver has one call wait on it at a time (src/host/wasip3/export.c). Our
// services import only what their world has (wasmtime's proxy adapter:
// cmake/component.cmake), so no -S cli. With WASYNC_WASMTIME_SERVE=defaults
// (make bench), a 0.2 component is served with wasmtime's defaults too (an
// instance per request), as users deploy it. options: more of serve's.
const serveDefaults = process.env.WASYNC_WASMTIME_SERVE === 'defaults';
export const wasmtimeServe = (port, file = process.env.WASYNC_COMPONENT, p3 = flags().includes('p3'), options = []) =>
  [process.env.WASYNC_WASMTIME, ['serve', ...flags(), '--addr', `127.0.0.1:${port}`,
    ...(p3 || serveDefaults ? [] : ['--max-instance-reuse-count', '1000000',
      '--max-instance-concurrent-reuse-count', '1', '--idle-instance-timeout', '1000000s']), ...options, file]];

// The environment that makes wasmtime log each call of a WIT import
// (its bindings' trace) to stderr, and the count of those calls in a log.
export const WASMTIME_TRACE = { WASMTIME_LOG: 'wasmtime_wasi=trace,wasmtime_wasi_io=trace,wasmtime_wasi_http=trace' };
export const wasmtimeCalls = (log) => (log.match(/ TRACE wit-bindgen import\{[^}]*\}: \S+: call /g) ?? []).length;
