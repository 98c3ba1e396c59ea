// SPDX-License-Identifier: MIT
// The one HTTP server of the JS host's tests (Node and Chromium) and of the
// web demo, on 127.0.0.1 and a free port (or the one given).
//
//   /delay?ms=N&body=TEXT   answers TEXT after N ms
//   /gather?n=N&body=TEXT   answers TEXT once N /gather requests wait at
//                           once (proof that they were all in flight), or
//                           503 to those waiting after 10 s without
//   /hang?id=ID             never answers; its connection closing is recorded
//   /closed?id=ID&ms=N      {"closed":true} once /hang?id=ID's connection has
//                           closed, or {"closed":false} if it did not within N ms
//   /big?size=N             N bytes of pattern(i), written in 16 KiB pieces
//   /status?code=N          an empty body with status N
//   /cut?size=N&at=M        announces N bytes, sends M, then drops the connection
//   /echo                   201, "METHOD x-test-header body", header x-reply: yes
//   /length                 "length=N chunked=0|1": the request's length headers
//   /garbage                not HTTP
//   /bigheader              a head with a header of 1 MiB
//   /api/slow?ms=N          "ok" after N ms (the web demo's fetches)
//   anything else           a file of the repository: /js/wasync.mjs,
//                           /build/js/..., /tests/browser/cases.html; / is the
//                           web demo (examples/web/index.html)
//
// serve(port) resolves with { base, url(path), closed(id, ms), close() }.
import http from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The byte at offset i of a /big body. */
export const pattern = (i) => (i * 31 + 7) & 255;

const root = normalize(join(fileURLToPath(import.meta.url), '../../..'));
const types = { '.html': 'text/html', '.mjs': 'text/javascript', '.js': 'text/javascript',
                '.wasm': 'application/wasm', '.css': 'text/css', '.json': 'application/json',
                '.png': 'image/png' };

export function serve(port = 0) {
  const closedAt = new Map(); // hang id -> performance.now() of the close
  const waiters = new Map();  // hang id -> resolve
  const timers = new Set();
  const gathering = []; // the /gather requests waiting: their answers
  const later = (ms, fn) => {
    const t = setTimeout(() => { timers.delete(t); fn(); }, ms);
    timers.add(t);
    return () => { clearTimeout(t); timers.delete(t); };
  };

  /** Resolves with the time the /hang?id=ID connection closed, or null if
   * it did not within ms. */
  function closed(id, ms) {
    if (closedAt.has(id)) return Promise.resolve(closedAt.get(id));
    return new Promise((res) => {
      const cancel = later(ms, () => { waiters.delete(id); res(null); });
      waiters.set(id, () => { cancel(); waiters.delete(id); res(closedAt.get(id)); });
    });
  }

  async function file(pathname, res) {
    const path = normalize(join(root, decodeURIComponent(pathname === '/' ? '/examples/web/index.html' : pathname)));
    if (path !== root && !path.startsWith(root + sep)) return res.writeHead(403).end();
    try {
      const body = await readFile(path);
      res.writeHead(200, { 'content-type': types[extname(path)] ?? 'application/octet-stream',
                           'cache-control': 'no-store' }).end(body);
    } catch {
      res.writeHead(404).end('not found');
    }
  }

  const server = http.createServer((req, res) => {
    const u = new URL(req.url, 'http://x');
    const q = (k, d) => u.searchParams.get(k) ?? d;
    const answerLater = (ms, body) => {
      const cancel = later(ms, () => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(body);
      });
      res.on('close', cancel);
    };
    switch (u.pathname) {
      case '/delay':
        answerLater(Number(q('ms', 0)), q('body', 'hello'));
        break;
      case '/gather': {
        const answer = (code, body) => res.writeHead(code, { 'content-type': 'text/plain' }).end(body);
        const entry = () => answer(200, q('body', 'hello'));
        gathering.push(entry);
        res.on('close', () => gathering.includes(entry) && gathering.splice(gathering.indexOf(entry), 1));
        if (gathering.length >= Number(q('n', 1))) gathering.splice(0).forEach((go) => go());
        else later(10000, () => gathering.includes(entry) && (gathering.splice(gathering.indexOf(entry), 1), answer(503, '')));
        break;
      }
      case '/length': {
        const te = req.headers['transfer-encoding'];
        res.end(`length=${req.headers['content-length'] ?? -1} chunked=${te === undefined ? 0 : 1}`);
        break;
      }
      case '/garbage':
        req.socket.end('garbage\r\n\r\n');
        break;
      case '/bigheader':
        req.socket.end(`HTTP/1.1 200 OK\r\nx-big: ${'a'.repeat(1 << 20)}\r\ncontent-length: 0\r\n\r\n`);
        break;
      case '/api/slow':
        answerLater(Number(q('ms', 0)), 'ok');
        break;
      case '/hang': {
        const id = q('id', '');
        // The socket, not the response: a closed connection is the client's abort.
        req.socket.on('close', () => {
          closedAt.set(id, performance.now());
          waiters.get(id)?.();
        });
        break;
      }
      case '/closed':
        closed(q('id', ''), Number(q('ms', 1000))).then((at) => {
          res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
          res.end(JSON.stringify({ closed: at !== null }));
        });
        break;
      case '/big': {
        const size = Number(q('size', 1 << 20));
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': size });
        let at = 0;
        const write = () => {
          while (at < size) {
            const n = Math.min(16384, size - at);
            const piece = Buffer.alloc(n);
            for (let i = 0; i < n; i++) piece[i] = pattern(at + i);
            at += n;
            if (!res.write(piece)) return res.once('drain', write);
          }
          res.end();
        };
        write();
        break;
      }
      case '/cut': {
        const size = Number(q('size', 1 << 20)), at = Number(q('at', 1 << 18));
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': size });
        res.write(Buffer.alloc(at, 'x'), () => later(20, () => req.socket.destroy()));
        break;
      }
      case '/echo': {
        const parts = [];
        req.on('data', (d) => parts.push(d));
        req.on('end', () => {
          res.writeHead(201, { 'x-reply': 'yes' });
          res.end(`${req.method} ${req.headers['x-test']} ${Buffer.concat(parts)}`);
        });
        break;
      }
      case '/status':
        res.writeHead(Number(q('code', 200)));
        res.end();
        break;
      default:
        if (req.method === 'GET' || req.method === 'HEAD') file(u.pathname, res);
        else res.writeHead(405).end();
    }
  });
  return new Promise((resolve) => {
    server.listen(port, '127.0.0.1', () => {
      const base = `http://127.0.0.1:${server.address().port}`;
      resolve({
        base,
        url: (path) => base + path,
        closed,
        close() {
          for (const t of timers) clearTimeout(t);
          timers.clear();
          server.closeAllConnections();
          return new Promise((res) => server.close(res));
        },
      });
    });
  });
}
