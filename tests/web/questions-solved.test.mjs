// web/js/questions.js: behaviour left untested by the StrykerJS run of issue #23
// (survivors in numeric, choice, task, prediction, explain): a question once
// solved stays solved for the cost line; where "solved" comes from; which
// lines a wrong choice shows; when a task's hint shows; when a prediction is
// closed; what is restored; optional ctx hooks; and the a11y markup of the forms.
// The expected states follow from the rules (attemptStatus: left = max − made),
// not from running questions.js.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { window, Q, T, settle, makeCtx, mount, one, feedbackOf, texts, submit, lastAnswered, numericBlock } from './questions-harness.mjs';

// The core's attemptStatus for `max` attempts, full credit: left = max − made.
const statusFor = (max) => (a) => ({ left: max - a.made, nextCredit: 1, maxAttempts: max });
// ctx.check answering each call with the next verdict of the list.
const inTurn = (...verdicts) => () => verdicts.shift();
const cost = (el) => one(el, '.attempt-cost');
const controlsDisabled = (el) => one(el, 'form').querySelectorAll('input, button').map((x) => x.disabled);

const choiceBlock = (o = {}) => ({
  id: 'c1',
  type: 'choice',
  prompt: { ja: 'ja', en: 'Pick one' },
  options: [
    { id: 'a', label: { ja: 'ja', en: 'Alpha' } },
    { id: 'b', label: { ja: 'ja', en: 'Beta' }, why: { ja: 'ja', en: 'Beta is wrong because.' } },
    { id: 'c', label: { ja: 'ja', en: 'Gamma' } },
  ],
  ...o,
});
const pickOptions = (el, ids) => el.querySelectorAll('input').forEach((i) => (i.checked = ids.includes(i.value)));

// ---- solved stays solved -----------------------------------------------------------
test('numeric: wrong, right, wrong with 3 attempts: the cost line shows until solved, then stays hidden and the form open when none is left', async () => {
  const wrong = { status: 'wrong', parts: [false, false] };
  const right = { status: 'correct', parts: [true, true] };
  const { el } = mount('numeric', numericBlock({ max_attempts: 3 }), { core: { attemptStatus: statusFor(3) }, check: inTurn(wrong, right, wrong) });
  await settle();
  assert.equal(cost(el).hidden, false);
  await submit(el);
  // Not solved after a wrong first attempt: 2 of 3 left, said.
  assert.equal(cost(el).hidden, false);
  assert.equal(cost(el).textContent, T('q.attempts_left', { n: 2 }) + T('q.next_credit', { pct: 100 }));
  await submit(el);
  assert.equal(cost(el).hidden, true);
  // The third (wrong) attempt uses the last one: solved before, so no closing.
  await submit(el);
  assert.equal(cost(el).hidden, true);
  assert.deepEqual(controlsDisabled(el), [false, false, false]);
  assert.equal(el.classList.contains('done'), true);
});

test('numeric: solved in the store, a wrong attempt after it (the last one) does not unsolve it', async () => {
  const { el } = mount('numeric', numericBlock({ max_attempts: 1 }), { solved: () => true, core: { attemptStatus: statusFor(1) }, check: { status: 'wrong', parts: [false, true] } });
  await settle();
  assert.equal(cost(el).hidden, true);
  await submit(el);
  assert.equal(cost(el).hidden, true);
  assert.deepEqual(controlsDisabled(el), [false, false, false]);
});

test('choice: wrong, right, wrong with 3 attempts: solved only by the right one, and then for good', async () => {
  const wrong = { status: 'wrong', parts: [false, false, true] };
  const right = { status: 'correct', parts: [true, true, true] };
  const { el } = mount('choice', choiceBlock({ max_attempts: 3 }), { core: { attemptStatus: statusFor(3) }, check: inTurn(wrong, right, wrong) });
  await settle();
  pickOptions(el, ['b']);
  await submit(el);
  assert.equal(cost(el).hidden, false);
  assert.equal(cost(el).textContent, T('q.attempts_left', { n: 2 }) + T('q.next_credit', { pct: 100 }));
  pickOptions(el, ['a']);
  await submit(el);
  assert.equal(cost(el).hidden, true);
  pickOptions(el, ['c']);
  await submit(el);
  assert.equal(cost(el).hidden, true);
  assert.deepEqual(controlsDisabled(el), [false, false, false, false]);
});

