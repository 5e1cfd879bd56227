// The results page's arithmetic (web/js/instructor/analysis.js) against
// values worked out by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describe, histogram, analyse, rosterTable, itemsTable, minutesSpent, plainTex } from '../../web/js/instructor/analysis.js';

test('mean, median and sample SD', () => {
  // 2, 4, 4, 4, 5, 5, 7, 9: mean 5, median 4.5, Σ(x−5)² = 32, sample SD √(32/7).
  const d = describe([2, 4, 4, 4, 5, 5, 7, 9]);
  assert.equal(d.mean, 5);
  assert.equal(d.median, 4.5);
  assert.ok(Math.abs(d.sd - Math.sqrt(32 / 7)) < 1e-12);
  assert.deepEqual(describe([]), { n: 0, mean: null, median: null, sd: null });
  assert.equal(describe([3]).sd, 0);
});

test('histogram bins; the maximum falls in the last bin', () => {
  const b = histogram([0, 1, 5, 9.99, 10], 10, 5);
  assert.deepEqual(b.map((x) => x.count), [2, 0, 1, 0, 2]);
});

test('minutes between the first and the last attempt', () => {
  assert.equal(minutesSpent({ exercises: [{ attempts: [{ time: '2026-12-01T09:00:00Z' }, { time: '2026-12-01T09:30:00Z' }] }, { attempts: [{ time: 'nope' }] }] }), 30);
  assert.equal(minutesSpent({ exercises: [] }), null);
});

// Four learners, one question of 1 point: scores 1, 1, 0.5, 0 (totals 3, 2, 1.5, 0).
function row(learner, total, q) {
  return { file: `${learner}.json`, learner, exercise: 'e', status: 'graded', points: total, max: 3, flags: [], claimedDiffers: false,
    questions: [{ id: 'q', type: 'numeric', points: q, max: 1, attempts: 1, solved: q === 1, attemptsToCorrect: q === 1 ? 2 : null,
      wrong: q < 1 ? [{ attempt: 1, mistake: q === 0 ? { id: 'mistake-1', feedback: { ja: 'x', en: 'x' } } : null }] : [] },
    { id: 'other', type: 'numeric', points: total - q, max: 2, attempts: 1, solved: false, attemptsToCorrect: null, wrong: [] }] };
}

test('item analysis: facility, full credit, attempts to correct, discrimination (27% groups), flags, mistakes', () => {
  const files = [row('a', 3, 1), row('b', 2, 1), row('c', 1.5, 0.5), row('d', 0, 0)].map((r) => ({ file: r.file, rows: [r], minutes: null }));
  files.push({ file: 'bad.json', rows: [{ file: 'bad.json', learner: '', exercise: '', status: 'invalid_file', points: null, max: null, flags: [] }] });
  const r = analyse(files, [{ id: 'e' }]);
  assert.equal(r.roster.length, 4);
  const q = r.items.find((i) => i.key === 'e/q');
  assert.equal(q.facility, 2.5 / 4);
  assert.equal(q.fullCredit, 0.5);
  assert.equal(q.attemptsToCorrect, 2);
  // round(0.27·4) = 1 learner per group: a (1) minus d (0).
  assert.equal(q.discrimination, 1);
  assert.equal(q.unreliable, true);
  assert.deepEqual(q.flags, []);
  const other = r.items.find((i) => i.key === 'e/other');
  // other: (2, 1, 1, 0)/2 → facility 0.5; a 1 − d 0 = 1.
  assert.equal(other.facility, 0.5);
  const m = r.mistakes.find((x) => x.key === 'e/q');
  assert.deepEqual(m.groups.map((g) => [g.id, g.count, g.learners]), [['mistake-1', 1, ['d']], ['', 1, ['c']]]);
  assert.equal(r.overall.stats.mean, 6.5 / 4);
  assert.equal(r.files.find((f) => f.file === 'bad.json').statuses[0], 'invalid_file');
});

