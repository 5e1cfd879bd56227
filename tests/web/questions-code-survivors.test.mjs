// web/js/questions.js's code questions: behaviour left untested by the
// StrykerJS run of issue #23 — the expected value named in a failure (found by
// its path, only through lists), numbers shown to 6 digits, which exception
// no_raise names, the hidden cases when the variant has none, the file's time
// limit, what Run and Check disable while they run, when Check closes, a code
// question once solved staying solved, what a Check shows (explanation only
// when correct, hints only when not), and the optional ctx hooks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Q, T, settle, makeCtx, mount, one, feedbackOf, texts, lastAnswered, pyRequests, editors, setPython } from './questions-harness.mjs';

const codeBlock = (o = {}) => ({
  id: 'k1',
  type: 'code',
  prompt: 'Write f',
  function: 'f',
  params: ['x', 'ys'],
  starter: 'def f(x, ys):\n    pass\n',
  cases: [{ args: [1, [2]] }, { args: [3, []] }],
  ...o,
});
const codeCtx = (o = {}) => {
  const m = mount('code', codeBlock(o.block), o);
  const btn = (cls) => one(m.el, `button.${cls}`);
  return { ...m, run: () => btn('code-run').fire('click'), check: () => btn('code-check').fire('click'), btn };
};
const statusFor = (max) => (a) => ({ left: max - a.made, nextCredit: 1, maxAttempts: max });
const inTurn = (...verdicts) => () => verdicts.shift();
const okPython = () => setPython((req) => ({ status: 'ok', results: req.cases.map(() => ({ ok: true, value: 1 })), output: '' }));

// ---- failures in words -------------------------------------------------------------
test('code Run: a wrong value names the expected number at its path (only through lists); numbers to 6 digits', async () => {
  const verdictCases = [
    // At the top: the expected value itself.
    { ok: false, kind: 'value', got: 1 / 3, expected: 0.5 },
    // [1] of [1, 2.5] is 2.5; [0][1] of [[1, 2]] is 2.
    { ok: false, kind: 'value', got: 7, at: [1], expected: [1, 2.5] },
    { ok: false, kind: 'value', got: 7, at: [0, 1], expected: [[1, 2]] },
    // Not a list (a dict-like value, a number): no expected number to name.
    { ok: false, kind: 'value', got: 7, at: [0], expected: { 0: 4 } },
    { ok: false, kind: 'value', got: 7, at: [0, 0], expected: [3] },
    // The exception the file's cases expect.
    { ok: false, kind: 'no_raise' },
    // A wrong type at the top of the result.
    { ok: false, kind: 'type', want: 'list', got: 'int' },
  ];
  setPython(() => ({ status: 'ok', results: verdictCases.map(() => ({ ok: true, value: 1 })), output: '' }));
  const cases = verdictCases.map(() => ({ args: [0, []] }));
  cases[5].raises = 'KeyError';
  const { el, calls, run } = codeCtx({ block: { cases }, core: { codeRun: { passed: 0, total: 7, cases: verdictCases } } });
  await calls.tracked;
  await run();
  const why = one(el, 'tbody').children.map((r) => r.children[4].textContent);
  assert.deepEqual(why, [
    T('code.fail_value_want', { at: T('code.top'), got: '0.333333', want: '0.5' }),
    T('code.fail_value_want', { at: '[1]', got: '7', want: '2.5' }),
    T('code.fail_value_want', { at: '[0][1]', got: '7', want: '2' }),
    T('code.fail_value', { at: '[0]', got: '7' }),
    T('code.fail_value', { at: '[0][0]', got: '7' }),
    T('code.fail_no_raise', { want: 'KeyError' }),
    T('code.fail_type', { at: T('code.top'), want: T('code.type_list'), got: 'int' }),
  ]);
});

test('code Check: no_raise on a question with no visible cases names ValueError', async () => {
  okPython();
  const { el, calls, check } = codeCtx({ block: { cases: undefined }, check: { status: 'wrong', detail: { passed: 0, total: 1, failed: { case: 0, args: [2, []], kind: 'no_raise' } } } });
  await calls.tracked;
  await check();
  assert.equal(texts(feedbackOf(el))[1], `${T('code.failed_case', { n: 1, call: 'f(x=2, ys=[])' })} ${T('code.fail_no_raise', { want: 'ValueError' })}`);
});

// ---- what is run ---------------------------------------------------------------------
test('code Check: no variant, or none for this question: no hidden cases are run', async () => {
  okPython();
  const verdict = { status: 'wrong', detail: { passed: 0, total: 0 } };
  const bare = codeCtx({ check: verdict });
  delete bare.ctx.variant;
  await bare.calls.tracked;
  let before = pyRequests.length;
  await bare.check();
  assert.deepEqual(pyRequests.slice(before).map((r) => r.cases), [[]]);
  assert.equal(feedbackOf(bare.el).className, 'feedback wrong');
  const other = codeCtx({ check: verdict, variant: { 'code:k9': { hidden: [{ args: [1, []] }] } } });
  await other.calls.tracked;
  before = pyRequests.length;
  await other.check();
  assert.deepEqual(pyRequests.slice(before).map((r) => r.cases), [[]]);
});

