// scripts/serve.mjs: the build's Brotli copy where the browser accepts it,
// the gzip copy otherwise, the plain file for a client that accepts neither
// (or refuses both with q=0); the body always decodes to the file's bytes.
// The server never compresses per request: without an up-to-date copy from
// scripts/precompress.mjs it sends the plain file.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync, readFileSync, existsSync, statSync, utimesSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { serve, pickEncoding } from '../../scripts/serve.mjs';
import { precompressDir } from '../../scripts/precompress.mjs';
import { packageFiles } from '../../scripts/package.mjs';

let dir;
let srv;
const body = Buffer.from('const x = 1;\n'.repeat(2000));
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'poslab-serve-'));
  writeFileSync(join(dir, 'app.js'), body);
  precompressDir(dir);
  srv = await serve({ root: dir, port: 0 });
});
after(() => {
  srv?.server.close();
  rmSync(dir, { recursive: true, force: true });
});

function get(path, acceptEncoding, method = 'GET') {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, srv.url), { method, headers: acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, data: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('pickEncoding: br first, then gzip, honouring q=0', () => {
  assert.equal(pickEncoding('gzip, deflate, br, zstd'), 'br');
  assert.equal(pickEncoding('gzip, deflate'), 'gzip');
  assert.equal(pickEncoding('br;q=0, gzip;q=0.5'), 'gzip');
  assert.equal(pickEncoding('br;q=0.0, gzip;q=0'), null);
  assert.equal(pickEncoding('identity'), null);
  assert.equal(pickEncoding(''), null);
  assert.equal(pickEncoding(undefined), null);
  assert.equal(pickEncoding('GZip'), 'gzip');
  assert.equal(pickEncoding('brotli, xgzip'), null);
});

test('the server sends Brotli, gzip or the plain file, each decoding to the same bytes', async () => {
  const br = await get('/app.js', 'gzip, deflate, br');
  assert.equal(br.headers['content-encoding'], 'br');
  assert.equal(br.headers.vary, 'accept-encoding');
  assert.ok(br.data.length < body.length / 10);
  assert.deepEqual(brotliDecompressSync(br.data), body);
  const gz = await get('/app.js', 'gzip');
  assert.equal(gz.headers['content-encoding'], 'gzip');
  assert.deepEqual(gunzipSync(gz.data), body);
  const plain = await get('/app.js', 'identity');
  assert.equal(plain.headers['content-encoding'], undefined);
  assert.deepEqual(plain.data, body);
  // The bodies are the build's copies, byte for byte, with their lengths.
  assert.deepEqual(br.data, readFileSync(join(dir, 'app.js.br')));
  assert.equal(Number(br.headers['content-length']), statSync(join(dir, 'app.js.br')).size);
  assert.deepEqual(gz.data, readFileSync(join(dir, 'app.js.gz')));
  assert.equal(Number(gz.headers['content-length']), statSync(join(dir, 'app.js.gz')).size);
  assert.equal(Number(plain.headers['content-length']), body.length);
  // A changed file is not served from the old copies. (This step, on a busy
  // machine, once caught the plain response above streaming on past its
  // content-length into the grown file: the next response on the kept-alive
  // connection then failed to parse.)
  const changed = Buffer.from('let y = 2;\n'.repeat(3000));
  writeFileSync(join(dir, 'app.js'), changed);
  const past = new Date(Date.now() - 3_600_000);
  for (const c of ['app.js.br', 'app.js.gz']) utimesSync(join(dir, c), past, past); // surely older than the file
  const again = await get('/app.js', 'br');
  assert.equal(again.headers['content-encoding'], undefined);
  assert.deepEqual(again.data, changed);
  // The build brings the copies up to date again.
  assert.deepEqual(precompressDir(dir), { written: 2, kept: 0 });
  const fresh = await get('/app.js', 'br');
  assert.equal(fresh.headers['content-encoding'], 'br');
  assert.deepEqual(brotliDecompressSync(fresh.data), changed);
});

test('precompressDir: a copy beside each compressible file, rewritten only when its file changed', () => {
  const d = mkdtempSync(join(tmpdir(), 'poslab-precompress-'));
  try {
    mkdirSync(join(d, 'katex'));
    writeFileSync(join(d, 'index.html'), '<p>hi</p>'.repeat(100));
    writeFileSync(join(d, 'katex', 'k.css'), 'a{b:c}'.repeat(100));
    writeFileSync(join(d, 'pic.png'), Buffer.alloc(100));
    assert.deepEqual(precompressDir(d), { written: 4, kept: 0 });
    for (const f of ['index.html', 'katex/k.css']) {
      assert.deepEqual(brotliDecompressSync(readFileSync(join(d, `${f}.br`))), readFileSync(join(d, f)));
      assert.deepEqual(gunzipSync(readFileSync(join(d, `${f}.gz`))), readFileSync(join(d, f)));
    }
    assert.equal(existsSync(join(d, 'pic.png.br')), false);
    // Up to date: nothing rewritten, the copies untouched.
    const before = statSync(join(d, 'index.html.br')).mtimeMs;
    assert.deepEqual(precompressDir(d), { written: 0, kept: 4 });
    assert.equal(statSync(join(d, 'index.html.br')).mtimeMs, before);
    // One file changed: only its two copies.
    const past = new Date(Date.now() - 3_600_000);
    writeFileSync(join(d, 'index.html'), '<p>changed</p>');
    for (const c of ['index.html.br', 'index.html.gz']) utimesSync(join(d, c), past, past);
    assert.deepEqual(precompressDir(d), { written: 2, kept: 2 });
    assert.equal(brotliDecompressSync(readFileSync(join(d, 'index.html.br'))).toString(), '<p>changed</p>');
    // Rewritten with the same bytes (as build-web.mjs does on every build): the copies are kept,
    // not compressed again, and brought forward so the server still sends them. A copy made
    // another way (gzip level 1 here, other bytes) shows it was not rewritten.
    const k = readFileSync(join(d, 'katex', 'k.css'));
    const level1 = gzipSync(k, { level: 1 });
    assert.notDeepEqual(level1, readFileSync(join(d, 'katex', 'k.css.gz')));
    writeFileSync(join(d, 'katex', 'k.css.gz'), level1);
    for (const c of ['k.css.br', 'k.css.gz']) utimesSync(join(d, 'katex', c), past, past);
    writeFileSync(join(d, 'katex', 'k.css'), k);
    assert.deepEqual(precompressDir(d), { written: 0, kept: 4 });
    assert.deepEqual(readFileSync(join(d, 'katex', 'k.css.gz')), level1);
    for (const c of ['k.css.br', 'k.css.gz']) assert.ok(statSync(join(d, 'katex', c)).mtimeMs >= statSync(join(d, 'katex', 'k.css')).mtimeMs, `${c} as new as its file`);
    // A copy that no longer decodes to the file (or does not decode at all) is made again.
    writeFileSync(join(d, 'katex', 'k.css.gz'), 'not gzip');
    writeFileSync(join(d, 'katex', 'k.css'), k);
    utimesSync(join(d, 'katex', 'k.css.gz'), past, past);
    utimesSync(join(d, 'katex', 'k.css.br'), past, past);
    assert.deepEqual(precompressDir(d), { written: 1, kept: 3 });
    assert.deepEqual(gunzipSync(readFileSync(join(d, 'katex', 'k.css.gz'))), k);
    // The LMS packages leave the copies out.
    assert.deepEqual(packageFiles(d).sort(), ['index.html', 'katex/k.css', 'pic.png']);
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
});

test('a stale .br is not sent (the fresh .gz is, else the plain file); HEAD announces the copy\'s length', async () => {
  const src = Buffer.from('body{color:red}\n'.repeat(500));
  writeFileSync(join(dir, 's.css'), src);
  precompressDir(dir);
  // A .br older than its file (a build stopped half way, a hand edit): not sent.
  const past = new Date(Date.now() - 3_600_000);
  writeFileSync(join(dir, 's.css.br'), Buffer.from('stale bytes'));
  utimesSync(join(dir, 's.css.br'), past, past);
  const r = await get('/s.css', 'br, gzip');
  assert.equal(r.headers['content-encoding'], 'gzip');
  assert.deepEqual(gunzipSync(r.data), src);
  const onlyBr = await get('/s.css', 'br');
  assert.equal(onlyBr.headers['content-encoding'], undefined);
  assert.deepEqual(onlyBr.data, src);
  assert.equal(onlyBr.headers['content-type'], 'text/css; charset=utf-8');
  assert.equal(onlyBr.headers['x-content-type-options'], 'nosniff');
  // HEAD: the headers of the GET, no body.
  const head = await get('/s.css', 'gzip', 'HEAD');
  assert.equal(head.headers['content-encoding'], 'gzip');
  assert.equal(Number(head.headers['content-length']), statSync(join(dir, 's.css.gz')).size);
  assert.equal(head.data.length, 0);
});

test('an HTML page sent compressed keeps its Content-Security-Policy and security headers', async () => {
  const html = `<!doctype html><meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self'">${'<p>x</p>'.repeat(300)}`;
  writeFileSync(join(dir, 'page.html'), html);
  precompressDir(dir);
  const r = await get('/page.html', 'br');
  assert.equal(r.headers['content-encoding'], 'br');
  assert.equal(r.headers['content-type'], 'text/html; charset=utf-8');
  assert.equal(r.headers['content-security-policy'], "default-src 'self'; script-src 'self'; frame-ancestors 'self'");
  assert.equal(r.headers['referrer-policy'], 'no-referrer');
  assert.equal(r.headers.vary, 'accept-encoding');
  assert.equal(brotliDecompressSync(r.data).toString(), html);
});
