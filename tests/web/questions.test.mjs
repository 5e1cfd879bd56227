// web/js/questions.js on a stand-in DOM (tests/web/questions-dom.mjs): what
// each kind of question shows for what the core said, what it asks the core,
// what it records and announces. The core (ctx.check, ctx.core.call) and the
// Python sandbox (a <script> and a Worker) are stubs whose answers each test
// gives; the expected texts come from the catalog (catalog.js's format over
// web/i18n/en.json), not from questions.js.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { body, window, Q, T, settle, answered, makeCtx, mount, one, feedbackOf, texts, submit, lastAnswered, pyRequests, editors, setPython, setEditorLoads, numericBlock } from './questions-harness.mjs';

// ---- the question's frame ----------------------------------------------------
test('numeric: heading, prompt with the variant filled in, one field per label, the note', () => {
  const { el } = mount('numeric', numericBlock(), { variant: { a: 5, v: [10, 20] }, questionNote: (id) => `note for ${id}` });
  assert.equal(el.getAttribute('data-question'), 'n1');
  assert.equal(el.className, 'question q-numeric');
  assert.equal(el.getAttribute('aria-labelledby'), 'n1-title');
  const title = one(el, 'h2');
  assert.equal(title.id, 'n1-title');
  assert.equal(one(el, '.q-kind').textContent, T('q.numeric', { n: 7 }));
  assert.equal(one(el, '.q-state').textContent, '');
  assert.equal(title.className, 'q-title');
  assert.equal(title.textContent, `${T('q.numeric', { n: 7 })} `);
  const fb = one(el, '.feedback');
  assert.deepEqual([fb.tagName, fb.getAttribute('role'), fb.getAttribute('aria-live')], ['DIV', 'status', 'polite']);
  assert.equal(el.tagName, 'SECTION');
  assert.equal(one(el, '.prompt').tagName, 'DIV');
  assert.equal(one(el, '.practice-redo').tagName, 'P');
  // {{a}} → 5, {{v.1}} → 20 (index 1 of a list), an unknown name stays as written.
  assert.equal(one(el, '.prompt').innerHTML, '<p>Value 5 and 20 and {{zz}}</p>');
  const inputs = el.querySelectorAll('input');
  assert.deepEqual(inputs.map((i) => i.id), ['n1-f0', 'n1-f1']);
  assert.deepEqual(inputs.map((i) => i.getAttribute('data-field')), ['0', '1']);
  assert.deepEqual(inputs.map((i) => i.getAttribute('aria-label')), ['x₁', 'y']);
  assert.equal(el.querySelectorAll('label')[0].getAttribute('for'), 'n1-f0');
  assert.equal(one(el, '.practice-redo').textContent, 'note for n1');
  assert.equal(one(el, '.attempt-cost').hidden, true);
  assert.equal(el.classList.contains('done'), false);
});

test('numeric: a heading from the file replaces the numbered title; no note when questionNote says nothing', () => {
  const { el } = mount('numeric', numericBlock({ heading: { ja: '見出し', en: 'My heading' } }), { questionNote: () => '' });
  assert.equal(one(el, '.q-kind').textContent, 'My heading');
  assert.equal(el.querySelectorAll('.practice-redo').length, 0);
});

test('numeric: restored values fill the fields (a non-string leaves it empty); typing saves a draft', async () => {
  const { el, calls } = mount('numeric', numericBlock(), { restored: () => ['0.5', 3] });
  const [a, b] = el.querySelectorAll('input');
  assert.equal(a.value, '0.5');
  assert.equal(b.value, '');
  b.value = '2';
  await b.fire('input');
  assert.deepEqual(calls.draft, [['n1', ['0.5', '2']]]);
});

// ---- numeric: what the core said ------------------------------------------------
test('numeric: a correct answer marks every field, says so with the explanation and attempt count, records and announces it', async () => {
  const { el, calls } = mount('numeric', numericBlock({ explain: { ja: 'ja', en: 'Because.' } }), { check: { status: 'correct', parts: [true, true] }, lab: { seed: 9, dModel: 4 } });
  const [a, b] = el.querySelectorAll('input');
  a.value = '1';
  b.value = ' 2 ';
  const ev = await submit(el);
  assert.equal(ev.defaultPrevented, true);
  assert.deepEqual(calls.check, [['n1', ['1', ' 2 ']]]);
  assert.deepEqual(el.querySelectorAll('.field').map((f) => f.dataset.state), ['ok', 'ok']);
  assert.deepEqual(el.querySelectorAll('.mark').map((m) => m.textContent), ['✓', '✓']);
  assert.deepEqual([a, b].map((i) => i.getAttribute('aria-invalid')), ['false', 'false']);
  const fb = feedbackOf(el);
  assert.equal(fb.className, 'feedback correct');
  assert.deepEqual(texts(fb), [T('q.correct'), 'Because.', T('q.attempts', { n: 1 })]);
  assert.equal(fb.children[1].innerHTML, '<p>Because.</p>');
  assert.equal(el.classList.contains('done'), true);
  assert.equal(one(el, '.q-state').textContent, T('q.done_badge'));
  assert.equal(calls.progress, 1);
  const d = lastAnswered();
  assert.deepEqual(d, { exercise: d.exercise, question: 'n1', kind: 'numeric', answer: ['1', ' 2 '], correct: true, lab: { seed: 9, dModel: 4 }, lang: 'en', saved: true });
  // The same exercise shown again (no learner id): progress.js says it is done.
  const again = Q.numeric(numericBlock(), { ...makeCtx().ctx, exercise: { id: d.exercise } });
  assert.equal(again.el.classList.contains('done'), true);
});

