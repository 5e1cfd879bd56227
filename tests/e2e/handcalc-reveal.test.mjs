// The hand calculation does not give its answers away: neither the start page
// nor the exercise shows x₁'s output before it is computed, and the core's
// result opens only once the steps it answers are solved — or after the
// student gives up, which the submission records.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { root, startLab, openPage, urlFor, gotoReady, answerNumeric, artifacts, cliPath } from './helpers.mjs';

const dir = mkdtempSync(join(tmpdir(), 'poslab-reveal-'));
let lab;
before(async () => {
  lab = await startLab();
});
after(async () => {
  await lab?.close();
  rmSync(dir, { recursive: true, force: true });
});

// x₁'s output, e^{0.707}/(e^{0.707}+1) = 0.670 and 0.330, worked out by hand.
const ANSWER = /0\.67|0\.33/;
const W = '[data-widget="xs"]';

for (const lang of ['ja', 'en']) {
  test(`${lang}: no answer on the start page or before answering; the result opens once the four steps are solved`, { timeout: 90000 }, async () => {
    const { page, context, problems } = await openPage(lab, 'http');
    await gotoReady(page, urlFor(lab, 'http', { lang }));
    assert.doesNotMatch(await page.locator('main').innerText(), ANSWER, 'the start page does not state the answer');
    // data-ready: every widget and question is drawn.
    await gotoReady(page, urlFor(lab, 'http', { ex: 'hand-calc', lang }));
    assert.doesNotMatch(await page.locator('main').textContent(), ANSWER, 'not even hidden in a closed <details>');
    assert.equal(await page.locator(`${W} details.reveal`).count(), 0);
    assert.equal(await page.locator(`${W} .give-up`).count(), 1);
    const steps = [
      ['dots-a', ['1', '0']],
      ['scaled-a', ['0.707', '0']],
      ['softmax-a', ['0.670', '0.330']],
      ['output-a', ['0.670', '0.330']],
      ['dots-b', ['0', '1']],
      ['scaled-b', ['0', '0.707']],
      ['softmax-b', ['0.330', '0.670']],
    ];
    for (const [id, values] of steps) assert.match((await answerNumeric(page, id, values)).cls, /correct/, id);
    assert.equal(await page.locator(`${W} details.reveal`).count(), 0, 'still locked: output-b is not answered');
    assert.match((await answerNumeric(page, 'output-b', ['0.670', '0.330'])).cls, /correct/);
    await page.locator(`${W} details.reveal`).waitFor();
    await page.locator(`${W} details.reveal summary`).click();
    assert.match(await page.locator(`${W} details.reveal`).innerText(), /0\.670/);
    assert.deepEqual(problems.console, []);
    await context.close();
  });
}

test('giving up opens the result and is recorded in the submission; poslab grade gives it nothing', { timeout: 90000 }, async () => {
  const context = await lab.browser.newContext({ acceptDownloads: true });
  const page = await context.newPage();
  const base = `${lab.bases.http}?learner=quitter`;
  await gotoReady(page, `${base}#ex=hand-calc`);
  assert.match((await answerNumeric(page, 'softmax-a', ['0.670', '0.330'])).cls, /correct/);
  await page.click(`${W} .give-up`);
  await page.locator(`${W} details.reveal[open]`).waitFor();
  await page.waitForFunction(() => /0\.670/.test(document.querySelector('[data-widget="xs"] details.reveal')?.textContent ?? ''));
  await page.screenshot({ path: join(artifacts, 'http-ja-hand-calc-gave-up.png'), fullPage: true });
  // After a reload it stays open: the give-up is kept.
  await page.reload();
  await page.waitForSelector('[data-exercise="hand-calc"][data-ready="true"]');
  assert.equal(await page.locator(`${W} details.reveal`).count(), 1);
  await gotoReady(page, `${base}#`);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('.grading-download')]);
  const file = join(dir, 'quitter.json');
  await download.saveAs(file);
  const entry = JSON.parse(readFileSync(file, 'utf8')).exercises.find((e) => e.id === 'hand-calc');
  const gaveUp = entry.attempts.filter((a) => a.answer?.gave_up === true).map((a) => a.question);
  assert.deepEqual(gaveUp, ['output-a', 'softmax-b', 'output-b'], 'one give-up per unsolved step (softmax-a was solved)');
  assert.equal(entry.claimed.points, 1);
  const out = spawnSync(cliPath, ['grade', '--exercises', join(root, 'exercises'), file, '--format', 'json'], { encoding: 'utf8' });
  const row = JSON.parse(out.stdout).rows.find((r) => r.exercise === 'hand-calc');
  assert.equal(row.status, 'graded', row.message);
  assert.equal(row.points, 1, 'a give-up is worth nothing');
  assert.equal(row.claimedDiffers, false);
  await context.close();
});
