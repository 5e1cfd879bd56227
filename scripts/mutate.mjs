#!/usr/bin/env node
// Mutation testing of the core: applies each plausible one-line bug listed in
// tests/mutants.txt and tests/mutants/*.txt (FILE<TAB>ORIGINAL<TAB>REPLACEMENT)
// to cpp/src, rebuilds the native tests and CLI, runs the ctest tests that can
// see the mutated file, and reports which mutants the tests killed and which
// survived, with killed/total per file. Every file is restored after each
// mutant, on error and on Ctrl-C (SIGINT/SIGTERM), and the build is left
// matching the real sources.
//
//   npm run mutate                               every list: tests/mutants.txt + tests/mutants/*.txt
//   node scripts/mutate.mjs --list-file tests/mutants/core.txt   one list (repeatable)
//   node scripts/mutate.mjs --only 3,7           some of them (1-based, as numbered in the output)
//   node scripts/mutate.mjs --file train.cpp     only the mutants of files whose path contains this
//   node scripts/mutate.mjs --all-tests          run every ctest test for each mutant (no selection)
//   node scripts/mutate.mjs --exclude cli_extrapolate   leave slow tests out (a ctest -E regex)
//   node scripts/mutate.mjs --no-baseline        skip the unmutated run first
//   node scripts/mutate.mjs --print-map          print which tests see which file, and stop
//   MUTATE_BUILD=build/native (default)          the native build folder to use
//
// Which tests see a file: a GoogleTest file sees cpp/src/X.cpp when X's header
// (poslab/X.hpp) is reachable from its #includes through the headers and the
// sources that implement them (a source that includes poslab/Y.hpp calls into
// Y.cpp). That over-approximates the call graph, so no test that could kill a
// mutant is skipped; every cli_* test (the CLI links the whole core) always runs.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readMutantList } from './mutant-list.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const build = join(root, process.env.MUTATE_BUILD ?? 'build/native');
const argv = process.argv.slice(2);
// Every argument is checked before anything is touched: a mistyped option
// (or --help) must not start mutating the sources.
{
  const OPTIONS_WITH_VALUE = ['--list-file', '--only', '--file', '--exclude'];
  const FLAGS = ['--all-tests', '--no-baseline', '--print-map'];
  const usage = 'usage: node scripts/mutate.mjs [--list-file LIST]… [--only N,M] [--file PART] [--all-tests] [--exclude REGEX] [--no-baseline] [--print-map]';
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--help' || a === '-h') {
      console.log(usage);
      process.exit(0);
    }
    if (OPTIONS_WITH_VALUE.includes(a)) {
      if (i + 1 >= argv.length) {
        console.error(`mutate: ${a} needs a value\n${usage}`);
        process.exit(2);
      }
      i++;
    } else if (!FLAGS.includes(a)) {
      console.error(`mutate: unknown argument '${a}'\n${usage}`);
      process.exit(2);
    }
  }
}
const flag = (name) => argv.includes(name);
const values = (name) => argv.flatMap((a, i) => (a === name && i + 1 < argv.length ? [argv[i + 1]] : []));

const listFiles = values('--list-file').length
  ? values('--list-file').map((f) => join(root, relative(root, join(process.cwd(), f))))
  : [
      join(root, 'tests/mutants.txt'),
      ...(existsSync(join(root, 'tests/mutants'))
        ? readdirSync(join(root, 'tests/mutants')).filter((f) => f.endsWith('.txt')).sort().map((f) => join(root, 'tests/mutants', f))
        : []),
    ];
const only = values('--only').length ? new Set(values('--only').join(',').split(',').map(Number)) : null;
const fileFilter = values('--file');
const allTests = flag('--all-tests');
const excludeArg = values('--exclude');
const exclude = excludeArg.length ? ['-E', excludeArg.join('|')] : [];

const mutants = listFiles.flatMap((list) => readMutantList(list).map((m) => ({ ...m, list: relative(root, list) })));

