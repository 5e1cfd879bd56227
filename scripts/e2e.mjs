#!/usr/bin/env node
// Runs the browser tests (tests/e2e/*.test.mjs), several files at once, the
// slowest first, so that the last file to start is a short one and the run
// ends soon after the longest file (scripts/test.sh and scripts/stress-e2e.sh
// use it).
//
//   node scripts/e2e.mjs [--tap FILE] [--import MODULE]… [--no-record] [E2E FILE or DIR…]
//
// Each file runs in its own `node --test` process (its own server and
// browser, so files are independent); its TAP goes to
// test-artifacts/e2e/NAME.tap. A line per file says how it went as it ends;
// a failing file's failures follow (the "not ok" lines and their details).
// At the end: the totals as node's TAP reporter prints them ("# tests N",
// "# pass N", "# fail N", …) and the wall time.
//
// --tap FILE       also writes every file's TAP and the totals to FILE
// --import MODULE  passed to each node (e.g. ./tests/e2e/timeout-scale.mjs)
// --no-record      does not refresh tests/e2e/durations.json
//
// POSLAB_E2E_CONCURRENCY: files at once (default: twice the cores; the
// tests mostly wait on the page, so two files a core keep the cores busy).
//
// The order comes from tests/e2e/durations.json (each file's duration_ms in
// its last full run: committed, so a fresh clone starts in a good order). A
// passing run of every file with unscaled timeouts (no POSLAB_TIMEOUT_SCALE,
// no --import) and without the slow tests (no POSLAB_FULL_RUN) refreshes it from the TAP's duration_ms, rewriting it only when a file is new or gone
// or took a quarter more or less than recorded (so it does not change on every
// run). A file it does not know runs first.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const e2eDir = join(root, 'tests', 'e2e');
const durationsPath = join(e2eDir, 'durations.json');
const outDir = join(root, 'test-artifacts', 'e2e');

function usage(msg) {
  console.error(`e2e: ${msg}\nusage: node scripts/e2e.mjs [--tap FILE] [--import MODULE]… [--no-record] [E2E FILE or DIR…]`);
  process.exit(2);
}

// Arguments.
let tapPath = null;
let record = true;
const imports = [];
const named = [];
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  if (a === '--tap' || a === '--import') {
    if (i + 1 >= args.length) usage(`${a} needs a value`);
    if (a === '--tap') tapPath = resolve(args[++i]);
    else imports.push(args[++i]);
  } else if (a === '--no-record') record = false;
  else if (a.startsWith('--')) usage(`unknown option '${a}' (allowed: --tap FILE, --import MODULE, --no-record)`);
  else named.push(a);
}

const testFilesIn = (dir) => readdirSync(dir).filter((f) => f.endsWith('.test.mjs')).sort().map((f) => join(dir, f));
let files = [];
for (const n of named) {
  const p = resolve(n);
  if (!existsSync(p)) usage(`no such file or folder: ${n}`);
  if (statSync(p).isDirectory()) files.push(...testFilesIn(p));
  else files.push(p);
}
const whole = named.length === 0 || (files.length && new Set(files).size === testFilesIn(e2eDir).length && files.every((f) => dirname(f) === e2eDir));
if (named.length === 0) files = testFilesIn(e2eDir);
files = [...new Set(files)];
if (files.length === 0) usage('no *.test.mjs files to run');

const rawJobs = process.env.POSLAB_E2E_CONCURRENCY;
let jobs = 2 * availableParallelism();
if (rawJobs !== undefined && rawJobs !== '') {
  if (!/^[1-9]\d*$/.test(rawJobs)) usage(`POSLAB_E2E_CONCURRENCY must be a whole number ≥ 1, got '${rawJobs}'`);
  jobs = Number(rawJobs);
}
const scaled = (Number(process.env.POSLAB_TIMEOUT_SCALE) || 1) !== 1;

// Slowest first; files without a recorded duration before all others.
let known = {};
try {
  known = JSON.parse(readFileSync(durationsPath, 'utf8'));
} catch {
  known = {};
}
const keyOf = (f) => relative(root, f).split('\\').join('/');
files.sort((a, b) => (known[keyOf(b)] ?? Infinity) - (known[keyOf(a)] ?? Infinity) || (a < b ? -1 : 1));

mkdirSync(outDir, { recursive: true });

// TAP helpers: node's reporter ends with "# pass N" etc. at column 0.
function totalsOf(tap) {
  const get = (k) => {
    const m = [...tap.matchAll(new RegExp(`^# ${k} (\\d+(?:\\.\\d+)?)$`, 'gm'))].pop();
    return m ? Number(m[1]) : null;
  };
  return { tests: get('tests'), suites: get('suites'), pass: get('pass'), fail: get('fail'), cancelled: get('cancelled'), skipped: get('skipped'), todo: get('todo'), duration_ms: get('duration_ms') };
}
// Each "not ok" line with its YAML block (the reason, the expected and actual values).
function failuresOf(tap) {
  const lines = tap.split('\n');
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    const m = /^(\s*)not ok /.exec(lines[i]);
    if (!m) continue;
    out.push(lines[i]);
    const inner = m[1] + '  ';
    if (lines[i + 1] === `${inner}---`) {
      for (let j = i + 1; j < lines.length; j++) {
        out.push(lines[j]);
        if (lines[j] === `${inner}...`) break;
      }
    }
  }
  return out.join('\n');
}

