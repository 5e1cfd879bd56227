// web/js/questions.js on a stand-in DOM (tests/web/questions-dom.mjs): what
// each kind of question shows for what the core said, what it asks the core,
// what it records and announces. The core (ctx.check, ctx.core.call) and the
// Python sandbox (a <script> and a Worker) are stubs whose answers each test
// gives; the expected texts come from the catalog (catalog.js's format over
// web/i18n/en.json), not from questions.js.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { installDom, scripts, FakeElement } from './questions-dom.mjs';

const { window, body } = installDom();
const { setLang } = await import('../../web/js/i18n.js');
const { format } = await import('../../web/js/catalog.js');
const Q = await import('../../web/js/questions.js');
setLang('en');
const T = (key, params = {}) => format('en', key, params);

// ---- the Python sandbox and the code editor, answered by the test ----------
let python = () => ({ status: 'ok', results: [], output: '' });
const pyRequests = [];
scripts.set('py-runtime.js', () => {
  globalThis.__poslabPyWorkerSource = '// worker';
});
class FakeWorker {
  constructor(url) {
    this.url = url;
    this.terminated = false;
  }
  postMessage(req) {
    pyRequests.push(req);
    setImmediate(() => {
      this.onmessage({ data: { type: 'started' } });
      const r = python(req);
      setImmediate(() => this.onmessage({ data: { type: 'result', ...r } }));
    });
  }
  terminate() {
    this.terminated = true;
  }
}
globalThis.Worker = FakeWorker;
const editors = [];
let editorLoads = true;
scripts.set('code-editor.js', () => {
  if (!editorLoads) return false;
  globalThis.__poslabCodeEditor = {
    create(args) {
      const ed = { text: args.doc, get: () => ed.text, set: (v) => { ed.text = v; args.onChange(v); } };
      editors.push({ ed, args });
      return ed;
    },
  };
});

// ---- helpers ---------------------------------------------------------------
const settle = async (n = 6) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};
const answered = [];
window.addEventListener('poslab:answered', (e) => answered.push(e.detail));

let exerciseCount = 0;
// A ctx as the page gives it; `check` answers ctx.check, `core` the other core calls.
function makeCtx(o = {}) {
  const calls = { check: [], core: [], draft: [], progress: 0 };
  const ctx = {
    exercise: { id: o.exerciseId ?? `ex${++exerciseCount}` },
    data: { tag: 'the exercise file' },
    variant: o.variant ?? {},
    graded: o.graded ?? false,
    notSaved: o.notSaved,
    questionNumber: () => 7,
    check: async (id, answer) => {
      calls.check.push([id, structuredClone(answer)]);
      const v = typeof o.check === 'function' ? await o.check(id, answer) : o.check;
      if (v instanceof Error) throw v;
      return v;
    },
    core: {
      call: async (fn, args) => {
        calls.core.push([fn, args]);
        const f = o.core?.[fn];
        const v = typeof f === 'function' ? await f(args) : f;
        if (v instanceof Error) throw v;
        return v;
      },
    },
    lab: () => o.lab ?? { seed: 3 },
    onProgress: () => calls.progress++,
    draft: (id, v) => calls.draft.push([id, v]),
    widgets: o.widgets ?? new Map(),
    widgetTouched: o.widgetTouched ?? (() => false),
    track: (p) => (calls.tracked = p),
  };
  for (const k of ['solved', 'attemptsMade', 'restored', 'optionOrder', 'questionNote', 'firstAnswer', 'attempts', 'learnerId']) if (o[k]) ctx[k] = o[k];
  return { ctx, calls };
}
function mount(kind, block, o = {}) {
  const { ctx, calls } = makeCtx(o);
  const q = Q[kind](block, ctx);
  body.append(q.el);
  return { q, el: q.el, ctx, calls };
}
const one = (el, selector) => {
  const found = el.querySelectorAll(selector);
  assert.equal(found.length, 1, `exactly one ${selector}`);
  return found[0];
};
const feedbackOf = (el) => el.querySelectorAll('.feedback').at(-1);
const texts = (el) => el.children.map((c) => c.textContent);
const submit = (el) => one(el, 'form').fire('submit');
const lastAnswered = () => answered.at(-1);

