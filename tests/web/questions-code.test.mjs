// web/js/questions.js's code questions (the editor, Run, Check) and showValue,
// on the stand-in DOM with the Python sandbox stubbed (tests/web/questions-harness.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { body, window, Q, T, settle, answered, makeCtx, mount, one, feedbackOf, texts, submit, lastAnswered, pyRequests, editors, setPython, setEditorLoads } from './questions-harness.mjs';

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
  setEditorLoads(false);
  const { el, calls } = codeCtx();
  await calls.tracked;
  assert.equal(el.querySelectorAll('.core-error').length, 1);
  assert.equal(el.querySelectorAll('p.muted').filter((p) => p.textContent === T('code.loading_editor')).length, 0);
  setEditorLoads(true);
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
  setPython((req) => ({ status: 'ok', results: [{ ok: true, value: 0.5 }, { ok: true, value: [1, 2] }, { ok: false, error: 'ValueError', message: 'neg' }], output: 'hi', dropped: 0 }));
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
  setPython(() => ({ status: 'ok', results: [{ ok: true, value: { type: 'str', repr: big } }], output: '' }));
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
  setPython(() => ({ status: 'ok', results: verdictCases.map(() => ({ ok: true, value: 1 })), output: '' }));
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
    setPython(() => r);
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
  setPython(() => ({ status: 'timeout', output: '' }));
  let m = codeCtx();
  await m.calls.tracked;
  await m.run();
  assert.equal(one(m.el, '.code-results').children[0].textContent, T('code.timeout', { s: 2 }));
  assert.equal(pyRequests.length > 0, true);
  setPython(() => ({ status: 'import_refused', module: 'm'.repeat(100), output: '' }));
  m = codeCtx();
  await m.calls.tracked;
  await m.run();
  assert.equal(one(m.el, '.code-results').children[0].textContent, T('code.import_refused', { module: 'm'.repeat(80) }));
  setPython(() => ({ status: 'unsupported', feature: 'f'.repeat(100), output: '' }));
  m = codeCtx();
  await m.calls.tracked;
  await m.run();
  assert.equal(one(m.el, '.code-results').children[0].textContent, T('code.unsupported', { feature: 'f'.repeat(80), instead: T('code.gap.other') }));
});

test('code: the core failing on Run is shown as an error; code over 10000 characters is refused before Python', async () => {
  setPython(() => ({ status: 'ok', results: [], output: '' }));
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
  setPython(() => ({ status: 'ok', results: [{ ok: true, value: 2 }], output: '' }));
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
  setPython(() => ({ status: 'ok', results: [], output: 'dbg', dropped: 3 }));
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
  setPython(() => ({ status: 'syntax_error', message: 'E'.repeat(2000), output: '' }));
  const { el, calls, check } = codeCtx({ check: { status: 'wrong', detail: {} }, core: { unlockedHints: [] } });
  await calls.tracked;
  await check();
  assert.deepEqual(calls.check, [['k1', { code: codeBlock().starter, status: 'syntax_error', message: 'E'.repeat(1500) }]]);
  const fb = feedbackOf(el);
  assert.deepEqual(texts(fb), [T('code.syntax_error'), 'E'.repeat(2000), T('q.attempts', { n: 1 })]);
  setPython(() => ({ status: 'crashed', output: '' }));
  const silent = codeCtx({ check: { status: 'wrong' } });
  await silent.calls.tracked;
  await silent.check();
  assert.deepEqual(silent.calls.check[0][1], { code: codeBlock().starter, status: 'crashed', message: '' });
});

test('code: Check on a run that is not an attempt records nothing; the core refusing says its message; an error is shown', async () => {
  setPython(() => ({ status: 'import_refused', module: 'os', output: '' }));
  const { el, calls, check } = codeCtx({ check: { status: 'correct' } });
  await calls.tracked;
  await check();
  assert.equal(calls.check.length, 0);
  const fb = feedbackOf(el);
  assert.equal(fb.className, 'feedback incorrect');
  assert.deepEqual(texts(fb), [T('code.import_refused', { module: 'os' }), T('code.not_counted')]);
  setPython(() => ({ status: 'ok', results: [], output: '' }));
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
  setPython(() => ({ status: 'ok', results: [], output: '' }));
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