const children = new Set();
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    for (const c of children) c.kill('SIGTERM');
    process.exit(130);
  });
}

function runFile(file) {
  return new Promise((done) => {
    const t0 = Date.now();
    const argv = [...imports.flatMap((m) => ['--import', m]), '--test', '--test-reporter=tap', file];
    const child = spawn(process.execPath, argv, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    const chunks = [];
    child.stdout.on('data', (c) => chunks.push(c));
    child.stderr.on('data', (c) => chunks.push(c));
    child.on('close', (code, signal) => {
      children.delete(child);
      const tap = Buffer.concat(chunks).toString('utf8');
      writeFileSync(join(outDir, basename(file).replace(/\.test\.mjs$/, '.tap')), tap);
      done({ file, code: code ?? (signal ? 1 : 0), signal, tap, wall: Date.now() - t0 });
    });
  });
}

const t0 = Date.now();
console.log(`e2e: ${files.length} file(s), ${jobs} at once, slowest first${imports.length ? `, --import ${imports.join(' ')}` : ''}`);
const results = [];
let next = 0;
let finished = 0;
async function worker() {
  while (next < files.length) {
    const r = await runFile(files[next++]);
    results.push(r);
    finished++;
    const s = totalsOf(r.tap);
    const ok = r.code === 0;
    const counts = s.pass === null ? 'no TAP summary' : `pass ${s.pass}, fail ${s.fail}${s.cancelled ? `, cancelled ${s.cancelled}` : ''}${s.skipped ? `, skipped ${s.skipped}` : ''}`;
    console.log(`${ok ? 'ok  ' : 'FAIL'} ${String(finished).padStart(2)}/${files.length} ${(r.wall / 1000).toFixed(1).padStart(6)} s  ${keyOf(r.file)}  (${counts}${r.signal ? `, killed by ${r.signal}` : ''})`);
    if (!ok) {
      const f = failuresOf(r.tap);
      console.log(f || r.tap.split('\n').slice(-40).join('\n'));
      console.log(`  (whole output: ${relative(root, join(outDir, basename(r.file).replace(/\.test\.mjs$/, '.tap')))})`);
    }
  }
}
await Promise.all(Array.from({ length: Math.min(jobs, files.length) }, worker));

const sum = { tests: 0, suites: 0, pass: 0, fail: 0, cancelled: 0, skipped: 0, todo: 0 };
const failedFiles = [];
for (const r of results) {
  const s = totalsOf(r.tap);
  for (const k of Object.keys(sum)) sum[k] += s[k] ?? 0;
  // A file that died before its summary (a crash, a kill) counts as a failure.
  if (r.code !== 0) failedFiles.push(keyOf(r.file));
  if (r.code !== 0 && !s.fail && !s.cancelled) sum.fail += 1;
}
const wall = Date.now() - t0;
const totals = [...Object.entries(sum).map(([k, v]) => `# ${k} ${v}`), `# duration_ms ${wall}`].join('\n');
console.log(totals);
console.log(`e2e: ${files.length} file(s) in ${(wall / 1000).toFixed(0)} s, ${jobs} at once${failedFiles.length ? `; failed: ${failedFiles.join(' ')}` : ''}`);

if (tapPath) {
  mkdirSync(dirname(tapPath), { recursive: true });
  writeFileSync(tapPath, results.map((r) => `# file: ${keyOf(r.file)} (exit ${r.code})\n${r.tap}`).join('\n') + `\n# e2e totals (all files)\n${totals}\n`);
}

// Refresh the recorded durations after a whole, unscaled run.
if (record && whole && !scaled && !process.env.POSLAB_FULL_RUN && imports.length === 0 && failedFiles.length === 0) {
  const fresh = {};
  for (const r of results) fresh[keyOf(r.file)] = Math.round(totalsOf(r.tap).duration_ms ?? r.wall);
  const keys = Object.keys(fresh);
  const changed =
    keys.length !== Object.keys(known).length ||
    keys.some((k) => !(k in known) || Math.abs(fresh[k] - known[k]) > 0.25 * known[k]);
  if (changed) {
    const sorted = Object.fromEntries(keys.sort((a, b) => fresh[b] - fresh[a]).map((k) => [k, fresh[k]]));
    writeFileSync(durationsPath, JSON.stringify(sorted, null, 2) + '\n');
    console.log(`e2e: ${relative(root, durationsPath)} refreshed (commit it: it sets the order of the next run)`);
  }
}
process.exit(failedFiles.length ? 1 : 0);
