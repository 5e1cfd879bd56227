// Exercise 9's question on the learner's own run (answer_from: extend_run):
// the page's run (web/js/core/extend-loop.js in wasm, with the widget's options)
// equals the core's checked-in runs (exercises/generated/rope-extend-runs.json),
// and the key the core grades with is what this test reads off the page's
// curves for each seed set the widget offers. Forged seed sets and answers
// with no run earn nothing; the grade is quick (the runs are not retrained).
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import { loadLab, cliPath } from './helpers.mjs';
import { extend } from '../../web/js/core/extend-loop.js';
import { METHODS, RUN, SEED_CHOICES } from '../../web/js/widgets/rope-extend-run.js';
import { loadExercises } from '../../web/js/exercise-loader.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const cache = JSON.parse(readFileSync(join(root, 'exercises/generated/rope-extend-runs.json'), 'utf8'));
const { file, ...exercise } = loadExercises(join(root, 'exercises')).find((e) => e.id === 'rope-extend');
const question = exercise.blocks.find((b) => b.id === 'run-solved-all');

let lab;
const page = new Map(); // seed → the page's curves
before(async () => {
  lab = await loadLab();
  const seeds = [...new Set(SEED_CHOICES.flat())];
  await extend(lab, { seeds, methods: METHODS, ...RUN, chunk: 50 }, { progress: () => {}, result: (r) => page.set(r.seed, r.curves) }, { isCancelled: () => false, yieldNow: async () => {} });
});

// The option ids that are right for a seed set, read off the page's own curves here.
function keyFromPageRun(seeds) {
  const solvedAll = METHODS.filter((m) => seeds.every((s) => page.get(s).find((c) => c.method === m && c.finetuned).solvedUpTo === RUN.testMax));
  return solvedAll.length ? solvedAll.map((m) => `method-${m}`) : ['none'];
}

test('the exercise grades the run the widget makes: its options and seed sets', () => {
  assert.deepEqual(question.answer_from.extend_run.args, { methods: METHODS, ...RUN });
  assert.deepEqual(exercise.lab.run_seeds, SEED_CHOICES);
  const { methods, ...options } = cache.options;
  assert.deepEqual(methods, METHODS);
  for (const [k, v] of Object.entries(RUN)) assert.equal(options[k], v, k);
});

test('the page\'s run in wasm equals the checked-in native run for every offered seed', () => {
  for (const seed of new Set(SEED_CHOICES.flat())) {
    const kept = cache.runs.find((r) => r.seed === seed);
    assert.ok(kept, `seed ${seed} is in the cache`);
    const mine = page.get(seed);
    assert.equal(mine.length, kept.curves.length);
    mine.forEach((c, i) => {
      assert.equal(c.method, kept.curves[i].method);
      assert.equal(c.finetuned, kept.curves[i].finetuned);
      assert.deepEqual(c.exactMatch, kept.curves[i].exactMatch, `seed ${seed} ${c.method} ${c.finetuned}`);
      assert.equal(c.solvedUpTo, kept.curves[i].solvedUpTo);
    });
  }
});

test('the core\'s key is what the page\'s run shows, for each offered seed set', () => {
  const keys = SEED_CHOICES.map(keyFromPageRun);
  // Not the same answer whatever the run: the seeds matter.
  assert.ok(new Set(keys.map((k) => k.join())).size > 1, JSON.stringify(keys));
  SEED_CHOICES.forEach((seeds, i) => {
    const check = (answer) => lab.checkAttempt({ exercise, question: question.id, answer, lab: { runSeeds: seeds }, lang: 'en' });
    assert.equal(check(keys[i]).status, 'correct', `seeds ${seeds}: ${keys[i]}`);
    const wrong = keys[i].includes('none') ? ['method-pi'] : ['none'];
    assert.equal(check(wrong).status, 'incorrect', `seeds ${seeds}: ${wrong}`);
  });
});

test('no run, or a seed set the widget does not offer, earns nothing with a clear message', () => {
  const r = lab.checkAttempt({ exercise, question: question.id, answer: ['none'], lab: {}, lang: 'en' });
  assert.equal(r.status, 'malformed');
  assert.match(r.message, /no finished run/);
  assert.throws(() => lab.checkAttempt({ exercise, question: question.id, answer: ['none'], lab: { runSeeds: [7] } }), (e) => e.code === 'lab_not_allowed' && /runSeeds \[7\] is not one of this exercise's seed sets/.test(e.message));
});

test('gradeSubmission: right, wrong, forged and run-less attempts, graded as poslab grade grades them, quickly', () => {
  const hash = lab.contentHash({ exercise });
  const submission = (learner, attempts) => JSON.stringify({ format: 'position-lab-submission', version: 1, learner, exercises: [{ id: exercise.id, contentHash: hash, attempts }] });
  const at = (answer, lab) => ({ question: question.id, answer, ...(lab ? { lab } : {}) });
  const files = {
    right: submission('ann', [at(keyFromPageRun([1, 2]), { runSeeds: [1, 2] })]),
    wrong: submission('ben', [at(['method-pi'], { runSeeds: [1, 2] })]),
    forged: submission('cai', [at(['method-pi'], { runSeeds: [5] })]),
    norun: submission('dan', [at(['method-pi'])]),
  };
  const started = performance.now();
  const rows = Object.fromEntries(Object.entries(files).map(([k, text]) => [k, lab.gradeSubmission({ exercises: [exercise], file: `${k}.json`, text })[0]]));
  const ms = performance.now() - started;
  const points = (row) => row.questions.find((q) => q.id === question.id).points;
  assert.equal(points(rows.right), 1);
  assert.equal(points(rows.wrong), 0);
  assert.equal(points(rows.forged), 0);
  assert.deepEqual(rows.forged.flags, ['lab_not_allowed:1']);
  assert.match(rows.forged.message, /runSeeds \[5\] is not one of this exercise's seed sets/);
  assert.equal(points(rows.norun), 0);
  assert.match(rows.norun.message, /no finished run/);
  // From the compiled-in runs, not retrained (one seed retrained in wasm takes ~8 s): far below that even on a busy machine.
  assert.ok(ms < 3000, `four submissions took ${ms.toFixed(0)} ms`);
  // 200 such files, as the class results page gets them: measured, printed (the bench's budget is 2 s).
  const t0 = performance.now();
  for (let i = 0; i < 200; i++) lab.gradeSubmission({ file: `s${i}.json`, text: submission(`learner-${i}`, [at(['none'], { runSeeds: SEED_CHOICES[i % 3] })]) });
  console.log(`# 200 submissions with the run question re-graded in ${(performance.now() - t0).toFixed(0)} ms`);
  // poslab grade gives the same rows.
  const dir = mkdtempSync(join(tmpdir(), 'poslab-extend-runs-'));
  try {
    const paths = Object.entries(files).map(([k, text]) => {
      writeFileSync(join(dir, `${k}.json`), text);
      return join(dir, `${k}.json`);
    });
    const out = spawnSync(cliPath, ['grade', '--exercises', join(root, 'exercises'), ...paths, '--format', 'json'], { encoding: 'utf8' });
    const cliRows = JSON.parse(out.stdout).rows;
    for (const k of Object.keys(files)) {
      const row = cliRows.find((r) => r.file.endsWith(`${k}.json`) && r.exercise === exercise.id);
      assert.ok(row, `poslab grade ${k}: ${out.stderr}`);
      assert.equal(row.points, rows[k].points, k);
      assert.deepEqual(row.flags, rows[k].flags, k);
      assert.equal(row.message, rows[k].message, k);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
