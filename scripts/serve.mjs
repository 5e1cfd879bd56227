#!/usr/bin/env node
// A small static server for dist/ on 127.0.0.1. PORT overrides 8080; PORT=0
// picks a free port. Also importable: `const { server, url } = await serve({ port: 0 })`.
//
// Text and wasm go compressed to browsers that accept it: Brotli (quality 11)
// where the request allows `br`, else gzip (poslab.wasm shrinks to about a
// third with gzip, a little more with Brotli); compressed once per file
// version and kept. The wasm is sent as application/wasm so the page can
// compile it while it downloads (WebAssembly.compileStreaming).
//
// Security headers: every response has X-Content-Type-Options: nosniff and
// Referrer-Policy: no-referrer; an HTML page is sent with its own
// Content-Security-Policy (the one in its <meta>, so the two never differ)
// plus `frame-ancestors`, which a <meta> cannot carry: who may put the page
// in a frame. FRAME_ANCESTORS sets it (default 'self'), e.g.
// FRAME_ANCESTORS="'self' https://lms.example.edu" for a course site that
// embeds the lab; serve({ frameAncestors }) does the same when imported.
import { createServer } from 'node:http';
import { createReadStream, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { brotliCompressSync, brotliDecompressSync, constants as zlibConstants, gunzipSync, gzipSync } from 'node:zlib';
import { extname, join, normalize, resolve, sep, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const types = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.ts': 'text/plain; charset=utf-8',
  '.wasm': 'application/wasm',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

// Without a <meta> policy (should a page lack one), this one.
export const DEFAULT_CSP = "default-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'";
export const DEFAULT_FRAME_ANCESTORS = "'self'";
const BASE_HEADERS = { 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' };

// A frame-ancestors source list: 'self', 'none', *, a scheme (https:) or a
// host source (https://lms.example.edu, *.example.edu:443), space-separated.
// Anything else (a ';' or ',' that would start another directive, a quote,
// a line break) is refused with a message saying what is allowed.
export function checkFrameAncestors(value) {
  const text = String(value).trim();
  const source = /^(?:'self'|'none'|\*|[a-z][a-z0-9+.-]*:|(?:[a-z][a-z0-9+.-]*:\/\/)?(?:\*\.)?[a-z0-9-]+(?:\.[a-z0-9-]+)*(?::(?:\d{1,5}|\*))?(?:\/[\w./~%-]*)?)$/i;
  const sources = text.split(/[ \t]+/).filter(Boolean);
  if (!sources.length || !sources.every((s) => source.test(s)) || (sources.includes("'none'") && sources.length > 1)) {
    throw new RangeError(`FRAME_ANCESTORS must be 'none', or space-separated sources such as 'self' https://lms.example.edu *.example.edu (no ; , or quotes other than 'self'/'none'), got "${value}"`);
  }
  return sources.join(' ');
}

// The page's <meta http-equiv="Content-Security-Policy"> content, or null.
export function metaPolicy(html) {
  const m = /<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]*)"/i.exec(html);
  return m ? m[1].replace(/&#39;|&apos;/g, "'").replace(/&quot;/g, '"').replace(/&amp;/g, '&') : null;
}

const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css', '.json', '.ts', '.wasm', '.svg', '.ttf']);
const compressed = new Map(); // `${encoding} ${file}` → { mtimeMs, size, data }
const COMPRESS = {
  br: (buf) => brotliCompressSync(buf, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 11, [zlibConstants.BROTLI_PARAM_SIZE_HINT]: buf.length } }),
  gzip: (buf) => gzipSync(buf, { level: 9 }),
};

// The encoding to send: br before gzip, each only if the request accepts it
// (a q=0 refuses it).
export function pickEncoding(acceptEncoding = '') {
  const accepted = new Set();
  for (const part of String(acceptEncoding).toLowerCase().split(',')) {
    const [name, ...params] = part.trim().split(';');
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)).find(Boolean);
    if (!q || Number(q[1]) > 0) accepted.add(name.trim());
  }
  return ['br', 'gzip'].find((e) => accepted.has(e)) ?? null;
}

const DECOMPRESS = { br: brotliDecompressSync, gzip: gunzipSync };
// Brotli at quality 11 takes seconds per large file (poslab.js, the wasm)
// and blocks the server meanwhile: every server (each e2e test file starts
// one) would pay it again. So the compressed bytes are also kept on disk,
// under the source's SHA-256, in build/serve-cache/ (SERVE_CACHE sets another
// folder; SERVE_CACHE=off keeps them in memory only). A kept file is used
// only if it decompresses to exactly the source's bytes, so a stale or
// damaged one is never sent; any failure to read or write falls back to
// compressing here.
const CACHE_DIR = process.env.SERVE_CACHE === 'off' ? null : resolve(process.env.SERVE_CACHE || join(dirname(fileURLToPath(import.meta.url)), '..', 'build', 'serve-cache'));
function diskCached(encoding, source) {
  if (!CACHE_DIR) return COMPRESS[encoding](source);
  const name = join(CACHE_DIR, `${createHash('sha256').update(source).digest('hex')}.${encoding}`);
  try {
    const kept = readFileSync(name);
    if (DECOMPRESS[encoding](kept).equals(source)) return kept;
  } catch {
    // Not kept yet, or unreadable: compress below.
  }
  const data = COMPRESS[encoding](source);
  try {
    mkdirSync(CACHE_DIR, { recursive: true });
    // Written whole under another name, then renamed: a server reading at the same time sees all or nothing.
    const tmp = `${name}.${process.pid}.tmp`;
    writeFileSync(tmp, data);
    renameSync(tmp, name);
  } catch {
    // A read-only folder: memory only.
  }
  return data;
}
// Fills the disk cache for every file under root that is sent compressed
// (scripts/test.sh and stress-e2e.sh, before the e2e files start their
// servers, so that two of them do not compress the same files at once).
export function warm(root) {
  let n = 0;
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !COMPRESSIBLE.has(extname(entry.name))) continue;
    const file = join(entry.parentPath ?? entry.path, entry.name);
    for (const encoding of Object.keys(COMPRESS)) compressedOf(encoding, file, statSync(file));
    n++;
  }
  return n;
}
function compressedOf(encoding, file, st) {
  const key = `${encoding} ${file}`;
  const hit = compressed.get(key);
  if (hit && hit.mtimeMs === st.mtimeMs && hit.size === st.size) return hit.data;
  const data = diskCached(encoding, readFileSync(file));
  compressed.set(key, { mtimeMs: st.mtimeMs, size: st.size, data });
  return data;
}

