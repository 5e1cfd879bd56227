// Bundles the Python sandbox (web/js/python/py-worker.js, MicroPython's
// wasm inlined) into one script text. Used by scripts/build-web.mjs
// (dist/py-runtime.js, loaded by the page only on a code exercise) and by
// scripts/py-sandbox.mjs (the re-grade's worker_threads Worker), so both
// run the very same code.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

// loadMicroPython() takes no wasm bytes; one field is added so that the
// runtime never fetches or reads a file. The build fails if the glue changed.
const patchMicroPython = {
  name: 'micropython-wasm-binary',
  setup(b) {
    b.onLoad({ filter: /micropython\.mjs$/ }, (args) => {
      const src = readFileSync(args.path, 'utf8');
      const from = 'let Module={locateFile:';
      if (!src.includes(from)) throw new Error('micropython.mjs: the loader changed; update scripts/build-python.mjs');
      // Its command-line runner (top-level await, node:fs) is cut out: the
      // sandbox never runs it, and it must not be in the bundle at all.
      const cliStart = 'if(globalThis.loadMicroPython=loadMicroPython,';
      const cliEnd = '}()}class PyProxy{';
      const a = src.indexOf(cliStart);
      const b = src.indexOf(cliEnd, a);
      if (a < 0 || b < 0) throw new Error('micropython.mjs: the command-line runner changed; update scripts/build-python.mjs');
      const cut = src.slice(0, a) + 'class PyProxy{' + src.slice(b + cliEnd.length);
      return { contents: cut.replace(from, 'let Module={wasmBinary:options.wasmBinary,locateFile:'), loader: 'js' };
    });
  },
};

export async function buildPythonWorker() {
  const out = await build({
    entryPoints: [join(root, 'web', 'js', 'python', 'py-worker.js')],
    bundle: true,
    format: 'iife',
    target: ['chrome100', 'firefox100', 'safari15', 'node20'],
    minify: true,
    legalComments: 'none',
    logLevel: 'error',
    write: false,
    external: ['module'],
    loader: { '.wasm': 'binary' },
    plugins: [patchMicroPython],
    define: { 'import.meta.url': '""' },
  });
  return out.outputFiles[0].text;
}
