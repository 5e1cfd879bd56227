// Unit tests of the page's helpers (web/js/check.js) and of the exercise
// files' validation (web/js/exercise-loader.mjs). No browser needed. The
// answer checks themselves are the core's (tests/cpp/grading_test.cpp,
// tests/wasm/grading.test.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, copyFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { evalCondition, rowsDiffer, swapPermutation, getPath } from '../../web/js/check.js';
import { loadExercises } from '../../web/js/exercise-loader.mjs';
import { root } from './helpers.mjs';

test('evalCondition and helpers', () => {
  const w = { state: { isTarget: true, shift: 0 }, result: { maxAbsDiff: 0.2, learnedError: { message: 'x' } } };
  assert.equal(evalCondition({ path: 'state.isTarget', equals: true }, w), true);
  assert.equal(evalCondition({ path: 'result.maxAbsDiff', gt: 0.001 }, w), true);
  assert.equal(evalCondition({ path: 'result.maxAbsDiff', lt: 0.001 }, w), false);
  assert.equal(evalCondition({ path: 'state.shift', gt: 0 }, w), false);
  assert.equal(evalCondition({ path: 'result.learnedError', is_error: true }, w), true);
  assert.equal(evalCondition({ path: 'result.missing', is_error: true }, w), false);
  assert.equal(evalCondition({ path: 'state.isTarget', equals: true }, undefined), false);
  assert.equal(rowsDiffer([1, 2], [1, 2 + 1e-9]), false);
  assert.equal(rowsDiffer([1, 2], [1, 2.1]), true);
  assert.deepEqual(swapPermutation(5, 0, 2), [2, 1, 0, 3, 4]);
  assert.equal(getPath({ a: { data: [5, 6] } }, 'a.data.1'), 6);
});

function withExercise(yaml, fn) {
  const dir = mkdtempSync(join(tmpdir(), 'poslab-ex-'));
  copyFileSync(join(root, 'exercises', 'exercise.schema.json'), join(dir, 'exercise.schema.json'));
  writeFileSync(join(dir, '01-bad.yaml'), yaml);
  try {
    return fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const head = 'id: demo\norder: 1\ntitle: { ja: 題, en: Title }\nsummary: { ja: 要約, en: Summary }\n';

test('the repository exercises load: twelve, in order', () => {
  const ex = loadExercises(join(root, 'exercises'));
  assert.equal(ex.length, 12);
  assert.deepEqual(ex.map((e) => e.order), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
});

test('a malformed exercise file: errors name the file and the field', () => {
  withExercise(head + 'blocks:\n  - type: text\n    body: { ja: あ }\n', (dir) => {
    assert.throws(() => loadExercises(dir), /exercises\/01-bad\.yaml: blocks\[0\]\.body\.en: is required/);
  });
  withExercise(head + 'blocks:\n  - type: slider\n', (dir) => {
    assert.throws(() => loadExercises(dir), /01-bad\.yaml: blocks\[0\]\.type: unknown type "slider"; allowed: text, note/);
  });
  withExercise(head + 'blocks:\n  - type: choice\n    id: q\n    prompt: { ja: 問, en: Q }\n    options: [{ id: a, label: { ja: あ, en: A } }, { id: b, label: { ja: い, en: B } }]\n    answer: [c]\n', (dir) => {
    assert.throws(() => loadExercises(dir), /blocks\[0\]\.answer: "c" is not one of the options \(a, b\)/);
  });
  // pairs_leaving: option ids name a RoPE pair (pI) or none; the question is a multiple choice.
  withExercise(head + 'blocks:\n  - type: choice\n    id: q\n    multiple: true\n    prompt: { ja: 問, en: Q }\n    options: [{ id: p0, label: { ja: あ, en: A } }, { id: pair1, label: { ja: い, en: B } }]\n    answer_from: { pairs_leaving: { args: { d: 4, trainedLength: 8, s: 2 } } }\n', (dir) => {
    assert.throws(() => loadExercises(dir), /blocks\[0\]\.options\[1\]\.id: with pairs_leaving, ids name a RoPE pair as pI \(e\.g\. p0\) or are none, got "pair1"/);
  });
  // extend_run: ids name a method of the run (method-M) or none; the exercise has the run widget and lab.run_seeds.
  const runQ = (lab, ids) => `${head}${lab}blocks:\n  - type: rope-extend-run\n    id: run\n  - type: choice\n    id: q\n    multiple: true\n    prompt: { ja: 問, en: Q }\n    options: [${ids.map((id) => `{ id: ${id}, label: { ja: あ, en: A } }`).join(', ')}]\n    answer_from: { extend_run: { seeds: $runSeeds, args: { methods: [none, pi] } } }\n`;
  withExercise(runQ('lab: { run_seeds: [[1]] }\n', ['method-pi', 'method-yarn', 'none']), (dir) => {
    assert.throws(() => loadExercises(dir), /blocks\[1\]\.options\[1\]\.id: with extend_run, ids name a method of the run as method-M \(M one of none, pi\) or are none, got "method-yarn"/);
  });
  withExercise(runQ('', ['method-pi', 'none']), (dir) => {
    assert.throws(() => loadExercises(dir), /blocks\[1\]\.answer_from\.extend_run: the exercise needs lab\.run_seeds/);
  });
  withExercise(runQ('lab: { run_seeds: [[1]] }\n', ['method-pi', 'none']), (dir) => {
    assert.equal(loadExercises(dir).length, 1);
  });
  withExercise(head + 'lab: { pe: cosine }\nblocks:\n  - type: note\n    body: { ja: あ, en: a }\n', (dir) => {
    assert.throws(() => loadExercises(dir), /lab\.pe: "cosine" is not allowed; allowed: "none", "sinusoidal"/);
  });
  withExercise(head + 'blocks:\n  - type: numeric\n    id: n\n    prompt: { ja: 問, en: Q }\n    fields: [{ label: x, expect: { call: softmax } }]\n', (dir) => {
    assert.throws(() => loadExercises(dir), /blocks\[0\]\.fields\[0\]\.expect\.call: "softmax" is not allowed/);
  });
  withExercise(head + 'blocks:\n  - type: task\n    id: t\n    prompt: { ja: 問, en: Q }\n    condition: { widget: nowhere, path: state.x, equals: 1, check: { call: forward, path: output, equals: 1 } }\n', (dir) => {
    assert.throws(() => loadExercises(dir), /condition\.widget: "nowhere" is not the id of a widget/);
  });
  // A check that passes on any error is refused: it must name the error it teaches.
  withExercise(head + 'blocks:\n  - type: wall\n    id: w\n  - type: task\n    id: t\n    prompt: { ja: 問, en: Q }\n    condition: { widget: w, path: result.learnedError, is_error: true, check: { call: encoding, is_error: true } }\n', (dir) => {
    assert.throws(() => loadExercises(dir), /condition\.check(\.is_error: unknown field|: needs exactly one of equals, gt, lt, error)/);
  });
  withExercise(head + 'lab: { ranges: { d: { max: -1 } } }\nblocks:\n  - type: note\n    body: { ja: あ, en: a }\n', (dir) => {
    assert.throws(() => loadExercises(dir), /lab\.ranges\.d\.max/);
  });
  withExercise('id: [unclosed\n', (dir) => {
    assert.throws(() => loadExercises(dir), /01-bad\.yaml: not valid YAML/);
  });
  withExercise(head + 'colour: red\nblocks:\n  - type: note\n    body: { ja: あ, en: a }\n', (dir) => {
    assert.throws(() => loadExercises(dir), /01-bad\.yaml: colour: unknown field; allowed: id, order/);
  });
});
