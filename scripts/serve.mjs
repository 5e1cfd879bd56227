#!/usr/bin/env node
// A small static server for dist/ on 127.0.0.1. PORT overrides 8080; PORT=0
// picks a free port. Also importable: `const { server, url } = await serve({ port: 0 })`.
//
// Text and wasm go compressed to browsers that accept it: the build writes a
// Brotli (quality 11) and a gzip copy beside each such file (scripts/
// precompress.mjs: `app.js.br`, `app.js.gz`); the server sends `.br` where the
// request allows `br`, else `.gz`, else the plain file, and a copy only while
// it is at least as new as its file (a stale one is never sent). It never
// compresses per request: Brotli 11 of poslab.wasm took 21 s on a loaded
// 2-core machine. The wasm is sent as application/wasm so the page can
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
import { createReadStream, readFileSync, statSync } from 'node:fs';
import { COMPRESSIBLE, ENCODINGS } from './precompress.mjs';
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

// The encoding to send: br before gzip, each only if the request accepts it
// (a q=0 refuses it).
export function pickEncoding(acceptEncoding = '') {
  return acceptedEncodings(acceptEncoding)[0] ?? null;
}

// The encodings to try, best first: br before gzip, each only if the request
// accepts it (a q=0 refuses it).
export function acceptedEncodings(acceptEncoding = '') {
  const accepted = new Set();
  for (const part of String(acceptEncoding).toLowerCase().split(',')) {
    const [name, ...params] = part.trim().split(';');
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)).find(Boolean);
    if (!q || Number(q[1]) > 0) accepted.add(name.trim());
  }
  return ['br', 'gzip'].filter((e) => accepted.has(e));
}

// The build's copy of `file` in one of `encodings` that is a file at least as
// new as `st` (the file's stat), as { encoding, path, size }, or null.
function precompressed(file, st, encodings) {
  for (const [encoding, suffix] of ENCODINGS) {
    if (!encodings.includes(encoding)) continue;
    try {
      const cst = statSync(file + suffix);
      if (cst.isFile() && cst.mtimeMs >= st.mtimeMs) return { encoding, path: file + suffix, size: cst.size };
    } catch {
      // No copy: try the next encoding, else the plain file.
    }
  }
  return null;
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
    let body = { path: file, size: st.size };
    if (COMPRESSIBLE.has(extname(file))) {
      headers.vary = 'accept-encoding';
      const copy = precompressed(file, st, acceptedEncodings(req.headers['accept-encoding']));
      if (copy) {
        headers['content-encoding'] = copy.encoding;
        body = copy;
      }
    }
    res.writeHead(200, { ...headers, 'content-length': body.size });
    if (req.method === 'HEAD') res.end();
    // Exactly the bytes the content-length announced: a file rebuilt while it
    // is sent (npm run build beside npm start) must not spill into the next
    // response on a kept-alive connection.
    else if (body.size === 0) res.end();
    else createReadStream(body.path, { start: 0, end: body.size - 1 }).pipe(res);
  });
  return new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => {
      const { port: actual } = server.address();
      ok({ server, url: `http://${host}:${actual}/` });
    });
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
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
