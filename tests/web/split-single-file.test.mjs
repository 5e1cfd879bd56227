// scripts/split-single-file.mjs: the page's http core (poslab-web.js +
// poslab-web.wasm) cut out of the single-file poslab.js, so that the wasm is
// linked once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const script = path.join(root, 'scripts/split-single-file.mjs');

function inTemp(fn) {
  const dir = mkdtempSync(path.join(tmpdir(), 'split-'));
  try {
    return fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// A wasm header and 3 more bytes, written out by hand: "\0asm", version 1, 0xff 0xfe 0xfd.
const bytes = Buffer.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0xff, 0xfe, 0xfd]);
const glue = (uri) => `var a=1;var wasmBinaryFile;wasmBinaryFile="${uri}";if(!isDataURI(wasmBinaryFile)){x()}`;

test('the wasm bytes come out whole, and the glue names the file where the data: URI was', () =>
  inTemp((dir) => {
    writeFileSync(path.join(dir, 'one.js'), glue('data:application/octet-stream;base64,' + bytes.toString('base64')));
    execFileSync('node', [script, 'one.js', 'web.js', 'web.wasm'], { cwd: dir });
    assert.deepEqual(readFileSync(path.join(dir, 'web.wasm')), bytes);
    assert.equal(readFileSync(path.join(dir, 'web.js'), 'utf8'), glue('web.wasm'));
  }));

test('a glue without exactly one inlined wasm is refused, and nothing is written', () =>
  inTemp((dir) => {
    const inlined = 'data:application/octet-stream;base64,' + bytes.toString('base64');
    for (const [name, text] of [
      ['none.js', glue('poslab-web.wasm')],
      ['two.js', glue(inlined) + glue(inlined)],
      ['notwasm.js', glue('data:application/octet-stream;base64,' + Buffer.from('hello world').toString('base64'))],
    ]) {
      writeFileSync(path.join(dir, name), text);
      const r = spawnSync('node', [script, name, 'out.js', 'out.wasm'], { cwd: dir, encoding: 'utf8' });
      assert.equal(r.status, 1, name);
      assert.match(r.stderr, /split-single-file: /, name);
      assert.ok(!existsSync(path.join(dir, 'out.js')) && !existsSync(path.join(dir, 'out.wasm')), name);
    }
  }));

test('the built core: poslab-web.wasm is the wasm inlined in poslab.js (when built)', { skip: !existsSync(path.join(root, 'build/wasm/poslab-web.wasm')) }, () => {
  const single = readFileSync(path.join(root, 'build/wasm/poslab.js'), 'utf8');
  const inlined = single.match(/data:application\/octet-stream;base64,([A-Za-z0-9+/=]+)/)[1];
  assert.deepEqual(readFileSync(path.join(root, 'build/wasm/poslab-web.wasm')), Buffer.from(inlined, 'base64'));
  const web = readFileSync(path.join(root, 'build/wasm/poslab-web.js'), 'utf8');
  assert.ok(!web.includes('data:application/octet-stream;base64,A'), 'no wasm left in the page glue');
  assert.ok(web.includes('wasmBinaryFile="poslab-web.wasm"'));
});