test('numeric: one of two fields right: the count, the named mistake, hints for the wrong count so far; the attempt count grows', async () => {
  const { el, calls } = mount('numeric', numericBlock({ hint: 'h' }), {
    check: { status: 'wrong', parts: [false, true], feedback: { ja: 'ja', en: 'Forgot the square root.' } },
    core: { unlockedHints: (a) => [{ ja: 'ja', en: `hint ${a.wrong}` }] },
  });
  await submit(el);
  assert.deepEqual(el.querySelectorAll('.field').map((f) => f.dataset.state), ['wrong', 'ok']);
  assert.deepEqual(el.querySelectorAll('.mark').map((m) => m.textContent), ['✗', '✓']);
  assert.deepEqual(el.querySelectorAll('input').map((i) => i.getAttribute('aria-invalid')), ['true', 'false']);
  let fb = feedbackOf(el);
  assert.equal(fb.className, 'feedback wrong');
  assert.deepEqual(texts(fb), [T('q.wrong_some', { count: 1, n: 2 }), 'Forgot the square root.', `${T('q.hint')} hint 1`, T('q.attempts', { n: 1 })]);
  assert.equal(one(fb, '.mistake').innerHTML, '<p>Forgot the square root.</p>');
  assert.equal(one(fb, '.hint').innerHTML, `<strong>${T('q.hint')}</strong> hint 1`);
  assert.deepEqual(calls.core.filter(([f]) => f === 'unlockedHints').map(([, a]) => a), [{ exercise: { tag: 'the exercise file' }, question: 'n1', wrong: 1 }]);
  await submit(el);
  fb = feedbackOf(el);
  assert.equal(fb.children.at(-1).textContent, T('q.attempts', { n: 2 }));
  assert.equal(calls.core.filter(([f]) => f === 'unlockedHints').at(-1)[1].wrong, 2);
  assert.equal(el.classList.contains('done'), false);
  assert.equal(lastAnswered().correct, false);
  assert.equal(calls.progress, 2);
});

test('numeric: one field, wrong, no feedback and no hint in the file: just "not yet" (the core is not asked for hints)', async () => {
  const { el, calls } = mount('numeric', numericBlock({ fields: [{ label: 'x' }], hints: undefined }), { check: { status: 'wrong', parts: [false] } });
  await submit(el);
  assert.deepEqual(texts(feedbackOf(el)), [T('q.wrong'), T('q.attempts', { n: 1 })]);
  assert.equal(calls.core.filter(([f]) => f === 'unlockedHints').length, 0);
});

test('numeric: hints listed as `hints` are asked for too', async () => {
  const { el, calls } = mount('numeric', numericBlock({ fields: [{ label: 'x' }], hints: [{ en: 'a' }] }), { check: { status: 'wrong', parts: [false] }, core: { unlockedHints: () => [] } });
  await submit(el);
  assert.equal(calls.core.filter(([f]) => f === 'unlockedHints').length, 1);
});

test('numeric: unreadable input lists each bad field (empty or not a number); no attempt, nothing recorded', async () => {
  const { el, calls } = mount('numeric', numericBlock({ fields: [{ label: 'a' }, { label: 'b' }, { label: 'c' }] }), { check: { status: 'malformed', parts: [true, false, false] } });
  const inputs = el.querySelectorAll('input');
  inputs[0].value = '1';
  inputs[1].value = '  ';
  inputs[2].value = 'abc';
  const before = answered.length;
  await submit(el);
  assert.deepEqual(el.querySelectorAll('.field').map((f) => f.dataset.state), ['', 'malformed', 'malformed']);
  assert.deepEqual(el.querySelectorAll('.mark').map((m) => m.textContent), ['', '?', '?']);
  assert.deepEqual(inputs.map((i) => i.getAttribute('aria-invalid')), ['false', 'true', 'true']);
  const fb = feedbackOf(el);
  assert.equal(fb.className, 'feedback malformed');
  assert.deepEqual(texts(fb), [T('q.malformed'), `b: ${T('q.empty')}c: ${T('q.not_a_number', { value: 'abc' })}`, T('q.no_attempt')]);
  assert.equal(fb.children[2].className, 'muted');
  assert.equal(answered.length, before);
  assert.equal(calls.progress, 0);
});

