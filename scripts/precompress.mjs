// Precompression at build time: beside each compressible file in dist/ a
// Brotli (`.br`, quality 11) and a gzip (`.gz`, level 9) copy, written once and
// rewritten only when the file changed: a file newer than its copy whose copy
// still decodes to its bytes (build-web.mjs writes every file on each build)
// only has the copy's time brought forward, which costs a decompression, not
// a Brotli 11 compression. scripts/serve.mjs sends
// these copies and never compresses per request (Brotli 11 of poslab.wasm took
// 21 s on a loaded 2-core machine). The LMS packages (scripts/package.mjs)
// leave them out: a zip is compressed anyway and file:// never uses them.
import { readFileSync, readdirSync, statSync, writeFileSync, renameSync, existsSync, utimesSync } from 'node:fs';
import { brotliCompressSync, brotliDecompressSync, constants as zlibConstants, gunzipSync, gzipSync } from 'node:zlib';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css', '.json', '.ts', '.wasm', '.svg', '.ttf']);
// The suffix of each encoding's copy, in the order the server prefers them.
export const ENCODINGS = [
  ['br', '.br'],
  ['gzip', '.gz'],
];
const COMPRESS = {
  br: (buf) => brotliCompressSync(buf, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 11, [zlibConstants.BROTLI_PARAM_SIZE_HINT]: buf.length } }),
  gzip: (buf) => gzipSync(buf, { level: 9 }),
};
const DECOMPRESS = { br: brotliDecompressSync, gzip: gunzipSync };

// True when the file at `copy` decodes (as `encoding`) to exactly `data`.
function decodesTo(copy, encoding, data) {
  try {
    return DECOMPRESS[encoding](readFileSync(copy)).equals(data);
  } catch {
    return false; // no copy, or not a valid one
  }
}

// True when `copy` exists and is at least as new as `source` (so it was made
// from this version of it).
export function upToDate(source, copy) {
  try {
    return statSync(copy).mtimeMs >= statSync(source).mtimeMs;
  } catch {
    return false;
  }
}

// Writes the missing or stale copies under `dir`; returns { written, kept }.
export function precompressDir(dir) {
  let written = 0;
  let kept = 0;
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else if (st.isFile() && COMPRESSIBLE.has(extname(name))) {
        let data;
        for (const [encoding, suffix] of ENCODINGS) {
          if (upToDate(p, p + suffix)) {
            kept++;
            continue;
          }
          data ??= readFileSync(p);
          if (decodesTo(p + suffix, encoding, data)) {
            const now = new Date();
            utimesSync(p + suffix, now, now); // the same bytes rewritten: the copy still holds
            kept++;
            continue;
          }
          // Written beside, then renamed: a server never sees half a copy.
          writeFileSync(`${p + suffix}.tmp`, COMPRESS[encoding](data));
          renameSync(`${p + suffix}.tmp`, p + suffix);
          written++;
        }
      }
    }
  };
  if (existsSync(dir)) walk(dir);
  return { written, kept };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const dir = process.argv[2] ?? join(fileURLToPath(new URL('..', import.meta.url)), 'dist');
  const { written, kept } = precompressDir(dir);
  console.log(`precompress: ${written} written, ${kept} up to date`);
}
