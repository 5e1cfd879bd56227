// The build's extra checks for attempt costs and predictions (crossCheck).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { crossCheck } from '../../web/js/exercise-loader.mjs';

const label = { ja: 'x', en: 'x' };
const opt = (id, extra = {}) => ({ id, label, ...extra });
const ex = (...blocks) => ({ id: 'e', blocks });
const choice = (extra) => ({ type: 'choice', id: 'c', prompt: label, options: [opt('a'), opt('b'), opt('c')], answer: ['a'], ...extra });

test('a single choice must not allow clicking through every option', () => {
  assert.match(crossCheck(ex(choice({}))).join('\n'), /max_attempts: a single choice with 3 options needs max_attempts below 3 \(has no limit\)/);
  assert.match(crossCheck(ex(choice({ max_attempts: 3 }))).join('\n'), /needs max_attempts below 3 \(has 3\)/);
  assert.deepEqual(crossCheck(ex(choice({ max_attempts: 2, credit: [1, 0.5] }))), []);
  // Two options: only one attempt (a true/false with its guess at stake).
  assert.match(crossCheck(ex(choice({ options: [opt('a'), opt('b')], max_attempts: 2 }))).join('\n'), /below 2/);
  assert.deepEqual(crossCheck(ex(choice({ options: [opt('a'), opt('b')], max_attempts: 1 }))), []);
});

test('credit never increases and has no entries past max_attempts', () => {
  assert.match(crossCheck(ex(choice({ max_attempts: 2, credit: [0.5, 1] }))).join('\n'), /credit\[1\]: 1 is more than the attempt before \(0\.5\)/);
  assert.match(crossCheck(ex(choice({ max_attempts: 1, credit: [1, 0.5] }))).join('\n'), /2 entries for max_attempts 1/);
});

test('an extrapolate widget\'s prediction offers every trained scheme', () => {
  const pred = { type: 'prediction', id: 'p', prompt: label, options: [opt('learned'), opt('none')] };
  const w = { type: 'extrapolate', id: 'w', prediction: 'p', schemes: ['learned', 'rope', 'none'] };
  assert.match(crossCheck(ex(pred, w)).join('\n'), /option ids rope are missing/);
  assert.deepEqual(crossCheck(ex(pred, { ...w, schemes: ['learned', 'none'] })), []);
  assert.match(crossCheck(ex(choice({ id: 'p', max_attempts: 1 }), { ...w, schemes: ['learned'] })).join('\n'), /not the id of a prediction question/);
});