test('numeric: malformed, then correct: the correct one is attempt 1', async () => {
  const verdicts = [{ status: 'malformed', parts: [false, true] }, { status: 'correct', parts: [true, true] }];
  const { el } = mount('numeric', numericBlock(), { check: () => verdicts.shift() });
  await submit(el);
  await submit(el);
  assert.equal(feedbackOf(el).children.at(-1).textContent, T('q.attempts', { n: 1 }));
});

test('numeric: the core refusing the check shows its error, no attempt', async () => {
  const err = Object.assign(new Error('boom'), { code: 'some_unknown_code' });
  const { el, calls } = mount('numeric', numericBlock(), { check: err });
  const before = answered.length;
  await submit(el);
  const fb = feedbackOf(el);
  assert.equal(fb.className, 'feedback error');
  assert.equal(one(fb, '.core-error').getAttribute('data-code'), 'some_unknown_code');
  assert.equal(answered.length, before);
  assert.equal(calls.progress, 0);
});

// ---- what the next attempt costs ---------------------------------------------
const statusCall = (calls) => calls.core.filter(([f]) => f === 'attemptStatus').map(([, a]) => a);
test('cost line: attempts left and the credit of the next one, as the core says; made counts the attempts so far', async () => {
  const { el, calls } = mount('numeric', numericBlock({ max_attempts: 3 }), {
    attemptsMade: () => 1,
    core: { attemptStatus: (a) => ({ left: 3 - a.made, nextCredit: a.made === 1 ? 0.5 : 0.25, maxAttempts: 3 }) },
    check: { status: 'wrong', parts: [false, false] },
  });
  await settle();
  const line = one(el, '.attempt-cost');
  assert.equal(line.hidden, false);
  assert.equal(line.textContent, T('q.attempts_left', { n: 2 }) + T('q.next_credit', { pct: 50 }));
  assert.deepEqual(statusCall(calls)[0], { exercise: { tag: 'the exercise file' }, question: 'n1', made: 1 });
  await submit(el);
  assert.equal(statusCall(calls).at(-1).made, 2);
  assert.equal(line.textContent, T('q.attempts_left_one') + T('q.next_credit', { pct: 25 }));
  assert.equal(line.classList.contains('over'), false);
  // Attempt 2 of 3 was the second: feedback counts from what was made before.
  assert.equal(feedbackOf(el).children.at(-1).textContent, T('q.attempts', { n: 2 }));
});

test('cost line: no limit (left null) says only the credit, rounded to a whole percent', async () => {
  const { el } = mount('numeric', numericBlock({ credit: [1, 0.333] }), { core: { attemptStatus: { left: null, nextCredit: 0.3333, maxAttempts: 0 } } });
  await settle();
  assert.equal(one(el, '.attempt-cost').textContent, T('q.next_credit', { pct: 33 }));
});

test('cost line: none left disables the form and says so; solved hides the line and keeps the form open', async () => {
  const { el } = mount('numeric', numericBlock({ max_attempts: 2 }), { core: { attemptStatus: { left: 0, nextCredit: 0, maxAttempts: 2 } } });
  await settle();
  const line = one(el, '.attempt-cost');
  assert.equal(line.textContent, T('q.no_attempts_left', { max: 2 }));
  assert.equal(line.classList.contains('over'), true);
  assert.deepEqual(one(el, 'form').querySelectorAll('input, button').map((x) => x.disabled), [true, true, true]);
  const solved = mount('numeric', numericBlock({ max_attempts: 2 }), { solved: () => true, core: { attemptStatus: { left: 0, nextCredit: 0, maxAttempts: 2 } } });
  await settle();
  assert.equal(one(solved.el, '.attempt-cost').hidden, true);
  assert.equal(one(solved.el, '.attempt-cost').classList.contains('over'), false);
  assert.deepEqual(one(solved.el, 'form').querySelectorAll('input, button').map((x) => x.disabled), [false, false, false]);
});

test('cost line: free attempts ask nothing; a failing status call hides the line and leaves the form open', async () => {
  const free = mount('numeric', numericBlock(), {});
  await settle();
  assert.equal(statusCall(free.calls).length, 0);
  assert.equal(one(free.el, '.attempt-cost').hidden, true);
  const failing = mount('numeric', numericBlock({ max_attempts: 1 }), { core: { attemptStatus: new Error('no') } });
  await settle();
  assert.equal(statusCall(failing.calls).length, 1);
  assert.equal(one(failing.el, '.attempt-cost').hidden, true);
  assert.equal(one(failing.el, 'button').disabled, false);
});

// ---- graded (a learner id): the grading store decides ------------------------
test('graded: a question solved in progress.js but not in the store is not done', async () => {
  const first = mount('numeric', numericBlock(), { check: { status: 'correct', parts: [true, true] } });
  await submit(first.el);
  const id = lastAnswered().exercise;
  const { ctx } = makeCtx({ graded: true, exerciseId: id, solved: () => false });
  assert.equal(Q.numeric(numericBlock(), ctx).el.classList.contains('done'), false);
});

