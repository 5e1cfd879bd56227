#!/usr/bin/env node
// Writes the static site into dist/ (scripts/build.sh has already copied
// the core there: poslab.js, the wasm inlined, for Node and file://;
// poslab-web.js + poslab.wasm for pages served over http; poslab.d.ts):
//   index.html, boot.js (starts the wasm's download before app.js, IIFE),
//   app.js (the page, IIFE), worker.js (the Web Worker, IIFE),
//   train-worker.js (the training Web Worker of "train short, test long", IIFE),
//   py-runtime.js + code-editor.js (code questions only: the Python sandbox and
//   the CodeMirror editor, loaded on demand),
//   style.css, katex/ (script, CSS and fonts, local; loaded after the first
//   screen, web/js/rich.js),
//   instructor.html + instructor.js (the class results page, IIFE),
//   and beside each text or wasm file its .br and .gz copy for the server
//   (scripts/precompress.mjs; rewritten only when the file changed).
// The Workers' sources are web/js/core/{worker,train-worker,table-worker}.js.
// app.js also carries both Workers' code as text: from file:// the page makes
// its Workers from blob: URLs (web/js/core/core-loader.js).
// The exercises (exercises/*.yaml) are validated against
// exercises/exercise.schema.json and embedded in app.js, so the page needs no
// fetch() and works from file://. A bad exercise file stops the build with a
// message naming the file and the field.
import { build } from 'esbuild';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadExercises } from '../web/js/exercise-loader.mjs';
import { buildPythonWorker } from './build-python.mjs';
import { precompressDir } from './precompress.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const web = join(root, 'web');

function fail(message) {
  console.error(`build-web: ${message}`);
  process.exit(1);
}

mkdirSync(dist, { recursive: true });

// The bench's training times (web/js/bench-times.js): only what the file
// measured, checked; anything missing or odd leaves the page's sentence out.
function benchTimes() {
  let r;
  try {
    r = JSON.parse(readFileSync(join(root, 'bench', 'results', 'workers.json'), 'utf8'));
  } catch {
    return null;
  }
  const pos = (x) => typeof x === 'number' && Number.isFinite(x) && x > 0 && x < 1e5;
  const e = r?.exercise7;
  const workers = e?.workers;
  const out = {
    date: String(r?.date ?? '').slice(0, 10),
    cpu: String(r?.machine?.cpu ?? '').slice(0, 60),
    cpus: r?.machine?.cpus,
    load: r?.machine?.load_average_start,
    ex7: { workers, after_s: e?.medians?.[workers], one_s: e?.medians?.['1'] },
  };
  const e9 = r?.exercise9;
  const ex9 = { workers: 2, after_s: e9?.medians?.['2'], one_s: e9?.medians?.['1'] };
  if (pos(ex9.after_s) && pos(ex9.one_s)) out.ex9 = ex9; // exercise 9 Part 2, two seeds
  const ok = /^\d{4}-\d{2}-\d{2}$/.test(out.date) && out.cpu && Number.isInteger(out.cpus) && Number.isInteger(workers) && workers >= 2 && pos(out.ex7.after_s) && pos(out.ex7.one_s) && typeof out.load === 'number' && out.load >= 0;
  if (!ok) console.warn('build-web: bench/results/workers.json has no usable exercise 7 times: the page says nothing about the run\'s length in advance');
  return ok ? out : null;
}

let exercises;
try {
  exercises = loadExercises(join(root, 'exercises'));
} catch (e) {
  fail(e.message);
}

const i18n = {};
for (const lang of ['ja', 'en']) {
  const file = join(web, 'i18n', `${lang}.json`);
  try {
    i18n[lang] = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    fail(`web/i18n/${lang}.json: ${e.message}`);
  }
}
// Every key must exist in both languages: a missing string would show a raw key.
// A plural key (`x_one`, `x_other`, …: web/js/catalog.js) needs `x_other` in
// the other language, which may have other forms (Japanese has only `_other`).
const missing = [];
const pluralBase = (key) => key.match(/^(.*)_(zero|one|two|few|many|other)$/)?.[1];
for (const [a, b] of [['ja', 'en'], ['en', 'ja']]) {
  for (const key of Object.keys(i18n[a])) {
    const base = pluralBase(key);
    const need = base !== undefined && `${base}_other` in i18n[a] ? `${base}_other` : key;
    if (!(need in i18n[b])) missing.push(`${b}.json lacks "${need}"`);
  }
}
if (missing.length) fail(`web/i18n: ${missing.join('; ')}`);

