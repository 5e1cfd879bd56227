// Cuts the page's http core out of the single-file one, so that the wasm is
// linked (and optimised by wasm-opt) once instead of twice:
//   node scripts/split-single-file.mjs poslab.js poslab-web.js poslab-web.wasm
// poslab.js (SINGLE_FILE, ENVIRONMENT=web,worker,node) holds the wasm as one
// base64 data: URI assigned to wasmBinaryFile. poslab-web.wasm is those bytes;
// poslab-web.js is the same glue with the file name in the URI's place, which
// is what a separate-file link writes there (the rest of the glue then finds
// the file as such a link's would: locateFile, or the page's instantiateWasm).
// The glue keeps its Node branch and data: URI helpers (~4 kB), unused on a page.
// Run by CMake after each link of poslab.js (CMakeLists.txt).
import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';

const [single, webJs, webWasm] = process.argv.slice(2);
if (!webWasm) {
  console.error('usage: node scripts/split-single-file.mjs SINGLE.js OUT.js OUT.wasm');
  process.exit(2);
}
const glue = readFileSync(single, 'utf8');
const uri = /wasmBinaryFile="data:application\/octet-stream;base64,([A-Za-z0-9+/=]+)"/g;
const found = [...glue.matchAll(uri)];
if (found.length !== 1) {
  // Another Emscripten version may write the glue differently: fail rather than
  // ship a page glue that still carries (or lost) the wasm.
  console.error(`split-single-file: ${single}: expected one wasmBinaryFile="data:…" assignment, found ${found.length}`);
  process.exit(1);
}
const wasm = Buffer.from(found[0][1], 'base64');
if (wasm.length < 8 || wasm.readUInt32BE(0) !== 0x0061736d) {
  console.error(`split-single-file: ${single}: the inlined data is not a wasm module (no \\0asm header)`);
  process.exit(1);
}
writeFileSync(webWasm, wasm);
writeFileSync(webJs, glue.replace(found[0][0], () => `wasmBinaryFile=${JSON.stringify(basename(webWasm))}`));