const numericBlock = (o = {}) => ({ id: 'n1', type: 'numeric', prompt: { ja: 'ja {{a}}', en: 'Value {{a}} and {{v.1}} and {{zz}}' }, fields: [{ label: 'x_1' }, { label: 'y' }], ...o });

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

// ---- code: values as the results table shows them ---------------------------------
test('showValue: integers as they are, other numbers to 6 significant digits, lists, odd values by type', () => {
  assert.equal(Q.showValue(3), '3');
  assert.equal(Q.showValue(-0.5), '-0.5');
  assert.equal(Q.showValue(1 / 3), '0.333333');
  assert.equal(Q.showValue(123456.789), '123457');
  assert.equal(Q.showValue(1e-9 / 3), '3.33333e-10');
  assert.equal(Q.showValue([1, [0.25, 2 / 3]]), '[1, [0.25, 0.666667]]');
  assert.equal(Q.showValue([]), '[]');
  assert.equal(Q.showValue({ type: 'tuple', repr: '(1, 2)' }), '(1, 2)');
  assert.equal(Q.showValue({ type: 'dict' }), '<dict>');
  assert.equal(Q.showValue({}), '<?>');
  assert.equal(Q.showValue({ repr: 5, type: 'set' }), '<set>');
  assert.equal(Q.showValue('a"b'), '"a\\"b"');
  assert.equal(Q.showValue(null), 'null');
  assert.equal(Q.showValue(true), 'true');
  assert.equal(Q.showValue(undefined), 'undefined');
  // Nesting deeper than 6 lists is cut.
  assert.equal(Q.showValue([[[[[[[[1]]]]]]]]), '[[[[[[[[…]]]]]]]]');
  assert.equal(Q.showValue([[[[[[[1]]]]]]]), '[[[[[[[1]]]]]]]');
});

// ---- code questions: the editor, Run and Check ----------------------------------
const codeBlock = (o = {}) => ({
  id: 'k1',
  type: 'code',
  prompt: 'Write f',
  function: 'f',
  params: ['x', 'ys'],
  starter: 'def f(x, ys):\n    pass\n',
  cases: [{ args: [1, [2]] }, { args: [3, []] }, { args: [0, []], raises: 'ValueError' }],
  ...o,
});
const codeCtx = (o = {}) => {
  const m = mount('code', codeBlock(o.block), o);
  const btn = (cls) => one(m.el, `button.${cls}`);
  return { ...m, run: () => btn('code-run').fire('click'), check: () => btn('code-check').fire('click'), reset: () => btn('code-reset').fire('click'), btn };
};
const cells = (tr) => tr.children.map((td) => td.textContent);

test('code: the editor failing to load is shown in its place', async () => {
  editorLoads = false;
  const { el, calls } = codeCtx();
  await calls.tracked;
  assert.equal(el.querySelectorAll('.core-error').length, 1);
  assert.equal(el.querySelectorAll('p.muted').filter((p) => p.textContent === T('code.loading_editor')).length, 0);
  editorLoads = true;
});

test('code: the frame, the keys note once per page, the editor with the starter or the restored code; typing saves a draft', async () => {
  const { el, ctx, calls } = codeCtx();
  assert.equal(one(el, '.q-kind').textContent, T('q.code', { n: 7 }));
  assert.equal(one(el, '.code-keys').textContent, T('code.keys'));
  assert.equal(one(el, '.code-keys').id, 'k1-keys');
  assert.equal(one(el, '.code-label').textContent, T('code.editor_label', { fn: 'f' }));
  assert.equal(one(el, '.code-label').id, 'k1-label');
  assert.equal(one(one(el, '.code-label'), 'code').textContent, 'f');
  assert.equal(one(el, '.code-editor').id, 'k1-editor');
  assert.equal(el.querySelectorAll('p.muted').filter((p) => p.textContent === T('code.loading_editor')).length, 1);
  await calls.tracked;
  assert.equal(el.querySelectorAll('p.muted').filter((p) => p.textContent === T('code.loading_editor')).length, 0);
  const { ed, args } = editors.at(-1);
  assert.equal(args.host, one(el, '.code-editor'));
  assert.equal(args.doc, codeBlock().starter);
  assert.equal(args.label, T('code.editor_label', { fn: 'f' }));
  assert.equal(args.description, T('code.keys'));
  ed.set('def f(x, ys): return 1');
  assert.deepEqual(calls.draft.at(-1), ['k1', { code: 'def f(x, ys): return 1' }]);
  await one(el, 'button.code-reset').fire('click');
  assert.equal(ed.get(), codeBlock().starter);
  // A second code question on the same page: no second note.
  const second = Q.code(codeBlock({ id: 'k2' }), ctx);
  assert.equal(second.el.querySelectorAll('.code-keys').length, 0);
  const restored = codeCtx({ restored: () => ({ code: 'print(1)' }) });
  await restored.calls.tracked;
  assert.equal(editors.at(-1).args.doc, 'print(1)');
  const odd = codeCtx({ restored: () => ({ code: 5 }) });
  await odd.calls.tracked;
  assert.equal(editors.at(-1).args.doc, codeBlock().starter);
});

