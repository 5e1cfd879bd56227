// Grading in wasm (what the page uses) against poslab grade (what the
// instructor uses): the same content hashes from js-yaml and yaml-cpp, the
// same variants, the same scores.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { loadLab, cli, cliPath } from './helpers.mjs';
import { spawnSync } from 'node:child_process';

const require = createRequire(import.meta.url);
const yaml = require('js-yaml');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const fixtures = path.join(root, 'tests/fixtures/exercises');
const exerciseFiles = [
  ...fs.readdirSync(path.join(root, 'exercises')).filter((f) => f.endsWith('.yaml')).map((f) => path.join(root, 'exercises', f)),
  path.join(fixtures, 'grading-demo.yaml'),
];
const load = (file) => yaml.load(fs.readFileSync(file, 'utf8'));

let lab;
before(async () => {
  lab = await loadLab();
});

test('content hashes agree between the page (js-yaml + wasm) and the grader (yaml-cpp)', () => {
  const native = cli(['exercise-info', ...exerciseFiles]);
  assert.equal(native.status, 0, native.stderr);
  assert.equal(native.json.length, exerciseFiles.length);
  for (const [i, file] of exerciseFiles.entries()) {
    assert.equal(lab.contentHash({ exercise: load(file) }), native.json[i].contentHash, path.basename(file));
  }
  const edited = load(exerciseFiles.at(-1));
  edited.blocks[0].tolerance.atol = 0.006;
  assert.notEqual(lab.contentHash({ exercise: edited }), native.json.at(-1).contentHash);
});

test('variants: the same seed and parameters as poslab variant; learners differ', () => {
  const ex = load(path.join(fixtures, 'grading-demo.yaml'));
  const seen = new Set();
  for (const learner of ['alice', 'bob', 'carol', 'dave', 'erin', 'fay']) {
    const v = lab.variant({ exercise: ex, learner });
    const n = cli(['variant', '--exercise', path.join(fixtures, 'grading-demo.yaml'), '--learner', learner]);
    assert.deepEqual({ seed: v.seed, variant: v.variant, contentHash: v.contentHash },
      { seed: n.json.seed, variant: n.json.variant, contentHash: n.json.contentHash });
    seen.add(v.seed);
  }
  assert.equal(seen.size, 6);
});

test('checkAttempt: right, wrong, partial and malformed answers', () => {
  const ex = load(path.join(fixtures, 'grading-demo.yaml'));
  const s = 2;
  const w = Math.exp((s * s) / Math.SQRT2) / (Math.exp((s * s) / Math.SQRT2) + 1);
  const variant = { scale: s };
  const right = lab.checkAttempt({ exercise: ex, question: 'weight', answer: [w.toFixed(3)], variant });
  assert.equal(right.status, 'correct');
  assert.ok(Math.abs(right.expected[0] - w) < 1e-6);
  assert.equal(lab.checkAttempt({ exercise: ex, question: 'weight', answer: ['０．５'], variant }).status, 'incorrect');
  const bad = lab.checkAttempt({ exercise: ex, question: 'weight', answer: ['abc'], variant });
  assert.equal(bad.status, 'malformed');
  assert.match(bad.message, /'abc' is not a number/);
  assert.equal(lab.checkAttempt({ exercise: ex, question: 'wall', answer: { positionOffset: 1023 } }).status, 'correct');
  assert.equal(lab.checkAttempt({ exercise: ex, question: 'wall', answer: { positionOffset: 0 } }).status, 'incorrect');
  assert.throws(() => lab.checkAttempt({ exercise: ex, question: 'nope', answer: [] }), /has no question 'nope'/);
  assert.throws(() => lab.checkAttempt({ exercise: ex, answer: [] }), /missing option 'question'/);
});

test('hostile input in the page core: deep answers, a wrong wall value, a lab the exercise does not offer', () => {
  const ex = load(path.join(fixtures, 'grading-demo.yaml'));
  let deep = 0;
  for (let i = 0; i < 1000; i++) deep = [deep];
  assert.throws(() => lab.checkAttempt({ exercise: ex, question: 'weight', answer: deep }),
    (e) => e.code === 'too_large' && /nested more than/.test(e.message));
  for (const bad of ['x', 0.5, -1, null])
    assert.notEqual(lab.checkAttempt({ exercise: ex, question: 'wall', answer: { positionOffset: bad } }).status, 'correct', String(bad));
  // grading-demo has no pe control: a learned-table lab is not graded, and says why.
  const g = lab.gradeExercise({ exercise: ex, seed: 1, attempts: [
    { question: 'property', answer: ['equivariance'], lab: { pe: 'rope' } },
    { question: 'property', answer: ['equivariance'], lab: { pe: 'none' } }] });
  assert.equal(g.points, 1);
  assert.deepEqual(g.rejected.map((r) => [r.attempt, r.status]), [[0, 'lab_not_allowed']]);
  assert.match(g.rejected[0].message, /no position-information control/);
});

