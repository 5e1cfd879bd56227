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