test('choice: solved at the start from the store or from progress.js; neither: none left closes it', async () => {
  const none = { core: { attemptStatus: { left: 0, nextCredit: 0, maxAttempts: 1 } } };
  const store = mount('choice', choiceBlock({ max_attempts: 1 }), { ...none, solved: () => true });
  await settle();
  assert.equal(cost(store.el).hidden, true);
  assert.deepEqual(controlsDisabled(store.el), [false, false, false, false]);
  const fresh = mount('choice', choiceBlock({ max_attempts: 1 }), none);
  await settle();
  assert.equal(cost(fresh.el).hidden, false);
  assert.equal(cost(fresh.el).textContent, T('q.no_attempts_left', { max: 1 }));
  assert.deepEqual(controlsDisabled(fresh.el), [true, true, true, true]);
  // Practice: solved once in this exercise (progress.js), shown again: open.
  const first = mount('choice', choiceBlock(), { exerciseId: 'solved-choice', check: { status: 'correct', parts: [true, true, true] } });
  pickOptions(first.el, ['a']);
  await submit(first.el);
  const again = mount('choice', choiceBlock({ max_attempts: 1 }), { ...none, exerciseId: 'solved-choice' });
  await settle();
  assert.equal(cost(again.el).hidden, true);
  assert.deepEqual(controlsDisabled(again.el), [false, false, false, false]);
});

// ---- what a wrong choice shows ---------------------------------------------------
test('choice: single choice, wrong pick with the right option missed: no missed or extra count (those are for multiple)', async () => {
  const { el } = mount('choice', choiceBlock(), { check: { status: 'wrong', parts: [false, false, true] } });
  pickOptions(el, ['b']);
  await submit(el);
  assert.deepEqual(texts(feedbackOf(el)), [T('q.wrong'), 'Beta: Beta is wrong because.', T('q.attempts', { n: 1 })]);
});

test('choice: a change saves only the checked options as the draft; no draft hook is fine', async () => {
  const { el, calls } = mount('choice', choiceBlock({ multiple: true }));
  pickOptions(el, ['a', 'c']);
  await el.querySelectorAll('input')[2].fire('change');
  assert.deepEqual(calls.draft, [['c1', ['a', 'c']]]);
  const { ctx } = makeCtx();
  delete ctx.draft;
  const q = Q.choice(choiceBlock(), ctx);
  await q.el.querySelectorAll('input')[0].fire('change');
  const n = Q.numeric(numericBlock(), ctx);
  await n.el.querySelectorAll('input')[0].fire('input');
});

// ---- task: the hint -----------------------------------------------------------------
const taskBlock = (o = {}) => ({ id: 't1', type: 'task', prompt: 'Make it big', condition: { widget: 'w1', path: 'result.diff', gt: 0.1 }, ...o });
test('task: open and touched but no hint in the file: nothing shown; a hint but untouched: nothing shown', async () => {
  const widgets = new Map([['w1', { result: { diff: 0 } }]]);
  const noHint = mount('task', taskBlock(), { widgets, widgetTouched: () => true });
  await noHint.q.refresh();
  assert.equal(feedbackOf(noHint.el).children.length, 0);
  assert.equal(feedbackOf(noHint.el).className, 'feedback');
  const untouched = mount('task', taskBlock({ hint: 'Try more.' }), { widgets, widgetTouched: () => false });
  await untouched.q.refresh();
  assert.equal(feedbackOf(untouched.el).children.length, 0);
  assert.equal(feedbackOf(untouched.el).className, 'feedback');
});

// ---- prediction: closed ---------------------------------------------------------
const predBlock = (o = {}) => ({ id: 'p1', type: 'prediction', prompt: 'Guess', options: [{ id: 'up', label: 'Up' }, { id: 'down', label: 'Down' }], ...o });
test('prediction: a kept ran_before_prediction attempt closes it even after attempts with no answer', () => {
  const { el } = mount('prediction', predBlock(), { attempts: () => [{ correct: false }, { answer: null }, { answer: { ran_before_prediction: true } }] });
  assert.equal(el.dataset.closed, 'true');
  assert.equal(feedbackOf(el).className, 'feedback closed');
});

