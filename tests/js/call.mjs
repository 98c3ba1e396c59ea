// SPDX-License-Identifier: MIT
// Runs an exported async function of a JS host module as a program's
// main: its printed lines are gathered, its promise awaited. Browser-safe
// (the fetch_many test calls callExport in Chromium); from Node:
//
//   node tests/js/call.mjs MODULE.wasm EXPORT ARG...
//
// prints the lines and exits 0, or 1 with the rejection (an argument of
// digits only is passed as a number, any other as a string).

/** Instantiates source with instantiate (js/wasync.mjs's), calls
 * exports[name] with args through callAsync, and resolves with
 * { out: the printed lines, each ending with a newline, error: the
 * rejection or null }. */
export async function callExport(instantiate, source, name, args) {
  let out = '';
  const line = (l) => { out += l + '\n'; };
  // (no handles made in advance for adopt(): a main adopts no promises, and
  // the pool's handles would count among the runtime's sources)
  const rt = await instantiate(source, { stdout: line, stderr: line, adoptPool: 0 });
  let error = null;
  try {
    await rt.callAsync(name, ...args);
  } catch (e) {
    error = e;
  } finally {
    rt.close(); // (prints what is left of a last line)
  }
  return { out, error };
}

if (typeof process !== 'undefined' && import.meta.url === `file://${process.argv[1]}`) {
  const { readFile } = await import('node:fs/promises');
  const { instantiate } = await import('../../js/wasync.mjs');
  const [file, name, ...args] = process.argv.slice(2);
  const { out, error } = await callExport(instantiate, await readFile(file), name,
    args.map((a) => (/^\d+$/.test(a) ? Number(a) : a)));
  process.stdout.write(out);
  if (error) {
    console.error(`${name}: ${error.message}`);
    process.exitCode = 1;
  }
}
