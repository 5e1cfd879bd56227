// The results page and the start page count things in words that agree with
// the number: "1 file, 1 learner" / "2 files, 3 learners" in English (ICU
// plural rules), ファイル 1 件、受講者 1 人 in Japanese (its own counters).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CATALOG, format } from '../../web/js/catalog.js';

const summary = (lang, files, learners) => format(lang, 'instructor.summary', { files: format(lang, 'instructor.n_files', { count: files }), learners: format(lang, 'instructor.n_learners', { count: learners }) });

test('the results summary: singular for one, plural otherwise (en); counters (ja)', () => {
  assert.equal(summary('en', 1, 1), '1 file, 1 learner.');
  assert.equal(summary('en', 2, 3), '2 files, 3 learners.');
  assert.equal(summary('en', 0, 0), '0 files, 0 learners.');
  assert.equal(summary('en', 1200, 1), '1,200 files, 1 learner.');
  assert.equal(summary('ja', 1, 1), 'ファイル 1 件、受講者 1 人。');
  assert.equal(summary('ja', 2, 3), 'ファイル 2 件、受講者 3 人。');
});

test('the other counted lines of the results page and the start page', () => {
  assert.equal(format('en', 'instructor.done', { count: 1, seconds: '0.50' }), 'Re-graded 1 file in 0.50 s.');
  assert.equal(format('en', 'instructor.done', { count: 4, seconds: '0.50' }), 'Re-graded 4 files in 0.50 s.');
  assert.equal(format('en', 'instructor.progress', { done: 0, count: 1 }), 'Re-graded 0 of 1 file');
  assert.match(format('en', 'instructor.problems_caption', { count: 1 }), /\(1 file\)$/);
  assert.match(format('en', 'instructor.roster_caption', { shown: 1, count: 1, max: 12 }), /^Roster \(1 of 1 learner shown/);
  assert.match(format('en', 'instructor.roster_caption', { shown: 2, count: 5, max: 12 }), /^Roster \(2 of 5 learners shown/);
  assert.equal(format('ja', 'instructor.roster_caption', { shown: 2, count: 5, max: 12 }), '名簿（5 人中 2 人を表示、満点 12）');
  assert.match(format('en', 'instructor.stats_line', { count: 1, mean: 1, median: 1, sd: 0 }), /^1 learner, mean/);
  assert.match(format('ja', 'instructor.stats_line', { count: 1, mean: 1, median: 1, sd: 0 }), /^1 人、平均/);
  assert.match(format('en', 'start.how', { count: 12 }), /^There are 12 exercises/);
  assert.match(format('ja', 'start.how', { count: 12 }), /^演習は 12 個あり/);
  assert.match(format('en', 'start.present_note', { count: 1, minutes: 5 }), /^The 5-minute lesson as 1 full-screen step for/);
  assert.match(format('en', 'start.present_note', { count: 7, minutes: 60 }), /^The 60-minute lesson as 7 full-screen steps for/);
});

test('no English string puts a number placeholder before a plural noun without plural forms', () => {
  // "{n} files" with n = 1 reads "1 files": such a string must be a plural
  // key (`_one`/`_other`) counting with {count}.
  // On the results page and the start page, where a count can be 1 (the caps
  // {max} and {min} of too_many_files and unreliable are never 1).
  const bad = [];
  for (const [key, text] of Object.entries(CATALOG.en)) {
    if (!/^(instructor|start)\./.test(key) || /_(one|other)$/.test(key)) continue;
    if (key === 'instructor.too_many_files' || key === 'instructor.unreliable') continue;
    if (/\{\w+\} (files|learners|exercises|steps|answers|attempts|runs|questions)\b/.test(text)) bad.push(`${key}: ${text}`);
  }
  assert.deepEqual(bad, []);
});

test('core errors name the control the student sees (width D, heads H), not the API field (dModel)', async () => {
  const { errorMessage } = await import('../../web/js/catalog.js');
  const range = { code: 'out_of_range_option', params: { field: 'dModel', min: '1', max: '64', value: '0' } };
  assert.equal(errorMessage('en', range), 'Width D must be from 1 to 64 (it is 0).');
  assert.equal(errorMessage('ja', range), '次元 D は 1 から 64 の範囲で指定してください（いまの値は 0）。');
  const odd = { code: 'odd_width', params: { field: 'dModel', value: '7', scheme: 'sinusoidal' } };
  assert.equal(errorMessage('en', odd), 'sinusoidal needs an even width of at least 2 (width D = 7); its values come in pairs.');
  assert.match(errorMessage('ja', odd), /幅（次元 D = 7）/);
  const oddHead = { code: 'odd_width', params: { field: 'dHead', value: '3', scheme: 'rope' } };
  assert.match(errorMessage('en', oddHead), /\(width per head D ÷ H = 3\)/);
  for (const lang of ['en', 'ja']) {
    for (const e of [range, odd, oddHead, { code: 'out_of_range_option', params: { field: 'heads', min: '1', max: '64', value: '99' } }]) {
      assert.doesNotMatch(errorMessage(lang, e), /dModel|dHead|\bheads\b(?! H)/);
    }
  }
  // A field the page has no control for is named as the core names it.
  assert.match(errorMessage('en', { code: 'out_of_range_option', params: { field: 'finetuneSteps', min: '0', max: '500', value: '900' } }), /^finetuneSteps must be/);
});
