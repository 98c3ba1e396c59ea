// A small HTTP server for the JS host's tests, on 127.0.0.1 and a free port.
//
//   /delay?ms=N&body=TEXT   answers TEXT after N ms
//   /hang?id=ID             never answers; its connection closing is recorded
//   /big?size=N             N bytes of pattern(i), written in 16 KiB pieces
//   /status?code=N          an empty body with status N
//   /cut?size=N&at=M        announces N bytes, sends M, then drops the connection
//
// serve() resolves with { url(path), closed(id, ms), close() }.
import http from 'node:http';

/** The byte at offset i of a /big body. */
export const pattern = (i) => (i * 31 + 7) & 255;

export function serve() {
  const closedAt = new Map(); // hang id -> performance.now() of the close
  const waiters = new Map();  // hang id -> resolve
  const timers = new Set();
  const server = http.createServer((req, res) => {
    const u = new URL(req.url, 'http://x');
    const q = (k, d) => u.searchParams.get(k) ?? d;
    switch (u.pathname) {
      case '/delay': {
        const t = setTimeout(() => {
          timers.delete(t);
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.end(q('body', 'hello'));
        }, Number(q('ms', 0)));
        timers.add(t);
        res.on('close', () => { clearTimeout(t); timers.delete(t); });
        break;
      }
      case '/hang': {
        const id = q('id', '');
        // The socket, not the response: a closed connection is the client's abort.
        req.socket.on('close', () => {
          closedAt.set(id, performance.now());
          waiters.get(id)?.();
        });
        break;
      }
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
        res.write(Buffer.alloc(at, 'x'), () => setTimeout(() => req.socket.destroy(), 20));
        break;
      }
      case '/status':
        res.writeHead(Number(q('code', 200)));
        res.end();
        break;
      default:
        res.writeHead(404);
        res.end('no such route');
    }
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const base = `http://127.0.0.1:${server.address().port}`;
      resolve({
        url: (path) => base + path,
        /** Resolves with the time the /hang?id=ID connection closed, or
         * null if it did not within ms. */
        closed(id, ms) {
          if (closedAt.has(id)) return Promise.resolve(closedAt.get(id));
          return new Promise((res) => {
            const t = setTimeout(() => { waiters.delete(id); res(null); }, ms);
            waiters.set(id, () => { clearTimeout(t); waiters.delete(id); res(closedAt.get(id)); });
          });
        },
        close() {
          for (const t of timers) clearTimeout(t);
          server.closeAllConnections();
          return new Promise((res) => server.close(res));
        },
      });
    });
  });
}
