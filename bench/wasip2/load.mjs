// SPDX-License-Identifier: MIT
// The load both HTTP benches send (http_load.mjs, http_floor.mjs): n
// requests to base + w.path (a POST of w.body when it has one), c at a
// time, with Node's fetch. Returns { rps, p50, p99 } (ms) and the errors:
// a failed request, a status other than 200, or an echo not whole.
export async function load(base, w, n = 1000, c = 50) {
  let next = 0, errors = 0;
  const lat = [];
  const t0 = performance.now();
  await Promise.all(Array.from({ length: c }, async () => {
    while (next++ < n) {
      const t = performance.now();
      try {
        const res = await fetch(base + w.path, w.body ? { method: 'POST', body: w.body } : {});
        const got = await res.arrayBuffer();
        if (res.status !== 200 || (w.body && !Buffer.from(got).equals(w.body))) errors++;
      } catch {
        errors++;
      }
      lat.push(performance.now() - t);
    }
  }));
  const rps = n / ((performance.now() - t0) / 1000);
  lat.sort((a, b) => a - b);
  return { rps, p50: lat[n >> 1], p99: lat[Math.floor(n * 0.99)], errors };
}

// The round of median req/s among rounds.
export const median = (rounds) => [...rounds].sort((a, b) => a.rps - b.rps)[rounds.length >> 1];