// ---- choice -----------------------------------------------------------------------
const choiceBlock = (o = {}) => ({
  id: 'c1',
  type: 'choice',
  prompt: { ja: 'ja', en: 'Pick {{a}}' },
  options: [
    { id: 'a', label: { ja: 'ja', en: 'Alpha' } },
    { id: 'b', label: { ja: 'ja', en: 'Beta' }, why: { ja: 'ja', en: 'Beta is wrong because.' } },
    { id: 'c', label: { ja: 'ja', en: 'Gamma' } },
  ],
  ...o,
});
const optionIds = (el) => el.querySelectorAll('.option').map((o) => o.getAttribute('data-option'));
const pickOptions = (el, ids) => el.querySelectorAll('input').forEach((i) => (i.checked = ids.includes(i.value)));

test('choice: radios in the learner order; the legend is the prompt as text; ids and labels per option', () => {
  const { el } = mount('choice', choiceBlock(), { optionOrder: () => ['c', 'a', 'b'], variant: { a: 'x' } });
  assert.deepEqual(optionIds(el), ['c', 'a', 'b']);
  const inputs = el.querySelectorAll('input');
  assert.deepEqual(inputs.map((i) => i.getAttribute('type')), ['radio', 'radio', 'radio']);
  assert.deepEqual(inputs.map((i) => i.id), ['c1-c', 'c1-a', 'c1-b']);
  assert.deepEqual(inputs.map((i) => i.getAttribute('name')), ['c1', 'c1', 'c1']);
  assert.deepEqual(inputs.map((i) => i.getAttribute('aria-label')), ['Gamma', 'Alpha', 'Beta']);
  assert.equal(one(el, 'legend').textContent, 'Pick x');
  assert.equal(el.querySelectorAll('p.muted').length, 0);
  assert.equal(one(el, '.q-kind').textContent, T('q.choice', { n: 7 }));
});

test('choice: an order of the wrong length or with an unknown id falls back to the file order', () => {
  assert.deepEqual(optionIds(mount('choice', choiceBlock(), { optionOrder: () => ['c', 'a'] }).el), ['a', 'b', 'c']);
  assert.deepEqual(optionIds(mount('choice', choiceBlock(), { optionOrder: () => ['c', 'a', 'zz'] }).el), ['a', 'b', 'c']);
  assert.deepEqual(optionIds(mount('choice', choiceBlock(), { optionOrder: () => 'cab' }).el), ['a', 'b', 'c']);
});

test('choice: multiple is checkboxes with "pick all"; restored picks are checked; a change saves a draft', async () => {
  const { el, calls } = mount('choice', choiceBlock({ multiple: true }), { restored: () => ['b', 'c'] });
  const inputs = el.querySelectorAll('input');
  assert.deepEqual(inputs.map((i) => i.getAttribute('type')), ['checkbox', 'checkbox', 'checkbox']);
  assert.equal(one(el, 'p.muted').textContent, T('q.pick_all'));
  assert.deepEqual(inputs.map((i) => i.checked), [false, true, true]);
  inputs[0].checked = true;
  await inputs[0].fire('change');
  assert.deepEqual(calls.draft, [['c1', ['a', 'b', 'c']]]);
});

test('choice: nothing picked is no attempt; the core is not asked', async () => {
  const { el, calls } = mount('choice', choiceBlock(), { check: { status: 'correct', parts: [true, true, true] } });
  await submit(el);
  const fb = feedbackOf(el);
  assert.equal(fb.className, 'feedback malformed');
  assert.deepEqual(texts(fb), [T('q.choose_first'), T('q.no_attempt')]);
  assert.deepEqual(fb.children.map((c) => [c.tagName, c.className]), [['P', ''], ['P', 'muted']]);
  assert.equal(calls.check.length, 0);
});

test('choice: a right pick is marked ok, counted, recorded and announced', async () => {
  const { el, calls } = mount('choice', choiceBlock({ explain: 'Yes.' }), { check: { status: 'correct', parts: [true, true, true] } });
  pickOptions(el, ['a']);
  await submit(el);
  assert.deepEqual(calls.check, [['c1', ['a']]]);
  assert.deepEqual(el.querySelectorAll('.option').map((o) => o.dataset.state), ['ok', '', '']);
  assert.deepEqual(texts(feedbackOf(el)), [T('q.correct'), 'Yes.', T('q.attempts', { n: 1 })]);
  assert.equal(feedbackOf(el).className, 'feedback correct');
  assert.equal(el.classList.contains('done'), true);
  assert.deepEqual({ ...lastAnswered(), exercise: 0 }, { exercise: 0, question: 'c1', kind: 'choice', answer: ['a'], correct: true, lab: { seed: 3 }, lang: 'en', saved: true });
  assert.equal(calls.progress, 1);
});

