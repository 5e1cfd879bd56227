// The verdict's ranking (ties named as ties) and the kept run (sessionStorage,
// read back as hostile input), as plain functions. Values worked by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rankRun, predictionOutcome, validateRun, saveRun, loadRun, MAX_STORED_CHARS } from '../../web/js/widgets/extrap-run.js';

const ev = (solvedUpTo, testMax = 48) => ({ trainMax: 16, testMax, exactMatch: Array.from({ length: testMax }, (_, i) => (i < solvedUpTo ? 1 : 0)), solvedUpTo, meanExtrapolated: Math.max(0, solvedUpTo - 16) / 32 });
const result = (scheme, seed, solved) => ({ scheme, seed, seconds: 1, evaluation: ev(solved) });

test('rankRun: the mean over seeds of the largest n solved; ties are ties', () => {
  // learned 16, 16 → 16; rope 16, 20 → 18; none 20, 16 → 18: rope and none tie for furthest.
  const r = rankRun([result('learned', 1, 16), result('learned', 2, 16), result('rope', 1, 16), result('rope', 2, 20), result('none', 1, 20), result('none', 2, 16)], ['learned', 'rope', 'none']);
  assert.deepEqual(r.rows.map((x) => [x.scheme, x.mean]), [['learned', 16], ['rope', 18], ['none', 18]]);
  assert.deepEqual(r.furthest, ['rope', 'none']);
  assert.deepEqual(r.first, ['learned']);
  assert.equal(r.allTied, false);
  assert.equal(predictionOutcome('none', r), 'tied');
  assert.equal(predictionOutcome('learned', r), 'other');
  assert.equal(predictionOutcome('alibi', r), 'not_trained');
  // A learned seed beating the others (the run): learned is named, not the literature's NoPE.
  const s = rankRun([result('learned', 1, 24), result('sinusoidal', 1, 16), result('none', 1, 20)], ['learned', 'sinusoidal', 'none']);
  assert.deepEqual(s.furthest, ['learned']);
  assert.equal(predictionOutcome('learned', s), 'furthest');
  const all = rankRun([result('learned', 1, 16), result('sinusoidal', 1, 16)], ['learned', 'sinusoidal']);
  assert.equal(all.allTied, true);
  assert.equal(predictionOutcome('learned', all), 'all_tied');
  assert.equal(predictionOutcome('none', all), 'not_trained');
});

function fakeStore() {
  const m = new Map();
  return { getItem: (k) => (m.has(k) ? m.get(k) : null), setItem: (k, v) => m.set(k, String(v)), removeItem: (k) => m.delete(k), map: m };
}
const session = () => ({ options: { schemes: ['learned', 'none'], seeds: [1], steps: 3 }, results: [result('learned', 1, 16), result('none', 1, 40)], losses: { 'learned|1': [2, 1.5, 1], 'none|1': [2, 1.2, 0.9] }, seconds: 4.2, mode: 'worker' });

test('a finished run is kept per scheme set and read back whole', () => {
  const store = fakeStore();
  assert.equal(saveRun('ex', session(), store), true);
  const back = loadRun('ex', ['none', 'learned'], store);
  assert.deepEqual(back.options, session().options);
  assert.deepEqual(back.results.map((r) => [r.scheme, r.evaluation.solvedUpTo]), [['learned', 16], ['none', 40]]);
  assert.deepEqual(back.losses, session().losses);
  // Another scheme set: the tab's last run.
  assert.deepEqual(loadRun('ex', ['rope'], store).options.schemes, ['learned', 'none']);
  assert.equal(loadRun('other-exercise', ['rope'], store), null);
});

test('hostile stored runs are refused and removed, never thrown', () => {
  const good = JSON.parse(JSON.stringify({ v: 1, ...session() }));
  const bad = [
    null, 7, 'x', [], { ...good, v: 2 },
    { ...good, options: { ...good.options, schemes: ['cosine'] } },
    { ...good, options: { ...good.options, schemes: ['none', 'none'] } },
    { ...good, options: { ...good.options, seeds: [1, 2, 3, 4, 5, 6] } },
    { ...good, options: { ...good.options, steps: 1e9 } },
    { ...good, results: good.results.slice(1) },
    { ...good, results: [good.results[0], good.results[0]] },
    { ...good, results: [{ ...good.results[0], evaluation: { ...good.results[0].evaluation, solvedUpTo: 99 } }, good.results[1]] },
    { ...good, results: [{ ...good.results[0], evaluation: { ...good.results[0].evaluation, exactMatch: [2] } }, good.results[1]] },
    { ...good, results: [{ ...good.results[0], evaluation: { ...good.results[0].evaluation, meanExtrapolated: NaN } }, good.results[1]] },
    { ...good, losses: { 'rope|1': [1] } },
    { ...good, losses: { 'learned|1': [1, 2, 3, 4] } },
    { ...good, losses: { 'learned|1': ['1'] } },
    { ...good, losses: [] },
  ];
  assert.ok(validateRun(good), 'the good one passes');
  for (const [i, v] of bad.entries()) assert.equal(validateRun(v), null, `case ${i}`);
  const store = fakeStore();
  store.setItem('poslab.extrap.v1:ex:learned,none', '{not json');
  store.setItem('poslab.extrap.v1:ex:last', 'learned,none');
  assert.equal(loadRun('ex', ['learned', 'none'], store), null);
  assert.equal(store.map.has('poslab.extrap.v1:ex:learned,none'), false, 'removed');
  store.setItem('poslab.extrap.v1:ex:learned,none', ' '.repeat(MAX_STORED_CHARS + 1));
  assert.equal(loadRun('ex', ['learned', 'none'], store), null, 'too big');
  store.setItem('poslab.extrap.v1:ex:last', '../../etc,' + 'x'.repeat(200));
  assert.equal(loadRun('ex', ['rope'], store), null);
  const throwing = { getItem() { throw new Error('denied'); }, setItem() { throw new Error('denied'); }, removeItem() { throw new Error('denied'); } };
  assert.equal(loadRun('ex', ['rope'], throwing), null);
  assert.equal(saveRun('ex', session(), throwing), false);
});