export function serve({ root, port = 8080, host = '127.0.0.1', frameAncestors = process.env.FRAME_ANCESTORS ?? DEFAULT_FRAME_ANCESTORS } = {}) {
  const ancestors = checkFrameAncestors(frameAncestors);
  const base = resolve(root ?? join(dirname(fileURLToPath(import.meta.url)), '..', 'dist'));
  const server = createServer((req, res) => {
    let path;
    try {
      path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    } catch {
      res.writeHead(400, BASE_HEADERS).end('bad request');
      return;
    }
    if (path.endsWith('/')) path += 'index.html';
    const file = normalize(join(base, path));
    if (file !== base && !file.startsWith(base + sep)) {
      res.writeHead(403, BASE_HEADERS).end('forbidden');
      return;
    }
    let st;
    try {
      st = statSync(file);
    } catch {
      res.writeHead(404, { ...BASE_HEADERS, 'content-type': 'text/plain' }).end('not found');
      return;
    }
    if (!st.isFile()) {
      res.writeHead(404, BASE_HEADERS).end('not found');
      return;
    }
    // no-cache: the browser asks again each time, and an unchanged file costs a 304.
    const modified = new Date(Math.floor(st.mtimeMs / 1000) * 1000);
    const since = Date.parse(req.headers['if-modified-since'] ?? '');
    if (Number.isFinite(since) && since >= modified.getTime()) {
      res.writeHead(304, { ...BASE_HEADERS, 'cache-control': 'no-cache', 'last-modified': modified.toUTCString() }).end();
      return;
    }
    const headers = { ...BASE_HEADERS, 'content-type': types[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-cache', 'last-modified': modified.toUTCString() };
    if (extname(file) === '.html') {
      let policy = DEFAULT_CSP;
      try {
        policy = metaPolicy(readFileSync(file, 'utf8')) ?? DEFAULT_CSP;
      } catch {
        // Unreadable now: the default policy, and the read below reports it.
      }
      headers['content-security-policy'] = `${policy.replace(/;\s*$/, '')}; frame-ancestors ${ancestors}`;
    }
    if (COMPRESSIBLE.has(extname(file))) {
      headers.vary = 'accept-encoding';
      const encoding = pickEncoding(req.headers['accept-encoding']);
      if (encoding) {
        const data = compressedOf(encoding, file, st);
        res.writeHead(200, { ...headers, 'content-encoding': encoding, 'content-length': data.length });
        res.end(req.method === 'HEAD' ? undefined : data);
        return;
      }
    }
    res.writeHead(200, { ...headers, 'content-length': st.size });
    if (req.method === 'HEAD') res.end();
    // Exactly the bytes the content-length announced: a file rebuilt while it
    // is sent (npm run build beside npm start) must not spill into the next
    // response on a kept-alive connection.
    else if (st.size === 0) res.end();
    else createReadStream(file, { start: 0, end: st.size - 1 }).pipe(res);
  });
  return new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => {
      const { port: actual } = server.address();
      ok({ server, url: `http://${host}:${actual}/` });
    });
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url) && process.argv[2] === '--warm') {
  const root = resolve(join(dirname(fileURLToPath(import.meta.url)), '..', 'dist'));
  try {
    console.log(`serve: ${warm(root)} files of dist/ compressed (${CACHE_DIR ?? 'memory only: SERVE_CACHE=off'})`);
  } catch (e) {
    console.error(`serve: could not compress dist/: ${e.message}`);
    process.exit(1);
  }
} else if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const port = process.env.PORT !== undefined ? Number(process.env.PORT) : 8080;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`serve: PORT must be an integer 0…65535, got "${process.env.PORT}"`);
    process.exit(2);
  }
  try {
    checkFrameAncestors(process.env.FRAME_ANCESTORS ?? DEFAULT_FRAME_ANCESTORS);
  } catch (e) {
    console.error(`serve: ${e.message}`);
    process.exit(2);
  }
  serve({ port }).then(
    ({ url }) => console.log(`Position Lab: ${url}`),
    (e) => {
      console.error(`serve: ${e.message}`);
      process.exit(1);
    },
  );
}