test('code: Run sends the visible cases to Python, the core says which match; the table shows each call, result, expected, why', async () => {
  python = (req) => ({ status: 'ok', results: [{ ok: true, value: 0.5 }, { ok: true, value: [1, 2] }, { ok: false, error: 'ValueError', message: 'neg' }], output: 'hi', dropped: 0 });
  const { el, calls, run } = codeCtx({
    core: { codeRun: { passed: 1, total: 3, cases: [{ ok: false, kind: 'value', got: 0.5, at: [], expected: 0.25 }, { ok: false, kind: 'shape', expected_len: 3, got_len: 2, at: [], expected: [1, 2, 3] }, { ok: true }] } },
    block: { time_limit_ms: 500 },
  });
  await calls.tracked;
  const before = pyRequests.length;
  await run();
  assert.deepEqual(pyRequests.slice(before), [{ type: 'run', code: codeBlock().starter, fn: 'f', cases: [[1, [2]], [3, []], [0, []]] }]);
  const [, codeRunArgs] = calls.core.find(([f]) => f === 'codeRun');
  assert.deepEqual(codeRunArgs, { exercise: { tag: 'the exercise file' }, question: 'k1', results: [{ ok: true, value: 0.5 }, { ok: true, value: [1, 2] }, { ok: false, error: 'ValueError', message: 'neg' }] });
  const out = one(el, '.code-results');
  assert.equal(out.className, 'code-results incorrect');
  assert.equal(out.children[0].textContent, T('code.run_summary', { passed: 1, total: 3 }));
  const rows = out.querySelectorAll('tbody')[0].children;
  assert.deepEqual(rows.map((r) => r.className), ['bad', 'bad', 'ok']);
  assert.deepEqual(cells(rows[0]), ['✗' + T('code.case_bad'), 'f(x=1, ys=[2])', '0.5', '0.25', T('code.fail_value_want', { at: T('code.top'), got: '0.5', want: '0.25' })]);
  assert.deepEqual(cells(rows[1]), ['✗' + T('code.case_bad'), 'f(x=3, ys=[])', '[1, 2]', '[1, 2, 3]', T('code.fail_shape', { at: T('code.top'), want: 3, got: 2 })]);
  assert.deepEqual(cells(rows[2]), ['✓' + T('code.case_ok'), 'f(x=0, ys=[])', 'ValueError: neg', T('code.raises', { error: 'ValueError' }), '']);
  assert.deepEqual(out.querySelectorAll('th').map((th) => th.textContent), ['', T('code.col_call'), T('code.col_got'), T('code.col_want'), T('code.col_why')]);
  assert.equal(one(out, 'details').textContent, T('code.printed') + 'hi');
  assert.equal(el.querySelectorAll('button').some((b) => b.disabled), false);
  assert.equal(el.classList.contains('running'), false);
  // Run is never an attempt.
  assert.equal(calls.check.length, 0);
});