// ---- which tests see which source file --------------------------------------
const includesOf = (path) =>
  existsSync(path) ? [...readFileSync(path, 'utf8').matchAll(/#include\s+"poslab\/([A-Za-z0-9_]+)\.hpp"/g)].map((m) => m[1]) : [];
// module name (header/source stem) → modules it reaches directly
const reach = new Map();
for (const f of readdirSync(join(root, 'cpp/include/poslab')).filter((f) => f.endsWith('.hpp'))) {
  const name = f.replace(/\.hpp$/, '');
  const deps = new Set([
    ...includesOf(join(root, 'cpp/include/poslab', f)),
    ...includesOf(join(root, 'cpp/src', `${name}.cpp`)),
  ]);
  reach.set(name, deps);
}
// Sources whose header has another name (train_model.cpp implements
// tiny_transformer.hpp; grade_submission.cpp and grading_*.cpp implement grading.hpp). A source with
// neither its own header nor an entry here gets every test (testsFor: null).
const implementedBy = {
  tiny_transformer: ['train_model'],
  grading: readdirSync(join(root, 'cpp/src')).filter((f) => /^grad(ing_.*|e_submission)\.cpp$/.test(f)).map((f) => f.replace(/\.cpp$/, '')),
};
for (const [header, sources] of Object.entries(implementedBy))
  for (const s of sources) for (const d of includesOf(join(root, 'cpp/src', `${s}.cpp`))) reach.get(header)?.add(d);
const sourceModule = (file) => {
  const stem = basename(file).replace(/\.cpp$/, '');
  for (const [header, sources] of Object.entries(implementedBy)) if (sources.includes(stem)) return header;
  return stem;
};
const closure = (start) => {
  const seen = new Set();
  const todo = [...start];
  while (todo.length) {
    const m = todo.pop();
    if (seen.has(m)) continue;
    seen.add(m);
    for (const d of reach.get(m) ?? []) todo.push(d);
  }
  return seen;
};
const testFiles = readdirSync(join(root, 'tests/cpp')).filter((f) => f.endsWith('.cpp'));
const suitesOf = (path) => [...new Set([...readFileSync(path, 'utf8').matchAll(/^\s*TEST(?:_P|_F)?\s*\(\s*([A-Za-z0-9_]+)\s*,/gm)].map((m) => m[1]))];
const seenBy = testFiles.map((f) => ({
  file: f,
  suites: suitesOf(join(root, 'tests/cpp', f)),
  modules: closure(includesOf(join(root, 'tests/cpp', f))),
}));
// ctest -R regex of the tests that can see this source file (null: all of them).
const testsFor = (file) => {
  if (allTests) return null;
  const module = sourceModule(file);
  if (!reach.has(module)) return null;
  const suites = seenBy.filter((t) => t.modules.has(module)).flatMap((t) => t.suites);
  // GoogleTest names: Suite.Test, or Prefix/Suite.Test/N for TEST_P.
  return `^cli_|(^|/)(${[...new Set(suites)].sort().join('|') || 'NONE'})\\.`;
};
if (flag('--print-map')) {
  for (const f of readdirSync(join(root, 'cpp/src')).filter((f) => f.endsWith('.cpp')).sort()) {
    const module = sourceModule(f);
    console.log(`${f}: ${seenBy.filter((t) => t.modules.has(module)).map((t) => t.file).join(' ') || '(cli tests only)'}`);
  }
  process.exit(0);
}

// ---- run ---------------------------------------------------------------------
// Originals of every file touched, restored whatever happens.
const originals = new Map();
const restore = () => {
  for (const [file, text] of originals) writeFileSync(join(root, file), text);
};
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => { restore(); console.error(`mutate: ${sig}, sources restored`); process.exit(130); });
process.on('exit', restore);

const run = (cmd, args, timeout) => spawnSync(cmd, args, { cwd: root, encoding: 'utf8', timeout, stdio: ['ignore', 'pipe', 'pipe'] });
const rebuild = () => run('nice', ['cmake', '--build', build, '-j2', '--target', 'poslab_tests', 'poslab_cli'], 1800_000);
const tests = (regex) =>
  run('nice', ['ctest', '--test-dir', build, '--stop-on-failure', '--timeout', '300', '-Q', ...(regex ? ['-R', regex] : []), ...exclude], 3600_000);

const chosen = mutants
  .map((m, i) => ({ ...m, n: i + 1 }))
  .filter((m) => (!only || only.has(m.n)) && (!fileFilter.length || fileFilter.some((f) => m.file.includes(f))));

if (!flag('--no-baseline')) {
  const b = rebuild();
  if (b.status !== 0) { console.error(`mutate: the unmutated build fails:\n${b.stderr}`); process.exit(2); }
  const started = Date.now();
  const regexes = [...new Set(chosen.map((m) => testsFor(m.file)))];
  const regex = regexes.includes(null) ? null : regexes.join('|');
  const t = tests(regex);
  if (t.status !== 0) { console.error(`mutate: the tests fail without any mutant; fix them first\n${t.stdout}`); process.exit(2); }
  console.log(`mutate: baseline passes (tests ${((Date.now() - started) / 1000).toFixed(0)} s)`);
}

const results = [];
for (const m of chosen) {
  const path = join(root, m.file);
  if (!originals.has(m.file)) originals.set(m.file, readFileSync(path, 'utf8'));
  const text = originals.get(m.file);
  const lines = text.split('\n');
  const k = lines.findIndex((l) => l.trim() === m.original.trim() || l.includes(m.original));
  let outcome;
  if (k < 0) {
    outcome = 'stale';  // the line is gone: update the list
  } else {
    const indent = lines[k].match(/^\s*/)[0];
    lines[k] = lines[k].includes(m.original) ? lines[k].replace(m.original, () => m.replacement) : indent + m.replacement;
    writeFileSync(path, lines.join('\n'));
    const started = Date.now();
    const b = rebuild();
    if (b.status !== 0) outcome = 'invalid (does not compile)';
    else outcome = tests(testsFor(m.file)).status === 0 ? 'SURVIVED' : 'killed';
    writeFileSync(path, text);
    outcome += ` (${((Date.now() - started) / 1000).toFixed(0)} s)`;
  }
  results.push({ ...m, outcome });
  console.log(`${String(m.n).padStart(3)} ${outcome.padEnd(22)} ${m.file}:${k + 1}  ${m.original.trim()}  →  ${m.replacement.trim()}  [${m.list}:${m.at}]`);
}

restore();
const b = rebuild();
const counts = (r) => r.outcome.startsWith('killed') || r.outcome.startsWith('SURVIVED');
const killed = results.filter((r) => r.outcome.startsWith('killed')).length;
const survived = results.filter((r) => r.outcome.startsWith('SURVIVED'));
const counted = results.filter(counts).length;
console.log('\nmutate: killed/total per file');
for (const file of [...new Set(results.map((r) => r.file))].sort()) {
  const mine = results.filter((r) => r.file === file);
  const k = mine.filter((r) => r.outcome.startsWith('killed')).length;
  const t = mine.filter(counts).length;
  const other = mine.length - t;
  console.log(`  ${file.padEnd(32)} ${String(k).padStart(3)}/${String(t).padEnd(3)} ${t ? `${((100 * k) / t).toFixed(0)} %` : ''}${other ? `  (${other} stale or invalid)` : ''}`);
}
console.log(`\nmutate: killed ${killed} of ${counted}${survived.length ? `; survived: ${survived.map((r) => r.n).join(', ')}` : ''}`);
if (b.status !== 0) console.error('mutate: the restored build failed; run the build again');
process.exit(survived.length ? 1 : 0);
