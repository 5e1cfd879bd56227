// Choices shuffled per learner, attempts that cost credit, predictions and
// free-text explanations, on the real page in Chromium. Expected orders come
// from the native CLI (poslab variant), expected winners from the numbers in
// the page's own results table, worked out here.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { root, startLab, openPage, urlFor, gotoReady, artifacts, cliPath } from './helpers.mjs';

const require = createRequire(import.meta.url);
const yaml = require('js-yaml');
const exDir = join(root, 'exercises');
const files = readdirSync(exDir).filter((f) => f.endsWith('.yaml')).sort();
const exercises = files.map((f) => ({ file: join(exDir, f), data: yaml.load(readFileSync(join(exDir, f), 'utf8')) }));
const dir = mkdtempSync(join(tmpdir(), 'poslab-questions-'));

let lab;
before(async () => {
  lab = await startLab();
});
after(async () => {
  await lab?.close();
  rmSync(dir, { recursive: true, force: true });
});

function nativeOrders(file, learner) {
  const r = spawnSync(cliPath, ['variant', '--exercise', file, '--learner', learner], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout).optionOrders;
}
const shownOrder = (page, id) => page.locator(`[data-question="${id}"] .option`).evaluateAll((els) => els.map((e) => e.dataset.option));

async function submit(page, id) {
  const q = page.locator(`[data-question="${id}"]`);
  await q.locator('.feedback').evaluate((el) => el.replaceChildren());
  await q.locator('button[type="submit"]').click();
  await page.waitForFunction((qid) => document.querySelector(`[data-question="${qid}"] .feedback`)?.textContent.length > 0, id);
  return q.locator('.feedback').getAttribute('class');
}

