// SPDX-License-Identifier: MIT
// node scripts/wasi1.mjs MODULE [ARGS...]: runs a WASI 0.1 command module
// under Node's node:wasi with this process's stdio and environment, and
// exits with its exit status. (The WASI 0.1 host of the tests.)
import { WASI } from 'node:wasi';
import { readFile } from 'node:fs/promises';

const [file, ...args] = process.argv.slice(2);
const wasi = new WASI({ version: 'preview1', args: [file, ...args], env: process.env, returnOnExit: true });
const { instance } = await WebAssembly.instantiate(await readFile(file), wasi.getImportObject());
process.exitCode = wasi.start(instance);