test('code Run: the file\'s time limit is used (20 ms: code taking 80 ms times out); without one, 80 ms is fine', async () => {
  // The stand-in Python blocks for 80 ms before it answers, as slow code would.
  setPython((req) => {
    const end = Date.now() + 80;
    while (Date.now() < end);
    return { status: 'ok', results: req.cases.map(() => ({ ok: true, value: 1 })), output: '' };
  });
  const quick = codeCtx({ block: { time_limit_ms: 20 }, core: { codeRun: { passed: 2, total: 2, cases: [{ ok: true }, { ok: true }] } } });
  await quick.calls.tracked;
  await quick.run();
  assert.equal(one(quick.el, '.code-results').className, 'code-results incorrect');
  assert.deepEqual(texts(one(quick.el, '.code-results')), [T('code.timeout', { s: 0.02 })]);
  const usual = codeCtx({ core: { codeRun: { passed: 2, total: 2, cases: [{ ok: true }, { ok: true }] } } });
  await usual.calls.tracked;
  await usual.run();
  assert.equal(one(usual.el, '.code-results').className, 'code-results correct');
});

// ---- busy, closed, solved ---------------------------------------------------------
test('code: while Run or Check runs both buttons are disabled and the question is marked running; then they open again', async () => {
  okPython();
  const { el, calls, run, check, btn } = codeCtx({ core: { codeRun: { passed: 2, total: 2, cases: [{ ok: true }, { ok: true }] } }, check: { status: 'wrong', detail: { passed: 0, total: 0 } } });
  await calls.tracked;
  const running = run();
  assert.deepEqual([btn('code-run').disabled, btn('code-check').disabled], [true, true]);
  assert.equal(el.classList.contains('running'), true);
  assert.equal(one(el, '.code-results').className, 'code-results running');
  assert.deepEqual(texts(one(el, '.code-results')), [T('code.running')]);
  await running;
  assert.deepEqual([btn('code-run').disabled, btn('code-check').disabled], [false, false]);
  assert.equal(el.classList.contains('running'), false);
  const checking = check();
  assert.deepEqual([btn('code-run').disabled, btn('code-check').disabled], [true, true]);
  assert.equal(el.classList.contains('running'), true);
  assert.equal(feedbackOf(el).className, 'feedback running');
  assert.deepEqual(texts(feedbackOf(el)), [T('code.checking')]);
  await checking;
  assert.deepEqual([btn('code-run').disabled, btn('code-check').disabled], [false, false]);
});

test('code: none left at the start closes Check at once (Run stays); attempts left keep it open after a Run', async () => {
  okPython();
  const spent = codeCtx({ block: { max_attempts: 1 }, attemptsMade: () => 1, core: { attemptStatus: statusFor(1) } });
  await spent.calls.tracked;
  await settle();
  assert.deepEqual([spent.btn('code-run').disabled, spent.btn('code-check').disabled], [false, true]);
  assert.equal(one(spent.el, '.attempt-cost').textContent, T('q.no_attempts_left', { max: 1 }));
  const open = codeCtx({ block: { max_attempts: 3 }, core: { attemptStatus: statusFor(3), codeRun: { passed: 2, total: 2, cases: [{ ok: true }, { ok: true }] } } });
  await open.calls.tracked;
  await settle();
  await open.run();
  assert.equal(open.btn('code-check').disabled, false);
});

test('code: solved in the store with none left: no cost line, Check open, also after a Run', async () => {
  okPython();
  const { el, calls, run, btn } = codeCtx({ block: { max_attempts: 1 }, attemptsMade: () => 1, solved: () => true, core: { attemptStatus: statusFor(1), codeRun: { passed: 2, total: 2, cases: [{ ok: true }, { ok: true }] } } });
  await calls.tracked;
  await settle();
  assert.equal(one(el, '.attempt-cost').hidden, true);
  assert.equal(btn('code-check').disabled, false);
  await run();
  assert.equal(btn('code-check').disabled, false);
});