test('flags: too easy, too hard, not discriminating', () => {
  const easy = [1, 1, 1, 1].map((q, k) => row(`l${k}`, 3 - k, q));
  const r = analyse(easy.map((x) => ({ file: x.file, rows: [x] })), [{ id: 'e' }]);
  assert.deepEqual(r.items.find((i) => i.key === 'e/q').flags, ['too_easy', 'not_discriminating']);
  const hard = [0, 0, 0, 0].map((q, k) => row(`l${k}`, 3 - k, q));
  const h = analyse(hard.map((x) => ({ file: x.file, rows: [x] })), [{ id: 'e' }]);
  assert.deepEqual(h.items.find((i) => i.key === 'e/q').flags, ['too_hard', 'not_discriminating']);
});

test('a prediction made impossible by training first: counted per question, in the table and the CSV', () => {
  // Three learners; b and c trained before predicting (the core's ranBeforePrediction), a predicted.
  const pred = (learner, ranFirst) => ({ file: `${learner}.json`, learner, exercise: 'e', status: 'graded', points: ranFirst ? 0 : 1, max: 1, flags: ranFirst ? ['ran_before_prediction:1'] : [],
    questions: [{ id: 'p', type: 'prediction', points: ranFirst ? 0 : 1, max: 1, attempts: ranFirst ? 0 : 1, solved: !ranFirst, attemptsToCorrect: null, wrong: [], ...(ranFirst ? { ranBeforePrediction: true } : { response: ['rope'] }) }] });
  const rows = [pred('a', false), pred('b', true), pred('c', true)];
  const r = analyse(rows.map((x) => ({ file: x.file, rows: [x] })), [{ id: 'e' }]);
  const item = r.items.find((i) => i.key === 'e/p');
  assert.equal(item.ranFirst, 2);
  assert.ok(item.flags.includes('ran_first'));
  const csv = itemsTable(r);
  assert.match(csv[1][csv[0].indexOf('flags')], /(^|;)ran_first:2(;|$)/);
  assert.deepEqual(r.roster.find((L) => L.learner === 'b').flags, ['ran_before_prediction:1']);
  // Nobody trained first: no such flag.
  const none = analyse([pred('a', false)].map((x) => ({ file: x.file, rows: [x] })), [{ id: 'e' }]);
  assert.equal(none.items[0].ranFirst, 0);
  assert.ok(!none.items[0].flags.includes('ran_first'));
});

test('the roster and item tables are cells for the core\'s CSV writer: numbers stay numbers', () => {
  const r = analyse([{ file: 'a.json', rows: [{ file: 'a.json', learner: '山田', exercise: 'e', points: 5 / 3, max: 2, status: 'graded', flags: [], codeRuns: { q: { ok: 1 } }, questions: [] }] }], [{ id: 'e' }]);
  const table = rosterTable(r, ['e']);
  assert.deepEqual(table[0], ['learner', 'total', 'max', 'e', 'completion', 'minutes', 'status', 'flags', 'code_runs', 'files']);
  assert.equal(table[1][0], '山田');
  assert.equal(table[1][1], 5 / 3); // a number: the core writes it (1.666667), as poslab grade does
  assert.equal(table[1][8], 'e/q:ok=1');
  assert.ok(Array.isArray(itemsTable(r)[0]));
});

test("a mistake's TeX feedback reads as plain text", () => {
  assert.equal(plainTex('Divide by $\\sqrt{d_k} = \\sqrt{2} \\approx 1.414$.'), 'Divide by √d_k = √2 ≈ 1.414.');
  assert.equal(plainTex('($e^{1}/(e^{1}+e^{0})$)'), '(e^1/(e^1+e^0))');
});

test('a learner who handed in twice: the better grade of each exercise counts once, flagged', () => {
  const first = row('a', 1.5, 0.5);
  const second = { ...row('a', 3, 1), file: 'a-again.json' };
  const r = analyse([{ file: 'a.json', rows: [first] }, { file: 'a-again.json', rows: [second] }], [{ id: 'e' }]);
  assert.equal(r.roster.length, 1);
  assert.equal(r.roster[0].total, 3);
  assert.ok(r.roster[0].flags.includes('several_files:2'));
  assert.equal(r.items.find((i) => i.key === 'e/q').facility, 1);
});
