// web/js/grading/code-rerun.js at its edges (found by `npm run mutate:js`):
// every run status kept as the sandbox said it, unknown ones a crash; what a
// throwing or silent sandbox leaves; messages cut and made text; the two
// statuses that are not attempts in the page mapped to what the core grades;
// a sandbox that cannot run leaves the attempt not re-run; odd lists run nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runListedAttempts, RUN_STATUSES, MAX_MESSAGE_CHARS } from '../../web/js/grading/code-rerun.js';

const one = { attempts: [{ key: 'ex/q/0', runnable: true, code: 'x', function: 'f', timeLimitMs: 100, cases: [[1]] }] };
const rerun = async (run, list = one) => (await runListedAttempts(list, { run, budget: { spentMs: 0 } })).results;

test('the statuses, in the order shown', () => {
  assert.deepEqual(RUN_STATUSES, ['ok', 'timeout', 'syntax_error', 'load_error', 'no_function', 'memory', 'crashed']);
});

test('each status the sandbox reports is kept with its message; an unknown one or none at all is a crash', async () => {
  for (const status of ['timeout', 'syntax_error', 'load_error', 'no_function', 'memory', 'crashed']) {
    assert.deepEqual((await rerun(async () => ({ status, message: `m-${status}` })))['ex/q/0'], { status, message: `m-${status}` }, status);
  }
  for (const r of [{ status: 'weird', message: 'w' }, null, undefined, {}]) {
    assert.equal((await rerun(async () => r))['ex/q/0'].status, 'crashed', JSON.stringify(r));
  }
});

test('a sandbox that throws: its message, or the thrown value as text', async () => {
  assert.deepEqual((await rerun(async () => { throw new Error('boom'); }))['ex/q/0'], { status: 'crashed', message: 'boom' });
  assert.deepEqual((await rerun(async () => { throw 'plain'; }))['ex/q/0'], { status: 'crashed', message: 'plain' }); // eslint-disable-line no-throw-literal
});

test('a long message is cut at MAX_MESSAGE_CHARS; a number becomes text; ok keeps only its results', async () => {
  const long = (await rerun(async () => ({ status: 'timeout', message: 'y'.repeat(MAX_MESSAGE_CHARS + 7) })))['ex/q/0'];
  assert.equal(long.message, 'y'.repeat(MAX_MESSAGE_CHARS));
  assert.equal((await rerun(async () => ({ status: 'load_error', message: 42 })))['ex/q/0'].message, '42');
  const ok = (await rerun(async () => ({ status: 'ok', results: [{ ok: true, value: 3 }], output: 'printed', message: 'ignored' })))['ex/q/0'];
  assert.deepEqual(ok, { status: 'ok', results: [{ ok: true, value: 3 }] });
});

test('the page-only statuses reach the core as it knows them; an unavailable sandbox is not a run of the code', async () => {
  assert.equal((await rerun(async () => ({ status: 'import_refused', module: 'os', message: 'no os' })))['ex/q/0'].status, 'load_error');
  const unsupported = (await rerun(async () => ({ status: 'unsupported', feature: 'float.is_integer', results: [{ ok: false, error: 'AttributeError' }] })))['ex/q/0'];
  assert.deepEqual(unsupported, { status: 'ok', results: [{ ok: false, error: 'AttributeError' }] });
  assert.equal((await rerun(async () => ({ status: 'unsupported', feature: 'float.is_integer', message: 'at load' })))['ex/q/0'].status, 'load_error');
  assert.deepEqual((await rerun(async () => ({ status: 'sandbox_unavailable', message: 'no bwrap' })))['ex/q/0'], { status: 'not_rerun', reason: 'sandbox_unavailable' });
});

test('lists that are missing or odd run nothing and throw nothing', async () => {
  let n = 0;
  const run = async () => (n++, { status: 'ok', results: [] });
  for (const list of [null, undefined, {}, { attempts: [] }, { attempts: [{ key: 'k', runnable: false, reason: 'too_long' }] }]) {
    assert.deepEqual((await runListedAttempts(list, { run, budget: { spentMs: 0 } })).results, {}, JSON.stringify(list));
  }
  assert.equal(n, 0);
});