test('code Check: wrong, right, wrong with 3 attempts: recorded as such; solved by the right one and then for good', async () => {
  okPython();
  const wrong = { status: 'wrong', detail: { passed: 0, total: 1 } };
  const right = { status: 'correct', detail: { passed: 1, total: 1 } };
  const { el, calls, check, btn } = codeCtx({ block: { max_attempts: 3 }, core: { attemptStatus: statusFor(3) }, check: inTurn(wrong, right, wrong) });
  await calls.tracked;
  await settle();
  await check();
  assert.equal(lastAnswered().correct, false);
  assert.equal(one(el, '.attempt-cost').hidden, false);
  assert.equal(one(el, '.attempt-cost').textContent, T('q.attempts_left', { n: 2 }) + T('q.next_credit', { pct: 100 }));
  await check();
  assert.equal(lastAnswered().correct, true);
  assert.equal(one(el, '.attempt-cost').hidden, true);
  await check();
  assert.equal(lastAnswered().correct, false);
  assert.equal(one(el, '.attempt-cost').hidden, true);
  assert.equal(btn('code-check').disabled, false);
  assert.equal(el.classList.contains('done'), true);
});

// ---- what a Check shows -----------------------------------------------------------
test('code Check: the explanation only when correct, hints only when not', async () => {
  okPython();
  const block = { explain: 'Because.', hint: 'h' };
  const core = { unlockedHints: () => ['Look at ys.'] };
  const wrong = codeCtx({ block, core, check: { status: 'wrong', detail: { passed: 0, total: 1 } } });
  await wrong.calls.tracked;
  await wrong.check();
  assert.deepEqual(texts(feedbackOf(wrong.el)), [T('code.passed', { passed: 0, total: 1 }), `${T('q.hint')} Look at ys.`, T('q.attempts', { n: 1 })]);
  assert.equal(feedbackOf(wrong.el).querySelectorAll('.explain').length, 0);
  const right = codeCtx({ block, core, check: { status: 'correct', detail: { passed: 1, total: 1 } } });
  await right.calls.tracked;
  await right.check();
  assert.deepEqual(texts(feedbackOf(right.el)), [T('code.all_passed', { total: 1 }), 'Because.', T('q.attempts', { n: 1 })]);
  assert.equal(right.calls.core.filter(([f]) => f === 'unlockedHints').length, 0);
  // Correct with no explanation in the file: nothing in its place.
  const plain = codeCtx({ check: { status: 'correct', detail: { passed: 1, total: 1 } } });
  await plain.calls.tracked;
  await plain.check();
  assert.deepEqual(texts(feedbackOf(plain.el)), [T('code.all_passed', { total: 1 }), T('q.attempts', { n: 1 })]);
});

// ---- restore, optional hooks ------------------------------------------------------
test('code: the last of several checked answers is restored; no onProgress, track or draft hook is fine', async () => {
  okPython();
  const o = { exerciseId: 'code-three', check: { status: 'wrong', detail: { passed: 0, total: 1 } } };
  for (const src of ['v1', 'v2', 'v3']) {
    const { calls, check } = codeCtx(o);
    await calls.tracked;
    editors.at(-1).ed.text = src;
    await check();
  }
  // Reset pressed before the editor is there does nothing.
  const { calls, btn } = codeCtx(o);
  await btn('code-reset').fire('click');
  await calls.tracked;
  assert.equal(editors.at(-1).args.doc, 'v3');
  const { ctx } = makeCtx({ check: { status: 'correct', detail: { passed: 1, total: 1 } } });
  delete ctx.onProgress;
  delete ctx.track;
  delete ctx.draft;
  const q = Q.code(codeBlock(), ctx);
  await settle();
  editors.at(-1).ed.set('def f(x, ys): return 1');
  await one(q.el, 'button.code-check').fire('click');
  assert.equal(feedbackOf(q.el).className, 'feedback correct');
});

// ---- a11y markup --------------------------------------------------------------------
test('a11y: code buttons are type=button; results are a polite status; the table scrolls by keyboard, has column headers and says ok/bad in words', async () => {
  setPython(() => ({ status: 'ok', results: [{ ok: true, value: 1 }, { ok: true, value: 2 }], output: '' }));
  const { el, calls, run } = codeCtx({ core: { codeRun: { passed: 1, total: 2, cases: [{ ok: true }, { ok: false, kind: 'value', got: 2 }] } } });
  await calls.tracked;
  assert.deepEqual(el.querySelectorAll('button').map((b) => b.getAttribute('type')), ['button', 'button', 'button']);
  const out = one(el, '.code-results');
  assert.deepEqual([out.getAttribute('role'), out.getAttribute('aria-live')], ['status', 'polite']);
  await run();
  assert.equal(one(out, '.table-scroll').getAttribute('tabindex'), '0');
  assert.deepEqual(out.querySelectorAll('th').map((th) => th.getAttribute('scope')), ['col', 'col', 'col', 'col', 'col']);
  assert.deepEqual(one(out, 'tbody').children.map((tr) => one(tr, '.sr-only').textContent), [T('code.case_ok'), T('code.case_bad')]);
  assert.deepEqual(one(out, 'tbody').children.map((tr) => tr.className), ['ok', 'bad']);
});