test('choice: wrong picks, by the file index of each option: missed and extra counts, the why of each wrong pick, hints', async () => {
  // The file's options a, b, c shown as c, b, a; parts follow the file: a wrong (should be picked), b wrong (picked, should not be), c right.
  const { el, calls } = mount('choice', choiceBlock({ multiple: true, hint: 'x' }), {
    optionOrder: () => ['c', 'b', 'a'],
    check: { status: 'wrong', parts: [false, false, true] },
    core: { unlockedHints: (a) => [`hint ${a.wrong}`] },
  });
  pickOptions(el, ['b', 'c']);
  await submit(el);
  assert.deepEqual(calls.check, [['c1', ['c', 'b']]]);
  assert.deepEqual(el.querySelectorAll('.option').map((o) => o.dataset.state), ['ok', 'wrong', '']);
  const fb = feedbackOf(el);
  assert.equal(fb.className, 'feedback wrong');
  assert.deepEqual(texts(fb), [T('q.wrong'), T('q.missed', { count: 1 }), T('q.extra', { count: 1 }), 'Beta: Beta is wrong because.', `${T('q.hint')} hint 1`, T('q.attempts', { n: 1 })]);
  assert.equal(one(fb, '.mistake').innerHTML, 'Beta: Beta is wrong because.');
  assert.equal(lastAnswered().correct, false);
  assert.equal(el.classList.contains('done'), false);
  await submit(el);
  assert.equal(calls.core.filter(([f]) => f === 'unlockedHints').at(-1)[1].wrong, 2);
});

test('choice: single choice, wrong, with no why: no missed/extra lines', async () => {
  const { el } = mount('choice', choiceBlock(), { check: { status: 'wrong', parts: [false, true, true] } });
  pickOptions(el, ['a']);
  await submit(el);
  assert.deepEqual(texts(feedbackOf(el)), [T('q.wrong'), T('q.attempts', { n: 1 })]);
  assert.deepEqual(el.querySelectorAll('.option').map((o) => o.dataset.state), ['wrong', '', '']);
});

test('choice: multiple, two missed and none extra', async () => {
  const { el } = mount('choice', choiceBlock({ multiple: true }), { check: { status: 'wrong', parts: [true, false, false] } });
  pickOptions(el, ['a']);
  await submit(el);
  assert.deepEqual(texts(feedbackOf(el)), [T('q.wrong'), T('q.missed', { count: 2 }), T('q.attempts', { n: 1 })]);
});

test('choice: the core refusing is an error, no attempt', async () => {
  const { el, calls } = mount('choice', choiceBlock(), { check: new Error('x') });
  pickOptions(el, ['a']);
  await submit(el);
  assert.equal(feedbackOf(el).className, 'feedback error');
  assert.equal(calls.progress, 0);
});

test('choice on the learner run: locked until the lab has run seeds, then says which; refresh re-reads them', async () => {
  let lab = { seed: 1 };
  const { ctx, calls } = makeCtx({ check: { status: 'correct', parts: [true, true, true] }, core: { attemptStatus: null } });
  ctx.lab = () => lab;
  const q = Q.choice(choiceBlock({ answer_from: { extend_run: 'run1' } }), ctx);
  const el = q.el;
  await settle();
  const note = one(el, '.run-note');
  assert.equal(note.getAttribute('role'), 'status');
  assert.equal(note.classList.contains('locked'), true);
  assert.equal(note.textContent, T('q.needs_run'));
  assert.deepEqual(one(el, 'form').querySelectorAll('input, button').map((x) => x.disabled), [true, true, true, true]);
  pickOptions(el, ['a']);
  await submit(el);
  assert.equal(calls.check.length, 0);
  assert.equal(typeof q.refresh, 'function');
  lab = { runSeeds: [4, 5] };
  await q.refresh();
  assert.equal(note.classList.contains('locked'), false);
  assert.equal(note.textContent, T('q.run_seeds', { seeds: '4, 5' }));
  assert.deepEqual(one(el, 'form').querySelectorAll('input, button').map((x) => x.disabled), [false, false, false, false]);
  await submit(el);
  assert.equal(calls.check.length, 1);
  // Without answer_from there is no run note and no refresh.
  const plain = mount('choice', choiceBlock(), {});
  assert.equal(plain.q.refresh, undefined);
  assert.equal(plain.el.querySelectorAll('.run-note').length, 0);
});

// ---- task --------------------------------------------------------------------------
const taskBlock = (o = {}) => ({
  id: 't1',
  type: 'task',
  prompt: 'Make the max difference exceed 0.1',
  condition: { widget: 'w1', path: 'result.diff', gt: 0.1, check: { free: { dModel: 'lab.dModel', shift: { path: 'w1.state.shift' } } } },
  ...o,
});
test('task: open until the widget shows it; then the core confirms with the settings read from the lab and the widget', async () => {
  const widgets = new Map([['w1', { result: { diff: 0.05 }, state: { shift: 3 } }]]);
  const { q, el, calls } = mount('task', taskBlock({ explain: 'Well done.' }), { widgets, lab: { dModel: 8 }, check: { status: 'correct' } });
  const status = one(el, '.task-status');
  assert.equal(status.textContent, T('q.task_open'));
  assert.equal(one(el, '.q-kind').textContent, T('q.task', { n: 7 }));
  await q.refresh();
  assert.equal(calls.check.length, 0);
  widgets.get('w1').result.diff = 0.2;
  await q.refresh();
  assert.deepEqual(calls.check, [['t1', { dModel: 8, shift: 3 }]]);
  assert.equal(status.textContent, T('q.task_done'));
  assert.equal(status.classList.contains('reached'), true);
  assert.equal(el.classList.contains('done'), true);
  assert.equal(feedbackOf(el).className, 'feedback correct');
  assert.equal(feedbackOf(el).textContent, 'Well done.');
  assert.deepEqual({ ...lastAnswered(), exercise: 0 }, { exercise: 0, question: 't1', kind: 'task', answer: { dModel: 8, shift: 3 }, correct: true, lab: { dModel: 8 }, lang: 'en', saved: true });
  assert.equal(calls.progress, 1);
  // Reached: never asked again.
  await q.refresh();
  assert.equal(calls.check.length, 1);
});

