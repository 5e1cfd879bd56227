#!/usr/bin/env node
// Mutation testing of the core: applies each plausible one-line bug listed in
// tests/mutants.txt (FILE<TAB>ORIGINAL<TAB>REPLACEMENT) to cpp/src, rebuilds the
// native tests and CLI, runs ctest, and reports which mutants the tests killed
// and which survived. Every file is restored after each mutant, on error and
// on Ctrl-C (SIGINT/SIGTERM), and the build is left matching the real sources.
//
//   npm run mutate                       every mutant in tests/mutants.txt
//   node scripts/mutate.mjs --only 3,7   some of them (1-based)
//   node scripts/mutate.mjs --exclude cli_extrapolate   leave slow tests out
//   MUTATE_BUILD=build/native (default)  the native build folder to use
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const build = join(root, process.env.MUTATE_BUILD ?? 'build/native');
const list = process.argv.includes('--list-file') ? process.argv[process.argv.indexOf('--list-file') + 1] : join(root, 'tests/mutants.txt');
const only = process.argv.includes('--only')
  ? new Set(process.argv[process.argv.indexOf('--only') + 1].split(',').map(Number))
  : null;

const mutants = readFileSync(list, 'utf8')
  .split('\n')
  .map((line, i) => ({ line, at: i + 1 }))
  .filter(({ line }) => line.trim() && !line.startsWith('#'))
  .map(({ line, at }) => {
    const parts = line.split('\t');
    if (parts.length !== 3) throw new Error(`${list}:${at}: needs FILE<TAB>ORIGINAL<TAB>REPLACEMENT`);
    const [file, original, replacement] = parts;
    return { file, original, replacement, at };
  });

// Originals of every file touched, restored whatever happens.
const originals = new Map();
const restore = () => {
  for (const [file, text] of originals) writeFileSync(join(root, file), text);
};
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => { restore(); console.error(`mutate: ${sig}, sources restored`); process.exit(130); });
process.on('exit', restore);

const run = (cmd, args, timeout) => spawnSync(cmd, args, { cwd: root, encoding: 'utf8', timeout, stdio: ['ignore', 'pipe', 'pipe'] });
const rebuild = () => run('nice', ['cmake', '--build', build, '-j2', '--target', 'poslab_tests', 'poslab_cli'], 1800_000);
// --exclude REGEX: tests ctest leaves out (e.g. slow training runs) to keep a pass short.
const exclude = process.argv.includes('--exclude') ? ['-E', process.argv[process.argv.indexOf('--exclude') + 1]] : [];
const tests = () => run('nice', ['ctest', '--test-dir', build, '--stop-on-failure', '--timeout', '300', '-Q', ...exclude], 3600_000);

if (!process.argv.includes('--no-baseline')) {
  const b = rebuild();
  if (b.status !== 0) { console.error(`mutate: the unmutated build fails:\n${b.stderr}`); process.exit(2); }
  const started = Date.now();
  const t = tests();
  if (t.status !== 0) { console.error(`mutate: the tests fail without any mutant; fix them first\n${t.stdout}`); process.exit(2); }
  console.log(`mutate: baseline passes (tests ${((Date.now() - started) / 1000).toFixed(0)} s)`);
}

const results = [];
mutants.forEach((m, i) => {
  const n = i + 1;
  if (only && !only.has(n)) return;
  const path = join(root, m.file);
  if (!originals.has(m.file)) originals.set(m.file, readFileSync(path, 'utf8'));
  const text = originals.get(m.file);
  const lines = text.split('\n');
  const k = lines.findIndex((l) => l.trim() === m.original.trim() || l.includes(m.original));
  let outcome;
  if (k < 0) {
    outcome = 'stale';  // the line is gone: update tests/mutants.txt
  } else {
    const indent = lines[k].match(/^\s*/)[0];
    lines[k] = lines[k].includes(m.original) ? lines[k].replace(m.original, m.replacement) : indent + m.replacement;
    writeFileSync(path, lines.join('\n'));
    const started = Date.now();
    const b = rebuild();
    if (b.status !== 0) outcome = 'invalid (does not compile)';
    else outcome = tests().status === 0 ? 'SURVIVED' : 'killed';
    writeFileSync(path, text);
    outcome += ` (${((Date.now() - started) / 1000).toFixed(0)} s)`;
  }
  results.push({ n, m, outcome });
  console.log(`${String(n).padStart(2)} ${outcome.padEnd(22)} ${m.file}:${k + 1}  ${m.original.trim()}  →  ${m.replacement.trim()}`);
});

restore();
const b = rebuild();
const killed = results.filter((r) => r.outcome.startsWith('killed')).length;
const survived = results.filter((r) => r.outcome.startsWith('SURVIVED'));
const counted = results.filter((r) => r.outcome.startsWith('killed') || r.outcome.startsWith('SURVIVED')).length;
console.log(`\nmutate: killed ${killed} of ${counted}${survived.length ? `; survived: ${survived.map((r) => r.n).join(', ')}` : ''}`);
if (b.status !== 0) console.error('mutate: the restored build failed; run the build again');
process.exit(survived.length ? 1 : 0);
