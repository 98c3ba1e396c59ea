// SPDX-License-Identifier: MIT
// The local HTTP server of `make demo`'s concurrent fetch: runs one
// command while it serves on 127.0.0.1 (a free port), then stops.
//
//   /fast     "hello" at once
//   /slow     "hello" after 2 s (longer than the demo's timeout)
//   /either   by arrival, one request as /fast, the next as /slow
//
// Usage: node scripts/demo_server.mjs COMMAND [ARGS...]
//   ({base} in ARGS becomes http://127.0.0.1:PORT; exits with COMMAND's status)
import { createServer } from 'node:http';
import { spawn } from 'node:child_process';

const timers = new Set();
let arrivals = 0;
const server = createServer((req, res) => {
  const answer = () => res.writeHead(200, { 'content-type': 'text/plain' }).end('hello');
  const slow = req.url === '/slow' || (req.url === '/either' && arrivals++ % 2 === 1);
  if (!slow) return answer();
  const t = setTimeout(() => { timers.delete(t); answer(); }, 2000);
  timers.add(t);
  res.on('close', () => { clearTimeout(t); timers.delete(t); });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${server.address().port}`;
const [cmd, ...args] = process.argv.slice(2);
const child = spawn(cmd, args.map((a) => a.replaceAll('{base}', base)), { stdio: 'inherit' });
const code = await new Promise((resolve) => child.on('exit', (c, sig) => resolve(sig ? 1 : c)));
for (const t of timers) clearTimeout(t);
server.closeAllConnections();
server.close();
process.exitCode = code;
