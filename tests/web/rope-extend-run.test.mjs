// RoPE extension in the page, Part 2: the kept run (sessionStorage, read back
// as hostile input), the per-method summary and the verdict's inputs, as
// plain functions. Values worked out by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validRun, summarize, verdict, saveRun, loadRun, fmtShare, piNote, nList, METHODS, RUN } from '../../web/js/widgets/rope-extend-run.js';
import { setLang } from '../../web/js/i18n.js';

globalThis.document ??= { documentElement: {} }; // setLang writes the page's lang
const setLanguage = setLang;

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

test('verdict: the best zero-shot mean, then who solved every n in every seed, zero-shot and after the fine-tune', () => {
  const lines = verdict(summarize(run));
  assert.equal(lines.length, 3); // PI beats none, so no "no gain" line
  const same = { seeds: [1], results: [result(1, [16, 16, 12, 9], [16, 16, 16, 16])] };
  assert.equal(verdict(summarize(same)).length, 4, 'none ties at the top: the "no method did better" line is added');
});

test('fmtShare: a share under 1 never reads as 1, one above 0 never as 0', () => {
  assert.equal(fmtShare(0.9974), '0.997');
  assert.equal(fmtShare(0.9921875), '0.99');
  assert.equal(fmtShare(0.99739583), '0.997'); // NTK-aware, seeds 1–3 after the fine-tune
  assert.equal(fmtShare(0.99999), '0.99999');
  assert.equal(fmtShare(1), '1.00');
  assert.equal(fmtShare(0), '0.00');
  assert.equal(fmtShare(0.5), '0.50');
  assert.equal(fmtShare(0.001), '0.001');
  assert.equal(fmtShare(0.0625), '0.06');
  for (let k = 1; k < 4096; k++) {
    const x = 1 - k / 4096 / 64;
    assert.notEqual(Number(fmtShare(x)), 1, String(x));
    assert.notEqual(Number(fmtShare(1 - x)), 0, String(1 - x));
  }
});

// Seeds 1–3 of the page's run, after the fine-tune, as the cached run has
// them: NTK-aware solved every n in seeds 1 and 2 but only n ≤ 15 in seed 3
// (0.9375 at n = 16; mean past n = 8 over seeds (1 + 1 + 0.9921875)/3 = 0.9974).
test('verdict with a method just under 1: NTK-aware is not said to have solved every n', () => {
  const full = (m, ft) => ({ method: m, finetuned: ft, exactMatch: Array(16).fill(1), solvedUpTo: 16, meanExtrapolated: 1 });
  const ntk3 = { method: 'ntk', finetuned: true, exactMatch: [...Array(15).fill(1), 0.9375], solvedUpTo: 15, meanExtrapolated: 0.9921875 };
  const seedRun = (seed, last) => ({ seed, curves: METHODS.flatMap((m) => [{ ...full(m, false), exactMatch: Array(16).fill(0.5), solvedUpTo: 0, meanExtrapolated: 0.5 }, m === 'ntk' && last ? ntk3 : m === 'pi' ? curve('pi', true, 1) : full(m, true)]) });
  const r = { seeds: [1, 2, 3], results: [seedRun(1, false), seedRun(2, false), seedRun(3, true)] };
  const rows = summarize(r);
  const ntk = rows.find((x) => x.method === 'ntk' && x.finetuned);
  assert.ok(Math.abs(ntk.mean - 0.99739583) < 1e-8);
  assert.equal(ntk.everyN, false);
  assert.equal(ntk.solvedN, 15); // n = 1 … 15 solved in every seed
  assert.equal(rows.find((x) => x.method === 'yarn' && x.finetuned).everyN, true);
  setLanguage('en');
  const lines = verdict(rows);
  const ft = lines[lines.length - 1];
  // The question's rule, word for word: only YaRN and plain RoPE here (PI solved n = 1 only).
  assert.match(ft, /solved every n = 1 … 16 in every seed: None \(plain RoPE\), YaRN \(lab's rescaled edges\)\./);
  assert.match(ft, /NTK-aware scaling 15\/16 n/);
  assert.match(ft, /Position Interpolation \(PI\) 1\/16 n/);
  assert.doesNotMatch(lines.join(' '), /NTK-aware scaling 1\.00/);
  setLanguage('ja');
  assert.match(verdict(rows).at(-1), /一つ残らず解けたのは なし（素の RoPE）、YaRN（ラボで縮めた境界） です/);
  setLanguage('en');
});

test('piNote: said only when the run shows PI at 0 inside the trained lengths', () => {
  // PI solved n = 1, 2 and nothing else, zero-shot and after the fine-tune (n = 1 only).
  const r = { seeds: [1], results: [result(1, [11, 2, 14, 13], [13, 1, 16, 16])] };
  const note = piNote(summarize(r));
  assert.deepEqual(note.zeroNs, [3, 4, 5, 6, 7, 8]);
  assert.deepEqual(note.tunedNs, [2, 3, 4, 5, 6, 7, 8]);
  assert.equal(note.noneSolved, true); // plain RoPE solved n ≤ 11
  assert.equal(nList(note.zeroNs), '3–8');
  assert.equal(nList([1, 2, 5, 7, 8, 9]), '1, 2, 5, 7–9');
  // PI above 0 at every trained n (here: solves all 16): no note.
  assert.equal(piNote(summarize(run)), null);
  // Plain RoPE failing there too: the note does not claim it scored 1.
  const both = { seeds: [1], results: [result(1, [4, 2, 14, 13], [13, 1, 16, 16])] };
  assert.equal(piNote(summarize(both)).noneSolved, false);
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
