// web/js/grading/code-rerun.js, the runner shared by scripts/grade-code.mjs
// and the class results page, with a fake sandbox: it runs exactly what the
// core listed (never anything else), with the listed cases and time limit,
// within the learner's time budget, and keys each result by the attempt.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runListedAttempts, countRunnable, RUN_STATUSES } from '../../web/js/grading/code-rerun.js';

const list = {
  ok: true,
  learner: 'ann',
  attempts: [
    { key: 'ex/q/0', runnable: true, code: 'A', function: 'f', timeLimitMs: 700, cases: [[1], [2]] },
    { key: 'ex/q/1', runnable: false, reason: 'too_long', code: '', function: 'f', timeLimitMs: 700, cases: [] },
    { key: 'ex/q/2', runnable: true, code: 'B', function: 'f', timeLimitMs: 700, cases: [[3]] },
  ],
};

test('runs the runnable listed attempts, with their cases and time limit, keyed by attempt', async () => {
  const calls = [];
  const run = async (code, fn, cases, limits) => {
    calls.push({ code, fn, cases, limits });
    return code === 'A' ? { status: 'ok', results: [{ ok: true, value: 1 }, { ok: true, value: 2 }] } : { status: 'timeout', message: 'x'.repeat(2000) };
  };
  const budget = { spentMs: 0 };
  const { results, runs } = await runListedAttempts(list, { run, budget });
  assert.equal(runs, 2);
  assert.deepEqual(calls.map((c) => c.code), ['A', 'B']);
  assert.deepEqual(calls[0], { code: 'A', fn: 'f', cases: [[1], [2]], limits: { timeLimitMs: 700 } });
  assert.deepEqual(Object.keys(results), ['ex/q/0', 'ex/q/2']); // too_long: no result, the core flags it
  assert.deepEqual(results['ex/q/0'], { status: 'ok', results: [{ ok: true, value: 1 }, { ok: true, value: 2 }] });
  assert.equal(results['ex/q/2'].status, 'timeout');
  assert.equal(results['ex/q/2'].message.length, 500);
  assert.equal(countRunnable(list), 2);
});

test('a learner past the time budget gets not_rerun(budget), counted over their files', async () => {
  let clock = 0;
  const run = async () => {
    clock += 60;
    return { status: 'ok', results: [] };
  };
  const budget = { spentMs: 0 };
  const first = await runListedAttempts(list, { run, budget, budgetMs: 100, now: () => clock });
  assert.equal(first.runs, 2); // 0 ms spent before A, 60 before B
  assert.equal(budget.spentMs, 120);
  const second = await runListedAttempts(list, { run, budget, budgetMs: 100, now: () => clock });
  assert.equal(second.runs, 0);
  assert.deepEqual(second.results['ex/q/0'], { status: 'not_rerun', reason: 'budget' });
});

test('no sandbox: nothing runs, every runnable attempt says why', async () => {
  let n = 0;
  const { results, runs } = await runListedAttempts(list, { run: async () => (n++, { status: 'ok' }), budget: { spentMs: 0 }, notRun: 'sandbox_unavailable' });
  assert.equal(n, 0);
  assert.equal(runs, 0);
  assert.deepEqual(results['ex/q/2'], { status: 'not_rerun', reason: 'sandbox_unavailable' });
});

test('a sandbox that throws or answers nonsense ends crashed', async () => {
  const { results } = await runListedAttempts(list, {
    run: async (code) => {
      if (code === 'A') throw new Error('boom');
      return { status: 'pwned', results: [1] };
    },
    budget: { spentMs: 0 },
  });
  assert.deepEqual(results['ex/q/0'], { status: 'crashed', message: 'boom' });
  assert.equal(results['ex/q/2'].status, 'crashed');
  assert.ok(!RUN_STATUSES.includes('pwned'));
});
