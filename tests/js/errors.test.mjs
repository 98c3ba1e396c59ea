// SPDX-License-Identifier: MIT
// The glue's table of error codes (js/errors.mjs, a copy the browser loads
// as it is) is error.h's: every WA_E* code of WA_ERRNO_MAP, with its
// number, name and message, and nothing else.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { codes, errorName, WasyncError } from '../../js/wasync.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

test("the glue's error codes are error.h's", async () => {
  const header = await readFile(join(root, 'include/wasync/error.h'), 'utf8');
  const map = [...header.matchAll(/X\(WA_(\w+), (-\d+), "([^"]*)"\)/g)].map(([, name, code, text]) => [name, Number(code), text]);
  assert.ok(map.length >= 17, `WA_ERRNO_MAP read: ${map.length} codes`);
  assert.deepEqual(Object.entries(codes).sort(), map.map(([name, code]) => [name, code]).sort());
  for (const [name, code, text] of map) {
    assert.equal(errorName(code), name);
    assert.equal(new WasyncError(code).message, `WA_${name} (${code}): ${text}`);
  }
});
