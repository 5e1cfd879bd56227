// Issue 22, items 14 and 15: no answer printed beside its question, and a
// prediction that can only come before the result.
// - Exercise 5's swaps and exercise 10's slopes answer a question: before it
//   is answered, neither the page's text nor any aria label holds the answer;
//   after, the widget shows it. Giving up opens it and is recorded.
// - Exercise 2's page names the property its question asks for only in the
//   option itself.
// - Exercise 7: predict then train (the prediction is compared with the run),
//   or train first (the prediction closes for good, the submission records
//   that training came first, and poslab grade gives it nothing).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { root, startLab, openPage, urlFor, gotoReady, cliPath, nextFrames } from './helpers.mjs';

const dir = mkdtempSync(join(tmpdir(), 'poslab-truth-'));
const i18n = { ja: JSON.parse(readFileSync(join(root, 'web/i18n/ja.json'), 'utf8')), en: JSON.parse(readFileSync(join(root, 'web/i18n/en.json'), 'utf8')) };
let lab;
before(async () => {
  lab = await startLab();
});
after(async () => {
  await lab?.close();
  rmSync(dir, { recursive: true, force: true });
});

// Everything a reader of the page gets: its text (hidden parts too) and every aria-label.
async function pageWords(page) {
  return page.evaluate(() => {
    const main = document.querySelector('main') ?? document.body;
    const labels = [...main.querySelectorAll('[aria-label]')].map((e) => e.getAttribute('aria-label'));
    return `${main.textContent}\n${labels.join('\n')}`;
  });
}
// The fixed words of an i18n template (the longest run without a {placeholder}).
const fixedPart = (s) => s.split(/\{[^}]*\}/).sort((a, b) => b.length - a.length)[0].trim();

async function download(page, base, name) {
  await gotoReady(page, `${base}#`);
  const [d] = await Promise.all([page.waitForEvent('download'), page.click('.grading-download')]);
  const file = join(dir, `${name}.json`);
  await d.saveAs(file);
  return file;
}
function grade(file, exercise) {
  const out = spawnSync(cliPath, ['grade', '--exercises', join(root, 'exercises'), file, '--format', 'json'], { encoding: 'utf8' });
  return JSON.parse(out.stdout).rows.find((r) => r.exercise === exercise);
}

for (const lang of ['ja', 'en']) {
  const T = i18n[lang];
  test(`${lang}: exercise 5's swap results are nowhere on the page until the question is answered`, { timeout: 90000 }, async () => {
    const { page, context, problems } = await openPage(lab, 'http');
    await gotoReady(page, urlFor(lab, 'http', { ex: 'causal-mask', lang, extra: '&mask=1' }));
    // data-ready: everything the render started has landed; a couple of frames for anything drawn on the next one.
    await nextFrames(page, 2);
    const words = await pageWords(page);
    for (const key of ['swaps.changed', 'swaps.unchanged', 'swaps.stage_same', 'swaps.stage_changed']) assert.ok(!words.includes(fixedPart(T[key])), `${key} is not on the page before answering`);
    assert.equal(await page.locator('[data-widget="sw"] .swap-buttons, [data-widget="sw"] .swap-results').count(), 0);
    assert.ok(words.includes(fixedPart(T['gate.locked'])), 'the page says why the view is closed');
    // A wrong answer with attempts left: still closed.
    const q = page.locator('[data-question="which-swaps"]');
    await q.locator('input[value="s1-3"]').check();
    await q.locator('button[type="submit"]').click();
    await page.waitForSelector('[data-question="which-swaps"] .feedback.wrong');
    assert.equal(await page.getAttribute('[data-widget="sw"]', 'data-revealed'), 'false');
    await q.locator('input[value="s1-3"]').uncheck();
    await q.locator('input[value="s4-6"]').check();
    await q.locator('input[value="s3-5"]').check();
    await q.locator('button[type="submit"]').click();
    await page.waitForSelector('[data-question="which-swaps"] .feedback.correct');
    await page.locator('[data-widget="sw"] .swap-buttons button').first().click();
    await page.waitForSelector('[data-swap="s1-3"]');
    assert.ok((await pageWords(page)).includes(fixedPart(T['swaps.unchanged'])), 'after answering, the swap says what happened');
    assert.deepEqual(problems.console, []);
    await context.close();
  });

  test(`${lang}: exercise 10's slope m₁ = 0.2500 is nowhere on the page until the question is answered`, { timeout: 90000 }, async () => {
    const { page, context, problems } = await openPage(lab, 'http');
    await gotoReady(page, urlFor(lab, 'http', { ex: 'alibi', lang }));
    await nextFrames(page, 2);
    assert.doesNotMatch(await pageWords(page), /0\.25(?!\d)|0\.2500/, 'no 0.25 in the text or aria labels');
    const q = page.locator('[data-question="slope-1"]');
    await q.locator('input').fill('0.25');
    await q.locator('button[type="submit"]').click();
    await page.waitForSelector('[data-question="slope-1"] .feedback.correct');
    await page.waitForSelector('[data-widget="al"] table.vec-table tbody td');
    assert.match(await page.locator('[data-widget="al"] table.vec-table').innerText(), /0\.2500/);
    assert.deepEqual(problems.console, []);
    await context.close();
  });

  test(`${lang}: exercise 2 names the property only in the question's own option`, { timeout: 60000 }, async () => {
    const { page, context } = await openPage(lab, 'http');
    await gotoReady(page, urlFor(lab, 'http', { ex: 'formula', lang }));
    const name = lang === 'ja' ? '置換等価性' : 'Permutation equivariance';
    const text = await page.locator('main').textContent();
    assert.equal(text.split(name).length - 1, 1, `"${name}" appears once (the option), not in the summary or the widgets`);
    await context.close();
  });
}

