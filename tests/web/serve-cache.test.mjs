// scripts/serve.mjs keeps compressed files on disk (SERVE_CACHE), under the
// source's SHA-256, so that every server (one per e2e test file) need not
// compress poslab.js and the wasm again; a kept file that does not decompress
// to the source's bytes is never sent.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import { brotliCompressSync, brotliDecompressSync, gunzipSync } from 'node:zlib';

let dir;
let cache;
let srv;
const body = Buffer.from('export const y = 2;\n'.repeat(3000));
const sha = createHash('sha256').update(body).digest('hex');
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'poslab-serve-cache-src-'));
  cache = mkdtempSync(join(tmpdir(), 'poslab-serve-cache-'));
  writeFileSync(join(dir, 'app.js'), body);
  // The folder is read when serve.mjs is loaded.
  process.env.SERVE_CACHE = cache;
  const { serve } = await import('../../scripts/serve.mjs');
  srv = await serve({ root: dir, port: 0 });
});
after(() => {
  srv?.server.close();
  rmSync(dir, { recursive: true, force: true });
  rmSync(cache, { recursive: true, force: true });
});

function get(path, acceptEncoding) {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, srv.url), { headers: { 'accept-encoding': acceptEncoding } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ headers: res.headers, data: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('the first response is kept on disk under the source\'s SHA-256, one file per encoding', async () => {
  const br = await get('/app.js', 'br');
  assert.equal(br.headers['content-encoding'], 'br');
  assert.ok(brotliDecompressSync(br.data).equals(body));
  const gz = await get('/app.js', 'gzip');
  assert.equal(gz.headers['content-encoding'], 'gzip');
  assert.ok(gunzipSync(gz.data).equals(body));
  assert.deepEqual(readdirSync(cache).sort(), [`${sha}.br`, `${sha}.gzip`]);
  assert.ok(readFileSync(join(cache, `${sha}.br`)).equals(br.data), 'the kept bytes are the bytes sent');
});

test('a kept file that is not the source compressed is not sent, and is replaced', async () => {
  await get('/app.js', 'br');
  // Another content under this source's name (a damaged or planted file).
  const planted = brotliCompressSync(Buffer.from('window.PWNED = true;'));
  writeFileSync(join(cache, `${sha}.br`), planted);
  // The server's memory holds a file version until the file changes: touch it (same bytes).
  const later = new Date(Date.now() + 5000);
  utimesSync(join(dir, 'app.js'), later, later);
  const r = await get('/app.js', 'br');
  assert.ok(brotliDecompressSync(r.data).equals(body), 'the source, not the planted file');
  assert.ok(brotliDecompressSync(readFileSync(join(cache, `${sha}.br`))).equals(body), 'the planted file was replaced');
});

test('a changed file is compressed again, under its new hash', async () => {
  const next = Buffer.from('export const z = 3;\n'.repeat(3000));
  writeFileSync(join(dir, 'app.js'), next);
  const later = new Date(Date.now() + 10000);
  utimesSync(join(dir, 'app.js'), later, later);
  const r = await get('/app.js', 'br');
  assert.ok(brotliDecompressSync(r.data).equals(next));
  const nextSha = createHash('sha256').update(next).digest('hex');
  assert.ok(readdirSync(cache).includes(`${nextSha}.br`));
});
