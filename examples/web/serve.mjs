// SPDX-License-Identifier: MIT
// Serves the web demo: the tests' HTTP server (tests/js/server.mjs), which
// serves the repository (so /js/wasync.mjs and /build/... are reachable)
// and the routes the demo fetches (/api/slow?ms=N answers "ok" after N ms).
// Usage: node examples/web/serve.mjs [port]   (prints the URL)
import { fileURLToPath } from 'node:url';
import { serve } from '../../tests/js/server.mjs';

export { serve };

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const server = await serve(Number(process.argv[2] ?? 8080));
  console.log(server.url('/examples/web/index.html'));
}