test('code: all examples matching is "correct"; a long result is clipped to 400 characters; long args to 300', async () => {
  const big = 'x'.repeat(500);
  python = () => ({ status: 'ok', results: [{ ok: true, value: { type: 'str', repr: big } }], output: '' });
  const { el, calls, run } = codeCtx({ block: { cases: [{ args: [big, []] }] }, core: { codeRun: { passed: 1, total: 1, cases: [{ ok: true, expected: { type: 'str', repr: big } }] } } });
  await calls.tracked;
  await run();
  const out = one(el, '.code-results');
  assert.equal(out.className, 'code-results correct');
  const c = cells(one(out, 'tbody').children[0]);
  assert.equal(c[1], `f(${`x=${JSON.stringify(big)}, ys=[]`.slice(0, 300)})`);
  assert.equal(c[2], big.slice(0, 400));
  assert.equal(c[3], big.slice(0, 400));
  assert.equal(out.querySelectorAll('details').length, 0);
});

test('code: every failure kind in words', async () => {
  const verdictCases = [
    { ok: false, kind: 'type', want: 'list', got: 'number', at: [1] },
    { ok: false, kind: 'value', got: 'NaN', at: [0, 2], expected: [[0, 0, 'a']] },
    { ok: false, kind: 'exception', error: 'ZeroDivisionError', message: 'division by zero' },
    { ok: false, kind: 'exception', error: 'E' },
    { ok: false, kind: 'no_raise' },
    { ok: false, kind: 'wrong_exception', want: 'ValueError', error: 'TypeError' },
    { ok: false, kind: 'mystery' },
  ];
  python = () => ({ status: 'ok', results: verdictCases.map(() => ({ ok: true, value: 1 })), output: '' });
  const { el, calls, run } = codeCtx({ block: { cases: verdictCases.map(() => ({ args: [0, []] })) }, core: { codeRun: { passed: 0, total: 7, cases: verdictCases } } });
  await calls.tracked;
  await run();
  const why = one(el, 'tbody').children.map((r) => r.children[4].textContent);
  assert.deepEqual(why, [
    T('code.fail_type', { at: '[1]', want: T('code.type_list'), got: 'number' }),
    T('code.fail_value', { at: '[0][2]', got: 'NaN' }),
    T('code.fail_exception', { error: 'ZeroDivisionError', message: 'division by zero' }),
    T('code.fail_exception', { error: 'E', message: '' }),
    T('code.fail_no_raise', { want: 'ValueError' }),
    T('code.fail_wrong_exception', { want: 'ValueError', error: 'TypeError' }),
    '',
  ]);
});

test('code: a run that did not finish says why in words, with the trace and the printed output', async () => {
  const cases = [
    [{ status: 'timeout', message: '500', output: '' }, T('code.timeout', { s: 0.5 }), false],
    [{ status: 'syntax_error', message: 'line 1', output: '' }, T('code.syntax_error'), true],
    [{ status: 'load_error', message: 'boom', output: 'printed', dropped: 12 }, T('code.load_error'), true],
    [{ status: 'no_function', message: 'nf', output: '' }, T('code.no_function', { fn: 'f' }), false],
    [{ status: 'memory', output: '' }, T('code.memory'), false],
    [{ status: 'import_refused', module: 'numpy', output: '' }, T('code.import_refused', { module: 'numpy' }), false],
    [{ status: 'import_refused', output: '' }, T('code.import_refused', { module: '?' }), false],
    [{ status: 'unsupported', feature: 'str.zfill', output: '' }, T('code.unsupported', { feature: 'str.zfill', instead: T('code.gap.str.zfill') }), false],
    [{ status: 'unsupported', feature: 'x.y', output: '' }, T('code.unsupported', { feature: 'x.y', instead: T('code.gap.other') }), false],
    [{ status: 'unsupported', output: '' }, T('code.unsupported', { feature: '?', instead: T('code.gap.other') }), false],
    [{ status: 'crashed', message: 'dead', output: '' }, T('code.crashed'), true],
  ];
  for (const [r, text, trace] of cases) {
    python = () => r;
    const { el, calls, run } = codeCtx({ block: { time_limit_ms: 500 } });
    await calls.tracked;
    await run();
    const out = one(el, '.code-results');
    assert.equal(out.className, 'code-results incorrect', r.status);
    assert.equal(out.children[0].textContent, text, r.status);
    assert.deepEqual(out.querySelectorAll('pre.code-trace').map((p) => p.textContent), trace ? [r.message] : [], r.status);
    if (r.output) assert.equal(one(out, 'pre.code-out').textContent, `printed\n${T('code.dropped', { n: 12 })}`);
    else assert.equal(out.querySelectorAll('details').length, 0);
  }
  // The default time limit is 2 s; a long module or feature name is cut to 80 characters.
  python = () => ({ status: 'timeout', output: '' });
  let m = codeCtx();
  await m.calls.tracked;
  await m.run();
  assert.equal(one(m.el, '.code-results').children[0].textContent, T('code.timeout', { s: 2 }));
  assert.equal(pyRequests.length > 0, true);
  python = () => ({ status: 'import_refused', module: 'm'.repeat(100), output: '' });
  m = codeCtx();
  await m.calls.tracked;
  await m.run();
  assert.equal(one(m.el, '.code-results').children[0].textContent, T('code.import_refused', { module: 'm'.repeat(80) }));
  python = () => ({ status: 'unsupported', feature: 'f'.repeat(100), output: '' });
  m = codeCtx();
  await m.calls.tracked;
  await m.run();
  assert.equal(one(m.el, '.code-results').children[0].textContent, T('code.unsupported', { feature: 'f'.repeat(80), instead: T('code.gap.other') }));
});