test('a presenter block shows a widget of its file, or choice questions of it; the schema takes it, the loader takes the real files', async () => {
  const { readFileSync, mkdtempSync, writeFileSync, copyFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const { validate } = await import('../../web/js/schema-check.mjs');
  const { loadExercises } = await import('../../web/js/exercise-loader.mjs');
  const root = join(import.meta.dirname, '..', '..', 'exercises');
  const points = [label];
  const tokens = { type: 'tokens', id: 'chips' };
  const lines = { type: 'attention-lines', id: 'lines', tokens: 'chips' };
  const c = choice({ max_attempts: 2 });
  assert.deepEqual(crossCheck({ ...ex(tokens, lines), presenter: { step: 1, minutes: 5, visual: 'lines', talking_points: points } }), []);
  assert.match(crossCheck({ ...ex(tokens, c), presenter: { step: 1, minutes: 5, visual: 'c', talking_points: points } }).join('\n'), /presenter\.visual: "c" is not the id of a widget/);
  assert.match(crossCheck({ ...ex(tokens, c), presenter: { step: 1, minutes: 5, questions: ['chips'], talking_points: points } }).join('\n'), /presenter\.questions\[0\]: "chips" is not the id of a choice question/);
  assert.match(crossCheck({ ...ex(tokens, c), presenter: { step: 1, minutes: 5, talking_points: points } }).join('\n'), /needs exactly one of visual, questions/);
  assert.match(crossCheck({ ...ex(tokens, c), presenter: { step: 1, minutes: 5, visual: 'chips', questions: ['c'], talking_points: points } }).join('\n'), /needs exactly one of visual, questions/);
  assert.deepEqual(crossCheck({ ...ex(tokens, c), presenter: { step: 7, minutes: 5, questions: ['c'], talking_points: points } }), []);
  // The schema: known fields only, text pairs, bounded.
  const schema = JSON.parse(readFileSync(join(root, 'exercise.schema.json'), 'utf8'));
  const file = { id: 'e', order: 1, title: label, summary: label, blocks: [tokens, lines] };
  assert.deepEqual(validate({ ...file, presenter: { step: 1, minutes: 5, visual: 'lines', controls: ['mask'], formula: ['x'], talking_points: points } }, schema), []);
  const errs = (p) => validate({ ...file, presenter: p }, schema).map((e) => `${e.path}: ${e.message}`).join('\n');
  assert.match(errs({ step: 1, minutes: 5, visual: 'lines', talking_points: points, notes: 'x' }), /presenter/);
  assert.match(errs({ step: 1, minutes: 5, visual: 'lines', talking_points: [{ ja: 'x' }] }), /presenter\.talking_points\[0\]/);
  assert.match(errs({ step: 1, minutes: 0, visual: 'lines', talking_points: points }), /presenter\.minutes/);
  assert.match(errs({ step: 1, minutes: 5, visual: 'lines', controls: ['weights'], talking_points: points }), /presenter\.controls\[0\]/);
  assert.match(errs({ step: 1, visual: 'lines', talking_points: points }), /minutes/);
  // The lab's files: seven steps (the six of the lesson and the questions), 60 minutes in all.
  const steps = loadExercises(root).filter((e) => e.presenter).map((e) => e.presenter);
  assert.deepEqual(steps.map((p) => p.step).sort((a, b) => a - b), [1, 2, 3, 4, 5, 6, 7]);
  assert.equal(steps.reduce((a, p) => a + p.minutes, 0), 60);
  assert.deepEqual(steps.find((p) => p.questions).questions.length, 5);
  // A step number used twice is refused.
  const dir = mkdtempSync(join(tmpdir(), 'poslab-ex-'));
  copyFileSync(join(root, 'exercise.schema.json'), join(dir, 'exercise.schema.json'));
  for (const f of ['01-reorder.yaml', '02-formula.yaml']) writeFileSync(join(dir, f), readFileSync(join(root, f), 'utf8').replace('  step: 2\n', '  step: 1\n'));
  assert.throws(() => loadExercises(dir), /02-formula\.yaml: presenter\.step: 1 is also used by exercises\/01-reorder\.yaml/);
});

test('ranges: the schema defines range once and refuses a malformed one; the loader refuses min above max', async () => {
  const { readFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { validate, duplicateKeys } = await import('../../web/js/schema-check.mjs');
  const schemaPath = join(new URL('../../exercises', import.meta.url).pathname, 'exercise.schema.json');
  const text = readFileSync(schemaPath, 'utf8');
  // A key twice in one object: JSON.parse keeps the last, so the first is dead text.
  assert.deepEqual(duplicateKeys(text), []);
  assert.deepEqual(duplicateKeys('{\n "a": {"x": 1},\n "b": ["a", {"a": 2}],\n "a": 3\n}'), [{ key: 'a', line: 4 }]);
  assert.deepEqual(duplicateKeys('{"s": "a\\"b", "t": {"s": 1}}'), []);
  const schema = JSON.parse(text);
  const file = { id: 'e', order: 1, title: label, summary: label, blocks: [{ type: 'compare', id: 'w', schemes: ['learned'] }] };
  const errs = (ranges) => [
    ...validate({ ...file, lab: { ranges } }, schema),
    ...validate({ ...file, blocks: [{ ...file.blocks[0], ranges }] }, schema),
  ].map((e) => `${e.path}: ${e.message}`).join('\n');
  assert.equal(errs({ d: { min: 1, max: 8 }, seed: { max: 4294967295 }, tokens: { max: 16 } }), '');
  assert.match(errs({ d: { min: -1 } }), /lab\.ranges\.d\.min: must be >= 0, got -1\n.*blocks\[0\]\.ranges\.d\.min: must be >= 0, got -1/);
  assert.match(errs({ seed: { max: 4294967296 } }), /lab\.ranges\.seed\.max: must be <= 4294967295/);
  assert.match(errs({ heads: { min: 1.5 } }), /lab\.ranges\.heads\.min: must be integer, got number 1\.5/);
  assert.match(errs({ heads: { low: 1 } }), /lab\.ranges\.heads\.low: unknown field; allowed: min, max/);
  assert.match(errs({ width: { max: 3 } }), /lab\.ranges\.width: unknown field; allowed: d, heads, seed, tokens/);
  // What a schema cannot say: min above max leaves no value to choose.
  assert.match(crossCheck({ ...file, lab: { ranges: { d: { min: 9, max: 8 } } } }).join('\n'), /lab\.ranges\.d: min 9 is more than max 8; no value would be allowed/);
  assert.match(crossCheck({ ...file, blocks: [{ ...file.blocks[0], ranges: { heads: { min: 4, max: 2 } } }] }).join('\n'), /blocks\[0\]\.ranges\.heads: min 4 is more than max 2/);
  assert.deepEqual(crossCheck({ ...file, lab: { ranges: { d: { min: 8, max: 8 } } } }), []);
});

test('reveal_after names numeric or choice questions of the same file', () => {
  const w = { type: 'swaps', id: 'sw', token: 2, swaps: [[1, 3]] };
  assert.deepEqual(crossCheck(ex(choice({ max_attempts: 2 }), { ...w, reveal_after: ['c'] })), []);
  assert.match(crossCheck(ex(choice({ max_attempts: 2 }), { ...w, reveal_after: ['nope'] })).join('\n'), /reveal_after\[0\]: "nope" is not the id of a numeric or choice question in this file/);
  assert.match(crossCheck(ex({ ...w, reveal_after: ['sw'] })).join('\n'), /reveal_after\[0\]: "sw" is not the id/);
});
