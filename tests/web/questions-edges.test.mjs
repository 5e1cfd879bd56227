// web/js/questions.js at its edges (StrykerJS survivors of its shared
// helpers, lines 1-134): variant values that are absent or odd, what the cost line touches,
// and what an attempt the grading store did not keep does to progress.js for
// the rest of the page's life (its own process: a fresh progress.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Q, T, settle, makeCtx, mount, one, feedbackOf, submit, lastAnswered, numericBlock } from './questions-harness.mjs';

test('variant values: absent variant, odd names and indexes stay as written; 0 and null are printed', () => {
  const { ctx } = makeCtx();
  delete ctx.variant;
  const q = Q.numeric(numericBlock({ prompt: 'x {{a}} y' }), ctx);
  assert.equal(one(q.el, '.prompt').innerHTML, '<p>x {{a}} y</p>');
  const variant = { a: 5, z: 0, n: null, v: [7, 8] };
  const prompt = '{{a.x}}|{{ a }}|{{v.5}}|{{a.0}}|{{z}}|{{n}}|{{v.0}}{{v.1}}|{{v}}|{a}|{{a}}{{a}}';
  const { el } = mount('numeric', numericBlock({ prompt }), { variant });
  assert.equal(one(el, '.prompt').innerHTML, '<p>{{a.x}}|{{ a }}|{{v.5}}|{{a.0}}|0|null|78|7,8|{a}|55</p>');
  // Names and indexes of more than one character.
  const long = mount('numeric', numericBlock({ prompt: '{{name}} {{list.10}}' }), { variant: { name: 'dModel', list: [...Array(11).keys()].map((i) => i * 2) } });
  assert.equal(one(long.el, '.prompt').innerHTML, '<p>dModel 20</p>');
});

test('cost line: none left disables only the form controls, nothing else on the page', async () => {
  const { el } = mount('numeric', numericBlock({ max_attempts: 1 }), { core: { attemptStatus: { left: 0, nextCredit: 0, maxAttempts: 1 } } });
  await settle();
  const disabled = el.all((e) => e.disabled);
  assert.deepEqual(disabled.map((e) => e.tagName), ['INPUT', 'INPUT', 'BUTTON']);
  const status = { left: 2, nextCredit: 1, maxAttempts: 3 };
  const open = mount('numeric', numericBlock({ max_attempts: 3 }), { core: { attemptStatus: status } });
  await settle();
  assert.deepEqual(open.el.all((e) => e.disabled), []);
  assert.equal(one(open.el, '.attempt-cost').textContent, T('q.attempts_left', { n: 2 }) + T('q.next_credit', { pct: 100 }));
});

test('an attempt the grading store did not keep stops progress.js writing for the page (it keeps nothing the store did not); one it kept does not', async () => {
  const practice = () => mount('numeric', numericBlock(), { check: { status: 'correct', parts: [true, true] } });
  await submit(practice().el);
  assert.equal(lastAnswered().saved, true);
  // Graded and kept (no notSaved): progress.js goes on writing.
  await submit(mount('numeric', numericBlock(), { graded: true, check: { status: 'wrong', parts: [false, false] } }).el);
  assert.equal(lastAnswered().saved, true);
  await submit(practice().el);
  assert.equal(lastAnswered().saved, true);
  // Graded, not kept: said beside the question, and progress.js writes nothing more.
  const lost = mount('numeric', numericBlock(), { graded: true, notSaved: 'unavailable', check: { status: 'correct', parts: [true, true] } });
  await submit(lost.el);
  assert.equal(lastAnswered().saved, false);
  assert.equal(one(feedbackOf(lost.el), '.not-saved').textContent, T('q.not_saved_unavailable'));
  const after = practice();
  await submit(after.el);
  assert.equal(lastAnswered().saved, false);
  assert.equal(one(feedbackOf(after.el), '.not-saved').textContent, T('q.not_saved_unavailable'));
});