test('code: the core failing on Run is shown as an error; code over 10000 characters is refused before Python', async () => {
  python = () => ({ status: 'ok', results: [], output: '' });
  const { el, calls, run, check } = codeCtx({ core: { codeRun: new Error('x') } });
  await calls.tracked;
  await run();
  assert.equal(one(el, '.code-results').className, 'code-results error');
  assert.equal(el.querySelectorAll('button').some((b) => b.disabled), false);
  const before = pyRequests.length;
  editors.at(-1).ed.set('#'.repeat(10001));
  await run();
  assert.equal(feedbackOf(el).className, 'feedback malformed');
  assert.deepEqual(texts(feedbackOf(el)), [T('code.too_long', { max: 10000 })]);
  await check();
  assert.equal(pyRequests.length, before);
  editors.at(-1).ed.set('#'.repeat(10000));
  await run();
  assert.equal(pyRequests.length, before + 1);
});

test('code: Check runs the hidden cases of the variant and grades the answer: all passed, with the explanation', async () => {
  python = () => ({ status: 'ok', results: [{ ok: true, value: 2 }], output: '' });
  const variant = { 'code:k1': { hidden: [{ args: [5, [1]] }, { args: [6, []] }] } };
  const { el, calls, check } = codeCtx({ variant, block: { explain: 'Nice.' }, check: { status: 'correct', detail: { passed: 2, total: 2 } } });
  await calls.tracked;
  const before = pyRequests.length;
  await check();
  assert.deepEqual(pyRequests.slice(before), [{ type: 'run', code: codeBlock().starter, fn: 'f', cases: [[5, [1]], [6, []]] }]);
  assert.deepEqual(calls.check, [['k1', { code: codeBlock().starter, status: 'ok', results: [{ ok: true, value: 2 }] }]]);
  const fb = feedbackOf(el);
  assert.equal(fb.className, 'feedback correct');
  assert.deepEqual(texts(fb), [T('code.all_passed', { total: 2 }), 'Nice.', T('q.attempts', { n: 1 })]);
  assert.equal(el.classList.contains('done'), true);
  assert.equal(calls.progress, 1);
  assert.equal(lastAnswered().kind, 'code');
  assert.equal(lastAnswered().correct, true);
});

