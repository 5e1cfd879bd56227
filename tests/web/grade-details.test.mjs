// The grader's message parts ({code, params}, cpp/src/grade_submission.cpp
// and grading_*.cpp) worded in ja and en for the results page
// (web/js/instructor/details.js), and every code the core or the page gives
// has a wording in both catalogs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { hasKey } from '../../web/js/catalog.js';
import { detailsText } from '../../web/js/instructor/details.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

test('every detail code of the core and of the results page has grade_msg.<code> in ja and en', () => {
  const codes = new Set();
  const sources = fs.readdirSync(path.join(root, 'cpp/src')).filter((f) => /^grad(ing_.*|e_submission)\.cpp$/.test(f));
  assert.ok(sources.length >= 2, `found only ${sources.join(', ')}`);
  for (const f of sources.map((s) => `cpp/src/${s}`)) {
    for (const m of fs.readFileSync(path.join(root, f), 'utf8').matchAll(/\b(?:problem|detail)\(\s*"([a-z_0-9]+)"/g)) codes.add(m[1]);
  }
  for (const m of fs.readFileSync(path.join(root, 'web/js/instructor/main.js'), 'utf8').matchAll(/details: \[\{ code: '([a-z_0-9]+)'/g)) codes.add(m[1]);
  assert.ok(codes.size >= 40, `found only ${codes.size} codes: is the scan broken?`);
  for (const c of ['setting_range', 'hash_mismatch', 'not_graded', 'not_utf8', 'too_many_attempts']) assert.ok(codes.has(c), c);
  codes.delete('core_error'); // worded by err.<code>
  const missing = [];
  for (const c of codes) for (const lang of ['ja', 'en']) if (!hasKey(lang, `grade_msg.${c}`)) missing.push(`${lang}: grade_msg.${c}`);
  assert.deepEqual(missing, []);
});

test('details are worded in the page language; a part with no wording gives null (the English message is shown)', () => {
  const range = { code: 'setting_range', params: { key: 'd', min: '1', max: '64', value: '999' } };
  const notGraded = [{ code: 'not_graded', params: { more: false }, detail: range }];
  assert.equal(detailsText(notGraded, 'ja'), '採点していない回答があります：この演習の d は 1 から 64 までですが、回答では 999 でした。');
  assert.equal(detailsText(notGraded, 'en'), 'Not graded: d must be from 1 to 64 in this exercise, got 999.');
  // Two parts, a task answer's field, "and more".
  const two = [
    { code: 'seed_replaced', params: { seed: 42 } },
    { code: 'not_graded', params: { more: true }, detail: { code: 'answer_list_too_long', params: { field: 'order', n: 70, max: 64 } } },
  ];
  assert.equal(detailsText(two, 'en'), 'The file\'s seed was not this learner\'s; graded with seed 42. Not graded (this and more): order: 70 entries; this exercise allows at most 64.');
  assert.equal(detailsText(two, 'ja'), 'ファイルのシードがこの受講者のものではありませんでした。シード 42 で採点しています。 採点していない回答があります（ほかにもあります）：order：要素が 70 個あります。この演習で使えるのは 64 個までです。');
  // A JSON type named by its key.
  assert.equal(detailsText([{ code: 'entry_attempts_type', params: { entry: 2, type: 'object' } }], 'ja'), '2 番目の演習の記録の attempts がオブジェクトです。attempts はリストにしてください。');
  assert.equal(detailsText([{ code: 'entry_attempts_type', params: { entry: 2, type: 'object' } }], 'en'), 'Exercise entry 2: attempts must be a list, got an object.');
  // The core's errors, by their err.<code> wording.
  assert.equal(detailsText([{ code: 'core_error', params: { error: 'unknown_question', errorParams: { question: 'q9' } } }], 'ja'), 'この演習に問題「q9」はありません。');
  // Nothing to word: null, and the page shows the English message.
  assert.equal(detailsText([], 'ja'), null);
  assert.equal(detailsText(undefined, 'ja'), null);
  assert.equal(detailsText([{ code: 'no_such_code', params: {} }], 'ja'), null);
  assert.equal(detailsText([{ code: 'not_graded', params: {}, detail: null }], 'en'), null);
  assert.equal(detailsText([{ code: 'core_error', params: { error: 'error' } }], 'en'), null);
});