const common = {
  bundle: true,
  format: 'iife',
  target: ['chrome100', 'firefox100', 'safari15'],
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
};

try {
  const workerSources = {};
  for (const name of ['worker.js', 'train-worker.js', 'table-worker.js']) {
    const out = await build({ ...common, entryPoints: [join(web, 'js', 'core', name)], write: false });
    workerSources[name] = out.outputFiles[0].text;
    writeFileSync(join(dist, name), workerSources[name]);
  }
  await build({ ...common, entryPoints: [join(web, 'js', 'boot.js')], outfile: join(dist, 'boot.js') });
  // Code questions: loaded by the page only when one is shown (web/js/python/py-client.js).
  // py-runtime.js carries the sandbox Worker's source (MicroPython's wasm inlined)
  // as a string for a blob: Worker (scripts/py-sandbox.mjs builds the same for Node).
  const pyWorker = await buildPythonWorker();
  writeFileSync(join(dist, 'py-runtime.js'), `globalThis.__poslabPyWorkerSource=${JSON.stringify(pyWorker)};\n`);
  await build({ ...common, entryPoints: [join(web, 'js', 'python', 'code-editor.js')], outfile: join(dist, 'code-editor.js') });
  await build({
    ...common,
    entryPoints: [join(web, 'js', 'main.js')],
    outfile: join(dist, 'app.js'),
    define: {
      __EXERCISES__: JSON.stringify(exercises),
      __WORKER_SOURCES__: JSON.stringify(workerSources),
      __BENCH_TIMES__: JSON.stringify(benchTimes()),
    },
  });
  // The class results page (instructor.html): the same exercises and core Worker.
  await build({
    ...common,
    entryPoints: [join(web, 'js', 'instructor', 'main.js')],
    outfile: join(dist, 'instructor.js'),
    define: {
      __EXERCISES__: JSON.stringify(exercises),
      __WORKER_SOURCES__: JSON.stringify(workerSources),
    },
  });
} catch (e) {
  fail(`esbuild: ${e.message}`);
}

// The page shell's few words come from the i18n files too ({{t:key}}, Japanese).
const shell = readFileSync(join(web, 'index.html'), 'utf8').replace(/\{\{t:([\w.]+)\}\}/g, (m, key) => {
  if (!(key in i18n.ja)) fail(`web/index.html: no string "${key}" in web/i18n/ja.json`);
  return i18n.ja[key];
});
writeFileSync(join(dist, 'index.html'), shell);
const instructorShell = readFileSync(join(web, 'instructor.html'), 'utf8').replace(/\{\{t:([\w.]+)\}\}/g, (m, key) => {
  if (!(key in i18n.ja)) fail(`web/instructor.html: no string "${key}" in web/i18n/ja.json`);
  return i18n.ja[key];
});
writeFileSync(join(dist, 'instructor.html'), instructorShell);
cpSync(join(web, 'css', 'style.css'), join(dist, 'style.css'));
// The embedding kit for course pages: the host script and an example host page.
cpSync(join(web, 'embed.js'), join(dist, 'embed.js'));
cpSync(join(web, 'embed-example.html'), join(dist, 'embed-example.html'));
cpSync(join(web, 'embed-example.js'), join(dist, 'embed-example.js'));

const katexDist = join(root, 'node_modules', 'katex', 'dist');
if (!existsSync(katexDist)) fail('node_modules/katex is missing: run npm ci');
mkdirSync(join(dist, 'katex', 'fonts'), { recursive: true });
cpSync(join(katexDist, 'katex.min.css'), join(dist, 'katex', 'katex.min.css'));
cpSync(join(katexDist, 'katex.min.js'), join(dist, 'katex', 'katex.min.js'));
for (const f of readdirSync(join(katexDist, 'fonts'))) {
  if (f.endsWith('.woff2') || f.endsWith('.woff') || f.endsWith('.ttf')) {
    cpSync(join(katexDist, 'fonts', f), join(dist, 'katex', 'fonts', f));
  }
}

for (const f of ['poslab.js', 'poslab-web.js', 'poslab.wasm']) {
  if (!existsSync(join(dist, f))) console.warn(`build-web: dist/${f} is missing (scripts/build.sh copies it); the page will say the core failed to load`);
}
writeFileSync(join(dist, 'exercises.json'), JSON.stringify(exercises, null, 1));
// The .br/.gz copies scripts/serve.mjs sends (only the changed files' are rewritten).
const copies = precompressDir(dist);
console.log(`build-web: dist/ written (${exercises.length} exercises; compressed copies: ${copies.written} written, ${copies.kept} up to date)`);
