#!/usr/bin/env node
// Hand-made mutants of JavaScript that StrykerJS cannot measure in reasonable
// time (scripts/grade-code.mjs: tested as a child process, so Stryker runs it
// with coverage off). Each line of LIST is FILE<TAB>ORIGINAL<TAB>REPLACEMENT
// (as tests/mutants/*.txt); each mutant is applied alone, the test files are
// run with node --test, and the file is restored (after each mutant, on error
// and on Ctrl-C). Prints killed/total and the survivors; exit 1 if any survived.
//   node scripts/mutate-js-list.mjs tests/mutants-js/grade-code.txt tests/web/grade-code.test.mjs
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readMutantList } from './mutant-list.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const [list, ...tests] = process.argv.slice(2);
if (!list || !tests.length) {
  console.error('usage: node scripts/mutate-js-list.mjs LIST TEST_FILE…');
  process.exit(2);
}
const mutants = readMutantList(list);

const originals = new Map();
const restore = () => {
  for (const [file, text] of originals) writeFileSync(join(root, file), text);
};
process.on('exit', restore);
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => { restore(); process.exit(130); });

const test = () => spawnSync(process.execPath, ['--test', ...tests], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const base = test();
if (base.status !== 0) {
  console.error(`mutate-js-list: the tests fail without any mutant; fix them first\n${base.stdout.slice(-2000)}`);
  process.exit(2);
}
let killed = 0;
let total = 0;
const survived = [];
for (const m of mutants) {
  if (!originals.has(m.file)) originals.set(m.file, readFileSync(join(root, m.file), 'utf8'));
  const text = originals.get(m.file);
  if (!text.includes(m.original)) {
    console.log(`${list}:${m.at} stale (the line is gone)`);
    continue;
  }
  writeFileSync(join(root, m.file), text.replace(m.original, () => m.replacement));
  const started = Date.now();
  const r = test();
  writeFileSync(join(root, m.file), text);
  total += 1;
  const outcome = r.status === 0 ? 'SURVIVED' : 'killed';
  if (r.status === 0) survived.push(m.at);
  else killed += 1;
  console.log(`${list}:${m.at} ${outcome} (${((Date.now() - started) / 1000).toFixed(0)} s)  ${m.original.trim()}  →  ${m.replacement.trim()}`);
}
restore();
console.log(`\nmutate-js-list: killed ${killed} of ${total}${survived.length ? `; survived: lines ${survived.join(', ')}` : ''}`);
process.exit(survived.length ? 1 : 0);
