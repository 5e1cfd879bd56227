// RoPE extension in the page, Part 2: the kept run (sessionStorage, read back
// as hostile input), the per-method summary and the verdict's inputs, as
// plain functions. Values worked out by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validRun, summarize, verdict, saveRun, loadRun, METHODS, RUN } from '../../web/js/widgets/rope-extend-run.js';

// A curve solving n = 1 … solved (of 16); meanExtrapolated over n = 9 … 16.
const curve = (method, finetuned, solved) => ({ method, finetuned, exactMatch: Array.from({ length: 16 }, (_, i) => (i < solved ? 1 : 0)), solvedUpTo: solved, meanExtrapolated: Math.max(0, solved - 8) / 8 });
const result = (seed, zero, tuned) => ({ seed, curves: METHODS.flatMap((m, i) => [curve(m, false, zero[i]), curve(m, true, tuned[i])]) });
const run = { seeds: [1, 2], results: [result(1, [10, 16, 13, 7], [16, 16, 16, 16]), result(2, [12, 16, 16, 9], [16, 16, 16, 12])] };

test('summarize: per method the mean over seeds of the mean past n = 8, and each seed\'s largest n solved', () => {
  assert.equal(RUN.trainMax, 8);
  const rows = summarize(run);
  const zero = Object.fromEntries(rows.filter((r) => !r.finetuned).map((r) => [r.method, r.mean]));
  // none: (10−8)/8 = 0.25 and (12−8)/8 = 0.5 → 0.375; pi: 1, 1 → 1; ntk: 5/8, 1 → 0.8125; yarn: 0, 1/8 → 0.0625.
  assert.deepEqual(zero, { none: 0.375, pi: 1, ntk: 0.8125, yarn: 0.0625 });
  const yarnTuned = rows.find((r) => r.method === 'yarn' && r.finetuned);
  assert.equal(yarnTuned.mean, (1 + 0.5) / 2);
  assert.deepEqual(yarnTuned.solved, [16, 12]);
  // The plotted curve: at n = 11, none solved in seed 2 only → 0.5.
  assert.equal(rows.find((r) => r.method === 'none' && !r.finetuned).curve[10], 0.5);
});

test('verdict: a line for zero-shot and one for the fine-tune, plus one when no method beats plain RoPE', () => {
  const lines = verdict(summarize(run));
  assert.equal(lines.length, 2); // PI beats none, so no "no gain" line; yarn is not solved after the fine-tune
  const same = { seeds: [1], results: [result(1, [16, 16, 12, 9], [16, 16, 16, 16])] };
  assert.equal(verdict(summarize(same)).length, 3, 'none ties at the top: the "no method did better" line is added');
});

test('validRun: only the shape the widget writes comes back', () => {
  assert.equal(validRun(run), run);
  const bad = [
    null, 'run', { seeds: [], results: [] }, { seeds: [1, 2, 3, 4], results: [] },
    { seeds: [1], results: [result(1, [1, 1, 1, 1], [1, 1, 1, 1]), result(2, [1, 1, 1, 1], [1, 1, 1, 1])] },
    { seeds: [1], results: [{ seed: 1, curves: [] }] },
    { seeds: [1], results: [{ seed: 1, curves: result(1, [1, 1, 1, 1], [1, 1, 1, 1]).curves.map((c) => ({ ...c, method: 'rope' })) }] },
    { seeds: [1], results: [{ seed: 1, curves: result(1, [1, 1, 1, 1], [1, 1, 1, 1]).curves.map((c) => ({ ...c, exactMatch: c.exactMatch.map(() => 1.5) })) }] },
    { seeds: [1], results: [{ seed: 1, curves: result(1, [1, 1, 1, 1], [1, 1, 1, 1]).curves.map((c) => ({ ...c, exactMatch: c.exactMatch.map(() => '1') })) }] },
    { seeds: [1], results: [{ seed: 1, curves: result(1, [1, 1, 1, 1], [1, 1, 1, 1]).curves.map((c) => ({ ...c, exactMatch: [1] })) }] },
  ];
  for (const b of bad) assert.equal(validRun(b), null, JSON.stringify(b)?.slice(0, 80));
});

test('validRun: look back k scores an n by the fraction of its 16 test sequences solved, so 0.5 or 15/16 are kept', () => {
  const frac = { seeds: [1], results: [{ seed: 1, curves: result(1, [1, 1, 1, 1], [1, 1, 1, 1]).curves.map((c, i) => ({ ...c, exactMatch: c.exactMatch.map((v, n) => (n === 3 ? (i % 2 ? 15 / 16 : 0.5) : v)) })) }] };
  assert.equal(validRun(frac), frac);
  assert.equal(RUN.task, 'lookback');
});

test('saveRun / loadRun through sessionStorage; a tampered or oversized value is ignored', () => {
  const data = new Map();
  globalThis.sessionStorage = { getItem: (k) => (data.has(k) ? data.get(k) : null), setItem: (k, v) => data.set(k, String(v)) };
  try {
    assert.equal(loadRun(), null);
    saveRun(run);
    assert.deepEqual(loadRun(), run);
    const key = [...data.keys()][0];
    data.set(key, '{"seeds": [1], "results": "x"}');
    assert.equal(loadRun(), null);
    data.set(key, 'not json');
    assert.equal(loadRun(), null);
    data.set(key, 'x'.repeat(300000));
    assert.equal(loadRun(), null);
  } finally {
    delete globalThis.sessionStorage;
  }
});
