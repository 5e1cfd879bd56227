// The grading panel on the start page, as a student meets it in Japanese:
// buttons that cannot be used look disabled; the file picker speaks the
// page's language (the browser's own control is visually hidden) and names
// the chosen file; one reset, whose confirmation says what it deletes, clears
// the answers and the path's marks.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLab, openPage, urlFor, gotoReady, answerNumeric, artifacts } from './helpers.mjs';

const dir = mkdtempSync(join(tmpdir(), 'poslab-panel-'));
let lab;
before(async () => {
  lab = await startLab();
});
after(async () => {
  await lab?.close();
  rmSync(dir, { recursive: true, force: true });
});

const look = (loc) => loc.evaluate((e) => {
  const s = getComputedStyle(e);
  return `${s.backgroundColor} ${s.color} ${s.cursor}`;
});

test('grading panel: disabled looks disabled, a localized file picker, one reset that says what it deletes', { timeout: 90000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http');
  await gotoReady(page, urlFor(lab, 'http', { ex: 'hand-calc' }));
  assert.match((await answerNumeric(page, 'dots-a', ['1', '0'])).cls, /correct/);
  await gotoReady(page, urlFor(lab, 'http', {}));
  // The path's own marks (progress.js) are not taken for an older version's data after a reload.
  await page.reload();
  await page.waitForSelector('.start[data-ready="true"]');
  assert.equal(await page.locator('.grading-warnings').count(), 0, 'no "progress from an earlier version" warning');
  const download = page.locator('.grading-download');
  assert.equal(await download.isDisabled(), true);
  const begin = page.locator('.start a.button').first();
  assert.notEqual(await look(download), await look(begin), 'a disabled button does not look like an enabled one');
  assert.match(await look(download), /not-allowed/);

  // One reset only (the start page's own "進み具合を消去する" is gone), usable before an id.
  assert.equal(await page.locator('#reset-progress').count(), 0);
  assert.equal(await page.getByRole('button', { name: '進み具合を消去する', exact: true }).count(), 0);
  assert.equal(await page.locator('.start button.grading-reset').count(), 1);
  assert.equal(await page.locator('.path .step').nth(2).getAttribute('data-status'), 'in_progress');
  let asked = '';
  page.once('dialog', (d) => {
    asked = d.message();
    d.accept();
  });
  await page.click('.grading-reset');
  await page.waitForFunction(() => document.querySelector('.path .step:nth-child(3)')?.dataset.status === 'not_started');
  assert.equal(asked, '学習者 ID なしで答えた練習の回答 1 件と、道すじの進み具合（✓ の印）を消去します。消した回答は控えとしてこのブラウザに残ります。消去しますか？');

  // The id: confirmed in a status line.
  await page.fill('#grading-learner', 'kiko');
  await page.click('.grading-learner button[type="submit"]');
  await page.waitForFunction(() => document.querySelector('.grading-status[role="status"]')?.textContent.includes('学習者 ID を kiko にしました。'));
  assert.equal(await download.isDisabled(), false);

  // The file picker: the native control is visually hidden, the label is Japanese, the chosen file is named in Japanese.
  const input = page.locator('#grading-import');
  const box = await input.boundingBox();
  assert.ok(box && box.width <= 1 && box.height <= 1, 'the browser’s own (English) control is not shown');
  assert.equal(await page.locator('label[for="grading-import"]').innerText(), '提出ファイルを読み込む');
  assert.equal(await page.locator('.grading-import-chosen').innerText(), 'ファイルはまだ選ばれていません');
  const bad = join(dir, 'notes.json');
  writeFileSync(bad, '{"hello": 1}');
  await input.setInputFiles(bad);
  await page.waitForFunction(() => document.querySelector('.grading-status')?.classList.contains('error'));
  assert.equal(await page.locator('.grading-import-chosen').innerText(), '選んだファイル：notes.json');
  // Keyboard: Tab reaches the hidden input, and its label shows the focus.
  await page.locator('#grading-learner').click();
  let outline = '';
  for (let i = 0; i < 6 && !outline; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate(() => document.activeElement?.id === 'grading-import')) outline = await page.locator('label[for="grading-import"]').evaluate((e) => getComputedStyle(e).outlineStyle);
  }
  assert.equal(outline, 'solid', 'Tab reaches the file input and its label shows the focus ring');
  await page.screenshot({ path: join(artifacts, 'http-ja-grading-panel.png'), fullPage: true });
  assert.deepEqual(problems.console, []);
  await context.close();
});