test('task: the core saying no leaves it open; an error is shown; a second refresh while the first is asking asks nothing', async () => {
  const widgets = new Map([['w1', { result: { diff: 1 }, state: { shift: 0 } }]]);
  let release;
  const verdicts = [new Promise((r) => (release = r)), new Error('core down')];
  const { q, el, calls } = mount('task', taskBlock(), { widgets, lab: { dModel: 4 }, check: () => verdicts.shift() });
  const first = q.refresh();
  await settle(2);
  await q.refresh();
  assert.equal(calls.check.length, 1);
  release({ status: 'wrong' });
  await first;
  assert.equal(one(el, '.task-status').textContent, T('q.task_open'));
  assert.equal(el.classList.contains('done'), false);
  assert.equal(calls.progress, 0);
  await q.refresh();
  assert.equal(calls.check.length, 2);
  assert.equal(feedbackOf(el).className, 'feedback error');
  assert.equal(one(el, '.task-status').textContent, T('q.task_open'));
});

test('task: the hint shows once the widget was touched and the task is open; reached with nothing to say clears the feedback', async () => {
  const widgets = new Map([['w1', { result: { diff: 0 } }]]);
  let touched = false;
  const { q, el } = mount('task', taskBlock({ hint: { ja: 'ja', en: 'Try a bigger shift.' }, condition: { widget: 'w1', path: 'result.diff', gt: 0.1 } }), { widgets, widgetTouched: (w) => w === 'w1' && touched, check: { status: 'correct' } });
  assert.equal(feedbackOf(el).children.length, 0);
  touched = true;
  await q.refresh();
  const fb = feedbackOf(el);
  assert.equal(fb.className, 'feedback hint');
  assert.equal(one(fb, '.hint').innerHTML, `<strong>${T('q.hint')}</strong> Try a bigger shift.`);
  widgets.get('w1').result.diff = 1;
  await q.refresh();
  assert.equal(fb.className, 'feedback ');
  assert.equal(fb.children.length, 0);
  assert.deepEqual(lastAnswered().answer, {});
});

test('prediction: recorded once: the choice is locked and shown; a later submit asks nothing', async () => {
  const { el, calls, ctx } = mount('prediction', predBlock({ explain: 'Let us see.' }), { check: { status: 'recorded' } });
  assert.equal(one(el, 'button').textContent, T('q.predict'));
  pickOptions(el, ['down']);
  await submit(el);
  assert.deepEqual(calls.check, [['p1', ['down']]]);
  const rec = one(el, '.prediction-recorded');
  assert.equal(rec.textContent, T('q.prediction_recorded', { choice: 'Down' }));
  assert.equal(rec.getAttribute('data-prediction'), 'down');
  assert.equal(feedbackOf(el).className, 'feedback recorded');
  assert.equal(feedbackOf(el).children[1].textContent, 'Let us see.');
  assert.deepEqual(el.querySelectorAll('input').map((i) => [i.checked, i.disabled]), [[false, true], [true, true]]);
  assert.equal(one(el, 'button').disabled, true);
  assert.equal(el.classList.contains('done'), true);
  assert.deepEqual({ ...lastAnswered(), exercise: 0 }, { exercise: 0, question: 'p1', kind: 'prediction', answer: ['down'], correct: true, lab: { seed: 3 }, lang: 'en', saved: true });
  assert.equal(calls.progress, 1);
  // A run starting now does not close a recorded prediction.
  window.dispatchEvent(new CustomEvent('poslab:prediction-closed', { detail: { exercise: ctx.exercise.id, question: 'p1' } }));
  assert.equal(el.dataset.closed, undefined);
});

