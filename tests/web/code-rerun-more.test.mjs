// web/js/grading/code-rerun.js: progress, the budget's exact edge, the default
// clock, a sandbox that rejects with nothing, a list with no attempts
// (StrykerJS survivors, issue #23).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runListedAttempts, countRunnable } from '../../web/js/grading/code-rerun.js';

const attempt = (key, runnable = true) => ({ key, runnable, code: 'x', function: 'f', timeLimitMs: 100, cases: [[1]] });

test('onRun counts every listed attempt, run or not, 1, 2, 3 in order', async () => {
  const seen = [];
  const list = { attempts: [attempt('a'), attempt('b', false), attempt('c')] };
  const { runs } = await runListedAttempts(list, { run: async () => ({ status: 'ok', results: [] }), budget: { spentMs: 0 }, onRun: (n) => seen.push(n) });
  assert.deepEqual(seen, [1, 2, 3]);
  assert.equal(runs, 2);
  // Also when the sandbox throws: the count still moves.
  const seen2 = [];
  await runListedAttempts({ attempts: [attempt('a')] }, { run: async () => { throw new Error('x'); }, budget: { spentMs: 0 }, onRun: (n) => seen2.push(n) });
  assert.deepEqual(seen2, [1]);
});

test('a budget spent exactly to its limit runs nothing more', async () => {
  let calls = 0;
  const run = async () => { calls += 1; return { status: 'ok', results: [] }; };
  const at = await runListedAttempts({ attempts: [attempt('a')] }, { run, budget: { spentMs: 1000 }, budgetMs: 1000 });
  assert.deepEqual(at.results, { a: { status: 'not_rerun', reason: 'budget' } });
  assert.equal(calls, 0);
  const below = await runListedAttempts({ attempts: [attempt('a')] }, { run, budget: { spentMs: 999 }, budgetMs: 1000 });
  assert.equal(below.results.a.status, 'ok');
  assert.equal(calls, 1);
});

test('without a clock given, the time spent is real milliseconds (a finite number)', async () => {
  const budget = { spentMs: 0 };
  await runListedAttempts({ attempts: [attempt('a'), attempt('b')] }, { run: async () => ({ status: 'ok', results: [] }), budget });
  assert.ok(Number.isFinite(budget.spentMs) && budget.spentMs >= 0, String(budget.spentMs));
});

test('a sandbox that rejects with undefined or null: a crash whose message is that value as text', async () => {
  for (const value of [undefined, null]) {
    const { results } = await runListedAttempts({ attempts: [attempt('a')] }, { run: () => Promise.reject(value), budget: { spentMs: 0 } });
    assert.deepEqual(results.a, { status: 'crashed', message: String(value) });
  }
});

test('a status without a message keeps an empty message', async () => {
  const { results } = await runListedAttempts({ attempts: [attempt('a')] }, { run: async () => ({ status: 'timeout' }), budget: { spentMs: 0 } });
  assert.deepEqual(results.a, { status: 'timeout', message: '' });
});

test('no list, or a list without attempts: nothing runs, nothing is counted', async () => {
  for (const list of [null, undefined, {}]) {
    const seen = [];
    const r = await runListedAttempts(list, { run: async () => ({ status: 'ok', results: [] }), budget: { spentMs: 0 }, onRun: (n) => seen.push(n) });
    assert.deepEqual(r, { results: {}, runs: 0 });
    assert.deepEqual(seen, []);
    assert.equal(countRunnable(list), 0);
  }
  assert.equal(countRunnable({ attempts: [attempt('a'), attempt('b', false)] }), 1);
});