test('gradeExercise in wasm equals poslab grade on the same submission', () => {
  const file = path.join(fixtures, 'grading-demo.yaml');
  const ex = load(file);
  const { seed, contentHash } = lab.variant({ exercise: ex, learner: 'alice' });
  const attempts = [
    { question: 'weight', answer: ['0.5'] },
    { question: 'weight', answer: ['x'] },
    { question: 'property', answer: ['invariance'] },
    { question: 'property', answer: ['equivariance'] },
    { question: 'wall', answer: { positionOffset: 2000 } },
  ];
  const page = lab.gradeExercise({ exercise: ex, seed, attempts });
  assert.equal(page.max, 4);
  assert.equal(page.points, 2);  // the weight never right; the choice and the task right
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'poslab-grade-'));
  const sub = path.join(dir, 'alice.json');
  fs.writeFileSync(sub, JSON.stringify({ format: 'position-lab-submission', version: 1, learner: 'alice',
    exercises: [{ id: 'grading-demo', contentHash, seed, attempts, claimed: { points: page.points, max: page.max } }] }));
  const r = spawnSync(cliPath, ['grade', '--exercises', fixtures, sub, '--format', 'json'], { encoding: 'utf8' });
  fs.rmSync(dir, { recursive: true });
  const row = JSON.parse(r.stdout).rows[0];
  assert.equal(row.status, 'graded');
  assert.equal(row.points, page.points);
  assert.equal(row.claimedDiffers, false);
  assert.deepEqual(row.questions, page.questions);
});

test('callCore evaluates declared calls like the native grader', () => {
  const r = lab.callCore({ call: 'attentionSteps', args: { vectors: [[1, 0], [0, 1]], weights: 'identity', scale: 'none' } });
  assert.ok(Math.abs(r.weights.data[0] - Math.E / (Math.E + 1)) < 1e-6);
  assert.throws(() => lab.callCore({ call: 'backward', args: {} }), (e) => e instanceof Error && e.code === 'unknown_function');
  const before = lab.count_emval_handles();
  for (let i = 0; i < 20; i++) {
    try { lab.callCore({ call: 'forward', args: { text: '' } }); } catch { /* expected */ }
  }
  assert.equal(lab.count_emval_handles(), before);
});

test('exercise 1: typing the goal sentence is no reordering; only a permutation of the exercise sentence solves the task (page and poslab grade)', () => {
  const file = path.join(root, 'exercises', '01-reorder.yaml');
  const ex = load(file);
  const { seed, contentHash } = lab.variant({ exercise: ex, learner: 'bob' });
  // 犬 が 猫 を 追いかけ た → 猫 が 犬 を 追いかけ た swaps positions 0 and 2;
  // "The dog chased the cat." → "The cat chased the dog." swaps positions 1 and 4.
  const typed = { sentence: '猫が犬を追いかけた', d: 8, seed: 0 };
  const cases = [
    [{ permutation: [0, 1, 2, 3, 4, 5] }, typed, 'ja', 'incorrect'],  // the goal sentence typed, not reordered
    [{ tokens: ['猫', 'が', '犬', 'を', '追いかけ', 'た'] }, typed, 'ja', 'malformed'],  // the old answer, which could not tell
    [{ permutation: [2, 1, 0, 3, 4, 5] }, { sentence: '犬が猫を追いかけた', d: 8, seed: 0 }, 'ja', 'correct'],
    [{ permutation: [0, 1, 2, 3, 4, 5] }, { sentence: 'The cat chased the dog.', d: 8, seed: 0 }, 'en', 'incorrect'],
    [{ permutation: [0, 4, 2, 3, 1, 5] }, { sentence: 'The dog chased the cat.', d: 8, seed: 0 }, 'en', 'correct'],
  ];
  for (const [answer, labValues, lang, status] of cases) {
    assert.equal(lab.checkAttempt({ exercise: ex, question: 'make-target', answer, lab: labValues, lang }).status, status, JSON.stringify(answer));
  }
  // poslab grade refuses the typed sentence too, and accepts the reordering.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'poslab-grade-'));
  const rows = [];
  for (const [i, [answer, labValues, lang]] of cases.entries()) {
    const attempts = [{ question: 'make-target', answer, lab: labValues, lang }];
    const sub = path.join(dir, `s${i}.json`);
    fs.writeFileSync(sub, JSON.stringify({ format: 'position-lab-submission', version: 1, learner: 'bob',
      exercises: [{ id: 'reorder', contentHash, seed, attempts, claimed: { points: 0, max: 0 } }] }));
    const r = spawnSync(cliPath, ['grade', '--exercises', path.join(root, 'exercises'), sub, '--format', 'json'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const row = JSON.parse(r.stdout).rows[0];
    assert.equal(row.status, 'graded');
    rows.push(row.questions.find((q) => q.id === 'make-target').solved);
  }
  fs.rmSync(dir, { recursive: true });
  assert.deepEqual(rows, [false, false, true, false, true]);
});

test('checkAttempt (the page\'s own check) refuses lab settings the exercise does not offer, as the re-grade does: lab_not_allowed', () => {
  const ex = load(path.join(root, 'exercises', '01-reorder.yaml'));
  const answer = { permutation: [2, 1, 0, 3, 4, 5] };
  const ok = { sentence: '犬が猫を追いかけた', d: 8, seed: 0, pe: 'none' };
  assert.equal(lab.checkAttempt({ exercise: ex, question: 'make-target', answer, lab: ok, lang: 'ja' }).status, 'correct');
  // Exercise 1 has no position-information control (pe is none) and no heads control.
  for (const bad of [{ ...ok, pe: 'sinusoidal' }, { ...ok, heads: 2 }, { ...ok, causal: true }, { ...ok, tokens: 'not a list' }]) {
    assert.throws(() => lab.checkAttempt({ exercise: ex, question: 'make-target', answer, lab: bad, lang: 'ja' }), (e) => e.code === 'lab_not_allowed', JSON.stringify(bad));
  }
  // The tokens the page records are a setting it may send.
  assert.equal(lab.checkAttempt({ exercise: ex, question: 'make-target', answer, lab: { ...ok, tokens: ['犬', 'が', '猫', 'を', '追いかけ', 'た'] }, lang: 'ja' }).status, 'correct');
});
