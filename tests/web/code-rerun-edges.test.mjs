// web/js/grading/code-rerun.js at its edges (found by `npm run mutate:js`):
// every run status kept as the sandbox said it, unknown ones a crash; files
// that are not submissions or hold odd entries; answers that are not code,
// the code length limit exactly; what a throwing or silent sandbox leaves;
// the code_runs cell with several statuses and exercises.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  rerunCodeAttempts, countCodeRuns, codeRunsCell, RUN_STATUSES, MAX_CODE_CHARS, MAX_MESSAGE_CHARS,
} from '../../web/js/grading/code-rerun.js';

const ex = { id: 'ex', blocks: [{ type: 'code', id: 'q', function: 'f' }] };
const byId = new Map([[ex.id, ex]]);
const hiddenCases = () => [{ args: [1] }];
const sub = (answers, learner = 'ann') => ({ learner, exercises: [{ id: 'ex', attempts: answers.map((answer) => ({ question: 'q', answer })) }] });

test('the statuses, in the order shown', () => {
  assert.deepEqual(RUN_STATUSES, ['ok', 'timeout', 'syntax_error', 'load_error', 'no_function', 'memory', 'crashed', 'not_code']);
});

test('each status the sandbox reports is kept; an unknown one or none at all is a crash', async () => {
  for (const status of ['timeout', 'syntax_error', 'load_error', 'no_function', 'memory', 'crashed']) {
    const s = sub([{ code: 'x' }]);
    const tally = await rerunCodeAttempts(s, { byId, hiddenCases, run: async () => ({ status, message: `m-${status}` }) });
    assert.deepEqual(tally, { 'ex/q': { [status]: 1 } }, status);
    assert.deepEqual(s.exercises[0].attempts[0].answer, { code: 'x', status, message: `m-${status}` });
  }
  for (const r of [{ status: 'weird', message: 'w' }, null, undefined, {}]) {
    const s = sub([{ code: 'x' }]);
    const tally = await rerunCodeAttempts(s, { byId, hiddenCases, run: async () => r });
    assert.deepEqual(tally, { 'ex/q': { crashed: 1 } }, JSON.stringify(r));
    assert.equal(s.exercises[0].attempts[0].answer.status, 'crashed');
    assert.equal(s.exercises[0].attempts[0].answer.message, r?.message ?? '');
  }
});

test('a sandbox that throws: its message, or the thrown value as text', async () => {
  for (const [thrown, message] of [[new Error('boom'), 'boom'], ['bare text', 'bare text'], [42, '42']]) {
    const s = sub([{ code: 'x' }]);
    await rerunCodeAttempts(s, { byId, hiddenCases, run: async () => { throw thrown; } });
    assert.deepEqual(s.exercises[0].attempts[0].answer, { code: 'x', status: 'crashed', message });
  }
});

test('a long message is cut at MAX_MESSAGE_CHARS; a number becomes text', async () => {
  const s = sub([{ code: 'x' }, { code: 'y' }]);
  await rerunCodeAttempts(s, { byId, hiddenCases, run: async (code) => ({ status: 'timeout', message: code === 'x' ? 'a'.repeat(MAX_MESSAGE_CHARS + 7) : 12 }) });
  assert.equal(s.exercises[0].attempts[0].answer.message, 'a'.repeat(MAX_MESSAGE_CHARS));
  assert.equal(s.exercises[0].attempts[1].answer.message, '12');
});

test('answers that are not code are counted not_code and left as they are; the code limit is exact', async () => {
  const answers = [null, 'just text', { code: 5 }, { status: 'ok' }, { code: 'c'.repeat(MAX_CODE_CHARS + 1) }, { code: 'c'.repeat(MAX_CODE_CHARS) }];
  const s = sub(answers.map((a) => (a && typeof a === 'object' ? { ...a } : a)));
  const ran = [];
  const tally = await rerunCodeAttempts(s, { byId, hiddenCases, run: async (code) => { ran.push(code.length); return { status: 'ok', results: [1] }; } });
  assert.deepEqual(ran, [MAX_CODE_CHARS]);
  assert.deepEqual(tally, { 'ex/q': { not_code: 5, ok: 1 } });
  assert.deepEqual(s.exercises[0].attempts.slice(0, 5).map((a) => a.answer), answers.slice(0, 5));
  assert.equal(countCodeRuns(sub(answers), byId), 6, 'the count is of attempts, before the answers are looked at');
});

test('files that are not submissions, and odd entries, run nothing and throw nothing', async () => {
  let runs = 0;
  const run = async () => { runs += 1; return { status: 'ok', results: [] }; };
  const odd = [
    null,
    'text',
    { learner: 7, exercises: [{ id: 'ex', attempts: [{ question: 'q', answer: { code: 'x' } }] }] },
    { learner: 'ann', exercises: { 0: { id: 'ex' } } },
    { learner: 'ann', exercises: [null, 'x', { id: 'nope', attempts: [{ question: 'q', answer: { code: 'x' } }] }, { id: 'ex', attempts: { question: 'q' } }, { id: 'ex' }] },
    { learner: 'ann', exercises: [{ id: 'ex', attempts: [null, 'x', { question: 'other', answer: { code: 'x' } }] }] },
  ];
  for (const s of odd) {
    assert.deepEqual(await rerunCodeAttempts(s, { byId, hiddenCases, run }), {}, JSON.stringify(s));
    assert.equal(countCodeRuns(s, byId), 0, JSON.stringify(s));
  }
  // An exercise whose blocks are not a list has no code questions.
  const broken = new Map([['ex', { id: 'ex', blocks: { 0: { type: 'code', id: 'q' } } }]]);
  assert.deepEqual(await rerunCodeAttempts(sub([{ code: 'x' }]), { byId: broken, hiddenCases, run }), {});
  assert.equal(runs, 0);
});

test('the code_runs cell lists every status of every question of that exercise only', () => {
  const statuses = { 'ex/q1': { ok: 2, timeout: 1 }, 'ex/q2': { crashed: 1 }, 'exo/q1': { ok: 9 }, 'other/q': { ok: 1 } };
  assert.equal(codeRunsCell(statuses, 'ex'), 'q1:ok=2+timeout=1;q2:crashed=1');
  assert.equal(codeRunsCell(statuses, 'exo'), 'q1:ok=9');
  assert.equal(codeRunsCell(undefined, 'ex'), '');
});