test('prediction: closed by a run, a submit (even with a pick) asks the core nothing and keeps the closed notice', async () => {
  const { el, ctx, calls } = mount('prediction', predBlock(), { check: { status: 'recorded' } });
  window.dispatchEvent(new CustomEvent('poslab:prediction-closed', { detail: { exercise: ctx.exercise.id, question: 'p1' } }));
  assert.equal(el.dataset.closed, 'true');
  pickOptions(el, ['up']);
  await submit(el);
  assert.equal(calls.check.length, 0);
  assert.deepEqual(texts(feedbackOf(el)), [T('q.prediction_closed')]);
  assert.equal(calls.progress, 0);
});

// ---- explain: restored, saved -------------------------------------------------------
test('explain: the last of several saved texts is restored; saved without a learner id says practice', async () => {
  const block = { id: 'e1', type: 'explain', prompt: 'Why?' };
  const o = { exerciseId: 'explain-three', check: { status: 'recorded' } };
  for (const text of ['first', 'second', 'third']) {
    const { el } = mount('explain', block, o);
    one(el, 'textarea').value = text;
    await submit(el);
    assert.deepEqual(texts(feedbackOf(el)), [T('q.explain_saved_practice')]);
  }
  assert.equal(lastAnswered().answer, 'third');
  const { el, ctx } = mount('explain', block, o);
  assert.equal(one(el, 'textarea').value, 'third');
  // Typing without a draft hook.
  delete ctx.draft;
  const q = Q.explain(block, ctx);
  await one(q.el, 'textarea').fire('input');
});

// ---- a11y markup of the forms ---------------------------------------------------------
test('a11y: feedback is a polite status; forms are novalidate with a submit button; legends are sr-only; field marks are hidden', () => {
  const forms = [
    mount('numeric', numericBlock()).el,
    mount('choice', choiceBlock({ answer_from: { extend_run: {} } }), { lab: {} }).el,
    mount('prediction', predBlock()).el,
    mount('explain', { id: 'e2', type: 'explain', prompt: 'Why?' }).el,
  ];
  for (const el of forms) {
    const fb = one(el, '.feedback');
    assert.deepEqual([fb.getAttribute('role'), fb.getAttribute('aria-live')], ['status', 'polite']);
    const form = one(el, 'form');
    assert.equal(form.getAttribute('novalidate'), '');
    assert.equal(form.className.split(' ')[0], 'answer-form');
    assert.equal(one(form, 'button').getAttribute('type'), 'submit');
  }
  const [numeric, choice, prediction, explain] = forms;
  for (const el of [choice, prediction]) assert.equal(one(el, 'legend').className, 'sr-only');
  assert.equal(one(choice, '.run-note').getAttribute('role'), 'status');
  const input = numeric.querySelectorAll('input')[0];
  assert.deepEqual(['type', 'inputmode', 'autocomplete', 'spellcheck', 'class'].map((k) => input.getAttribute(k)), ['text', 'decimal', 'off', 'false', 'answer']);
  assert.deepEqual(numeric.querySelectorAll('.mark').map((m) => m.getAttribute('aria-hidden')), ['true', 'true']);
  assert.equal(one(explain, 'label').className, 'sr-only');
  assert.equal(one(explain, 'label').getAttribute('for'), 'e2-text');
});

test('a11y: explain is labelled by its title and its text area described by the prompt and the note; the live count is hidden', () => {
  const { el } = mount('explain', { id: 'e3', type: 'explain', prompt: 'Why?' });
  const title = one(el, 'h3');
  assert.equal(el.getAttribute('aria-labelledby'), title.id);
  assert.equal(title.id, 'e3-title');
  const ids = one(el, 'textarea').getAttribute('aria-describedby').split(' ');
  assert.deepEqual(ids, ['e3-prompt', 'e3-note']);
  assert.equal(one(el, '.prompt').id, 'e3-prompt');
  assert.equal(el.all((e) => e.id === 'e3-note')[0].textContent, T('q.explain_note', { max: 2000 }));
  assert.equal(one(el, '.explain-count').getAttribute('aria-hidden'), 'true');
});
