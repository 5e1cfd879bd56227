// Option order, attempt costs, predictions and explanations in wasm (what the
// page uses) against the native CLI (what poslab grade uses): the same order
// for the same learner, the same credit rule, the same recorded answers.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { loadLab, cli } from './helpers.mjs';

const require = createRequire(import.meta.url);
const yaml = require('js-yaml');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const fixture = path.join(root, 'tests/fixtures/questions/attempt-costs.yaml');
const check = path.join(root, 'exercises/11-check.yaml');
const load = (file) => yaml.load(fs.readFileSync(file, 'utf8'));

let lab;
before(async () => {
  lab = await loadLab();
});

test('the page (wasm) and poslab (native) give a learner the same option order', () => {
  for (const file of [fixture, check]) {
    const exercise = load(file);
    // (The empty id is the page's practice variant; poslab refuses it as a learner id, rightly.)
    for (const learner of ['alice', 'bob', 'learner-17', '学習者']) {
      const page = lab.variant({ exercise, learner });
      const native = cli(['variant', '--exercise', file, '--learner', learner]);
      assert.equal(native.status, 0, native.stderr);
      assert.deepEqual(page.optionOrders, native.json.optionOrders, `${path.basename(file)} / ${learner}`);
      assert.equal(page.seed, native.json.seed);
    }
  }
});

test('every choice question of the check exercise is shuffled, each order a permutation of its options', () => {
  const exercise = load(check);
  const choices = exercise.blocks.filter((b) => b.type === 'choice');
  const firstIsAnswer = new Map(choices.map((q) => [q.id, 0]));
  for (let i = 0; i < 60; i++) {
    const { optionOrders } = lab.variant({ exercise, learner: `s${i}` });
    for (const q of choices) {
      assert.deepEqual([...optionOrders[q.id]].sort(), q.options.map((o) => o.id).sort());
      if (q.answer.includes(optionOrders[q.id][0])) firstIsAnswer.set(q.id, firstIsAnswer.get(q.id) + 1);
    }
  }
  // Three options: the right one is first for about 20 of 60 learners (q3 has two right options: about 40).
  for (const q of choices) {
    const n = firstIsAnswer.get(q.id);
    assert.ok(n > 5 && n < 55, `${q.id}: right option first for ${n} of 60`);
  }
});

test('attemptStatus: attempts left and the next attempt\'s credit, worked by hand from credit [1, 0.5, 0.25]', () => {
  const exercise = load(fixture);
  const s = (made) => lab.attemptStatus({ exercise, question: 'property', made });
  assert.deepEqual(s(0), { made: 0, maxAttempts: 3, left: 3, nextCredit: 1 });
  assert.deepEqual(s(1), { made: 1, maxAttempts: 3, left: 2, nextCredit: 0.5 });
  assert.deepEqual(s(2), { made: 2, maxAttempts: 3, left: 1, nextCredit: 0.25 });
  assert.deepEqual(s(3), { made: 3, maxAttempts: 3, left: 0, nextCredit: 0 });
  assert.throws(() => lab.attemptStatus({ exercise, question: 'property', made: -1 }), /whole number/);
  assert.throws(() => lab.attemptStatus({ exercise, question: 'property', made: 'x' }), /whole number/);
  // A prediction counts once.
  assert.deepEqual(lab.attemptStatus({ exercise, question: 'predict', made: 1 }), { made: 1, maxAttempts: 1, left: 0, nextCredit: 0 });
});

test('prediction and explain in wasm: recorded, never wrong, the same grade as native', () => {
  const exercise = load(fixture);
  const r = lab.checkAttempt({ exercise, question: 'predict', answer: ['none'] });
  assert.equal(r.status, 'recorded');
  assert.equal(r.score, 1);
  assert.equal(lab.checkAttempt({ exercise, question: 'predict', answer: ['alibi'] }).status, 'malformed');
  const e = lab.checkAttempt({ exercise, question: 'why', answer: '出力も同じように並べ替わる' });
  assert.equal(e.status, 'recorded');
  assert.equal(e.score, 0);
  assert.equal(lab.checkAttempt({ exercise, question: 'why', answer: 'x'.repeat(51) }).status, 'malformed', 'max_length 50');
  const seed = lab.variant({ exercise, learner: 'alice' }).seed;
  const attempts = [
    { question: 'property', answer: ['linearity'] },
    { question: 'property', answer: ['invariance'] },
    { question: 'property', answer: ['equivariance'] },
    { question: 'predict', answer: ['learned'] },
    { question: 'why', answer: 'because' },
  ];
  const g = lab.gradeExercise({ exercise, seed, attempts });
  // 2 points × credit 0.25 (the third attempt) + 1 for the prediction + 0 for the text.
  assert.equal(g.points, 1.5);
  assert.equal(g.max, 3);
  assert.deepEqual(g.questions.find((q) => q.id === 'predict').response, ['learned']);
  assert.equal(g.questions.find((q) => q.id === 'why').response, 'because');
  assert.deepEqual(g.questions.find((q) => q.id === 'property').order, lab.variant({ exercise, learner: 'alice' }).optionOrders.property);
});