test('prediction: the first answer kept is shown locked; a kept ran_before_prediction attempt closes it', () => {
  const { el } = mount('prediction', predBlock(), { firstAnswer: () => ['up'] });
  assert.equal(one(el, '.prediction-recorded').getAttribute('data-prediction'), 'up');
  assert.equal(el.classList.contains('done'), true);
  const bogus = mount('prediction', predBlock(), { firstAnswer: () => ['sideways'] });
  assert.equal(bogus.el.querySelectorAll('.prediction-recorded').length, 0);
  assert.equal(one(bogus.el, 'button').disabled, false);
  const notString = mount('prediction', predBlock(), { firstAnswer: () => [1] });
  assert.equal(one(notString.el, 'button').disabled, false);
  const closed = mount('prediction', predBlock(), { graded: true, attempts: () => [{ answer: 'x' }, { answer: { ran_before_prediction: true } }] });
  assert.equal(closed.el.dataset.closed, 'true');
  assert.deepEqual(texts(feedbackOf(closed.el)), [T('q.prediction_closed'), T('q.prediction_closed_kept')]);
  assert.equal(feedbackOf(closed.el).className, 'feedback closed');
  assert.equal(one(closed.el, 'button').disabled, true);
  const open = mount('prediction', predBlock(), { attempts: () => [{ answer: { ran_before_prediction: 'yes' } }] });
  assert.equal(open.el.dataset.closed, undefined);
});

test('prediction: the closing event for this question closes it (practice: no "kept" line); other questions and exercises are ignored', async () => {
  const { el, ctx, calls } = mount('prediction', predBlock(), { check: { status: 'recorded' } });
  const fire = (detail) => window.dispatchEvent(new CustomEvent('poslab:prediction-closed', { detail }));
  fire({ exercise: ctx.exercise.id, question: 'other' });
  fire({ exercise: 'elsewhere', question: 'p1' });
  fire(undefined);
  assert.equal(el.dataset.closed, undefined);
  fire({ exercise: ctx.exercise.id, question: 'p1' });
  assert.equal(el.dataset.closed, 'true');
  assert.deepEqual(texts(feedbackOf(el)), [T('q.prediction_closed')]);
  assert.deepEqual(el.querySelectorAll('input').map((i) => i.disabled), [true, true]);
  pickOptions(el, ['up']);
  await submit(el);
  assert.equal(calls.check.length, 0);
});

test('prediction: closed while the core was asked: not recorded; the core not recording says pick first', async () => {
  let release;
  const { el, ctx, calls } = mount('prediction', predBlock(), { check: () => new Promise((r) => (release = r)) });
  pickOptions(el, ['up']);
  const before = answered.length;
  const done = submit(el);
  await settle(2);
  window.dispatchEvent(new CustomEvent('poslab:prediction-closed', { detail: { exercise: ctx.exercise.id, question: 'p1' } }));
  release({ status: 'recorded' });
  await done;
  assert.equal(answered.length, before);
  assert.equal(el.dataset.closed, 'true');
  assert.equal(calls.progress, 0);
  const refused = mount('prediction', predBlock(), { check: { status: 'malformed' } });
  pickOptions(refused.el, ['up']);
  await submit(refused.el);
  assert.equal(feedbackOf(refused.el).className, 'feedback malformed');
  assert.deepEqual(texts(feedbackOf(refused.el)), [T('q.choose_first')]);
  assert.equal(one(refused.el, 'button').disabled, false);
});

test('prediction: taken off the page, it stops listening', () => {
  const { el, ctx } = mount('prediction', predBlock(), {});
  el.remove();
  const fire = () => window.dispatchEvent(new CustomEvent('poslab:prediction-closed', { detail: { exercise: ctx.exercise.id, question: 'p1' } }));
  fire();
  assert.equal(el.dataset.closed, undefined);
  body.append(el);
  fire();
  assert.equal(el.dataset.closed, undefined);
});

// ---- explain ------------------------------------------------------------------------
const explainBlock = (o = {}) => ({ id: 'e1', type: 'explain', prompt: 'Why {{a}}?', ...o });
test('explain: the text area, its limit (the file, else 2000, at most 5000), the note and the count', async () => {
  const { el, calls } = mount('explain', explainBlock(), { variant: { a: 'RoPE' } });
  const area = one(el, 'textarea');
  assert.equal(Q.EXPLAIN_MAX, 2000);
  assert.equal(area.getAttribute('maxlength'), '2000');
  assert.equal(area.getAttribute('aria-describedby'), 'e1-prompt e1-note');
  assert.equal(one(el, '.prompt').id, 'e1-prompt');
  assert.equal(one(el, '.prompt').innerHTML, '<p>Why RoPE?</p>');
  assert.equal(one(el, 'h3').id, 'e1-title');
  assert.equal(one(el, '.q-kind').textContent, T('q.explain'));
  assert.equal(el.querySelectorAll('p.muted').find((p) => p.id === 'e1-note').textContent, T('q.explain_note', { max: 2000 }));
  const count = one(el, '.explain-count');
  assert.equal(count.textContent, T('q.explain_count', { n: 0, max: 2000 }));
  area.value = '日本語';
  await area.fire('input');
  assert.equal(count.textContent, T('q.explain_count', { n: 3, max: 2000 }));
  assert.deepEqual(calls.draft, [['e1', '日本語']]);
  assert.equal(one(mount('explain', explainBlock({ max_length: 10 })).el, 'textarea').getAttribute('maxlength'), '10');
  assert.equal(one(mount('explain', explainBlock({ max_length: 9000 })).el, 'textarea').getAttribute('maxlength'), '5000');
  assert.equal(one(mount('explain', explainBlock({ heading: 'Own words' })).el, '.q-kind').textContent, 'Own words');
});