test('code: Check, wrong: passed count, the failed case and call, the mistake, printed output, hints for the attempts so far', async () => {
  python = () => ({ status: 'ok', results: [], output: 'dbg', dropped: 3 });
  const { el, calls, check } = codeCtx({
    block: { hint: 'h' },
    check: { status: 'wrong', feedback: { ja: 'ja', en: 'Divided by d.' }, detail: { passed: 1, total: 3, failed: { case: 1, args: [4, [9]], kind: 'value', got: 7 } } },
    core: { unlockedHints: (a) => [`hint ${a.wrong}`] },
  });
  await calls.tracked;
  await check();
  const fb = feedbackOf(el);
  assert.equal(fb.className, 'feedback wrong');
  assert.deepEqual(texts(fb), [
    T('code.passed', { passed: 1, total: 3 }),
    `${T('code.failed_case', { n: 2, call: 'f(x=4, ys=[9])' })} ${T('code.fail_value', { at: T('code.top'), got: '7' })}`,
    `${T('code.mistake')} Divided by d.`,
    T('code.printed') + `dbg\n${T('code.dropped', { n: 3 })}`,
    `${T('q.hint')} hint 1`,
    T('q.attempts', { n: 1 }),
  ]);
  assert.equal(one(fb, '.mistake').innerHTML, `<strong>${T('code.mistake')}</strong> Divided by d.`);
  assert.equal(one(fb, 'code').textContent, 'f(x=4, ys=[9])');
  assert.equal(el.classList.contains('done'), false);
  await check();
  assert.equal(calls.core.filter(([f]) => f === 'unlockedHints').at(-1)[1].wrong, 2);
});

test('code: Check on code that did not run: the status and its message (cut to 1500) are the answer', async () => {
  python = () => ({ status: 'syntax_error', message: 'E'.repeat(2000), output: '' });
  const { el, calls, check } = codeCtx({ check: { status: 'wrong', detail: {} }, core: { unlockedHints: [] } });
  await calls.tracked;
  await check();
  assert.deepEqual(calls.check, [['k1', { code: codeBlock().starter, status: 'syntax_error', message: 'E'.repeat(1500) }]]);
  const fb = feedbackOf(el);
  assert.deepEqual(texts(fb), [T('code.syntax_error'), 'E'.repeat(2000), T('q.attempts', { n: 1 })]);
  python = () => ({ status: 'crashed', output: '' });
  const silent = codeCtx({ check: { status: 'wrong' } });
  await silent.calls.tracked;
  await silent.check();
  assert.deepEqual(silent.calls.check[0][1], { code: codeBlock().starter, status: 'crashed', message: '' });
});

test('code: Check on a run that is not an attempt records nothing; the core refusing says its message; an error is shown', async () => {
  python = () => ({ status: 'import_refused', module: 'os', output: '' });
  const { el, calls, check } = codeCtx({ check: { status: 'correct' } });
  await calls.tracked;
  await check();
  assert.equal(calls.check.length, 0);
  const fb = feedbackOf(el);
  assert.equal(fb.className, 'feedback incorrect');
  assert.deepEqual(texts(fb), [T('code.import_refused', { module: 'os' }), T('code.not_counted')]);
  python = () => ({ status: 'ok', results: [], output: '' });
  const refused = codeCtx({ check: { status: 'malformed', message: 'results do not fit' } });
  await refused.calls.tracked;
  const before = answered.length;
  await refused.check();
  assert.deepEqual(texts(feedbackOf(refused.el)), ['results do not fit']);
  assert.equal(feedbackOf(refused.el).className, 'feedback malformed');
  assert.equal(answered.length, before);
  const failing = codeCtx({ check: new Error('x') });
  await failing.calls.tracked;
  await failing.check();
  assert.equal(feedbackOf(failing.el).className, 'feedback error');
  assert.equal(failing.el.querySelectorAll('button').some((b) => b.disabled), false);
});

test('code: once no attempt is left only Check closes; Run stays', async () => {
  python = () => ({ status: 'ok', results: [], output: '' });
  const { el, calls, btn, check } = codeCtx({ block: { max_attempts: 1 }, core: { attemptStatus: (a) => ({ left: 1 - a.made, nextCredit: 1, maxAttempts: 1 }) }, check: { status: 'wrong', detail: { passed: 0, total: 1 } } });
  await calls.tracked;
  await settle();
  assert.equal(btn('code-check').disabled, false);
  await check();
  assert.equal(btn('code-check').disabled, true);
  assert.equal(btn('code-run').disabled, false);
  assert.equal(one(el, '.attempt-cost').textContent, T('q.no_attempts_left', { max: 1 }));
  await btn('code-run').fire('click');
  assert.equal(btn('code-check').disabled, true);
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