test('clicking the first option everywhere no longer scores 100%; the order is the core\'s and survives a reload', { timeout: 180000 }, async () => {
  const learner = 'first-clicker';
  const { page, context, problems } = await openPage(lab, 'http');
  const base = `${lab.bases.http}?learner=${learner}`;
  let asked = 0;
  let right = 0;
  let expectedRight = 0;
  for (const { file, data } of exercises) {
    const choices = data.blocks.filter((b) => b.type === 'choice' && b.answer);
    if (!choices.length) continue;
    await gotoReady(page, `${base}#ex=${data.id}`);
    const want = nativeOrders(file, learner);
    for (const q of choices) {
      const order = await shownOrder(page, q.id);
      assert.deepEqual(order, want[q.id], `${data.id}/${q.id}: the page shows the core's order for this learner`);
      await page.locator(`[data-question="${q.id}"] .option input`).first().check();
      const cls = await submit(page, q.id);
      asked += 1;
      if (/\bcorrect\b/.test(cls)) right += 1;
      // Right only when the option shown first is the whole answer.
      if (q.answer.length === 1 && q.answer[0] === order[0]) expectedRight += 1;
    }
  }
  assert.equal(asked, 11, 'eleven fixed-answer choice questions (the twelfth, exercise 7\'s, is now a prediction)');
  assert.equal(right, expectedRight, 'the page marks exactly the questions whose first option is the answer');
  assert.ok(right < asked, `clicking the first option: ${right} of ${asked} right`);

  // The order survives a reload (and a different learner sees another one somewhere).
  const ex = exercises.find((e) => e.data.id === 'check');
  await gotoReady(page, `${base}#ex=check`);
  const before = await Promise.all(['q1-formula', 'q2-rnn', 'q4-mask', 'q5-1024'].map((id) => shownOrder(page, id)));
  await page.reload();
  await page.waitForSelector('[data-exercise="check"][data-ready="true"]');
  const afterReload = await Promise.all(['q1-formula', 'q2-rnn', 'q4-mask', 'q5-1024'].map((id) => shownOrder(page, id)));
  assert.deepEqual(afterReload, before);
  const other = nativeOrders(ex.file, 'someone-else');
  assert.notDeepEqual(['q1-formula', 'q2-rnn', 'q4-mask', 'q5-1024'].map((id) => other[id]), before, 'another learner, another order');
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('attempts left and the next attempt\'s credit, in ja and en; the form closes when none is left', { timeout: 90000 }, async () => {
  const learner = 'guesser';
  const { page, context, problems } = await openPage(lab, 'http');
  const ex = exercises.find((e) => e.data.id === 'check');
  const q = ex.data.blocks.find((b) => b.id === 'q2-rnn'); // 4 options, max_attempts 2, credit [1, 0.5]
  const wrong = q.options.map((o) => o.id).filter((id) => !q.answer.includes(id));
  await gotoReady(page, `${lab.bases.http}?learner=${learner}#ex=check`);
  const cost = page.locator('[data-question="q2-rnn"] .attempt-cost');
  assert.equal(await cost.textContent(), 'あと 2 回答えられます。次の解答で正解すると、配点の 100% が得られます。');
  await page.locator(`#q2-rnn-${wrong[0]}`).check();
  assert.match(await submit(page, 'q2-rnn'), /wrong/);
  assert.equal(await cost.textContent(), 'あと 1 回答えられます。次の解答で正解すると、配点の 50% が得られます。');
  await gotoReady(page, `${lab.bases.http}?learner=${learner}#ex=check&lang=en`);
  assert.equal(await cost.textContent(), '1 attempt left. A right answer next time earns 50% of the points.', 'the count survives a new render');
  await page.locator(`#q2-rnn-${wrong[1]}`).check();
  assert.match(await submit(page, 'q2-rnn'), /wrong/);
  assert.equal(await cost.textContent(), "You have used all 2 attempts; the answers you gave decide this question's score.");
  assert.equal(await page.locator('[data-question="q2-rnn"] button[type="submit"]').isDisabled(), true);
  assert.equal(await page.locator(`#q2-rnn-${q.answer[0]}`).isDisabled(), true);
  await page.locator('[data-question="q2-rnn"]').screenshot({ path: join(artifacts, 'questions-attempts-used.png') });
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('explanations are saved in the submission, not scored, and poslab grade shows them', { timeout: 90000 }, async () => {
  const learner = 'explainer';
  const ctx = await lab.browser.newContext({ acceptDownloads: true });
  const page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  const base = `${lab.bases.http}?learner=${learner}`;
  await gotoReady(page, `${base}#ex=check`);
  const text = '出力の行が入力と同じように並べ替わるから。softmax は行ごとに計算されます。';
  await page.locator('#q1-why-text').fill(text);
  await page.locator('[data-question="q1-why"] button[type="submit"]').click();
  await page.waitForSelector('[data-question="q1-why"] .feedback.recorded');
  assert.match(await page.locator('[data-question="q1-why"] .feedback').textContent(), /保存しました/);
  // Empty: said in place, nothing saved.
  await page.locator('[data-question="q2-why"] button[type="submit"]').click();
  await page.waitForSelector('[data-question="q2-why"] .feedback.malformed');
  // Kept across a reload.
  await page.reload();
  await page.waitForSelector('[data-exercise="check"][data-ready="true"]');
  assert.equal(await page.locator('#q1-why-text').inputValue(), text);
  await page.locator('[data-question="q1-why"]').screenshot({ path: join(artifacts, 'questions-explain.png') });
  await gotoReady(page, `${base}#`);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('.grading-download')]);
  const file = join(dir, 'explainer.json');
  await download.saveAs(file);
  const out = spawnSync(cliPath, ['grade', '--exercises', exDir, file, '--format', 'json'], { encoding: 'utf8' });
  assert.equal(out.status, 0, out.stderr);
  const row = JSON.parse(out.stdout).rows.find((r) => r.exercise === 'check');
  const why = row.questions.find((x) => x.id === 'q1-why');
  assert.equal(why.response, text);
  assert.equal(why.points, 0);
  assert.equal(why.max, 0);
  assert.equal(row.points, 0, 'nothing scored');
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('exercise 7: the prediction is recorded, never wrong; the verdict names the scheme the run measured furthest; the run comes back after leaving', { timeout: 120000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http');
  const url = urlFor(lab, 'http', { ex: 'train-short-test-long', lang: 'en', extra: '&schemes=learned,alibi,none&seeds=1,2&steps=60' });
  await gotoReady(page, url);
  // Every scheme can be predicted.
  assert.deepEqual(await page.locator('[data-question="predict"] .option').evaluateAll((els) => els.map((e) => e.dataset.option)).then((x) => x.sort()), ['alibi', 'learned', 'none', 'rope', 'sinusoidal']);
  await page.locator('#predict-alibi').check();
  await page.locator('[data-question="predict"] button[type="submit"]').click();
  await page.waitForSelector('[data-question="predict"] .feedback.recorded');
  assert.equal(await page.locator('#predict-alibi').isDisabled(), true, 'recorded once');
  assert.equal(await page.locator('[data-question="predict"] .feedback.wrong').count(), 0);
  await page.click('[data-widget="train"] .train-button');
  await page.waitForSelector('[data-widget="train"][data-status="done"]', { timeout: 90000 });

  // The expected winner, from the numbers in the page's own table: mean over seeds of "largest n solved".
  const readVerdict = async () => {
    const rows = await page.locator('[data-widget="train"] .extrap-table tbody tr').evaluateAll((trs) => trs.map((tr) => ({ scheme: tr.dataset.scheme, solved: Number(tr.querySelector('.solved').dataset.value) })));
    const means = {};
    for (const sc of ['learned', 'alibi', 'none']) {
      const v = rows.filter((r) => r.scheme === sc).map((r) => r.solved);
      assert.equal(v.length, 2);
      means[sc] = (v[0] + v[1]) / 2;
    }
    const top = Math.max(...Object.values(means));
    const furthest = Object.keys(means).filter((sc) => means[sc] === top);
    return { rows, means, furthest };
  };
  const { rows, means, furthest } = await readVerdict();
  const summary = page.locator('[data-widget="train"] .extrap-summary');
  const names = { learned: 'Learned', alibi: 'ALiBi', none: 'None (NoPE)' };
  const allTied = new Set(Object.values(means)).size === 1;
  assert.equal(await summary.locator('.verdict').getAttribute('data-furthest'), allTied ? 'learned alibi none' : furthest.join(' '));
  const verdict = await summary.locator('.verdict').textContent();
  for (const sc of furthest) assert.ok(verdict.includes(names[sc]), `${verdict} names ${sc} (means ${JSON.stringify(means)})`);
  if (!allTied && furthest.length === 1) assert.match(verdict, new RegExp(`^In this run, ${names[furthest[0]].replace(/[()]/g, '\\$&')} \\(`));
  const expectedOutcome = allTied ? 'all_tied' : !furthest.includes('alibi') ? 'other' : furthest.length === 1 ? 'furthest' : 'tied';
  assert.equal(await summary.locator('.prediction-vs-run').getAttribute('data-outcome'), expectedOutcome);
  assert.match(await summary.locator('.prediction-vs-run').textContent(), /^You predicted ALiBi/);
  assert.match(await summary.textContent(), /Press, Smith & Lewis 2022/);
  assert.match(await summary.textContent(), /Kazemnejad et al\. \(2023\)/);
  await summary.screenshot({ path: join(artifacts, 'questions-verdict.png') });
  await page.locator('[data-question="predict"]').screenshot({ path: join(artifacts, 'questions-prediction.png') });

  // Leave and come back (another exercise, then a reload): the same run and verdict, said to be kept.
  await gotoReady(page, urlFor(lab, 'http', { ex: 'rope', lang: 'en' }));
  await page.reload();
  await gotoReady(page, urlFor(lab, 'http', { ex: 'train-short-test-long', lang: 'en' }));
  await page.waitForSelector('[data-widget="train"][data-status="done"]', { timeout: 10000 });
  const again = await readVerdict();
  assert.deepEqual(again.rows, rows);
  assert.equal(await summary.locator('.verdict').textContent(), verdict);
  assert.match(await page.locator('[data-widget="train"] .extrap-outcome').textContent(), /earlier in this tab/);
  assert.deepEqual(await page.locator('[data-widget="train"] .extrap-schemes input').evaluateAll((bs) => bs.filter((b) => b.checked).map((b) => b.value)), ['learned', 'alibi', 'none']);
  assert.equal(await page.locator('#predict-alibi').isChecked(), true, 'the prediction is shown as recorded');

  // A tampered store is ignored (and removed): the page starts fresh, with no error.
  await page.evaluate(() => {
    for (const k of Object.keys(sessionStorage)) if (k.startsWith('poslab.extrap.v1:')) sessionStorage.setItem(k, k.endsWith(':last') ? 'alibi,learned,none' : '{"v":1,"options":{"schemes":["learned"],"seeds":[1],"steps":60},"results":[{"scheme":"learned","seed":1,"evaluation":{"trainMax":16,"testMax":48,"exactMatch":[2],"solvedUpTo":99,"meanExtrapolated":7}}],"losses":{}}');
  });
  await page.reload();
  await page.waitForSelector('[data-exercise="train-short-test-long"][data-ready="true"]');
  assert.equal(await page.locator('[data-widget="train"] .extrap-table').count(), 0);
  assert.equal(await page.getAttribute('[data-widget="train"]', 'data-status'), null);
  assert.deepEqual(problems.console, []);
  assert.deepEqual(problems.offOrigin, []);
  await context.close();
});