test('explain: restored text, cut to the limit; a non-string is ignored', () => {
  assert.equal(one(mount('explain', explainBlock({ max_length: 4 }), { restored: () => 'abcdef' }).el, 'textarea').value, 'abcd');
  assert.equal(one(mount('explain', explainBlock(), { restored: () => 7 }).el, 'textarea').value, '');
});

test('explain: empty or too long is refused before the core; saved says where it went', async () => {
  const { el, calls } = mount('explain', explainBlock({ max_length: 5 }), { check: { status: 'recorded' }, learnerId: () => 'L-1' });
  const area = one(el, 'textarea');
  area.value = '   ';
  await submit(el);
  assert.deepEqual(texts(feedbackOf(el)), [T('q.explain_empty')]);
  assert.equal(feedbackOf(el).className, 'feedback malformed');
  area.value = '😀😀😀😀😀😀';
  await submit(el);
  assert.deepEqual(texts(feedbackOf(el)), [T('q.explain_too_long', { n: 6, max: 5 })]);
  assert.equal(calls.check.length, 0);
  area.value = '😀😀😀😀😀';
  await submit(el);
  assert.deepEqual(calls.check, [['e1', '😀😀😀😀😀']]);
  assert.equal(feedbackOf(el).className, 'feedback recorded');
  assert.deepEqual(texts(feedbackOf(el)), [T('q.explain_saved')]);
  assert.deepEqual({ ...lastAnswered(), exercise: 0 }, { exercise: 0, question: 'e1', kind: 'explain', answer: '😀😀😀😀😀', correct: false, lab: { seed: 3 }, lang: 'en', saved: true });
  const practice = mount('explain', explainBlock(), { check: { status: 'recorded' }, learnerId: () => null });
  one(practice.el, 'textarea').value = 'ok';
  await submit(practice.el);
  assert.deepEqual(texts(feedbackOf(practice.el)), [T('q.explain_saved_practice')]);
});

test('explain: the core not recording it, or failing, says so; nothing recorded', async () => {
  const before = answered.length;
  const refused = mount('explain', explainBlock({ max_length: 30 }), { check: { status: 'malformed' } });
  one(refused.el, 'textarea').value = 'text';
  await submit(refused.el);
  assert.deepEqual(texts(feedbackOf(refused.el)), [T('q.explain_rejected', { max: 30 })]);
  assert.equal(feedbackOf(refused.el).className, 'feedback malformed');
  const failing = mount('explain', explainBlock(), { check: new Error('x') });
  one(failing.el, 'textarea').value = 'text';
  await submit(failing.el);
  assert.equal(feedbackOf(failing.el).className, 'feedback error');
  assert.equal(answered.length, before);
});

// ---- last: an attempt not kept (persist: false) stops progress.js writing for the page's life ----
test('graded: solved comes from the store, not progress.js; an attempt the store did not keep says why', async () => {
  const { el } = mount('numeric', numericBlock(), { graded: true, notSaved: 'full', solved: () => false, check: { status: 'correct', parts: [true, true] } });
  assert.equal(el.classList.contains('done'), false);
  await submit(el);
  const line = one(feedbackOf(el), '.not-saved');
  assert.equal(line.getAttribute('role'), 'alert');
  assert.equal(line.textContent, T('q.not_saved_full'));
  assert.equal(lastAnswered().saved, false);
  const kept = mount('numeric', numericBlock(), { graded: true, solved: () => true, check: { status: 'wrong', parts: [false, false] } });
  assert.equal(kept.el.classList.contains('done'), true);
  assert.equal(one(kept.el, '.q-state').textContent, T('q.done_badge'));
  await submit(kept.el);
  assert.equal(kept.el.querySelectorAll('.not-saved').length, 0);
  assert.equal(lastAnswered().saved, true);
});


test('task: graded, kept by the store: done from the start; not kept: says why', async () => {
  const { el } = mount('task', taskBlock(), { graded: true, solved: () => true });
  assert.equal(one(el, '.task-status').textContent, T('q.task_done'));
  const widgets = new Map([['w1', { result: { diff: 1 }, state: { shift: 1 } }]]);
  const lost = mount('task', taskBlock(), { graded: true, notSaved: 'unavailable', widgets, check: { status: 'correct' } });
  await lost.q.refresh();
  assert.equal(one(lost.el, '.not-saved').textContent, T('q.not_saved_unavailable'));
  assert.equal(feedbackOf(lost.el).className, 'feedback correct');
});

// ---- prediction -------------------------------------------------------------------
const predBlock = (o = {}) => ({ id: 'p1', type: 'prediction', prompt: 'Guess', options: [{ id: 'up', label: 'Up' }, { id: 'down', label: { ja: '下', en: 'Down' } }], ...o });
