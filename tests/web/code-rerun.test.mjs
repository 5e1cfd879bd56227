// web/js/grading/code-rerun.js, the re-run shared by scripts/grade-code.mjs
// and the class results page, with a fake sandbox: what is run (never the
// stored results), with which cases and time limit, the 200-run cap per
// question, answers that are not code, a sandbox that throws, and the
// code_runs cell.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rerunCodeAttempts, countCodeRuns, codeRunsCell, MAX_RUNS_PER_QUESTION } from '../../web/js/grading/code-rerun.js';

const ex = {
  id: 'ex',
  blocks: [
    { type: 'code', id: 'q1', function: 'f', time_limit_ms: 700 },
    { type: 'code', id: 'q2', function: 'g' },
    { type: 'choice', id: 'c' },
  ],
};
const byId = new Map([[ex.id, ex]]);
const hiddenCases = (learner, e, q) => (q === 'q1' ? [{ args: [learner, 1] }, { args: [learner, 2] }] : [{ args: [3] }]);

test('every code attempt is run again; the stored results are replaced; other questions are left alone', async () => {
  const calls = [];
  const sub = {
    learner: 'ann',
    exercises: [{ id: 'ex', attempts: [
      { question: 'q1', answer: { code: 'def f(a, b): return 1', status: 'ok', results: [{ forged: true }] } },
      { question: 'c', answer: ['x'] },
      { question: 'q2', answer: { code: 'while True: pass', status: 'ok', results: [] } },
    ] }],
  };
  const run = async (code, fn, cases, limits) => {
    calls.push({ code, fn, cases, limits });
    return code.startsWith('while') ? { status: 'timeout', message: 'stopped' } : { status: 'ok', results: [{ value: 1 }, { value: 1 }] };
  };
  const statuses = await rerunCodeAttempts(sub, { byId, hiddenCases, run });
  assert.deepEqual(calls, [
    { code: 'def f(a, b): return 1', fn: 'f', cases: [['ann', 1], ['ann', 2]], limits: { timeLimitMs: 700 } },
    { code: 'while True: pass', fn: 'g', cases: [[3]], limits: { timeLimitMs: 2000 } },
  ]);
  assert.deepEqual(sub.exercises[0].attempts[0].answer, { code: 'def f(a, b): return 1', status: 'ok', results: [{ value: 1 }, { value: 1 }] });
  assert.deepEqual(sub.exercises[0].attempts[1].answer, ['x']);
  assert.deepEqual(sub.exercises[0].attempts[2].answer, { code: 'while True: pass', status: 'timeout', message: 'stopped' });
  assert.deepEqual(statuses, { 'ex/q1': { ok: 1 }, 'ex/q2': { timeout: 1 } });
  assert.equal(codeRunsCell(statuses, 'ex'), 'q1:ok=1;q2:timeout=1');
  assert.equal(codeRunsCell(statuses, 'other'), '');
});

test('at most 200 runs per question; answers that are not code are counted, not run; a throwing sandbox is a crash', async () => {
  const attempts = [];
  for (let i = 0; i < 205; i++) attempts.push({ question: 'q1', answer: { code: `# ${i}` } });
  attempts.push({ question: 'q2', answer: 'just text' });
  attempts.push({ question: 'q2', answer: { code: 'x'.repeat(10001) } });
  attempts.push({ question: 'q2', answer: { code: 'boom' } });
  const sub = { learner: 'bo', exercises: [{ id: 'ex', attempts }, { id: 'unknown', attempts: [{ question: 'q1', answer: { code: '' } }] }] };
  assert.equal(countCodeRuns(sub, byId), 200 + 3);
  let runs = 0;
  const seen = [];
  const run = async (code) => {
    runs += 1;
    if (code === 'boom') throw new Error('worker failed');
    return { status: 'ok', results: [] };
  };
  const statuses = await rerunCodeAttempts(sub, { byId, hiddenCases, run, onRun: (d) => seen.push(d) });
  assert.equal(runs, MAX_RUNS_PER_QUESTION + 1);
  assert.equal(MAX_RUNS_PER_QUESTION, 200);
  assert.deepEqual(statuses, { 'ex/q1': { ok: 200 }, 'ex/q2': { not_code: 2, crashed: 1 } });
  assert.deepEqual(seen, Array.from({ length: 203 }, (_, i) => i + 1));
  assert.deepEqual(attempts[204].answer, { code: '# 204' }, 'past the cap: left as it is');
  assert.deepEqual(attempts[207].answer, { code: 'boom', status: 'crashed', message: 'worker failed' });
});

test('no hidden cases (the variant failed): the attempt is left as it is; not a submission: nothing to do', async () => {
  const sub = { learner: 'cy', exercises: [{ id: 'ex', attempts: [{ question: 'q1', answer: { code: 'c', status: 'ok', results: [1] } }] }] };
  const statuses = await rerunCodeAttempts(sub, { byId, hiddenCases: async () => null, run: async () => assert.fail('not run') });
  assert.deepEqual(sub.exercises[0].attempts[0].answer, { code: 'c', status: 'ok', results: [1] });
  assert.deepEqual(statuses, { 'ex/q1': {} });
  for (const bad of [null, 7, 'x', {}, { learner: 1, exercises: [] }, { learner: 'a', exercises: {} }]) {
    assert.deepEqual(await rerunCodeAttempts(bad, { byId, hiddenCases, run: async () => assert.fail('not run') }), {});
    assert.equal(countCodeRuns(bad, byId), 0);
  }
});
