// The grader's new message parts (issue 21) worded in ja and en on the results page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { detailsText } from '../../web/js/instructor/details.js';

test('not_rerun, nul_byte, two_boms and more_details read in ja and en', () => {
  const nr = [{ code: 'not_rerun', params: { n: 2, reasons: 'budget, too_long' } }];
  assert.equal(detailsText(nr, 'en'), "2 code attempt(s) were not re-run (budget, too_long); they score 0. A code answer earns points only from the grader's own re-run, never from results stored in the file.");
  assert.equal(detailsText(nr, 'ja'), 'コードの回答 2 件を再実行していません（budget, too_long）。これらは 0 点です。コードの得点は採点側での再実行の結果だけから決まり、ファイルに保存された結果は使いません。');
  assert.equal(detailsText([{ code: 'nul_byte', params: { byte: 812 } }], 'ja'), 'JSON ではありません：ファイルに NUL バイトが含まれています（812 バイト目）。');
  assert.match(detailsText([{ code: 'two_boms', params: {} }], 'en'), /two byte order marks/);
  assert.equal(detailsText([{ code: 'more_details', params: { n: 5 } }], 'en'), '… and 5 more.');
});
