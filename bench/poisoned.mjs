// `npm run bench` (after instructor.mjs), or alone: `node bench/poisoned.mjs`.
// The poisoned batch of issue 21: 8 hostile submissions of ~8 MB each (within
// the documented limits: every code question at its max_attempts with long
// code that loops forever or returns junk, stored "right" results, and
// megabytes of small numbers the grader must parse) + 1 honest file, through
// scripts/grade-code.mjs (the re-run, --budget-s POSLAB_POISONED_BUDGET_S,
// default 20) and through `poslab grade` alone. Prints the time, the peak
// memory (/usr/bin/time -v when present, else the children's maxRSS from
// process.resourceUsage) and whether the honest row is present and right.
// POSLAB_POISONED_SKIP_RERUN=1 measures `poslab grade` only.
// A measurement, never a test: nothing here asserts on time.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const poslab = path.join(root, 'build/native/poslab');
const exercises = path.join(root, 'exercises');
const BUDGET_S = Number(process.env.POSLAB_POISONED_BUDGET_S || 20);
const HOSTILE = 8;
const MB = 1 << 20;

const info = JSON.parse(spawnSync(poslab, ['exercise-info', '--', path.join(exercises, '12-write-the-code.yaml'), path.join(exercises, '03-hand-calc.yaml')], { encoding: 'utf8' }).stdout);
const [code, calc] = info;
const codeQuestions = ['sinusoidal', 'add-position', 'attention-row', 'causal-mask', 'masked-softmax'];
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'poslab-bench-poisoned-'));

function hostile(k) {
  const loop = 'def f(*a):\n    while True:\n        pass\n';
  const junk = 'def f(*a):\n    return 0\n';
  const filler = '#' + 'x'.repeat(9000) + '\n';
  const attempts = [];
  for (const q of codeQuestions) for (let i = 0; i < 5; i++) attempts.push({ question: q, answer: { code: (i % 2 ? loop : junk) + filler, status: 'ok', results: [] } });
  // Past max_attempts and past the cap: never run, still parsed.
  for (let i = 0; i < 200; i++) attempts.push({ question: 'sinusoidal', answer: { code: loop + filler, status: 'ok', results: [] } });
  // Megabytes of small numbers in stored "results" (the grader parses them, never reads them).
  // As many as fill the file to just under the documented 8 MB (each zero is "0," in the JSON).
  const stored = { question: 'sinusoidal', answer: { code: junk, status: 'ok', results: [] } };
  attempts.push(stored);
  const file = () => JSON.stringify({ format: 'position-lab-submission', version: 1, learner: `hostile-${k}`, exercises: [{ id: code.id, contentHash: code.contentHash, attempts }] });
  stored.answer.results = new Array(Math.floor((8 * MB - 64 - file().length) / 2)).fill(0);
  const text = file();
  return text.length > 8 * MB ? null : text;
}
const files = [];
for (let k = 0; k < HOSTILE; k++) {
  const text = hostile(k);
  if (!text) throw new Error('the hostile file came out over 8 MB: shrink it');
  const p = path.join(dir, `hostile-${k}.json`);
  fs.writeFileSync(p, text);
  files.push(p);
}
const honest = path.join(dir, 'honest.json');
fs.writeFileSync(honest, JSON.stringify({ format: 'position-lab-submission', version: 1, learner: 'honest', exercises: [{ id: calc.id, contentHash: calc.contentHash, attempts: [{ question: 'softmax-a', answer: ['0.670', '0.330'] }] }] }));
files.push(honest);
const sizes = files.map((f) => fs.statSync(f).size);

const hasTime = fs.existsSync('/usr/bin/time');
function measure(cmd, args) {
  const start = process.hrtime.bigint();
  const before = process.resourceUsage().maxRSS;
  const r = hasTime ? spawnSync('/usr/bin/time', ['-v', cmd, ...args], { encoding: 'utf8', maxBuffer: 256 * MB }) : spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 256 * MB });
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const m = hasTime ? /Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr) : null;
  const peakMb = m ? Number(m[1]) / 1024 : Math.max(before, process.resourceUsage().maxRSS) / 1024;
  return { seconds, peakMb, status: r.status, stdout: r.stdout, stderrBytes: Buffer.byteLength(r.stderr ?? '') };
}
const honestRow = (csv) => csv.split('\n').find((l) => l.includes(',honest,hand-calc,')) ?? null;

try {
  const skip = process.env.POSLAB_POISONED_SKIP_RERUN === '1';
  const g = skip ? null : measure(process.execPath, [path.join(root, 'scripts/grade-code.mjs'), '--exercises', exercises, '--poslab', poslab, '--budget-s', String(BUDGET_S), '--', ...files]);
  const p = measure(poslab, ['grade', '--exercises', exercises, '--', ...files]);
  const total = (sizes.reduce((a, b) => a + b, 0) / MB).toFixed(1);
  for (const [name, r] of [['grade-code.mjs', g], ['poslab grade', p]].filter(([, r]) => r)) {
    const row = honestRow(r.stdout);
    console.log(`poisoned batch (${HOSTILE} × ~${(sizes[0] / MB).toFixed(1)} MB + 1 honest, ${total} MB) through ${name}: ${r.seconds.toFixed(1)} s, peak ${r.peakMb.toFixed(0)} MB${hasTime ? '' : ' (this process and its children)'}, exit ${r.status}, ${r.stdout.split('\n').filter(Boolean).length - 1} row(s), stderr ${r.stderrBytes} bytes; honest row ${row ? `present: ${row}` : 'MISSING'}`);
  }
  fs.mkdirSync(path.join(root, 'bench', 'results'), { recursive: true });
  fs.writeFileSync(path.join(root, 'bench', 'results', 'poisoned.json'), `${JSON.stringify({ files: sizes, budgetS: BUDGET_S, gradeCode: g && { seconds: g.seconds, peakMb: g.peakMb, status: g.status, honest: honestRow(g.stdout) }, poslabGrade: { seconds: p.seconds, peakMb: p.peakMb, status: p.status, honest: honestRow(p.stdout) }, cpus: os.cpus().length, load: os.loadavg() }, null, 1)}\n`);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