test('giving up opens exercise 10\'s slopes; the submission records it and poslab grade gives the question nothing', { timeout: 90000 }, async () => {
  const context = await lab.browser.newContext({ acceptDownloads: true });
  const page = await context.newPage();
  const base = `${lab.bases.http}?learner=quits-slope`;
  await gotoReady(page, `${base}#ex=alibi&lang=en`);
  await page.click('[data-widget="al"] .give-up');
  await page.waitForSelector('[data-widget="al"][data-revealed="true"] table.vec-table tbody td');
  // After a reload it stays open: the give-up is kept.
  await page.reload();
  await page.waitForSelector('[data-exercise="alibi"][data-ready="true"]');
  await page.waitForSelector('[data-widget="al"][data-revealed="true"] table.vec-table tbody td');
  const file = await download(page, base, 'quits-slope');
  const entry = JSON.parse(readFileSync(file, 'utf8')).exercises.find((e) => e.id === 'alibi');
  assert.deepEqual(entry.attempts.filter((a) => a.answer?.gave_up === true).map((a) => a.question), ['slope-1']);
  const row = grade(file, 'alibi');
  assert.equal(row.status, 'graded', row.message);
  assert.equal(row.points, 0, 'a give-up is worth nothing');
  await context.close();
});

// Exercise 7 with one scheme, one seed and a few steps: quick.
const QUICK = '&schemes=none&seeds=1&steps=5';
const W = '[data-widget="train"]';

test('exercise 7, predict then train: the prediction is recorded and compared with the run', { timeout: 120000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http');
  await gotoReady(page, urlFor(lab, 'http', { ex: 'train-short-test-long', lang: 'en', extra: QUICK }));
  await page.locator('#predict-none').check();
  await page.locator('[data-question="predict"] button[type="submit"]').click();
  await page.waitForSelector('[data-question="predict"] .feedback.recorded');
  await page.click(`${W} .train-button`);
  await page.waitForSelector(`${W}[data-status="done"]`, { timeout: 90000 });
  assert.equal(await page.getAttribute(`${W} .prediction-vs-run`, 'data-prediction'), 'none');
  assert.equal(await page.locator('[data-question="predict"] .prediction-closed').count(), 0);
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('exercise 7, train first: the prediction closes before any result and stays closed; the submission shows training came first', { timeout: 150000 }, async () => {
  const context = await lab.browser.newContext({ acceptDownloads: true });
  const page = await context.newPage();
  const base = `${lab.bases.http}?learner=trains-first`;
  await gotoReady(page, `${base}#ex=train-short-test-long&lang=en${QUICK}`);
  assert.equal(await page.locator('#predict-none').isDisabled(), false, 'open before any run');
  // Closed at once, before the run has any result: the run's state is read in
  // the page at the moment the prediction closes (a 5-step run may well be
  // done by the time the test could read it from Node on a busy machine).
  await page.evaluate((w) => {
    const mo = new MutationObserver(() => {
      if (!document.querySelector('[data-question="predict"] .prediction-closed')) return;
      mo.disconnect();
      window.__closedWhile = { status: document.querySelector(w)?.getAttribute('data-status') ?? null, results: document.querySelectorAll(`${w} .extrap-table`).length };
    });
    mo.observe(document.body, { childList: true, subtree: true, attributes: true });
  }, W);
  await page.click(`${W} .train-button`);
  await page.waitForSelector('[data-question="predict"] .prediction-closed');
  const closedWhile = await (await page.waitForFunction(() => window.__closedWhile)).jsonValue();
  assert.notEqual(closedWhile.status, 'done', 'the prediction closed only once the run was done');
  assert.equal(closedWhile.results, 0, 'a result was drawn before the prediction closed');
  assert.equal(await page.locator('#predict-none').isDisabled(), true);
  assert.equal(await page.locator('[data-question="predict"] button[type="submit"]').isDisabled(), true);
  await page.waitForSelector(`${W}[data-status="done"]`, { timeout: 90000 });
  assert.equal(await page.getAttribute(`${W} .prediction-vs-run`, 'data-outcome'), 'none');
  // A reload (the run comes back from the tab's storage) and a new tab (it does not): closed both times.
  await page.reload();
  await page.waitForSelector('[data-exercise="train-short-test-long"][data-ready="true"]');
  assert.equal(await page.locator('[data-question="predict"] .prediction-closed').count(), 1);
  const other = await context.newPage();
  await gotoReady(other, `${base}#ex=train-short-test-long&lang=en${QUICK}`);
  assert.equal(await other.locator('[data-question="predict"] .prediction-closed').count(), 1, 'closed in a new tab too (the kept attempt)');
  assert.equal(await other.locator('#predict-none').isDisabled(), true);
  const file = await download(other, base, 'trains-first');
  const entry = JSON.parse(readFileSync(file, 'utf8')).exercises.find((e) => e.id === 'train-short-test-long');
  const marks = entry.attempts.filter((a) => a.question === 'predict');
  assert.deepEqual(marks.map((a) => a.answer), [{ ran_before_prediction: true }], 'one attempt, saying training came first, and no prediction');
  const row = grade(file, 'train-short-test-long');
  assert.equal(row.status, 'graded', row.message);
  assert.equal(row.points, 0, 'no prediction, no points');
  await context.close();
});
