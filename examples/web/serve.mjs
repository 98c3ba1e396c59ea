// A small static server for the web demo and the browser tests, on
// 127.0.0.1. Serves the repository (so /js/wasync.mjs and /build/... are
// reachable) and a test API: /api/slow?ms=N answers "ok" after N ms,
// /api/never never answers, /api/big?bytes=N sends N bytes.
// Usage: node examples/web/serve.mjs [port]   (prints the URL)
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = normalize(join(fileURLToPath(import.meta.url), '../../..'));
const types = { '.html': 'text/html', '.mjs': 'text/javascript', '.js': 'text/javascript',
                '.wasm': 'application/wasm', '.css': 'text/css', '.json': 'application/json' };

export function serve(port = 0) {
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://x');
    if (url.pathname === '/api/slow') {
      const t = setTimeout(() => res.end('ok'), Number(url.searchParams.get('ms') ?? 0));
      req.on('close', () => clearTimeout(t));
      return;
    }
    if (url.pathname === '/api/never') {
      server.emit('never', req);
      return;
    }
    if (url.pathname === '/api/big') {
      res.end(Buffer.alloc(Number(url.searchParams.get('bytes') ?? 0), 'w'));
      return;
    }
    const path = normalize(join(root, decodeURIComponent(url.pathname === '/' ? '/examples/web/index.html' : url.pathname)));
    if (!path.startsWith(root)) {
      res.writeHead(403).end();
      return;
    }
    try {
      const body = await readFile(path);
      res.writeHead(200, { 'content-type': types[extname(path)] ?? 'application/octet-stream' }).end(body);
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const server = await serve(Number(process.argv[2] ?? 8080));
  console.log(`http://127.0.0.1:${server.address().port}/examples/web/index.html`);
}
